// bench.mjs: the benchmark run behind `scripts/lab bench`. In one process
// group and one run it times
//   - the project's kernels: natively, in WebAssembly with SIMD128 and in
//     WebAssembly without SIMD (src/bench/bench_attention.cpp, run under node);
//   - ONNX Runtime Web (wasm backend, 1 thread) and TF.js (wasm backend,
//     1 thread) on exactly the same inputs (written by the native bench);
//   - training steps per second of every model the lab trains, natively and in
//     both WebAssembly builds (bench_attention --training);
//   - training tokens per second of the language model's lesson, natively, in
//     wasm SIMD, in the page's worker and written in TF.js (scripts/bench_lm.mjs);
//   - the language model's options: generation with and without the key/value
//     cache, and training tokens per second per option (scripts/bench_decoder.mjs);
// checks that every output agrees with a float64 reference, measures the
// machine (clock, SIMD128 ceiling), the page's gzip size and its time to first
// frame in headless Chromium, prints a table and writes BUILD/bench/results.json.
//
//   node scripts/bench.mjs --root ROOT --build BUILD [--quick] [--rounds R] [--no-browser]
//        [--native EXE] [--wasm-simd JS] [--wasm-scalar JS] [--site DIR] [--peers DIR]
//   --peers: where the peers' package.json and node_modules are (default
//   ROOT/scripts/bench-peers, installed there by `scripts/lab bench`)
//   --quick: a tenth of the timing budget, 1 round (default 3 rounds), 10 training steps (default 100)
//   --only attention: only the machine, the attention cases, the per-pass timing and
//   training's matrix products (no training speeds, no browser); with --lengths 256,1024
//   only those n (for iterating on the kernels)
//   --only lm: only the machine and the language model's part (scripts/bench_lm.mjs),
//   written to BUILD/bench/results-lm.json (a full run puts it in results.json)
//   --only download: only what the page fetches before its first frame, in English
//   and in Chinese, written to BUILD/bench/results-download.json
//   --only decoder: only the language model's options (scripts/bench_decoder.mjs:
//   generation with and without the cache, training per option) in the builds
//   that exist, written to BUILD/bench/results-decoder.json
//
// Sections: 1 arguments and helpers, 2 the project's bench program, 3 a tiny
// ONNX encoder, 4 ONNX Runtime Web, 5 TF.js, 6 float64 reference and agreement,
// 7 bundle size and first frame, 7b the language model, 7c per-pass timing and
// training's matrix products, 8 report.
import { spawnSync } from 'node:child_process';
import v8 from 'node:v8';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { decoderBench, decoderTable } from './bench_decoder.mjs';
import { languageModelBench, lmTable } from './bench_lm.mjs';

// ---------------------------------------------------------------- 1 arguments and helpers
// V8 first runs WebAssembly from a quick baseline compile (Liftoff) and swaps in
// optimised code in the background; on a busy machine that can land in the
// middle of a measurement. Compiling everything with the optimising tier up
// front removes that effect for every implementation alike: the peers loaded
// below and our wasm builds (spawned with the same flag).
const V8_FLAGS = ['--no-liftoff'];
for (const f of V8_FLAGS) v8.setFlagsFromString(f);
const args = process.argv.slice(2);
const opt = (name, fallback) => { const i = args.indexOf(name); return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback; };
const flag = (name) => args.includes(name);
const ROOT = resolve(opt('--root', '.'));
const BUILD = resolve(opt('--build', join(ROOT, 'build')));
const QUICK = flag('--quick');
const OUT = join(BUILD, 'bench');
const DATA = join(OUT, 'data');
const PEERS = resolve(opt('--peers', join(ROOT, 'scripts', 'bench-peers')));
const require = createRequire(join(ROOT, 'package.json'));        // playwright-core (the browser tests' install)
const requirePeer = createRequire(join(PEERS, 'package.json'));   // ONNX Runtime Web, TF.js

const LENGTHS = opt('--lengths', '16,64,256,1024').split(',').map(Number), WIDTHS = [16, 64];
const ONLY_ATTENTION = opt('--only', '') === 'attention';
const BUDGET_MS = QUICK ? 30 : 300;   // per measurement, as in bench_attention.cpp
const TRAINING_STEPS = QUICK ? 10 : 100;  // timed steps per model and round
const AGREE_ATOL = 1e-4;              // max |output - float64 reference|; outputs are O(1)

const log = (...m) => console.error('[bench]', ...m);
const flopOf = (kind, n, d) => (kind === 'attention' ? 4 * n * n * d : 4 * n * n * d + 6 * n * d * d);

// Same method as bench_attention.cpp: warm-up (>= 3 calls and 100 ms), then
// samples of a batch of calls lasting >= 0.2 ms; the median sample per call.
async function timeIt(run) {
  const warmStart = performance.now();
  let warmCalls = 0;
  while (warmCalls < 3 || performance.now() - warmStart < 100) { await run(); warmCalls++; }
  const perCall = (performance.now() - warmStart) / warmCalls;
  const batch = Math.max(1, Math.floor(0.2 / Math.max(perCall, 1e-6)));
  const samples = Math.min(2001, Math.max(7, Math.floor(BUDGET_MS / (perCall * batch))));
  const times = [];
  for (let s = 0; s < samples; s++) {
    const t0 = performance.now();
    for (let b = 0; b < batch; b++) await run();
    times.push((performance.now() - t0) / batch);
  }
  times.sort((a, b) => a - b);
  return { median_ms: times[times.length >> 1], min_ms: times[0], samples, batch };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };

// ---------------------------------------------------------------- 2 the project's bench program
const BUILDS = [
  { name: 'native', cmd: opt('--native', join(BUILD, 'native-release', 'src', 'bench', 'bench_attention')), node: false },
  { name: 'wasm-simd', cmd: opt('--wasm-simd', join(BUILD, 'web', 'src', 'bench', 'bench_attention.js')), node: true },
  { name: 'wasm-scalar', cmd: opt('--wasm-scalar', join(BUILD, 'web-nosimd', 'src', 'bench', 'bench_attention.js')), node: true },
];

