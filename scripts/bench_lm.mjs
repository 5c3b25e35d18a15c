// bench_lm.mjs: the language model's part of `scripts/lab bench` (scripts/bench.mjs
// calls it; `scripts/lab bench --only lm` runs nothing else). For the character
// language model the lesson trains (src/experiments/language_model.cpp: lm_english with
// TrainRun's and CharLmDesc's defaults) it measures training tokens per second
//   - natively (one thread, and the batch shared among 2: --workers 2) and in
//     wasm SIMD under node (bench_attention --lm STEPS, the same node flags as
//     every other wasm measurement), all of the batched step (issue 36), whose
//     losses must be the same bits in each;
//   - in the page's training worker in headless Chromium (the language-model
//     lesson, its text fetched from site/texts/ as a learner's page does), with
//     1 worker and with 2 (the training worker and a helper, issue 36);
//   - in node's worker threads with 1 and 2 workers: the page's worker script
//     and protocol around the module built for node (tests/node/pool.mjs,
//     build/web-test's trainer_node), the lesson's 1000 steps at fast speed;
//   - for the same model written in TF.js (below), trained on the same windows
//     in the same order (the native bench writes them to DATA/lm_windows.i32),
//     on TF.js's wasm backend when it can train the model, else on its cpu
//     backend (the report says which and why);
// and the share of the measured SIMD128 ceiling a step reaches (the step's FLOP
// are counted in bench_attention.cpp, section 5b).
//
// The workers' rates are the coordinator's own time per step (msPerStep: from
// handing out the shares to applying the update, waiting for the helpers
// included; evaluations and messages to the page excluded), as the page reports it.
//
// Sections: 1 the model in TF.js, 2 training it, 3 the page and node's workers,
// 4 the run (rounds, medians), 5 the table.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';

