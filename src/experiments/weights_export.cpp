// weights_export.cpp: trained models as JSON weights and NumPy programs
// (weights_export.h; the layout is documented in docs/weights.md).
//
// Sections: 1 the JSON, 2 the programs, 3 the public API.
#include "experiments/weights_export.h"

#include "base/tensor_json.h"

namespace attn {
namespace {

// ---------------------------------------------------------------- 1 the JSON
std::string weights_json(const experiment_impl::TrainedModel& m) {
  json::Value o = json::Value::object();
  o.set("format", "attention-lab-weights");
  o.set("version", 1);
  o.set("model", m.model);
  o.set("config", m.config);
  json::Value params = json::Value::object();
  for (const auto& [name, value] : m.params) params.set(name, to_json(value));
  o.set("params", std::move(params));
  o.set("shown", m.shown);
  return json::write(o);
}

// ---------------------------------------------------------------- 2 the programs
const char* const kHead =
    "import json\n"
    "import sys\n"
    "\n"
    "import numpy as np\n"
    "\n"
    "with open(sys.argv[1] if len(sys.argv) > 1 else \"weights.json\", encoding=\"utf-8\") as f:\n"
    "    saved = json.load(f)\n"
    "config, shown = saved[\"config\"], saved[\"shown\"]\n"
    "P = {name: np.array(value) for name, value in saved[\"params\"].items()}  # every trained tensor by name\n"
    "\n"
    "\n"
    "def softmax(s):\n"
    "    e = np.exp(s - np.amax(s, axis=-1, keepdims=True))\n"
    "    return e / e.sum(axis=-1, keepdims=True)\n"
    "\n"
    "\n"
    "def show(name, value):\n"
    "    print(json.dumps({\"name\": name, \"value\": np.asarray(value).tolist()}))\n"
    "\n"
    "\n";

std::string induction_program() {
  return std::string(
             "# Attention Lab: the induction model (train_induction), loaded from its exported weights.\n"
             "# Save it as program.py beside weights.json and run: python3 program.py weights.json (docs/weights.md)\n"
             "# Reproduces the page's next-token predictions on the sequence it shows.\n") +
         kHead +
         "tokens = shown[\"tokens\"]  # the sequence the page shows: A = 0, B = 1, ...\n"
         "n, d_h = len(tokens), config[\"head_size\"]\n"
         "positions = [min(i, config[\"max_length\"] - 1) for i in range(n)]\n"
         "X = P[\"embed.table\"][tokens] + P[\"pos\"][positions]  # the residual stream: token and position rows\n"
         "causal = np.tril(np.ones((n, n), dtype=bool))  # query i sees keys 0..i\n"
         "for layer in range(1, config[\"layers\"] + 1):\n"
         "    W = {w: P[f\"layer{layer}.{w}\"] for w in (\"W_Q\", \"W_K\", \"W_V\", \"W_O\")}\n"
         "    Q, K, V = X @ W[\"W_Q\"], X @ W[\"W_K\"], X @ W[\"W_V\"]\n"
         "    heads = []\n"
         "    for h in range(config[\"heads\"]):\n"
         "        c = slice(h * d_h, (h + 1) * d_h)\n"
         "        weights = softmax(np.where(causal, Q[:, c] @ K[:, c].T / np.sqrt(d_h), -np.inf))\n"
         "        heads.append(weights @ V[:, c])\n"
         "    X = X + np.concatenate(heads, axis=1) @ W[\"W_O\"]  # each layer adds its heads to the stream\n"
         "logits = X @ P[\"unembed.W\"] + P[\"unembed.b\"]  # row i scores the token after position i\n"
         "predictions = logits.argmax(axis=1)\n"
         "show(\"logits\", logits)\n"
         "show(\"predictions\", [predictions.tolist()])\n";
}

std::string translation_program() {
  return std::string(
             "# Attention Lab: the translator (train_translation), loaded from its exported weights.\n"
             "# Save it as program.py beside weights.json and run: python3 program.py weights.json (docs/weights.md)\n"
             "# Reproduces the page's greedy decoding, and its alignment, of the sentence it shows.\n") +
         kHead +
         "def sigmoid(x):\n"
         "    return 1 / (1 + np.exp(-x))\n"
         "\n"
         "\n"
         "def gru(x, h, name):\n"
         "    \"\"\"One GRU step (PyTorch's gates: r, z, n).\"\"\"\n"
         "    gi = x @ P[name + \".W_x\"] + P[name + \".b_x\"][0]\n"
         "    gh = h @ P[name + \".W_h\"] + P[name + \".b_h\"][0]\n"
         "    H = h.shape[0]\n"
         "    r = sigmoid(gi[:H] + gh[:H])\n"
         "    z = sigmoid(gi[H:2 * H] + gh[H:2 * H])\n"
         "    n = np.tanh(gi[2 * H:] + r * gh[2 * H:])\n"
         "    return (1 - z) * n + z * h\n"
         "\n"
         "\n"
         "h = np.zeros(config[\"hidden\"])\n"
         "states = []\n"
         "for word in shown[\"source_ids\"]:  # the encoder reads the source\n"
         "    h = gru(P[\"source_embed.table\"][word], h, \"encoder\")\n"
         "    states.append(h)\n"
         "Hs = np.stack(states)  # (S, H): the keys and the values\n"
         "s, word = Hs[-1], 0  # the decoder starts from the last encoder state and <bos> (id 0)\n"
         "decoded, alignment = [], []\n"
         "for step in range(len(shown[\"target\"]) + 4):\n"
         "    s = gru(P[\"target_embed.table\"][word], s, \"decoder\")  # the query of this step\n"
         "    if config[\"context\"] == \"additive\":\n"
         "        scores = np.tanh(s @ P[\"attention.W_q\"] + Hs @ P[\"attention.W_k\"]) @ P[\"attention.v\"][0]\n"
         "    elif config[\"context\"] == \"general\":\n"
         "        scores = Hs @ (s @ P[\"attention.W\"])\n"
         "    else:\n"
         "        scores = Hs @ s\n"
         "    alpha = softmax(scores)  # the alignment of this output word\n"
         "    context = alpha @ Hs\n"
         "    logits = np.concatenate([s, context]) @ P[\"out.W\"] + P[\"out.b\"][0]\n"
         "    word = int(np.argmax(logits))\n"
         "    decoded.append(word)\n"
         "    alignment.append(alpha)\n"
         "    if word == 1:  # <eos>\n"
         "        break\n"
         "show(\"decoded_ids\", [decoded])\n"
         "show(\"alignment\", np.stack(alignment))\n";
}

}  // namespace

// ---------------------------------------------------------------- 3 the public API
bool export_trained(const Experiment& e, TrainedExport* out) {
  experiment_impl::TrainedModel m;
  if (experiment_impl::translation_model(e, &m)) out->program = translation_program();
  else if (experiment_impl::induction_model(e, &m)) out->program = induction_program();
  else return false;
  out->json = weights_json(m);
  return true;
}

}  // namespace attn
