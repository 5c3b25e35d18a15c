// harness.mjs: shared set-up for the browser tests. Serves the built site on a
// free loopback port, launches Debian's Chromium headless with the flags that
// render WebGL2 through SwiftShader, and records console errors.
import { createRequire } from 'node:module';
import { execFileSync, fork } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdirSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import assert from 'node:assert/strict';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', '..', 'package.json'));
const { chromium } = require('playwright-core');

export const site = resolve(process.env.LAB_SITE || join(here, '..', '..', 'build', 'web', 'site'));
export const shots = resolve(process.env.LAB_SHOTS || join(site, '..', 'screenshots'));
mkdirSync(shots, { recursive: true });

// WebGL 2 runs on SwiftShader (the CPU); the page's layers are composited in
// software (--disable-gpu-compositing) rather than through SwiftShader's GL as well:
// measured on 2 cores, the lesson tour took 39 s against 79 s, and the whole browser
// suite 625 s (783 s in the cold run before, which also took full-size screenshots of
// the tour). What the canvas draws is the same. (scripts/bench.mjs's first frame
// keeps GPU compositing, as measured since issue 5.)
export const chromiumArgs = [
  '--headless', '--no-sandbox', '--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
  '--disable-gpu-compositing',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
  '--disable-quic',
];

// Starts the static server (scripts/serve.mjs) on port 0 and resolves to its URL;
// `root` is the folder it serves (the built site unless told).
export function startServer(root = site) {
  return new Promise((res, rej) => {
    const child = fork(join(here, '..', '..', 'scripts', 'serve.mjs'), [root, '0'], { silent: true });
    child.on('message', (m) => res({ url: `http://127.0.0.1:${m.port}/`, stop: () => child.kill() }));
    child.on('error', rej);
    child.on('exit', (code) => rej(new Error(`static server exited with ${code}`)));
  });
}

// Opens the lab in a fresh browser profile (or in `reuse`'s, to test what a reload
// keeps); resolves once window.attnlab.ready has resolved.
// Touch profiles: `touch` turns on Playwright's mobile emulation (touch events,
// a coarse pointer, the page's viewport meta honoured). `prepare(page)` runs
// before the first load (to watch its requests from the start).
export async function openLab({ width = 1280, height = 800, deviceScaleFactor = 1, hash = '', server: given, touch = false,
                                prepare } = {}) {
  const server = given || await startServer();
  let browser;
  try {
    // Playwright gives every launch a fresh temporary profile (the --user-data-dir).
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
    const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor, isMobile: touch, hasTouch: touch });
    const page = await context.newPage();
    const consoleErrors = [];
    // A failed load names its address (the console's text does not), and every
    // answer of 400 or more is logged: a CI run once saw one 404 in the state test
    // that no run here repeats, and the next one should say which file it was.
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      const where = m.location()?.url;
      consoleErrors.push(/^Failed to load resource/.test(m.text()) && where ? `${m.text()}: ${where}` : m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(String(e)));
    page.on('response', (r) => { if (r.status() >= 400) process.stderr.write(`[harness] ${r.status()} ${r.url()}\n`); });
    if (prepare) await prepare(page);
    const load = async (h) => {
      await page.goto(server.url + h);
      await page.waitForFunction(() => window.attnlab !== undefined);
      await page.evaluate(() => window.attnlab.ready);
    };
    await load(hash);
    // A real reload: same profile (so browser storage is kept), page loaded anew.
    // `storage` ({key: text}) is written to the origin's localStorage while no lab
    // is running: a running lab saves on its way out (pagehide), and would
    // overwrite a value written under it.
    const reload = async (h = '', { storage } = {}) => {
      await page.goto('about:blank');
      if (storage) {
        const blank = server.url + '__storage__';
        await page.route(blank, (r) => r.fulfill({ contentType: 'text/html', body: '<!doctype html><title>storage</title>' }));
        await page.goto(blank);
        await page.evaluate((items) => { for (const [k, v] of Object.entries(items)) localStorage.setItem(k, v); }, storage);
        await page.unroute(blank);
        await page.goto('about:blank');
      }
      await load(h);
    };
    const close = async () => { await browser.close(); if (!given) server.stop(); };
    return { page, browser, server, consoleErrors, close, reload };
  } catch (e) {
    await browser?.close();
    server.stop();
    throw e;
  }
}

