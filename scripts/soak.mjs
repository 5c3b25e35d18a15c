// soak.mjs: a long run of the page (scripts/lab soak; not part of scripts/lab test).
// Trains every live experiment in turn in headless Chromium for MINUTES in total,
// switching steps and languages as it goes, and prints the WebAssembly memory and
// the JS heap (after a garbage collection) once a minute. After the first minute
// neither may grow: the WebAssembly memory must stay the same size, and the JS heap
// within 25% of its size at minute 1. Exit status 1 when either grows.
//
//   node scripts/soak.mjs --site build/web/site [--minutes 10]
import { openLab, frames } from '../tests/browser/harness.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
};
const minutes = Number(arg('--minutes', '10'));
if (!(minutes >= 2)) {
  console.error('soak: --minutes must be 2 or more');
  process.exit(2);
}

const lab = await openLab();
const { page } = lab;
const cdp = await page.context().newCDPSession(page);
await cdp.send('HeapProfiler.enable');

async function memory() {
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = await cdp.send('Runtime.getHeapUsage');
  const wasm = await page.evaluate(() => window.Module.HEAPU8.length);
  return { wasmBytes: wasm, jsHeapBytes: heap.usedSize };
}

// Every step whose demo trains or measures live.
const live = [];
for (const l of await page.evaluate(() => window.attnlab.lessons())) {
  for (let s = 0; s < l.steps; s++) {
    await page.evaluate(([id, n]) => window.attnlab.goto(id, n), [l.id, s]);
    if (await page.evaluate(() => window.attnlab.train('reset'))) live.push([l.id, s]);
  }
}
console.log(`soak: ${live.length} live experiments, ${minutes} minutes`);

const mb = (b) => (b / (1 << 20)).toFixed(1) + ' MB';
const samples = [];
const start = Date.now();
let next = 1, turn = 0;
while (Date.now() - start < minutes * 60_000) {
  const [id, step] = live[turn % live.length];
  await page.evaluate(([i, n]) => window.attnlab.goto(i, n), [id, step]);
  await page.evaluate(() => window.attnlab.train('speed', 'fast'));
  await page.evaluate(() => window.attnlab.train('run'));
  if (turn % 3 === 2) await page.evaluate((z) => window.attnlab.setLanguage(z ? 'zh' : 'en'), turn % 2 === 0);
  // Train for a while, leave, and come back later (parked experiments are kept).
  const until = Date.now() + 8_000;
  while (Date.now() < until) await frames(page, 10);
  await page.evaluate(() => window.attnlab.train('pause'));
  if (turn % 4 === 3) await page.evaluate(() => window.attnlab.train('reset'));
  turn++;
  if (Date.now() - start >= next * 60_000) {
    const m = await memory();
    samples.push(m);
    console.log(`minute ${next}: WebAssembly memory ${mb(m.wasmBytes)}, JS heap ${mb(m.jsHeapBytes)} (${turn} turns)`);
    next++;
  }
}
const errors = await page.evaluate(() => window.attnlab.errors());
await lab.close();

const first = samples[0], last = samples[samples.length - 1];
let ok = true;
if (last.wasmBytes > first.wasmBytes) {
  console.log(`soak: the WebAssembly memory grew after minute 1: ${mb(first.wasmBytes)} -> ${mb(last.wasmBytes)}`);
  ok = false;
}
if (last.jsHeapBytes > first.jsHeapBytes * 1.25) {
  console.log(`soak: the JS heap grew after minute 1: ${mb(first.jsHeapBytes)} -> ${mb(last.jsHeapBytes)}`);
  ok = false;
}
if (errors.length || lab.consoleErrors.length) {
  console.log('soak: errors: ' + JSON.stringify(errors.concat(lab.consoleErrors)));
  ok = false;
}
console.log(ok ? 'soak: passed' : 'soak: FAILED');
process.exit(ok ? 0 : 1);
