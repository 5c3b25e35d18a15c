// pool.mjs: the training worker and its helpers as the page runs them -- the
// same script (web/trainer-worker.js), the same WebAssembly module (built for
// node: LAB_TRAINER_NODE) and the same protocol (experiments/trainer.h) -- in
// node's worker threads, joined by MessageChannels as the page joins its Web
// Workers. Used by the pool test (pool.test.mjs) and the bench (scripts/bench_lm.mjs).
import { Worker, MessageChannel } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../../web/trainer-worker.js', import.meta.url));

// ---- The protocol's bytes (experiments/trainer.cpp), the few messages needed.
const TAG = 0x314e5254, OPEN = 1, RUN = 3, STATUS = 11, SNAPSHOT = 32, FAILED = 34, REPORT = 35;
class Writer {
  constructor() { this.parts = []; }
  u8(v) { this.parts.push(Uint8Array.of(v)); }
  u32(v) { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, v, true); this.parts.push(b); }
  i64(v) { const b = new Uint8Array(8); new DataView(b.buffer).setBigInt64(0, BigInt(v), true); this.parts.push(b); }
  str(s) { const b = new TextEncoder().encode(s); this.u32(b.length); this.parts.push(b); }
  buffer() {
    const n = this.parts.reduce((s, p) => s + p.length, 0), out = new Uint8Array(n);
    let at = 0;
    for (const p of this.parts) { out.set(p, at); at += p.length; }
    return out.buffer;
  }
}
function message(op, key, generation, fill) {
  const w = new Writer();
  w.u32(TAG);
  w.u8(op);
  w.str(key);
  if (generation !== null) w.i64(generation);
  if (fill) fill(w);
  return w.buffer();
}
const open = (key, demo, settings) => message(OPEN, key, 1, (w) => {
  w.str(demo);
  const names = Object.keys(settings).sort();  // a std::map's order
  w.u32(names.length);
  for (const n of names) { w.str(n); w.str(settings[n]); }
  w.u32(0);  // no matrices
  w.u32(0);  // no tokens
});
const run = (key, speed) => message(RUN, key, 2, (w) => w.str(speed));
const status = (key) => message(STATUS, key, null);
// The op and, for report and failed, the key and the value.
function read(buffer) {
  const v = new DataView(buffer), bytes = new Uint8Array(buffer);
  if (v.getUint32(0, true) !== TAG) return null;
  const op = v.getUint8(4);
  const str = (at) => { const n = v.getUint32(at, true); return [new TextDecoder().decode(bytes.subarray(at + 4, at + 4 + n)), at + 4 + n]; };
  if (op !== REPORT && op !== FAILED) return { op };
  const [key, at] = str(5);
  const [value] = str(at);
  return { op, key, value };
}

// ---- A pool: the training worker and `workers - 1` helpers.
export async function startPool(moduleFile, workers) {
  // Emscripten's loader reads the .wasm with fetch when node has it, which cannot
  // read a file path: the workers run without it, as ctest runs node.
  const start = () => new Worker(script, { workerData: { module: moduleFile }, execArgv: ['--no-experimental-fetch'] });
  const coordinator = start();
  const helpers = [];
  const ports = [];
  for (let i = 1; i < workers; i++) {
    const h = start(), ch = new MessageChannel();
    h.postMessage({ type: 'helper', port: ch.port2 }, [ch.port2]);
    helpers.push(h);
    ports.push(ch.port1);
  }
  coordinator.postMessage({ type: 'helpers', ports }, ports);
  const inbox = [];
  let wake = null;
  coordinator.on('message', (d) => {
    inbox.push(d);
    if (wake) { wake(); wake = null; }
  });
  coordinator.on('error', (e) => { inbox.push({ type: 'failed', why: String(e) }); if (wake) wake(); });
  const next = async (pred, what, ms = 600000) => {
    const until = Date.now() + ms;
    for (;;) {
      const i = inbox.findIndex(pred);
      if (i >= 0) return inbox.splice(i, 1)[0];
      const bad = inbox.find((d) => (d && d.type === 'failed') || (d instanceof ArrayBuffer && read(d)?.op === FAILED));
      if (bad) throw new Error('the worker failed: ' + (bad.why || read(bad).value));
      if (Date.now() > until) throw new Error('waited for ' + what);
      await new Promise((r) => { wake = r; setTimeout(r, 1000); });
    }
  };
  await next((d) => d && d.type === 'ready', 'the training worker to load');
  return {
    send: (buffer) => coordinator.postMessage(buffer, [buffer]),
    next,
    stop: async () => { await coordinator.terminate(); for (const h of helpers) await h.terminate(); },
  };
}

// Trains the language model (`corpus`: chinese, the poems, or english) for
// `steps` steps with `workers` workers at fast speed; the final status (losses,
// evaluations, msPerStep: the worker's own time per step) and how long it took.
export async function train(moduleFile, workers, steps, corpus = 'chinese') {
  const pool = await startPool(moduleFile, workers);
  try {
    const t0 = performance.now();
    pool.send(open('lm', 'train_lm', { corpus, steps: String(steps) }));
    pool.send(run('lm', 'fast'));
    for (;;) {
      const snap = await pool.next((d) => d instanceof ArrayBuffer && read(d)?.op === SNAPSHOT, 'a snapshot');
      const done = new Uint8Array(snap)[new Uint8Array(snap).length - 1];  // unused: ask for the status instead
      void done;
      pool.send(status('lm'));
      const r = await pool.next((d) => d instanceof ArrayBuffer && read(d)?.op === REPORT, 'a report');
      const s = JSON.parse(read(r).value);
      if (s.done && !s.waiting) return { status: s, ms: performance.now() - t0 };
    }
  } finally {
    await pool.stop();
  }
}

