// A share of the browser tests in a second engine: Debian's Firefox ESR, driven
// by Puppeteer (npm puppeteer-core) over WebDriver BiDi, in a real window on a
// private Xvfb display (headless Firefox has no WebGL on a machine without a
// GPU; under Xvfb it draws WebGL2 in software). What runs: the shell, every
// step of every lesson (English) with a drag of a number where the step has
// one, a live experiment training in the worker, the strict CSP over all of
// that, and a few malformed links. The Chromium files test each in depth; this
// one checks that the same lab works in Gecko.
//
// Version-proof: nothing here names a Firefox version or leans on one's habits.
// WebGL2 is felt for, not assumed from a version; the version is printed.
// Every wait is for a condition, with a generous ceiling, and says what it
// waited for.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, state, widgets, until, pngVariety, shots, malformedLinks, startedAnyway } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', '..', 'package.json'));
const puppeteer = require('puppeteer-core');

const firefoxPath = process.env.LAB_FIREFOX || '/usr/bin/firefox-esr';
const width = 1280, height = 1000;
const t0 = Date.now();

// Xvfb on a display it picks itself (-displayfd: it writes the number once it
// accepts connections), so parallel runs and other X servers never collide. A
// shell waits for it, and ends it when this process's pipe to the shell closes,
// however this process ends: a killed test leaves no X server (and Firefox goes
// with its display).
function startXvfb() {
  return new Promise((res, rej) => {
    // (A background job's stdin is /dev/null unless redirected: hence fd 4.)
    const x = spawn('/bin/sh', ['-c', 'exec 4<&0; Xvfb "$@" 4<&- & pid=$!; (cat <&4 >/dev/null; kill $pid) & wait $pid', 'sh',
                                '-displayfd', '3', '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp'],
                    { stdio: ['pipe', 'ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    const stop = () => x.stdin.end();
    process.on('exit', stop);
    const timer = setTimeout(() => { stop(); rej(new Error(`waited 120 s for Xvfb to start: ${err}`)); }, 120000);
    x.stderr.on('data', (d) => { err += d; });
    x.stdio[3].on('data', (d) => {
      out += d;
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      res({ display: `:${out.trim()}`, stop });
    });
    x.on('error', (e) => { clearTimeout(timer); rej(e); });
    x.on('exit', (code) => { clearTimeout(timer); rej(new Error(`Xvfb exited with ${code}: ${err}`)); });
  });
}

let xvfb, browser, server;

before(async () => {
  server = await startServer();
  xvfb = await startXvfb();
  browser = await puppeteer.launch({
    browser: 'firefox', executablePath: firefoxPath, headless: false, timeout: 180000, protocolTimeout: 300000,
    defaultViewport: { width, height }, env: { ...process.env, DISPLAY: xvfb.display },
  });
  console.log(`Firefox: ${await browser.version()} (${await browser.userAgent()}) on Xvfb ${xvfb.display}`);
});

after(async () => {
  await browser?.close();
  xvfb?.stop();
  server?.stop();
  console.log(`firefox.test.mjs took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
});

// The lab in a fresh profile (a new BiDi user context: its own storage).
// `early` runs in the page before any of its own scripts; `watch(page)` is
// called before it loads. Resolves once window.attnlab.ready has resolved.
async function openLab({ hash = '', early, watch } = {}) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  if (early) await page.evaluateOnNewDocument(early);
  watch?.(page);
  await page.goto(server.url + hash, { timeout: 180000 });
  await page.waitForFunction(() => window.attnlab !== undefined, { timeout: 180000, polling: 50 });
  await page.evaluate(() => window.attnlab.ready);
  return { page, consoleErrors, close: () => context.close() };
}

// Waits for n more frames to be drawn (the UI reacts to input on the next frame).
async function frames(page, n = 3) {
  const start = (await state(page)).frames;
  await page.waitForFunction((s) => window.attnlab.state().frames >= s, { timeout: 120000, polling: 20 }, start + n);
}

async function screenshotVariety(page, name) {
  return pngVariety(await page.screenshot({ path: join(shots, `${name}.png`) }));
}

// Drags a number sideways with real mouse events: right, or left when right
// changes nothing (a number already at its upper limit). Returns its value
// before and after. The lab reads the mouse once a frame, and a software-drawn
// frame can outlast a whole burst of events, so each stage of the drag (over
// it, pressed, moved, released) is held until frames have seen it.
async function dragNumber(page, w) {
  const [, name, r, c] = w.id.split(':');
  const value = async () => (await state(page)).values[name]?.[Number(r)]?.[Number(c)];
  const before = await value();
  const x = w.rect.x + w.rect.width / 2, y = w.rect.y + w.rect.height / 2;
  let now = before;
  for (const dir of [1, -1]) {
    await page.mouse.move(x, y);
    await frames(page, 2);
    await page.mouse.down();
    await frames(page, 2);
    for (const dx of [40, 120]) {
      await page.mouse.move(x + dir * dx, y, { steps: 4 });
      await frames(page, 2);
    }
    await page.mouse.up();
    await frames(page, 2);
    now = await value();
    if (now !== before) break;
  }
  return { before, after: now };
}

// One page for the shell, the tour, training and the CSP: the policy's
// violations and every request are recorded from its very first script on.
let lab;
const requests = [], foreign = [];
const startLab = async () => {
  if (lab) return lab;
  const origin = new URL(server.url).origin;
  lab = await openLab({
    early: () => {
      window.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        window.__violations.push(`${e.violatedDirective}: ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`));
    },
    watch: (page) => page.on('request', (r) => {
      const u = new URL(r.url());
      requests.push(r.url());
      if (u.protocol !== 'data:' && u.protocol !== 'blob:' && u.origin !== origin) foreign.push(r.url());
    }),
  });
  return lab;
};

test('the shell: the page loads in Firefox, draws its first frame with WebGL2, and logs no error', async () => {
  const { page, consoleErrors } = await startLab();
  // Felt for, not assumed: the engine gives this page a WebGL2 context.
  const gl = await page.evaluate(() => {
    const g = document.createElement('canvas').getContext('webgl2');
    return g ? String(g.getParameter(g.VERSION)) : null;
  });
  console.log(`WebGL2 in Firefox: ${gl}`);
  assert.ok(gl, 'Firefox gives this page no WebGL2 context');
  const hidden = await page.evaluate(() => document.getElementById('loading').classList.contains('done'));
  assert.ok(hidden, 'the loading card is still shown');
  const v = await screenshotVariety(page, 'firefox-first-frame');
  assert.ok(v.nonBackground > 0.02, `only ${(v.nonBackground * 100).toFixed(2)}% of pixels differ from the background`);
  assert.ok(v.distinctColours > 20, `only ${v.distinctColours} colours on screen`);
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(await page.evaluate(() => window.attnlab.errors()), []);
  // The recorder works: an error the page logs is seen (and then let go).
  await page.evaluate(() => console.error('console recorder check'));
  await until(() => consoleErrors.includes('console recorder check'), 'the console recorder to see a logged error');
  consoleErrors.length = 0;
});

test('every step of every lesson (English), with a drag of a number where the step shows one', async () => {
  const { page, consoleErrors } = await startLab();
  assert.equal(await page.evaluate(() => window.attnlab.setLanguage('en')), 'en');
  const lessons = await page.evaluate(() => window.attnlab.lessons());
  let visited = 0, dragged = 0;
  const t = Date.now();
  for (const l of lessons) {
    for (let s = 0; s < l.steps; s++) {
      assert.ok(await page.evaluate(([id, n]) => window.attnlab.goto(id, n), [l.id, s]));
      await frames(page, 2);
      const st = await state(page);
      assert.equal(st.lesson, l.id);
      assert.equal(st.step, s);
      assert.equal(st.computeError, undefined, `${l.id} step ${s}: ${st.computeError}`);
      visited++;
      // The first number wholly on screen (the window is 1000 px tall; a step's
      // numbers sit near its top).
      const w = (await widgets(page)).find((x) => x.kind === 'drag-number' &&
        x.rect.y >= 0 && x.rect.y + x.rect.height <= height - 4 && x.rect.x >= 0 && x.rect.x + x.rect.width <= width);
      if (!w) continue;
      const { before: b, after: a } = await dragNumber(page, w);
      assert.equal(typeof b, 'number', `${l.id} step ${s}: ${w.id} is not among the step's values`);
      assert.notEqual(a, b, `${l.id} step ${s}: dragging ${w.id} did not change it`);
      dragged++;
    }
  }
  console.log(`visited ${visited} steps and dragged a number in ${dragged} of them in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  assert.ok(visited > 40);
  assert.ok(dragged >= 30, `only ${dragged} steps showed a number to drag`);  // 36 when this was written
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(await page.evaluate(() => window.attnlab.errors()), []);
});

test('training: the translator trains in the page\'s worker until it reaches 95% held-out token accuracy', async () => {
  const { page, consoleErrors } = await startLab();
  assert.ok(await page.evaluate(() => window.attnlab.goto('encoder-decoder', 0)));
  await frames(page, 2);
  assert.equal((await state(page)).demo, 'train_translation');
  await until(async () => (await state(page)).worker.ready, 'the training worker to load', 180000);
  await page.evaluate(() => { window.attnlab.train('reset'); window.attnlab.train('speed', 'normal'); });
  await frames(page, 2);
  const f0 = (await state(page)).frames, t = Date.now();
  assert.equal(await page.evaluate(() => window.attnlab.train('run')), true);
  const st = await until(async () => {
    const s = await state(page);
    return s.experiment.runs[0].accuracy >= 0.95 && s;
  }, '95% held-out token accuracy', 600000);
  await page.evaluate(() => window.attnlab.train('pause'));
  const seconds = (Date.now() - t) / 1000;
  const run = st.experiment.runs[0];
  console.log(`Firefox, translator in the worker: 95% at step ${run.evaluatedAt}, ${seconds.toFixed(1)} s after Start, ` +
              `${((st.frames - f0) / seconds).toFixed(1)} frames per second, ${run.msPerStep.toFixed(2)} ms per training step`);
  // The page drew the worker's snapshots, and kept drawing while it trained.
  assert.ok(st.experiment.snapshots > 0, 'no snapshot from the worker reached the page');
  assert.ok(st.frames > f0, 'the page drew no frame while training');
  const v = await screenshotVariety(page, 'firefox-training');
  assert.ok(v.nonBackground > 0.02);
  assert.deepEqual(consoleErrors, []);
});

test('the strict CSP: no violation and no request to another origin in all of the above', async () => {
  const { page, consoleErrors, close } = await startLab();
  const policy = await page.evaluate(() =>
    document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content'));
  assert.match(policy, /default-src 'self'/);
  const violations = await page.evaluate(() => window.__violations);
  console.log(`${violations.length} violations; ${requests.length} requests seen, ${foreign.length} to another origin`);
  assert.deepEqual(violations, []);
  assert.ok(requests.some((u) => u.endsWith('.wasm')), 'the recorder saw the page load its WebAssembly');
  assert.deepEqual(foreign, []);
  // The recorder works: an inline script is blocked, and seen.
  await page.evaluate(() => { const s = document.createElement('script'); s.textContent = 'window.__ran = 1'; document.body.append(s); });
  await until(() => page.evaluate(() => window.__violations.length > 0), 'the blocked inline script to be reported');
  assert.equal(await page.evaluate(() => window.__ran), undefined);
  assert.match((await page.evaluate(() => window.__violations))[0], /script-src/);
  // The engine's own console line for the blocked script is the only error.
  assert.ok(consoleErrors.every((e) => /Content.Security.Policy/i.test(e)), consoleErrors.join('\n'));
  await close();
  lab = null;
});

for (const hash of malformedLinks) {
  test(`a link that does not decode starts the lab all the same: ${hash.slice(0, 24)}`, async () => {
    const l = await openLab({ hash });
    try {
      await startedAnyway(l, frames);
    } finally {
      await l.close();
    }
  });
}