function runOurBench(b, extra) {
  if (!existsSync(b.cmd)) throw new Error(`${b.name}: ${b.cmd} is missing (build it first: scripts/lab bench builds it)`);
  mkdirSync(join(DATA, b.name), { recursive: true });
  const benchArgs = ['--out', DATA, ...(QUICK ? ['--quick'] : []), ...extra];
  const [exe, argv] = b.node ? [process.execPath, ['--no-experimental-fetch', ...V8_FLAGS, b.cmd, ...benchArgs]] : [b.cmd, benchArgs];
  const r = spawnSync(exe, argv, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${b.name} exited with ${r.status}: ${r.stderr}`);
  return r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
}

function readInputs(n, d) {
  const buf = readFileSync(join(DATA, `inputs_n${n}_d${d}.f32`));
  const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  const nd = n * d, dd = d * d;
  return {
    Q: all.slice(0, nd), K: all.slice(nd, 2 * nd), V: all.slice(2 * nd, 3 * nd), X: all.slice(3 * nd, 4 * nd),
    W_Q: all.slice(4 * nd, 4 * nd + dd), W_K: all.slice(4 * nd + dd, 4 * nd + 2 * dd), W_V: all.slice(4 * nd + 2 * dd, 4 * nd + 3 * dd),
  };
}

function readOutput(build, kind, n, d) {
  const file = join(DATA, build, `${kind}_n${n}_d${d}.f32`);
  if (!existsSync(file)) return null;
  const buf = readFileSync(file);
  return new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
}

// ---------------------------------------------------------------- 3 a tiny ONNX encoder
// ONNX models are protobuf messages; attention needs only a handful of fields,
// written here by field number (onnx.proto3: ModelProto, GraphProto, NodeProto,
// AttributeProto, TensorProto, ValueInfoProto, TypeProto).
class Proto {
  constructor() { this.bytes = []; }
  varint(v) {
    let x = BigInt.asUintN(64, BigInt(v));  // negative int64 as two's complement
    while (x >= 0x80n) { this.bytes.push(Number(x & 0x7fn) | 0x80); x >>= 7n; }
    this.bytes.push(Number(x));
    return this;
  }
  int(field, v) { return this.varint(field * 8).varint(v); }  // wire type 0
  raw(field, u8) { this.varint(field * 8 + 2).varint(u8.length); for (const b of u8) this.bytes.push(b); return this; }
  str(field, s) { return this.raw(field, Buffer.from(s, 'utf8')); }
  msg(field, m) { return this.raw(field, m.bytes); }
}
const FLOAT = 1, ATTR_INT = 2, ATTR_INTS = 7;

function valueInfo(name, dims) {
  const shape = new Proto();
  for (const d of dims) shape.msg(1, new Proto().int(1, d));                       // TensorShapeProto.dim.dim_value
  const tensorType = new Proto().int(1, FLOAT).msg(2, shape);                       // TypeProto.Tensor
  return new Proto().str(1, name).msg(2, new Proto().msg(1, tensorType));           // ValueInfoProto
}
function node(op, inputs, outputs, attributes = []) {
  const p = new Proto();
  for (const i of inputs) p.str(1, i);
  for (const o of outputs) p.str(2, o);
  p.str(3, `${op}_${outputs[0]}`).str(4, op);
  for (const a of attributes) p.msg(5, a);
  return p;
}
const intAttr = (name, v) => new Proto().str(1, name).int(3, v).int(20, ATTR_INT);
const intsAttr = (name, vs) => { const p = new Proto().str(1, name); for (const v of vs) p.int(8, v); return p.int(20, ATTR_INTS); };

// softmax(Q K^T * scale) V, optionally preceded by the three projections of X.
function attentionModel(kind, n, d) {
  const g = new Proto();
  if (kind === 'self_attention')
    for (const [w, out] of [['W_Q', 'Q'], ['W_K', 'K'], ['W_V', 'V']]) g.msg(1, node('MatMul', ['X', w], [out]));
  g.msg(1, node('Transpose', ['K'], ['Kt'], [intsAttr('perm', [1, 0])]));
  g.msg(1, node('MatMul', ['Q', 'Kt'], ['S']));
  g.msg(1, node('Mul', ['S', 'scale'], ['S_scaled']));
  g.msg(1, node('Softmax', ['S_scaled'], ['P'], [intAttr('axis', -1)]));
  g.msg(1, node('MatMul', ['P', 'V'], ['O']));
  g.str(2, kind);
  const scale = Buffer.alloc(4);
  scale.writeFloatLE(1 / Math.sqrt(d));
  g.msg(5, new Proto().int(2, FLOAT).str(8, 'scale').raw(9, scale));               // scalar initializer
  const inputs = kind === 'self_attention' ? [['X', [n, d]], ['W_Q', [d, d]], ['W_K', [d, d]], ['W_V', [d, d]]]
                                           : [['Q', [n, d]], ['K', [n, d]], ['V', [n, d]]];
  for (const [name, dims] of inputs) g.msg(11, valueInfo(name, dims));
  g.msg(12, valueInfo('O', [n, d]));
  const opset = new Proto().str(1, '').int(2, 17);
  return Uint8Array.from(new Proto().int(1, 8).str(2, 'attnlab-bench').msg(7, g).msg(8, opset).bytes);
}

// ---------------------------------------------------------------- 4 ONNX Runtime Web
function setupOrt() {
  const ort = requirePeer('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  const version = JSON.parse(readFileSync(join(PEERS, 'node_modules', 'onnxruntime-web', 'package.json'), 'utf8')).version;
  return { ort, info: { package: 'onnxruntime-web', version, backend: 'wasm', threads: 1, graph_optimization: 'all' } };
}

async function ortCase({ ort }, n, d) {
  const inp = readInputs(n, d);
  const results = [];
  for (const kind of ['attention', 'self_attention']) {
    const session = await ort.InferenceSession.create(attentionModel(kind, n, d),
      { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
    const t = (name, dims) => new ort.Tensor('float32', inp[name], dims);
    const feeds = kind === 'attention' ? { Q: t('Q', [n, d]), K: t('K', [n, d]), V: t('V', [n, d]) }
      : { X: t('X', [n, d]), W_Q: t('W_Q', [d, d]), W_K: t('W_K', [d, d]), W_V: t('W_V', [d, d]) };
    const output = (await session.run(feeds)).O.data;
    const timing = await timeIt(() => session.run(feeds));
    results.push({ impl: 'ort', kind, n, d, ...timing, output });
    await session.release();
  }
  return results;
}

// ---------------------------------------------------------------- 5 TF.js
async function setupTfjs() {
  const tf = requirePeer('@tensorflow/tfjs');
  const wasm = requirePeer('@tensorflow/tfjs-backend-wasm');
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  wasm.setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  return { tf, info: { package: '@tensorflow/tfjs', version: tf.version.tfjs, backend: tf.getBackend(), threads: 1,
                       simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT') } };
}

async function tfjsCase({ tf }, n, d) {
  const inp = readInputs(n, d);
  const T = {};
  for (const [name, dims] of [['Q', [n, d]], ['K', [n, d]], ['V', [n, d]], ['X', [n, d]], ['W_Q', [d, d]], ['W_K', [d, d]], ['W_V', [d, d]]])
    T[name] = tf.tensor2d(inp[name], dims);
  const scale = tf.scalar(1 / Math.sqrt(d));
  const attend = (Q, K, V) => tf.matMul(tf.softmax(tf.mul(tf.matMul(Q, K, false, true), scale)), V);
  const runs = {
    attention: () => tf.tidy(() => attend(T.Q, T.K, T.V)),
    self_attention: () => tf.tidy(() => attend(tf.matMul(T.X, T.W_Q), tf.matMul(T.X, T.W_K), tf.matMul(T.X, T.W_V))),
  };
  const results = [];
  for (const kind of ['attention', 'self_attention']) {
    const first = runs[kind]();
    const output = first.dataSync().slice();
    first.dispose();
    const timing = await timeIt(() => runs[kind]().dispose());
    results.push({ impl: 'tfjs', kind, n, d, ...timing, output });
  }
  tf.dispose([...Object.values(T), scale]);
  return results;
}

// ---------------------------------------------------------------- 6 float64 reference and agreement
function matmul64(A, B, m, k, n, transposeB = false) {  // A (m, k), B (k, n) or (n, k) when transposed
  const C = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      if (transposeB) for (let p = 0; p < k; p++) s += A[i * k + p] * B[j * k + p];
      else for (let p = 0; p < k; p++) s += A[i * k + p] * B[p * n + j];
      C[i * n + j] = s;
    }
  return C;
}
function attention64(Q, K, V, n, d) {
  const S = matmul64(Q, K, n, d, n, true);
  const scale = 1 / Math.sqrt(d);
  for (let i = 0; i < n; i++) {
    let max = -Infinity, sum = 0;
    for (let j = 0; j < n; j++) max = Math.max(max, S[i * n + j] * scale);
    for (let j = 0; j < n; j++) sum += (S[i * n + j] = Math.exp(S[i * n + j] * scale - max));
    for (let j = 0; j < n; j++) S[i * n + j] /= sum;
  }
  return matmul64(S, V, n, n, d);
}
function reference64(kind, inp, n, d) {
  if (kind === 'attention') return attention64(inp.Q, inp.K, inp.V, n, d);
  return attention64(matmul64(inp.X, inp.W_Q, n, d, d), matmul64(inp.X, inp.W_K, n, d, d), matmul64(inp.X, inp.W_V, n, d, d), n, d);
}
function maxAbsDiff(a, ref) {
  if (!a || a.length !== ref.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < ref.length; i++) { const e = Math.abs(a[i] - ref[i]); if (!(e <= worst)) worst = Number.isNaN(e) ? Infinity : e; }
  return worst;
}

// ---------------------------------------------------------------- 7 bundle size and first frame
const BUNDLE = ['index.html', 'index.js', 'index.wasm', 'index.data', 'lab.js', 'lab.css', 'mirror.js'];
const WORKER_FILES = ['trainer-worker.js', 'trainer.js', 'trainer.wasm'];  // loaded after the first frame
function bundleSize(site, names = BUNDLE) {
  const files = names.map((f) => {
    const p = join(site, f);
    if (!existsSync(p)) return { file: f, missing: true, bytes: 0, gzip_bytes: 0 };
    const body = readFileSync(p);
    return { file: f, bytes: body.length, gzip_bytes: gzipSync(body, { level: 9 }).length };
  });
  return { files, bytes: files.reduce((s, f) => s + f.bytes, 0), gzip_bytes: files.reduce((s, f) => s + f.gzip_bytes, 0),
           missing: files.filter((f) => f.missing).map((f) => f.file) };
}

// What the page really fetches before its first frame (window.attnlab.ready), from
// the network, in a fresh headless Chromium: every request the page and its
// workers made and finished before then, whatever its name, with its body's size
// raw and gzipped (level 9: what a host that compresses would send; the test
// server sends bodies as they are). `lang` is the learner's language, set in the
// saved state before the page loads, as a returning Chinese learner has it.
async function firstDownload(site, lang) {
  process.env.LAB_SITE = site;
  const { chromiumArgs, startServer } = await import('../tests/browser/harness.mjs');
  const { chromium } = require('playwright-core');
  const server = await startServer();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
  const ready = (page) => page.waitForFunction(() => {
    const s = window.attnlab && window.attnlab.state ? window.attnlab.state() : null;
    return s && s.frames >= 1;
  }, null, { timeout: 60000 });
  try {
    // A first visit only to leave the learner's language in the saved state, as the
    // page itself saves it; the measured visit is a new context (empty cache, no
    // service worker) that carries that state alone.
    const setup = await browser.newContext(FIRST_FRAME_PROFILES.desktop);
    const first = await setup.newPage();
    await first.goto(server.url);
    await ready(first);
    await first.evaluate((l) => window.attnlab.setLanguage(l), lang);
    // The lab saves within a few frames of a change.
    await first.waitForFunction((l) => (localStorage.getItem('attnlab.state') || '').includes(`"lang":"${l}"`), lang,
                                { timeout: 30000 });
    const storageState = await setup.storageState();
    await setup.close();

    const context = await browser.newContext({ ...FIRST_FRAME_PROFILES.desktop, storageState });
    const finished = [];
    context.on('requestfinished', (req) => finished.push(req));
    const page = await context.newPage();
    await page.addInitScript(() => {  // the moment attnlab.ready resolves (the first frame), on the epoch clock
      let value;
      Object.defineProperty(window, 'attnlab', {
        configurable: true, get: () => value,
        set: (v) => { value = v; v?.ready?.then(() => { window.__labReadyAt = performance.timeOrigin + performance.now(); }, () => {}); },
      });
    });
    await page.goto(server.url);
    await page.waitForFunction(() => window.__labReadyAt !== undefined, null, { timeout: 60000 });
    const readyAt = await page.evaluate(() => window.__labReadyAt);
    await page.waitForTimeout(2000);  // requests started before then have finished
    const shown = await page.evaluate(() => window.attnlab.state().lang);
    const files = [];
    for (const req of finished) {
      if (req.timing().startTime > readyAt) continue;  // started after the first frame
      const resp = await req.response();
      if (!resp) continue;
      let body;
      try { body = await resp.body(); } catch { continue; }  // e.g. a redirect has none
      const url = new URL(req.url());
      files.push({ file: url.pathname + url.search, status: resp.status(), bytes: body.length,
                   gzip_bytes: gzipSync(body, { level: 9 }).length });
    }
    files.sort((a, b) => b.gzip_bytes - a.gzip_bytes);
    return { lang, shown_lang: shown, files, bytes: files.reduce((s, f) => s + f.bytes, 0),
             gzip_bytes: files.reduce((s, f) => s + f.gzip_bytes, 0) };
  } finally {
    await browser.close();
    server.stop();
  }
}

function downloadLines(d) {
  if (d.error) return [`fetched before the first frame (${d.lang}): failed (${d.error})`];
  return [`fetched before the first frame (${d.lang}${d.shown_lang === d.lang ? '' : `, but the page showed ${d.shown_lang}`}): ` +
          `${(d.gzip_bytes / 1e6).toFixed(3)} MB gzip (${(d.bytes / 1e6).toFixed(3)} MB raw) in ${d.files.length} requests: ` +
          d.files.map((f) => `${f.file} ${(f.gzip_bytes / 1024).toFixed(1)} KiB`).join(', ')];
}

// `--only download`: what the page fetches before its first frame, in both languages.
async function downloadOnly() {
  mkdirSync(DATA, { recursive: true });
  const site = resolve(opt('--site', join(BUILD, 'web', 'site')));
  const out = [];
  for (const lang of ['en', 'zh']) {
    let d;
    try { d = await firstDownload(site, lang); } catch (e) { d = { lang, error: String(e) }; }
    out.push(d);
    console.log(downloadLines(d).join('\n'));
  }
  for (const d of out)
    if (!d.error) console.log(`${d.gzip_bytes <= FIRST_DOWNLOAD_LIMIT ? 'MET    ' : 'NOT MET'}  first download <= ${FIRST_DOWNLOAD_LIMIT / 1e6} MB gzip (${d.lang}): ${(d.gzip_bytes / 1e6).toFixed(3)}`);
  writeFileSync(join(DATA, 'results-download.json'), JSON.stringify({ started: new Date().toISOString(), first_download: out }, null, 1));
  log(`wrote ${join(DATA, 'results-download.json')}`);
}
const FIRST_DOWNLOAD_LIMIT = 1.35e6;

// Time from navigation start to the lab's first drawn frame (window.attnlab.ready
// resolves in the frame callback), in a fresh headless Chromium each time.
// Profiles: the desktop (1280 x 800) and a phone (390 x 844 at 3x, touch on).
const FIRST_FRAME_PROFILES = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true },
};
async function firstFrame(site, profile = 'desktop', runs = 3) {
  process.env.LAB_SITE = site;
  const { chromiumArgs, startServer } = await import('../tests/browser/harness.mjs');
  const { chromium } = require('playwright-core');
  const server = await startServer();
  const samples = [];
  try {
    for (let r = 0; r < runs; r++) {
      // The first frame as measured since issue 5: the page composited through
      // SwiftShader's GL, as a browser with a GPU composites it (the tests composite
      // in software, which is quicker on a CPU).
      const args = chromiumArgs.filter((a) => a !== '--disable-gpu-compositing');
      const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args });
      try {
        const page = await (await browser.newContext(FIRST_FRAME_PROFILES[profile])).newPage();
        await page.addInitScript(() => {  // note when attnlab.ready resolves, before lab.js runs
          let value;
          Object.defineProperty(window, 'attnlab', {
            configurable: true, get: () => value,
            set: (v) => { value = v; v?.ready?.then(() => { window.__labReadyAt = performance.now(); }, () => {}); },
          });
        });
        await page.goto(server.url);
        await page.waitForFunction(() => window.__labReadyAt !== undefined, null, { timeout: 60000 });
        samples.push(await page.evaluate(() => {
          const nav = performance.getEntriesByType('navigation')[0];
          return { first_frame_ms: window.__labReadyAt, dom_content_loaded_ms: nav.domContentLoadedEventEnd, load_ms: nav.loadEventEnd };
        }));
      } finally {
        await browser.close();
      }
    }
  } finally {
    server.stop();
  }
  return { runs: samples, median_first_frame_ms: median(samples.map((s) => s.first_frame_ms)),
           note: `${profile} profile, headless Chromium, SwiftShader WebGL2, cold cache, served from 127.0.0.1` };
}

// The translator to 95% held-out token accuracy and the induction model to its
// phase, trained in the page's worker at normal speed (tests/browser/harness.mjs,
// measureTraining), with the frame rate of the idle step beside the one while
// training.
async function inPageTraining(site) {
  process.env.LAB_SITE = site;
  const { openLab, measureTraining, frames, state } = await import('../tests/browser/harness.mjs');
  const lab = await openLab();
  try {
    const idle = async (lesson, step) => {
      await lab.page.evaluate(([l, s]) => window.attnlab.goto(l, s), [lesson, step]);
      const a = await state(lab.page), t0 = Date.now();
      await frames(lab.page, 60);
      return ((await state(lab.page)).frames - a.frames) / ((Date.now() - t0) / 1000);
    };
    const models = [];
    for (const [name, model, lesson, goal, done] of [
      ['translator', 'translation_additive', 'encoder-decoder', '95% held-out token accuracy', (s) => s.experiment.runs[0].accuracy >= 0.95],
      ['induction model', 'induction', 'induction-heads', 'the induction phase', (s) => s.experiment.inductionPhaseAt > 0]]) {
      const idleFps = await idle(lesson, 0);
      models.push({ name, model, goal, idleFps, ...(await measureTraining(lab.page, lesson, 0, done)) });
    }
    return { models, note: 'headless Chromium, SwiftShader WebGL2, normal speed, worker loaded before Start' };
  } finally {
    await lab.close();
  }
}

// ---------------------------------------------------------------- 7b the language model
// Training tokens per second of the lesson's language model: ours natively, in
// wasm SIMD under node and in the page's worker, and the same model in TF.js
// (scripts/bench_lm.mjs). ceiling: the wasm SIMD128 ceiling measured this run.
const LM_STEPS = QUICK ? 10 : 100;        // timed steps per round (natively, under node)
const LM_TFJS_STEPS = QUICK ? 3 : 20;     // timed steps per round in TF.js
const LM_PAGE_STEPS = QUICK ? 20 : 200;   // steps trained in the page
const LM_POOL_STEPS = QUICK ? 100 : 1000; // steps in node's worker threads (the lesson's whole run)
function languageModel(tf, ceilingGflops, rounds) {
  return languageModelBench({
    runOurBench, builds: { native: BUILDS[0], 'wasm-simd': BUILDS[1] }, tf, data: DATA, rounds, steps: LM_STEPS,
    tfjsSteps: LM_TFJS_STEPS, pageSteps: LM_PAGE_STEPS, poolSteps: LM_POOL_STEPS,
    trainerNode: [join(BUILD, 'web-test', 'tests', 'trainer_node.js')].find((f) => existsSync(f)), site: resolve(opt('--site', join(BUILD, 'web', 'site'))), browser: !flag('--no-browser'),
    log, median, ceilingGflops,
  });
}

// `--only lm`: the machine, then the language model's part alone.
async function languageModelOnly() {
  mkdirSync(DATA, { recursive: true });
  const started = new Date().toISOString();
  log('measuring the machine (clock, SIMD128 ceiling)');
  const machine = Object.fromEntries(BUILDS.slice(0, 2).map((b) => [b.name, runOurBench(b, ['--machine-only']).find((x) => x.kind === 'machine')]));
  const ceiling = machine['wasm-simd']?.simd128_peak_gflops || 0;
  const tfCtx = await setupTfjs();
  const lm = await languageModel(tfCtx.tf, ceiling, Math.max(1, Number(opt('--rounds', QUICK ? 1 : 3))));
  const cpu = (/model name\s*:\s*(.*)/.exec(existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '') || [])[1] || cpus()[0]?.model;
  console.log([`Attention Lab benchmarks (language model only)  ${started}  ${cpu}, ${cpus().length} cores, node ${process.version}`,
               `SIMD128 ceiling measured ${ceiling.toFixed(1)} GFLOP/s in wasm`, '',
               ...lmTable(lm)].join('\n'));
  writeFileSync(join(OUT, 'results-lm.json'), JSON.stringify({ started, quick: QUICK, v8_flags: V8_FLAGS, machine, language_model: lm }, null, 1));
  log(`wrote ${join(OUT, 'results-lm.json')}`);
}

// ---------------------------------------------------------------- 7c per-pass timing and training's matrix products
// The attention kernel's passes one by one (bench_attention --passes): each run
// switches on one more pass, so a pass costs the difference between two
// consecutive lines (the first, "checks", is the finiteness checks alone).
const PASS_SHAPES = [[256, 64], [1024, 64]];
const PASS_STEPS = [  // bench_attention's step names, and the pass each adds
  ['checks', 'finiteness checks (inputs, output)'], ['pack', 'pack: Q scaled, K^T panels, V padded'],
  ['pack+scores', 'scores Q K^T (+ transposes, block maxima)'], ['pack+scores+softmax', 'softmax: exp2, sums'],
  ['pack+scores+softmax+weighted_sum', 'weighted sum P V'], ['pack+scores+softmax+weighted_sum+normalise', 'normalise O / l'],
  ['all', '(all passes, checks included)']];
function passTimings(rounds) {
  const rows = [];
  for (const b of BUILDS.slice(0, 2))
    for (const [n, d] of PASS_SHAPES) {
      const runs = [];
      for (let round = 0; round < rounds; round++) runs.push(...runOurBench(b, ['--passes', String(n), String(d)]).filter((x) => x.kind === 'passes'));
      const cumulative = PASS_STEPS.map(([step]) => median(runs.filter((x) => x.passes === step).map((x) => x.median_ms)));
      const ms = cumulative.map((c, i) => (i === 0 || i === PASS_STEPS.length - 1 ? c : i === 1 ? c : c - cumulative[i - 1]));
      rows.push({ build: b.name, n, d, steps: PASS_STEPS.map(([step, what], i) => ({ step, what, cumulative_ms: cumulative[i], pass_ms: ms[i] })) });
    }
  return rows;
}
function passTable(rows, cpu) {
  const out = [`per-pass time of the attention kernel, median ms (a pass = the difference between two cumulative runs; ${cpu}):`];
  const head = `${'pass'.padEnd(40)} | ${rows.map((r) => pad(`${r.build} ${r.n}x${r.d}`, 18)).join(' ')}`;
  out.push(head, '-'.repeat(head.length));
  PASS_STEPS.forEach(([, what], i) => {
    out.push(`${what.padEnd(40)} | ${rows.map((r) => { const s = r.steps[i], tot = r.steps[PASS_STEPS.length - 1].cumulative_ms;
      return pad(i === PASS_STEPS.length - 1 ? fmtMs(s.pass_ms) : `${fmtMs(s.pass_ms)} ${((100 * s.pass_ms) / tot).toFixed(0).padStart(3)}%`, 18); }).join(' ')}`);
  });
  return out;
}

// Training's products at the language model's shapes (bench_attention
// --products): GFLOP/s of src/train/kernels.h and of Eigen in the same build;
// in wasm SIMD also the share of the SIMD128 ceiling.
function trainingProducts(rounds) {
  const all = [];
  for (const b of BUILDS)
    for (let round = 0; round < rounds; round++) all.push(...runOurBench(b, ['--products']).filter((x) => x.kind === 'product'));
  const keys = [...new Set(all.map((x) => `${x.layer}|${x.op}`))];
  return keys.map((key) => {
    const [layer, op] = key.split('|');
    const mine = all.filter((x) => x.layer === layer && x.op === op);
    const row = { layer, op, n: mine[0].n, k: mine[0].k, m: mine[0].m, flop: mine[0].flop, gflops: {} };
    for (const b of BUILDS)
      for (const impl of ['train', 'eigen']) {
        const runs = mine.filter((x) => x.build === b.name && x.impl === impl);
        if (runs.length) row.gflops[`${b.name}_${impl}`] = row.flop / (median(runs.map((x) => x.median_ms)) * 1e6);
      }
    return row;
  });
}
function productTable(rows, ceiling, cpu) {
  const out = [`training's matrix products at the language model's shapes (one window of n rows; X (n, k), W (k, m)), GFLOP/s, median of rounds;`,
               `(% = share of the wasm SIMD128 ceiling, ${ceiling.toFixed(1)} GFLOP/s; ${cpu}):`];
  const head = `${'product'.padEnd(48)} | ${pad('wasm SIMD train', 16)} ${pad('Eigen', 12)} | ${pad('wasm scalar', 11)} ${pad('Eigen', 6)} | ${pad('native', 7)} ${pad('Eigen', 6)}`;
  out.push(head, '-'.repeat(head.length));
  const g = (x) => (x == null ? '-' : x.toFixed(1));
  const share = (x) => (x == null || !ceiling ? '' : ` ${((100 * x) / ceiling).toFixed(0).padStart(3)}%`);
  for (const r of rows)
    out.push(`${`${r.op} ${r.layer} ${r.n}x${r.k}x${r.m}`.padEnd(48)} | ${pad(g(r.gflops['wasm-simd_train']) + share(r.gflops['wasm-simd_train']), 16)} ` +
             `${pad(g(r.gflops['wasm-simd_eigen']) + share(r.gflops['wasm-simd_eigen']), 12)} | ${pad(g(r.gflops['wasm-scalar_train']), 11)} ` +
             `${pad(g(r.gflops['wasm-scalar_eigen']), 6)} | ${pad(g(r.gflops.native_train), 7)} ${pad(g(r.gflops.native_eigen), 6)}`);
  return out;
}

// ---------------------------------------------------------------- 8 report
const fmtMs = (ms) => (ms == null ? '-' : ms < 0.1 ? ms.toFixed(4) : ms < 10 ? ms.toFixed(3) : ms.toFixed(1));
const fmtX = (x) => (x == null || !isFinite(x) ? '-' : x.toFixed(2) + 'x');
const pad = (s, w) => String(s).padStart(w);

// The decoder's options in every build that exists (bench_decoder.mjs).
const DECODER_STEPS = QUICK ? 5 : 30;
function decoderPart(rounds) {
  return decoderBench({ runOurBench, builds: BUILDS.filter((b) => existsSync(b.cmd)), rounds, steps: DECODER_STEPS, log, median });
}

// `--only decoder`: the decoder's options alone.
function decoderOnly() {
  mkdirSync(DATA, { recursive: true });
  const started = new Date().toISOString();
  const decoder = decoderPart(Math.max(1, Number(opt('--rounds', QUICK ? 1 : 3))));
  const cpu = (/model name\s*:\s*(.*)/.exec(existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '') || [])[1] || cpus()[0]?.model;
  console.log([`Attention Lab benchmarks (the decoder's options only)  ${started}  ${cpu}, ${cpus().length} cores, node ${process.version}, ` +
               `load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`, '', ...decoderTable(decoder)].join('\n'));
  writeFileSync(join(OUT, 'results-decoder.json'), JSON.stringify({ started, quick: QUICK, v8_flags: V8_FLAGS, decoder }, null, 1));
  log(`wrote ${join(OUT, 'results-decoder.json')}`);
}