// ---------------------------------------------------------------- 1 the model in TF.js
// The same computation as src/train/char_lm.h, batched: B windows of n tokens.
//   X = E[ids] + P                                  (B n, d)
//   per block: X += MHA(LN1(X)) (causal, H heads of d / H, no biases, W_O);
//              X += W_2 GELU(W_1 LN2(X) + b_1) + b_2 (GELU in its tanh form)
//   logits = LN_f(X) W_U + b_U; loss = mean cross-entropy over the B n targets.
// Initial values are drawn like ours (uniform +-0.1 for the tables, Glorot
// uniform for the matrices, LayerNorm 1 and 0, biases 0) but from TF.js's own
// generator, so the two models start from different numbers.
// `embedding`: 'gather' (tf.gather, whose gradient is the UnsortedSegmentSum
// kernel) or 'onehot' (oneHot(ids) E, a matrix product: the same values and
// gradient from kernels every backend has).
export function makeTfjsLm(tf, c, { embedding = 'gather', seed = 1 } = {}) {
  const { vocab: V, context: n, d_model: d, layers: L, heads: H, d_ff: F, batch: B } = c;
  const dh = d / H;
  let s = seed;
  const uniform = (shape, limit) => tf.randomUniform(shape, -limit, limit, 'float32', s++);
  const glorot = (a, b) => uniform([a, b], Math.sqrt(6 / (a + b)));
  const vars = [];
  const v = (t) => { const x = tf.variable(t); t.dispose(); vars.push(x); return x; };
  const norm = () => ({ g: v(tf.ones([d])), b: v(tf.zeros([d])) });
  const p = { embed: v(uniform([V, d], 0.1)), pos: v(uniform([n, d], 0.1)), blocks: [] };
  for (let l = 0; l < L; l++)
    p.blocks.push({ ln1: norm(), Wq: v(glorot(d, d)), Wk: v(glorot(d, d)), Wv: v(glorot(d, d)), Wo: v(glorot(d, d)),
                    ln2: norm(), W1: v(glorot(d, F)), b1: v(tf.zeros([F])), W2: v(glorot(F, d)), b2: v(tf.zeros([d])) });
  p.final = norm();
  p.WU = v(glorot(d, V));
  p.bU = v(tf.zeros([V]));
  const mask = tf.tidy(() => tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([n, n]), -1, 0)), -1e9));  // 0 on and below the diagonal
  const scale = 1 / Math.sqrt(dh);
  const gc = Math.sqrt(2 / Math.PI);

  const layerNorm = (x, { g, b }) => {
    const xc = tf.sub(x, tf.mean(x, -1, true));
    return tf.add(tf.mul(tf.mul(xc, tf.rsqrt(tf.add(tf.mean(tf.square(xc), -1, true), 1e-5))), g), b);
  };
  // x sigmoid(2 u), u = sqrt(2/pi) (x + 0.044715 x^3): GELU's tanh form, as block_layers.h computes it.
  const gelu = (x) => tf.mul(x, tf.sigmoid(tf.mul(tf.add(x, tf.mul(tf.mul(tf.mul(x, x), x), 0.044715)), 2 * gc)));
  const dense = (x, W, b) => tf.fused.matMul({ a: x, b: W, bias: b });
  const heads = (x) => tf.transpose(tf.reshape(x, [B, n, H, dh]), [0, 2, 1, 3]);  // (B, H, n, dh)

  // ids, targets: int32 (B n). Returns the scalar mean loss.
  const loss = (ids, targets) => {
    const E = embedding === 'gather' ? tf.gather(p.embed, ids) : tf.matMul(tf.oneHot(ids, V), p.embed);
    let X = tf.reshape(tf.add(tf.reshape(E, [B, n, d]), p.pos), [B * n, d]);
    for (const b of p.blocks) {
      const h = layerNorm(X, b.ln1);
      const q = heads(tf.matMul(h, b.Wq)), k = heads(tf.matMul(h, b.Wk)), val = heads(tf.matMul(h, b.Wv));
      const P = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), scale), mask));  // (B, H, n, n)
      const o = tf.reshape(tf.transpose(tf.matMul(P, val), [0, 2, 1, 3]), [B * n, d]);
      X = tf.add(X, tf.matMul(o, b.Wo));
      X = tf.add(X, dense(gelu(dense(layerNorm(X, b.ln2), b.W1, b.b1)), b.W2, b.b2));
    }
    const logits = dense(layerNorm(X, p.final), p.WU, p.bU);
    return tf.neg(tf.mean(tf.sum(tf.mul(tf.oneHot(targets, V), tf.logSoftmax(logits)), -1)));
  };
  const parameters = vars.reduce((sum, x) => sum + x.size, 0);
  return { vars, loss, parameters, dispose: () => tf.dispose([...vars, mask]) };
}

// ---------------------------------------------------------------- 2 training it
// Adam with our settings (CharLmDesc: 3e-3, beta 0.9 / 0.99, eps 1e-8) after
// clipping the global gradient norm to 1 (ours clips too). One step = one
// batch's loss, gradients, clipping and update, then the loss read back (our
// step returns it as well).
export function makeTrainer(tf, model, c) {
  const optimizer = tf.train.adam(c.learning_rate, 0.9, 0.99, 1e-8);
  const clip = 1;
  return {
    step(ids, targets) {
      const loss = tf.tidy(() => {
        const x = tf.tensor1d(ids, 'int32'), y = tf.tensor1d(targets, 'int32');
        const { value, grads } = tf.variableGrads(() => model.loss(x, y), model.vars);
        const names = Object.keys(grads);
        const norm = tf.sqrt(tf.addN(names.map((k) => tf.sum(tf.square(grads[k])))));
        const factor = tf.minimum(1, tf.div(clip, norm));
        optimizer.applyGradients(Object.fromEntries(names.map((k) => [k, tf.mul(grads[k], factor)])));
        return value;
      });
      const l = loss.dataSync()[0];
      loss.dispose();
      return l;
    },
    dispose: () => optimizer.dispose(),
  };
}