export const state = (page) => page.evaluate(() => window.attnlab.state());
export const widgets = (page) => page.evaluate(() => window.attnlab.widgets());

// Waits for n more frames to be drawn (the UI reacts to input on the next frame).
export async function frames(page, n = 3) {
  const start = (await state(page)).frames;
  await page.waitForFunction((s) => window.attnlab.state().frames >= s, start + n);
}

// Resolves as `promise` does, or fails after `ms` saying what it waited for: a
// ceiling for a wait that has none of its own (an evaluate, a response's body).
export function within(promise, ms, what, message = `waited ${(ms / 1000).toFixed(0)} s for ${what}`) {
  let timer;
  const late = new Promise((_, rej) => { timer = setTimeout(() => rej(new Error(message)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// Polls check() (every 50 ms) until it returns something truthy and returns
// that; after `ms` it fails, saying what it waited for. For anything the page
// does a moment later (the mirror, announcements): never a fixed sleep. A check
// that never returns fails too, 30 s after the ceiling.
export async function until(check, what, ms = 60000) {
  const t0 = Date.now();
  for (;;) {
    const v = await within(check(), Math.max(ms - (Date.now() - t0), 0) + 30000, what,
                           `waited ${(ms / 1000 + 30).toFixed(0)} s for ${what}: a check never returned`);
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error(`waited ${(ms / 1000).toFixed(0)} s for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Waits until the page's training worker has loaded (it starts a moment after
// the first frame, or when a training step needs it).
export async function workerReady(page) {
  await until(async () => (await state(page)).worker.ready, 'the training worker to load', 120000);
}

// Waits until the page's readable mirror shows the lab's latest change (it is
// rebuilt a moment after one, and not while a field in it is being typed in).
export async function mirrorCaughtUp(page) {
  const { revision } = await state(page);
  await until(() => page.evaluate((r) => Number(document.getElementById('mirror').dataset.revision ?? -1) >= r, revision),
              `the mirror to show the lab's change ${revision}`);
}

// Links a chat app mangled (issue 12): each must start the lab all the same.
export const malformedLinks = ['#first-look/2/%', '#%E0%A4%A', '#first-look/%zz', '#' + '%'.repeat(5000)];

// The lab answers, draws and can still move: what "still running" means. `waitFrames`
// is the engine's frames() (Firefox's test has its own).
export async function stillRunning(page, waitFrames = frames) {
  const s = await state(page);
  assert.ok(s && typeof s.lesson === 'string', 'state() answers');
  await waitFrames(page, 3);
  assert.equal(await page.evaluate(() => window.attnlab.goto('first-look', 1)), true);
  await waitFrames(page, 2);
  assert.equal((await state(page)).stepId, 'three-tokens');
}

// A lab opened at a malformed link: it says the link was not followed, still
// runs, and logged no error.
export async function startedAnyway(lab, waitFrames = frames) {
  const s = await state(lab.page);
  assert.ok(s.notices.length >= 1, `a notice says the link was not followed: ${JSON.stringify(s.notices)}`);
  await stillRunning(lab.page, waitFrames);
  assert.deepEqual(lab.consoleErrors, []);
}

export async function widget(page, id) {
  const w = (await widgets(page)).find((x) => x.id === id);
  if (!w) throw new Error(`widget ${id} is not on screen`);
  return w;
}

// Scrolls the lesson with the mouse wheel until widget `id` is wholly on screen:
// back to the top first (where the step's toolbar is), then down.
export async function scrollTo(page, id) {
  const view = await page.evaluate(() => ({ w: innerWidth, h: innerHeight }));
  // Over the lesson window's left padding (the sidebar is 270 px wide), where no
  // widget takes the wheel.
  await page.mouse.move(277, view.h / 2);
  const onScreen = (w) => w && w.rect.y >= 0 && w.rect.y + w.rect.height <= view.h - 4;
  for (let i = 0; i < 30 && !(await widgets(page)).some((x) => x.id === 'nav:next' || x.id === 'nav:back'); i++) {
    await page.mouse.wheel(0, -400);
    await frames(page, 2);
  }
  // Long steps (the induction model's four heatmaps) run to several thousand pixels.
  for (let i = 0; i < 60; i++) {
    const w = (await widgets(page)).find((x) => x.id === id);
    if (onScreen(w)) return w;
    await page.mouse.wheel(0, 200);
    await frames(page, 2);
  }
  throw new Error(`could not scroll ${id} into view`);
}

// Scrolls widget `id` into view, clicks its middle, and waits for the UI to react.
export async function scrollAndClick(page, id) {
  const w = await scrollTo(page, id);
  await page.mouse.click(w.rect.x + w.rect.width / 2, w.rect.y + w.rect.height / 2);
  await frames(page);
}

// Decodes an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium's screenshots
// are) into {width, height, channels, data}. Enough for pixel checks; no deps.
export function decodePng(buf) {
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let off = 8, width = 0, height = 0, channels = 0;
  const idat = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off), type = buf.toString('ascii', off + 4, off + 8);
    const body = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0); height = body.readUInt32BE(4);
      const depth = body[8], colour = body[9], interlace = body[12];
      if (depth !== 8 || interlace !== 0 || (colour !== 2 && colour !== 6)) throw new Error('unsupported PNG');
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(body);
    off += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels, data = Buffer.alloc(stride * height);
  // One loop per filter type (the branch out of the per-byte loop: a tall
  // screenshot is millions of bytes).
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)], src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = data.subarray(y * stride, (y + 1) * stride), prev = y ? data.subarray((y - 1) * stride, y * stride) : null;
    if (filter === 0 || (filter === 2 && !prev)) row.set(src);
    else if (filter === 1) {
      for (let i = 0; i < stride; i++) row[i] = (src[i] + (i >= channels ? row[i - channels] : 0)) & 255;
    } else if (filter === 2) {
      for (let i = 0; i < stride; i++) row[i] = (src[i] + prev[i]) & 255;
    } else if (filter === 3) {
      for (let i = 0; i < stride; i++) row[i] = (src[i] + (((i >= channels ? row[i - channels] : 0) + (prev ? prev[i] : 0)) >> 1)) & 255;
    } else if (filter === 4) {
      for (let i = 0; i < stride; i++) {
        const a = i >= channels ? row[i - channels] : 0, b = prev ? prev[i] : 0, c = prev && i >= channels ? prev[i - channels] : 0;
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        row[i] = (src[i] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 255;
      }
    } else throw new Error(`PNG filter ${filter}`);
  }
  return { width, height, channels, data };
}

// Drags widget `id` (a number) sideways by dx pixels with the mouse, from its
// centre, in `steps` moves; then lets the page draw a few frames.
export async function dragWidget(page, id, dx, steps) {
  const w = await widget(page, id);
  const x = w.rect.x + w.rect.width / 2, y = w.rect.y + w.rect.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx, y, { steps });
  await page.mouse.up();
  await frames(page);
}

// Takes a screenshot (saved as shots/name.png) and measures how much of it is not
// the most common colour: a blank or single-colour page scores ~0.
export async function screenshotVariety(page, name) {
  return pngVariety(await page.screenshot({ path: join(shots, `${name}.png`) }));
}

// The tours (lessons.test.mjs and touch.test.mjs visit every step of every lesson)
// save a full screenshot of each step for people to look at only when
// LAB_TOUR_SHOTS=1: some 400 pictures (the lessons file took 121 s with them, 71 s
// with the capture below, before software compositing). Without it a
// tour still measures each step's variety, on a quarter-size capture (CDP's
// Page.captureScreenshot with a scaled clip: about a third of the time of a full
// screenshot and its decoding, measured 152 ms against 436 ms at 1280 x 2400).
export const tourShots = process.env.LAB_TOUR_SHOTS === '1';
const cdpSessions = new WeakMap();
export async function stepVariety(page, name) {
  if (tourShots) return screenshotVariety(page, name);
  if (!cdpSessions.has(page)) cdpSessions.set(page, await page.context().newCDPSession(page));
  const view = await page.evaluate(() => ({ x: scrollX, y: scrollY, width: innerWidth, height: innerHeight }));
  const { data } = await cdpSessions.get(page).send('Page.captureScreenshot', { format: 'png', clip: { ...view, scale: 0.25 } });
  return pngVariety(Buffer.from(data, 'base64'));
}

// The same measure for a PNG already taken (a Buffer or Uint8Array: Puppeteer's
// screenshots are the latter).
export function pngVariety(png) {
  const { width, height, channels, data } = decodePng(Buffer.from(png.buffer, png.byteOffset, png.byteLength));
  const counts = new Map();
  let n = 0;
  for (let i = 0; i < width * height; i += 7) {
    const k = (data[i * channels] << 16) | (data[i * channels + 1] << 8) | data[i * channels + 2];
    counts.set(k, (counts.get(k) || 0) + 1);
    n++;
  }
  const top = Math.max(...counts.values());
  return { distinctColours: counts.size, nonBackground: 1 - top / n };
}

// Trains the live experiment of lesson step (lessonId, step) in the page at
// `speed` until goal(state) holds (the translator's 95%, the induction phase),
// and measures it: seconds from Start to the goal, frames per second drawn
// meanwhile, and the worker's training steps per second (1000 / its ms per
// step, so held-out evaluations are left out, as in the node bench). The worker
// is loaded first, so its start-up is not counted. Pauses at the end.
export async function measureTraining(page, lessonId, step, goal, { speed = 'normal', ceilingMs = 180000 } = {}) {
  await page.evaluate(([l, s]) => window.attnlab.goto(l, s), [lessonId, step]);
  await frames(page, 2);
  await workerReady(page);
  await page.evaluate((sp) => { window.attnlab.train('reset'); window.attnlab.train('speed', sp); }, speed);
  await frames(page, 2);
  const f0 = (await state(page)).frames, t0 = Date.now();
  await page.evaluate(() => window.attnlab.train('run'));
  let st = null;
  for (;;) {
    st = await state(page);
    if (goal(st)) break;
    if (Date.now() - t0 > ceilingMs) throw new Error(`waited ${ceilingMs / 1000} s for the goal on ${lessonId}/${step}: ${JSON.stringify(st.experiment)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (Date.now() - t0) / 1000;
  await page.evaluate(() => window.attnlab.train('pause'));
  const run = st.experiment.runs[0];
  return { seconds, fps: (st.frames - f0) / seconds, step: st.experiment.steps, msPerStep: run.msPerStep,
           stepsPerSecond: run.msPerStep > 0 ? 1000 / run.msPerStep : 0 };
}

// Training steps per second of `models` (run kind names) in the page's own
// WebAssembly build under node, as scripts/lab bench measures them: 100 timed
// steps after a warm-up, V8's optimising tier only. {name: steps per second}.
export function nodeTrainingSpeed(models, steps = 100) {
  const bench = join(site, '..', 'src', 'bench', 'bench_attention.js');
  const args = ['--no-experimental-fetch', '--no-liftoff', bench, '--training', String(steps)];
  for (const m of models) args.push('--model', m);
  const out = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
  const speeds = {};
  for (const line of out.split('\n')) {
    try { const j = JSON.parse(line); if (j.kind === 'training') speeds[j.model] = j.steps_per_second; } catch { /* not JSON */ }
  }
  return speeds;
}