async function main() {
  if (opt('--only', '') === 'decoder') return decoderOnly();
  if (opt('--only', '') === 'lm') return languageModelOnly();
  if (opt('--only', '') === 'download') return downloadOnly();
  mkdirSync(DATA, { recursive: true });
  const started = new Date().toISOString();
  const loadBefore = loadavg();

  // Machine measurements, then case by case and round by round every
  // implementation in turn (ours natively, in wasm with and without SIMD, then
  // the two peers), so that a busy machine slows them all alike; the reported
  // time of an implementation is the median over rounds of its per-round median.
  const ROUNDS = Math.max(1, Number(opt('--rounds', QUICK ? 1 : 3)));
  log('measuring the machine (clock, SIMD128 ceiling)');
  const machineLines = {};
  for (const b of BUILDS.slice(0, 2)) machineLines[b.name] = runOurBench(b, ['--machine-only']);
  const ortCtx = setupOrt(), tfCtx = await setupTfjs();
  const ours = Object.fromEntries(BUILDS.map((b) => [b.name, []]));
  const peerRounds = [];
  for (let round = 0; round < ROUNDS; round++)
    for (const n of LENGTHS)
      for (const d of WIDTHS) {
        log(`round ${round + 1}/${ROUNDS}: n = ${n}, d = ${d}`);
        for (const b of BUILDS) ours[b.name].push(...runOurBench(b, ['--shape', String(n), String(d)]).map((x) => ({ ...x, round })));
        for (const r of [...(await ortCase(ortCtx, n, d)), ...(await tfjsCase(tfCtx, n, d))]) peerRounds.push({ ...r, round });
      }
  // Training speed: every build in turn, round by round, as above.
  const trainingRounds = [];
  for (let round = 0; round < (ONLY_ATTENTION ? 0 : ROUNDS); round++)
    for (const b of BUILDS) {
      log(`round ${round + 1}/${ROUNDS}: training speed, ${b.name}`);
      trainingRounds.push(...runOurBench(b, ['--training', String(TRAINING_STEPS)]).filter((x) => x.kind === 'training' && !x.error).map((x) => ({ ...x, round })));
    }
  const lines = Object.values(ours).flat();
  const inputSums = {};
  for (const l of lines.filter((x) => x.kind === 'inputs')) (inputSums[`${l.n}x${l.d}`] ||= new Set()).add(l.checksum);
  const sameInputs = Object.values(inputSums).every((s) => s.size === 1);
  if (!sameInputs) log('WARNING: the builds did not draw identical inputs');
  // One entry per (impl, kind, n, d): median over rounds; peers keep round 0's output.
  const overRounds = (items) => {
    const groups = new Map();
    for (const x of items) { const k = `${x.impl}|${x.kind}|${x.n}|${x.d}`; (groups.get(k) || groups.set(k, []).get(k)).push(x); }
    return [...groups.values()].map((g) => ({ ...g[0], median_ms: median(g.map((x) => x.median_ms)), min_ms: Math.min(...g.map((x) => x.min_ms)),
                                              round_medians_ms: g.map((x) => x.median_ms) }));
  };
  for (const b of BUILDS) ours[b.name] = [...overRounds(ours[b.name].filter((x) => x.median_ms !== undefined)), ...(machineLines[b.name] || [])];
  const peers = overRounds(peerRounds);
  const ort = { info: ortCtx.info, results: peers.filter((x) => x.impl === 'ort') };
  const tfjs = { info: tfCtx.info, results: peers.filter((x) => x.impl === 'tfjs') };

  // Machine: clock from the native dependent-add loop; SIMD128 peak from the wasm microbenchmark.
  const machineOf = (b) => ours[b].find((x) => x.kind === 'machine');
  const clockGhz = machineOf('native')?.clock_ghz || 0;
  const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  const cpuinfoMhz = Number((/cpu MHz\s*:\s*([\d.]+)/.exec(cpuinfo) || [])[1] || 0);
  const peakWasm = machineOf('wasm-simd')?.simd128_peak_gflops || 0;
  const machine = {
    // The model name, with the family and model numbers (a virtual machine may show only "Intel(R) Xeon(R) Processor").
    cpu: `${(/model name\s*:\s*(.*)/.exec(cpuinfo) || [])[1] || cpus()[0]?.model}` +
         ((/cpu family\s*:\s*(\d+)/.exec(cpuinfo) && /^model\s*:\s*(\d+)/m.exec(cpuinfo))
           ? ` (family ${/cpu family\s*:\s*(\d+)/.exec(cpuinfo)[1]}, model ${/^model\s*:\s*(\d+)/m.exec(cpuinfo)[1]})` : ''),
    cores: cpus().length, node: process.version,
    clock_ghz: clockGhz, clock_method: 'native chain of dependent register-to-register 64-bit adds (1 add per cycle)',
    cpuinfo_mhz: cpuinfoMhz,
    simd128_peak_gflops_measured: peakWasm,
    simd128_peak_method: 'wasm SIMD128, 6 independent f32x4.mul chains + 6 independent f32x4.add chains, 4 FLOP per op',
    simd128_ops_per_cycle: clockGhz ? peakWasm / (4 * clockGhz) : null,
    simd128_peak_native_sse_gflops: machineOf('native')?.simd128_peak_gflops || 0,
    load_average_before: loadBefore,
  };

  // Cases: one row per (kind, n, d) with every implementation side by side.
  const cases = [];
  const ourResult = (build, kind, n, d, impl = 'simd') => ours[build].find((x) => x.kind === kind && x.n === n && x.d === d && x.impl === impl);
  log('checking agreement against a float64 reference');
  for (const kind of ['attention', 'self_attention'])
    for (const n of LENGTHS)
      for (const d of WIDTHS) {
        const inp = readInputs(n, d);
        const ref = reference64(kind, inp, n, d);
        const peerOrt = ort.results.find((x) => x.kind === kind && x.n === n && x.d === d);
        const peerTf = tfjs.results.find((x) => x.kind === kind && x.n === n && x.d === d);
        const row = { kind, n, d, flop: flopOf(kind, n, d), ms: {}, gflops: {}, max_abs_error: {} };
        const put = (name, ms, output) => {
          row.ms[name] = ms;
          row.gflops[name] = ms ? row.flop / (ms * 1e6) : null;
          if (output !== undefined) row.max_abs_error[name] = maxAbsDiff(output, ref);
        };
        put('wasm_simd', ourResult('wasm-simd', kind, n, d)?.median_ms, readOutput('wasm-simd', kind, n, d));
        put('wasm_scalar', ourResult('wasm-scalar', kind, n, d)?.median_ms, readOutput('wasm-scalar', kind, n, d));
        put('native', ourResult('native', kind, n, d)?.median_ms, readOutput('native', kind, n, d));
        put('wasm_simd_scalar_kernel', ourResult('wasm-simd', kind, n, d, 'scalar')?.median_ms);
        if (kind === 'attention') put('wasm_simd_eigen', ourResult('wasm-simd', kind, n, d, 'eigen')?.median_ms);
        else put('wasm_simd_eigen_projection', ourResult('wasm-simd', kind, n, d, 'simd-eigen-proj')?.median_ms);
        put('ort', peerOrt.median_ms, peerOrt.output);
        put('tfjs', peerTf.median_ms, peerTf.output);
        row.vs_ort = row.ms.ort / row.ms.wasm_simd;
        row.vs_tfjs = row.ms.tfjs / row.ms.wasm_simd;
        row.agree = Object.values(row.max_abs_error).every((e) => e <= AGREE_ATOL);
        cases.push(row);
      }
  const projection = LENGTHS.flatMap((n) => WIDTHS.map((d) => ({
    n, d, fast_ms: ourResult('wasm-simd', 'projection', n, d, 'fast')?.median_ms, eigen_ms: ourResult('wasm-simd', 'projection', n, d, 'eigen')?.median_ms,
    native_fast_ms: ourResult('native', 'projection', n, d, 'fast')?.median_ms, native_eigen_ms: ourResult('native', 'projection', n, d, 'eigen')?.median_ms })));

  // One row per model: the median over rounds of steps per second in each build.
  const training = [...new Set(trainingRounds.map((x) => x.model))].map((model) => {
    const row = { model, steps: TRAINING_STEPS, steps_per_second: {}, round_steps_per_second: {}, last_loss: {} };
    for (const b of BUILDS) {
      const runs = trainingRounds.filter((x) => x.model === model && x.build === b.name);
      if (!runs.length) continue;
      row.parameters = runs[0].parameters;
      row.round_steps_per_second[b.name] = runs.map((x) => x.steps_per_second);
      row.steps_per_second[b.name] = median(runs.map((x) => x.steps_per_second));
      row.last_loss[b.name] = runs[0].last_loss;
    }
    row.same_loss_in_every_build = new Set(Object.values(row.last_loss)).size === 1;
    return row;
  });

  const site = resolve(opt('--site', join(BUILD, 'web', 'site')));
  const bundle = bundleSize(site);
  let first = null, firstPhone = null, inPage = null;
  const download = [];
  const worker = bundleSize(site, WORKER_FILES);
  if (!flag('--no-browser') && !ONLY_ATTENTION) {
    log('what the page fetches before its first frame, in English and in Chinese');
    for (const lang of ['en', 'zh']) {
      try { download.push(await firstDownload(site, lang)); } catch (e) { download.push({ lang, error: String(e) }); }
    }
    log('timing the first frame in headless Chromium (desktop, then phone profile)');
    try { first = await firstFrame(site, 'desktop'); } catch (e) { first = { error: String(e) }; log('first frame failed:', String(e)); }
    try { firstPhone = await firstFrame(site, 'phone'); } catch (e) { firstPhone = { error: String(e) }; log('phone first frame failed:', String(e)); }
    log('training in the page: the translator and the induction model, in the training worker');
    try { inPage = await inPageTraining(site); } catch (e) { inPage = { error: String(e) }; log('in-page training failed:', String(e)); }
  }
  log('timing the attention kernel pass by pass, and training\'s matrix products');
  const passes = passTimings(ROUNDS);
  const products = trainingProducts(ROUNDS);
  let lm = null;
  if (!ONLY_ATTENTION) {
    try { lm = await languageModel(tfCtx.tf, peakWasm, ROUNDS); }
    catch (e) { lm = { error: String(e) }; log('language model failed:', String(e)); }
  }
  const decoder = ONLY_ATTENTION ? null : decoderPart(ROUNDS);
  machine.load_average_after = loadavg();

  // Targets (issue 26), judged on the wasm SIMD build; the share of the ceiling
  // is against the SIMD128 ceiling measured in this run.
  const att = cases.filter((c) => c.kind === 'attention');
  const selfAtt = cases.filter((c) => c.kind === 'self_attention');
  const worst = (xs) => (xs.length ? Math.min(...xs) : NaN);
  const targets = [
    { target: 'wasm SIMD attention faster than ONNX Runtime Web at every n >= 64',
      worst: worst(att.filter((c) => c.n >= 64).map((c) => c.vs_ort)), need: 1 },
    { target: 'wasm SIMD self-attention faster than ONNX Runtime Web at every n >= 64',
      worst: worst(selfAtt.filter((c) => c.n >= 64).map((c) => c.vs_ort)), need: 1 },
    { target: '(aim) wasm SIMD self-attention >= 1.3x faster than ONNX Runtime Web at every n >= 64',
      worst: worst(selfAtt.filter((c) => c.n >= 64).map((c) => c.vs_ort)), need: 1.3 },
    { target: 'wasm SIMD attention >= 3x faster than TF.js wasm everywhere', worst: worst(att.map((c) => c.vs_tfjs)), need: 3 },
    { target: 'wasm SIMD attention >= 75% of the measured SIMD128 ceiling at n >= 256, d = 64 (share)',
      worst: worst(att.filter((c) => c.n >= 256 && c.d === 64).map((c) => c.gflops.wasm_simd / peakWasm)), need: 0.75 },
    ...download.filter((d) => !d.error).map((d) => ({ target: `fetched before the first frame <= ${FIRST_DOWNLOAD_LIMIT / 1e6} MB gzip (${d.lang})`,
                                                      worst: d.gzip_bytes / 1e6, need: FIRST_DOWNLOAD_LIMIT / 1e6, lower_is_better: true })),
  ].map((t) => ({ ...t, met: t.lower_is_better ? t.worst <= t.need : t.worst >= t.need }));

  // Print.
  const out = [];
  out.push(`Attention Lab benchmarks  ${started}  ${machine.cpu}, ${machine.cores} cores, node ${machine.node}`);
  out.push(`clock ${clockGhz.toFixed(2)} GHz (${machine.clock_method}; /proc/cpuinfo says ${cpuinfoMhz} MHz)`);
  out.push(`SIMD128 ceiling: measured ${peakWasm.toFixed(1)} GFLOP/s in wasm (= 4 lanes x ${clockGhz.toFixed(2)} GHz x ` +
           `${(machine.simd128_ops_per_cycle || 0).toFixed(2)} mul/add ops per cycle); load average ${loadBefore.map((x) => x.toFixed(1)).join(' ')}`);
  out.push(`peers: ONNX Runtime Web ${ort.info.version} (wasm, 1 thread), TF.js ${tfjs.info.version} (wasm backend, 1 thread, simd ${tfjs.info.simd})`);
  out.push(`median ms per call (GFLOP/s, share of the SIMD128 ceiling), median of ${ROUNDS} round(s); ratios = peer time / wasm SIMD time; agreement: max |out - float64 ref| <= ${AGREE_ATOL}`);
  out.push(`CPU: ${machine.cpu}`);
  out.push('');
  const header = `${'case'.padEnd(15)} ${pad('n', 5)} ${pad('d', 3)} | ${pad('wasm SIMD', 22)} ${pad('wasm scalar', 11)} ${pad('native', 9)} | ${pad('ONNX RT', 9)} ${pad('TF.js', 9)} | ${pad('vs ORT', 7)} ${pad('vs TF.js', 8)} | agree`;
  out.push(header);
  out.push('-'.repeat(header.length));
  const pct = (g) => (peakWasm ? ` ${((100 * g) / peakWasm).toFixed(0)}%` : '');
  for (const c of cases)
    out.push(`${c.kind.padEnd(15)} ${pad(c.n, 5)} ${pad(c.d, 3)} | ${pad(`${fmtMs(c.ms.wasm_simd)} (${c.gflops.wasm_simd.toFixed(1)}${pct(c.gflops.wasm_simd)})`, 22)} ` +
             `${pad(fmtMs(c.ms.wasm_scalar), 11)} ${pad(fmtMs(c.ms.native), 9)} | ${pad(fmtMs(c.ms.ort), 9)} ${pad(fmtMs(c.ms.tfjs), 9)} | ` +
             `${pad(fmtX(c.vs_ort), 7)} ${pad(fmtX(c.vs_tfjs), 8)} | ${c.agree ? 'yes' : 'NO ' + JSON.stringify(c.max_abs_error)}`);
  out.push('');
  out.push('projection X [W_Q|W_K|W_V] in wasm SIMD, median ms: ' +
           projection.map((p) => `${p.n}x${p.d} own ${fmtMs(p.fast_ms)} / Eigen ${fmtMs(p.eigen_ms)}`).join('; '));
  out.push('', ...passTable(passes, machine.cpu), '', ...productTable(products, peakWasm, machine.cpu), '');
  if (!ONLY_ATTENTION) out.push(`bundle: ${(bundle.gzip_bytes / 1e6).toFixed(3)} MB gzip (${(bundle.bytes / 1e6).toFixed(3)} MB raw): ` +
           bundle.files.map((f) => `${f.file} ${(f.gzip_bytes / 1024).toFixed(1)} KiB`).join(', ') +
           (bundle.missing.length ? `  MISSING: ${bundle.missing.join(', ')}` : ''));
  if (!ONLY_ATTENTION) out.push(`training worker (loaded after the first frame): ${(worker.gzip_bytes / 1e6).toFixed(3)} MB gzip (${(worker.bytes / 1e6).toFixed(3)} MB raw): ` +
           worker.files.map((f) => `${f.file} ${(f.gzip_bytes / 1024).toFixed(1)} KiB`).join(', '));
  for (const d of download) out.push(...downloadLines(d));
  for (const [name, f] of [['desktop', first], ['phone', firstPhone]]) {
    if (f) out.push(f.error ? `first frame (${name}): failed (${f.error})`
      : `first frame (${name}): median ${f.median_first_frame_ms.toFixed(0)} ms after navigation start (${f.runs.map((r) => r.first_frame_ms.toFixed(0)).join(', ')}; ${f.note})`);
  }
  out.push('');
  out.push(`training steps per second (${TRAINING_STEPS} timed steps after 1 warm-up step, default settings and seed 1, median of ${ROUNDS} round(s); ${machine.cpu}):`);
  const th = `${'model'.padEnd(22)} ${pad('parameters', 10)} | ${pad('native', 8)} ${pad('wasm SIMD', 9)} ${pad('wasm scalar', 11)} | ${pad('same loss', 9)}`;
  out.push(th);
  out.push('-'.repeat(th.length));
  const fmtRate = (x) => (x == null ? '-' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
  for (const t of training)
    out.push(`${t.model.padEnd(22)} ${pad(t.parameters, 10)} | ${pad(fmtRate(t.steps_per_second.native), 8)} ` +
             `${pad(fmtRate(t.steps_per_second['wasm-simd']), 9)} ${pad(fmtRate(t.steps_per_second['wasm-scalar']), 11)} | ` +
             `${pad(t.same_loss_in_every_build ? 'yes' : 'NO', 9)}`);
  if (inPage && inPage.error) out.push(`training in the page: failed (${inPage.error})`);
  else if (inPage) {
    out.push('');
    out.push('training in the page (headless Chromium, the training worker; steps per second = 1000 / the worker\'s ms per training step):');
    for (const m of inPage.models) {
      const nodeSps = training.find((t) => t.model === m.model)?.steps_per_second['wasm-simd'];
      m.node_steps_per_second = nodeSps ?? null;
      out.push(`  ${m.name}: ${m.goal} ${m.seconds.toFixed(2)} s after Start (step ${m.step}); ` +
               `${m.stepsPerSecond.toFixed(1)} steps/s in the page against ${nodeSps ? nodeSps.toFixed(1) : '-'} under node ` +
               `(${nodeSps ? ((100 * m.stepsPerSecond) / nodeSps).toFixed(0) + '%' : '-'}); ` +
               `${m.fps.toFixed(1)} frames per second while training (${m.idleFps.toFixed(1)} on the step before Start)`);
    }
  }
  out.push('');
  if (lm?.error) out.push(`language model training: failed (${lm.error})`);
  else if (lm) out.push(...lmTable(lm));
  out.push('');
  if (decoder) out.push(...decoderTable(decoder), '');
  for (const t of targets) out.push(`${t.met ? 'MET    ' : 'NOT MET'}  ${t.target}: worst ${t.worst.toFixed(2)} (need ${t.need})`);
  out.push(`load average after: ${machine.load_average_after.map((x) => x.toFixed(1)).join(' ')}  (a busy machine slows every column)`);
  console.log(out.join('\n'));

  for (const x of [...ort.results, ...tfjs.results]) delete x.output;
  const results = { started, quick: QUICK, rounds: ROUNDS, v8_flags: V8_FLAGS, machine, peers: { ort: ort.info, tfjs: tfjs.info }, same_inputs_in_every_build: sameInputs,
    agreement_tolerance: AGREE_ATOL, flop_formula: { attention: '4 n^2 d', self_attention: '4 n^2 d + 6 n d^2' },
    cases, projection, training,
    training_method: `attn::train::measure_all_training_speeds(${TRAINING_STEPS}): every model of all_run_kinds(), default RunDesc (seed 1), one untimed warm-up step, then ${TRAINING_STEPS} timed steps; median over rounds`,
    passes, training_products: products,
    bundle, worker_bundle: worker, first_download: download, first_frame: first, first_frame_phone: firstPhone, in_page_training: inPage, targets, ours,
    language_model: lm, decoder };
  writeFileSync(join(OUT, 'results.json'), JSON.stringify(results, null, 1));
  log(`wrote ${join(OUT, 'results.json')}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
