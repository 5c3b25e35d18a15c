"""decoder_numpy.py: the "decoder" examples of docs/examples against a NumPy
transcription of docs/eval.md's formulas (section 7), written from the page,
not from the C++: token and position rows, pre-norm blocks, key/value heads
shared by consecutive query heads, rotary turns of columns (2i, 2i+1), ALiBi's
slopes, window and sink masks, the tanh GELU, the final LayerNorm and the
unembedding. Every logit of every decoder_*.expected.json must agree within
1e-5 (float32 against float64).

Run from the repository root: python3 tests/cli/decoder_numpy.py
"""
import glob
import json
import sys

import numpy as np


def layer_norm(x, gamma, beta):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)  # biased, eps 1e-5
    return (x - mean) / np.sqrt(var + 1e-5) * gamma + beta


def gelu(x):  # the tanh form
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def rope(x, d_h):
    """Each d_h-column head of x (n, heads * d_h): columns 2i and 2i+1 turned by
    the angle p * 10000^(-2i / d_h) at position p = 0, 1, ..."""
    x = x.copy()
    p = np.arange(x.shape[0])
    for h in range(x.shape[1] // d_h):
        for i in range(d_h // 2):
            angle = p * 10000.0 ** (-2 * i / d_h)
            a, b = x[:, h * d_h + 2 * i].copy(), x[:, h * d_h + 2 * i + 1].copy()
            x[:, h * d_h + 2 * i] = a * np.cos(angle) - b * np.sin(angle)
            x[:, h * d_h + 2 * i + 1] = a * np.sin(angle) + b * np.cos(angle)
    return x


def alibi_slopes(heads):
    """Press et al.'s slopes: 2^(-8k/n), k = 1..n, for n the largest power of
    two <= heads; then every other slope of 2n for the heads beyond n."""
    def powers(n):
        return [2.0 ** (-8.0 * k / n) for k in range(1, n + 1)]
    n = 1
    while n * 2 <= heads:
        n *= 2
    return powers(n) + powers(2 * n)[0::2][: heads - n]


def sinusoidal(n, d):
    pe = np.zeros((n, d))
    for i in range((d + 1) // 2):
        angle = np.arange(n) * 10000.0 ** (-2 * i / d)
        pe[:, 2 * i] = np.sin(angle)
        if 2 * i + 1 < d:
            pe[:, 2 * i + 1] = np.cos(angle)
    return pe


def logits(req, tokens):
    c = req["config"]
    heads, d = c["heads"], c["d_model"]
    kv_heads, kind = c.get("kv_heads", heads), c.get("position", "learned")
    window, sinks = c.get("window", 0), c.get("sinks", 0)
    d_h, n = d // heads, len(tokens)
    a = lambda v: np.array(v, dtype=np.float64)
    x = a(req["embed"])[tokens]
    if kind == "learned":
        x = x + a(req["pos"])[:n]
    elif kind == "sinusoidal":
        x = x + sinusoidal(n, d)
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    visible = (j <= i) & ((window == 0) | (i - j < window) | (j < sinks))
    for blk in req["blocks"]:
        z = layer_norm(x, a(blk["ln1_gamma"]), a(blk["ln1_beta"]))
        q, k, v = z @ a(blk["w_q"]), z @ a(blk["w_k"]), z @ a(blk["w_v"])
        if kind == "rope":
            q, k = rope(q, d_h), rope(k, d_h)
        out = np.zeros((n, heads * d_h))
        for t in range(heads):
            g = t // (heads // kv_heads)  # the key/value head of query head t
            s = q[:, t * d_h:(t + 1) * d_h] @ k[:, g * d_h:(g + 1) * d_h].T / np.sqrt(d_h)
            if kind == "alibi":
                s = s - alibi_slopes(heads)[t] * (i - j)
            s = np.where(visible, s, -np.inf)
            p = np.exp(s - s.max(1, keepdims=True))
            out[:, t * d_h:(t + 1) * d_h] = (p / p.sum(1, keepdims=True)) @ v[:, g * d_h:(g + 1) * d_h]
        x = x + out @ a(blk["w_o"])
        z = layer_norm(x, a(blk["ln2_gamma"]), a(blk["ln2_beta"]))
        x = x + gelu(z @ a(blk["w_1"]) + a(blk["b_1"])) @ a(blk["w_2"]) + a(blk["b_2"])
    return layer_norm(x, a(req["ln_f_gamma"]), a(req["ln_f_beta"])) @ a(req["w_u"]) + a(req["b_u"])


def main():
    failures, checked = 0, 0
    for path in sorted(glob.glob("docs/examples/decoder_*.json")):
        if path.endswith(".expected.json"):
            continue
        req = json.load(open(path))
        resp = json.load(open(path[: -len(".json")] + ".expected.json"))
        batch = isinstance(req["tokens"][0], list)
        for s, tokens in enumerate(req["tokens"] if batch else [req["tokens"]]):
            got = np.array(resp["logits"][s] if batch else resp["logits"], dtype=np.float64)
            want = logits(req, tokens)
            diff = np.abs(got - want).max()
            checked += 1
            ok = diff <= 1e-5 * max(1.0, np.abs(want).max())
            failures += not ok
            print(f"{path} [{s}]: largest difference {diff:.2e} {'ok' if ok else 'FAIL'}")
    print(f"{checked} sequences checked, {failures} failed")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