// The windows the native bench wrote: (steps + 1) batches of B windows of n + 1
// ids, as {ids, targets} per batch (each B n, row-major).
export function readLmWindows(file, c) {
  const buf = readFileSync(file);
  const all = new Int32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  const w = c.context + 1, per = c.batch * w, batches = [];
  for (let s = 0; s + per <= all.length; s += per) {
    const ids = new Int32Array(c.batch * c.context), targets = new Int32Array(c.batch * c.context);
    for (let b = 0; b < c.batch; b++) {
      ids.set(all.subarray(s + b * w, s + b * w + c.context), b * c.context);
      targets.set(all.subarray(s + b * w + 1, s + (b + 1) * w), b * c.context);
    }
    batches.push({ ids, targets });
  }
  return batches;
}

// Whether the active backend can take the gradient of tf.gather; '' or why not.
function gatherGradient(tf) {
  try {
    tf.tidy(() => tf.grad((E) => tf.sum(tf.gather(E, tf.tensor1d([0, 1, 1], 'int32'))))(tf.ones([3, 2])).dataSync());
    return '';
  } catch (e) {
    return String(e.message || e).split('\n')[0];
  }
}

// TF.js backends for the model, tried in order: wasm with tf.gather, wasm
// with the one-hot embedding when only gather's gradient is missing, then cpu
// with tf.gather. A backend that throws while training is skipped and the
// error noted. Returns the first that trains, with the notes.
async function chooseTfjsSetup(tf, c, batch) {
  const notes = [];
  const tries = [];
  if (tf.findBackend('wasm')) {
    await tf.setBackend('wasm');
    const why = gatherGradient(tf);
    if (!why) tries.push({ backend: 'wasm', embedding: 'gather' });
    else {
      notes.push(`wasm backend: tf.gather's gradient fails (${why}); the embedding is written as oneHot(ids) E, a matMul`);
      tries.push({ backend: 'wasm', embedding: 'onehot' });
    }
  }
  tries.push({ backend: 'cpu', embedding: 'gather' });
  for (const t of tries) {
    await tf.setBackend(t.backend);
    const model = makeTfjsLm(tf, c, { embedding: t.embedding });
    const trainer = makeTrainer(tf, model, c);
    try {
      const l = trainer.step(batch.ids, batch.targets);
      if (!Number.isFinite(l)) throw new Error(`loss ${l}`);
      return { ...t, notes, model, trainer, firstLoss: l };
    } catch (e) {
      notes.push(`${t.backend} backend (${t.embedding}) cannot train the model: ${String(e.message || e).split('\n')[0]}`);
      trainer.dispose();
      model.dispose();
    }
  }
  throw new Error(notes.join('; '));
}

// One round: a fresh model, one untimed warm-up step on batch 0, then `steps`
// timed steps on batches 1..steps (as bench_attention --lm times ours).
export async function tfjsLmRound(tf, c, batches, steps) {
  const before = tf.getBackend();
  const setup = await chooseTfjsSetup(tf, c, batches[0]);
  try {
    let last = setup.firstLoss;
    const t0 = performance.now();
    for (let s = 1; s <= steps; s++) {
      const b = batches[s % batches.length];
      last = setup.trainer.step(b.ids, b.targets);
    }
    const seconds = (performance.now() - t0) / 1000;
    return { backend: setup.backend, embedding: setup.embedding, notes: setup.notes, parameters: setup.model.parameters,
             steps, seconds, steps_per_second: steps / seconds, tokens_per_second: (steps * c.batch * c.context) / seconds,
             first_loss: setup.firstLoss, last_loss: last, threads: 1 };
  } finally {
    setup.trainer.dispose();
    setup.model.dispose();
    await tf.setBackend(before);
  }
}

// ---------------------------------------------------------------- 3 the page and node's workers
// The language-model lesson's first step in the page, trained in its worker at
// normal speed until `steps` steps (tests/browser/harness.mjs, measureTraining;
// the worker times its own steps: msPerStep excludes fetching the text,
// evaluations and messages), with `workers` workers (window.attnlab.workers).
// With `steps` the lesson's whole run, the last loss is compared across runs.
export async function inPageLmTraining(site, steps, workers = 1) {
  process.env.LAB_SITE = site;
  const { openLab, measureTraining, until } = await import('../tests/browser/harness.mjs');
  const lab = await openLab();
  try {
    await lab.page.evaluate((n) => window.attnlab.workers(n), workers);
    await until(async () => (await lab.page.evaluate(() => window.attnlab.state())).worker?.workers === workers,
                `the page to train with ${workers} workers`, 60000);
    const r = await measureTraining(lab.page, 'language-model', 0, (st) => st.experiment?.steps >= steps && !st.experiment?.evaluating,
                                    { ceilingMs: 600000 });
    const st = await lab.page.evaluate(() => window.attnlab.state());
    return { ...r, workers, loss: st.experiment?.runs?.[0]?.loss,
             note: `headless Chromium, ${workers === 1 ? 'the training worker' : `the training worker and ${workers - 1} helper(s)`} ` +
                   '(wasm SIMD), normal speed; lesson language-model, step 0' };
  } finally {
    await lab.close();
  }
}

// The same model in node's worker threads (tests/node/pool.mjs): `workers`
// workers train the English text's `steps` steps at fast speed.
export async function nodePoolLmTraining(moduleFile, steps, workers) {
  const { train } = await import('../tests/node/pool.mjs');
  const r = await train(moduleFile, workers, steps, 'english');
  const run = r.status.runs[0];
  return { workers, steps: run.steps, seconds: r.ms / 1000, msPerStep: run.msPerStep,
           stepsPerSecond: run.msPerStep > 0 ? 1000 / run.msPerStep : 0, loss: run.loss, heldout_loss: run.heldoutLoss };
}

// ---------------------------------------------------------------- 4 the run
// ctx: { runOurBench(build, args), builds: {native, 'wasm-simd'}, tf, data,
// rounds, steps (ours), tfjsSteps (TF.js: its steps are much slower, and the
// first tfjsSteps of the same windows are enough for a stable rate), pageSteps,
// site, browser (bool), log, median, ceilingGflops }.
export async function languageModelBench(ctx) {
  const { log, median } = ctx;
  const loadBefore = loadavg();
  const rounds = [];
  const tfRounds = [];
  let windows = null, cfg = null;
  for (let round = 0; round < ctx.rounds; round++) {
    // The batched step natively on one thread and on two (the batch shared,
    // train/thread_team.h), and in wasm SIMD under node.
    for (const [name, build, workers] of [['native', 'native', 1], ['native-2-threads', 'native', 2], ['wasm-simd', 'wasm-simd', 1]]) {
      log(`round ${round + 1}/${ctx.rounds}: language model, ${name}`);
      const args = ['--lm', String(ctx.steps), ...(workers > 1 ? ['--workers', String(workers)] : [])];
      const line = ctx.runOurBench(ctx.builds[build], args).find((x) => x.kind === 'lm_training');
      if (!line || line.error) throw new Error(`language model (${name}): ${line ? line.error : 'no result'}`);
      rounds.push({ ...line, build: name, round });
      cfg ||= line;
    }
    windows ||= readLmWindows(join(ctx.data, 'lm_windows.i32'), cfg);
    log(`round ${round + 1}/${ctx.rounds}: language model, TF.js`);
    tfRounds.push({ ...(await tfjsLmRound(ctx.tf, cfg, windows, ctx.tfjsSteps)), round });
  }
  // node's worker threads, 1 and 2 workers in alternation, median of the rounds.
  const poolRounds = { 1: [], 2: [] };
  if (ctx.trainerNode) {
    for (let round = 0; round < ctx.rounds; round++)
      for (const w of [1, 2]) {
        log(`round ${round + 1}/${ctx.rounds}: language model in node's worker threads, ${w} worker(s), ${ctx.poolSteps} steps`);
        try { poolRounds[w].push(await nodePoolLmTraining(ctx.trainerNode, ctx.poolSteps, w)); }
        catch (e) { poolRounds[w].push({ error: String(e) }); log('node worker threads failed:', String(e)); }
      }
  }
  const pages = { 1: null, 2: null };
  if (ctx.browser) {
    for (const w of [1, 2]) {
      log(`language model in the page: ${ctx.pageSteps} steps, ${w} worker(s)`);
      try { pages[w] = await inPageLmTraining(ctx.site, ctx.pageSteps, w); } catch (e) { pages[w] = { error: String(e) }; log('in-page language model failed:', String(e)); }
    }
  }
  const page = pages[1];
  const tokens = cfg.tokens_per_step, flop = cfg.flop_per_step;
  const ceiling = ctx.ceilingGflops;
  const column = (tps) => (tps ? { tokens_per_second: tps, gflops: (tps / tokens) * flop / 1e9,
                                   share_of_ceiling: ceiling ? ((tps / tokens) * flop / 1e9) / ceiling : null } : null);
  const ours = {};
  for (const name of ['native', 'native-2-threads', 'wasm-simd']) {
    const rs = rounds.filter((x) => x.build === name);
    ours[name] = { ...column(median(rs.map((x) => x.tokens_per_second))), round_tokens_per_second: rs.map((x) => x.tokens_per_second),
                   parameters: rs[0].parameters, last_loss: rs[0].last_loss,
                   loss_at_tfjs_last_step: rs[0].losses[ctx.tfjsSteps] };
  }
  const tfjs = { ...column(median(tfRounds.map((x) => x.tokens_per_second))), round_tokens_per_second: tfRounds.map((x) => x.tokens_per_second),
                 backend: tfRounds[0].backend, embedding: tfRounds[0].embedding, notes: tfRounds[0].notes,
                 parameters: tfRounds[0].parameters, first_loss: tfRounds[0].first_loss, last_loss: tfRounds[0].last_loss,
                 package: '@tensorflow/tfjs', version: ctx.tf.version.tfjs, threads: 1 };
  const pageColumn = (p) => (p && !p.error ? { ...column((p.stepsPerSecond || 0) * tokens), steps: p.step, seconds: p.seconds,
                                              ms_per_step: p.msPerStep, fps: p.fps, workers: p.workers, last_loss: p.loss, note: p.note } : p);
  const inPage = pageColumn(page), inPage2 = pageColumn(pages[2]);
  const poolColumn = (rs) => {
    const ok = rs.filter((x) => !x.error);
    if (!ok.length) return rs[0] || null;
    return { ...column(median(ok.map((x) => x.stepsPerSecond * tokens))), round_tokens_per_second: ok.map((x) => x.stepsPerSecond * tokens),
             ms_per_step: ok.map((x) => x.msPerStep), steps: ok[0].steps, last_loss: ok[0].loss, heldout_loss: ok[0].heldout_loss,
             losses_same_every_round: ok.every((x) => x.loss === ok[0].loss && x.heldout_loss === ok[0].heldout_loss) };
  };
  const pool1 = poolColumn(poolRounds[1]), pool2 = poolColumn(poolRounds[2]);
  // The same last losses, bit for bit, with 1 and 2 workers: in node's threads
  // and in the page (both train the lesson's 1000 steps of the English text).
  const sameLast = [pool1, pool2].filter((x) => x && !x.error && x.last_loss !== undefined).map((x) => x.last_loss);
  // The page's runs stop where the poll found them past pageSteps: compared only
  // when both stopped at the same step.
  const pageSame = inPage && inPage2 && !inPage.error && !inPage2.error && inPage.steps === inPage2.steps
    ? inPage.last_loss === inPage2.last_loss : null;
  return {
    model: 'lm_english', lesson: 'language-model (train_lm, corpus english)',
    config: { vocab: cfg.vocab, context: cfg.context, d_model: cfg.d_model, layers: cfg.layers, heads: cfg.heads, d_ff: cfg.d_ff,
              batch: cfg.batch, learning_rate: cfg.learning_rate, optimizer: 'Adam (0.9, 0.99, 1e-8), global gradient norm clipped to 1' },
    parameters: cfg.parameters, parameters_from_sizes: cfg.parameters_from_sizes, matmul_weights: cfg.matmul_weights,
    same_parameter_count: cfg.parameters === tfjs.parameters && cfg.parameters === cfg.parameters_from_sizes,
    tokens_per_step: tokens, flop_per_step: flop,
    flop_formula: 'batch x (6 n W + 12 L n^2 d), W = L (4 d^2 + 2 d d_ff) + d V: forward + backward matrix products, causal scores counted as the full square',
    steps: ctx.steps, tfjs_steps: ctx.tfjsSteps, page_steps: ctx.pageSteps, rounds: ctx.rounds, ceiling_gflops: ceiling,
    native: ours.native, native_2_threads: ours['native-2-threads'], wasm_simd: ours['wasm-simd'], page: inPage, tfjs,
    wasm_simd_1_worker: pool1, wasm_simd_2_workers: pool2, page_2_workers: inPage2,
    pool_steps: ctx.poolSteps,
    two_workers_vs_one: { node: pool1?.tokens_per_second && pool2?.tokens_per_second ? pool2.tokens_per_second / pool1.tokens_per_second : null,
                          page: inPage?.tokens_per_second && inPage2?.tokens_per_second ? inPage2.tokens_per_second / inPage.tokens_per_second : null },
    // Every round of every build and thread count gave the same losses, bit for
    // bit (%.9g), and 1 and 2 workers the same last loss in node and in the page.
    bit_identical: rounds.every((x) => JSON.stringify(x.losses) === JSON.stringify(rounds[0].losses)) &&
                   sameLast.every((x) => x === sameLast[0]) && pageSame !== false && (!pool1 || pool1.losses_same_every_round !== false) &&
                   (!pool2 || pool2.losses_same_every_round !== false),
    bit_identical_runs: { builds_and_threads: rounds.length, last_losses_compared: sameLast.length, page_1_and_2_workers: pageSame },
    ours_vs_tfjs: tfjs.tokens_per_second ? ours['wasm-simd'].tokens_per_second / tfjs.tokens_per_second : null,
    page_vs_tfjs: inPage?.tokens_per_second && tfjs.tokens_per_second ? inPage.tokens_per_second / tfjs.tokens_per_second : null,
    load_average_before: loadBefore, load_average_after: loadavg(),
  };
}

// ---------------------------------------------------------------- 5 the table
export function lmTable(lm) {
  const pad = (s, w) => String(s).padStart(w);
  const f0 = (x) => (x == null ? '-' : x.toFixed(0));
  const f1 = (x) => (x == null ? '-' : x.toFixed(2));
  const pct = (x) => (x == null ? '-' : `${(100 * x).toFixed(1)}%`);
  const c = lm.config;
  const out = [];
  out.push(`language model training (${lm.lesson}: V ${c.vocab}, context ${c.context}, d ${c.d_model}, ${c.layers} layers x ${c.heads} heads, ` +
           `d_ff ${c.d_ff}, batch ${c.batch}, Adam ${c.learning_rate}; ${lm.tokens_per_step} tokens and ${(lm.flop_per_step / 1e6).toFixed(1)} MFLOP per step; ` +
           `${lm.steps} timed steps (TF.js ${lm.tfjs_steps}) after 1 warm-up, median of ${lm.rounds} round(s); the page: ${lm.page_steps} steps; ` +
           `share of the wasm SIMD128 ceiling ${lm.ceiling_gflops.toFixed(1)} GFLOP/s):`);
  const W = 46;
  const th = `${'implementation'.padEnd(W)} ${pad('parameters', 10)} | ${pad('tokens/s', 9)} ${pad('steps/s', 8)} ${pad('GFLOP/s', 8)} ${pad('of ceiling', 10)}`;
  out.push(th);
  out.push('-'.repeat(th.length));
  const row = (name, params, col) => out.push(`${name.padEnd(W)} ${pad(params ?? '-', 10)} | ${pad(f0(col?.tokens_per_second), 9)} ` +
    `${pad(col?.tokens_per_second ? (col.tokens_per_second / lm.tokens_per_step).toFixed(1) : '-', 8)} ${pad(f1(col?.gflops), 8)} ${pad(pct(col?.share_of_ceiling), 10)}`);
  row('ours, native', lm.native.parameters, lm.native);
  if (lm.native_2_threads) row('ours, native, the batch on 2 threads', lm.native_2_threads.parameters, lm.native_2_threads);
  row('ours, wasm SIMD under node', lm.wasm_simd.parameters, lm.wasm_simd);
  const maybe = (name, col) => {
    if (col?.error) out.push(`${name.padEnd(W)} failed: ${col.error.split('\n')[0]}`);
    else if (col) row(name, lm.parameters, col);
  };
  maybe("ours, wasm SIMD, node's worker threads, 1", lm.wasm_simd_1_worker);
  maybe("ours, wasm SIMD, node's worker threads, 2", lm.wasm_simd_2_workers);
  maybe('ours, page worker (Chromium)', lm.page);
  maybe('ours, page, 2 workers (Chromium)', lm.page_2_workers);
  row(`TF.js ${lm.tfjs.version}, ${lm.tfjs.backend} backend${lm.tfjs.embedding === 'onehot' ? ', one-hot embedding' : ''}`, lm.tfjs.parameters, lm.tfjs);
  out.push(`ours (wasm SIMD, node) / TF.js: ${lm.ours_vs_tfjs ? lm.ours_vs_tfjs.toFixed(2) + 'x' : '-'}` +
           (lm.page_vs_tfjs ? `; page worker / TF.js: ${lm.page_vs_tfjs.toFixed(2)}x` : '') + ' (issue 36\'s aim for the page: 10x)' +
           `; parameter counts ${lm.same_parameter_count ? 'equal' : 'DIFFER'} (ours ${lm.parameters}, TF.js ${lm.tfjs.parameters})` +
           `; loss after ${lm.tfjs_steps + 1} steps: ours ${lm.wasm_simd.loss_at_tfjs_last_step.toFixed(3)}, TF.js ${lm.tfjs.last_loss.toFixed(3)} ` +
           '(the same windows from different initial values)');
  const x = (r) => (r ? `${r.toFixed(2)}x` : '-');
  out.push(`wasm SIMD under node at ${pct(lm.wasm_simd.share_of_ceiling)} of the ceiling (issue 36's target: 50% or more); ` +
           `2 workers / 1: ${x(lm.two_workers_vs_one?.node)} in node's worker threads (target: 1.7x), ${x(lm.two_workers_vs_one?.page)} in the page; ` +
           `losses ${lm.bit_identical ? 'bit-identical' : 'NOT bit-identical'} natively (1 and 2 threads) and in wasm SIMD, every round` +
           (lm.bit_identical_runs?.last_losses_compared ? `, and the last loss of the ${lm.pool_steps}-step runs with 1 and 2 workers in node` : '') +
           (lm.bit_identical_runs?.page_1_and_2_workers === true ? ', and in the page at the same step' : ''));
  for (const n of lm.tfjs.notes) out.push(`TF.js: ${n}`);
  const load = (l) => l.map((x) => x.toFixed(2)).join(' ');
  out.push(`FLOP per step = ${lm.flop_formula}`);
  out.push(`load average ${load(lm.load_average_before)} before this part, ${load(lm.load_average_after)} after (1, 5, 15 min)`);
  return out;
}
