// The Code view (src/ui/code_view.cpp, the programs beside each demo in src/demos): a hand-set step's
// program, opened from the step's toolbar, drawn on the canvas and in the readable
// mirror (a <pre> with a Copy button), following the learner's values; Copy puts it
// on the page's clipboard; other training steps offer none. Screenshots of the view on
// a desktop and a phone, in both languages: screenshots/code-*.png. The trained
// translator offers its NumPy program and copies its weights as JSON.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLab, state, widgets, frames, until, mirrorCaughtUp, widget, startServer, screenshotVariety, workerReady } from './harness.mjs';

const require = createRequire(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json'));
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let server, current = null;
after(async () => { await current?.close(); server?.stop(); });
async function open(opts = {}) {
  server ??= await startServer();
  await current?.close();
  current = await openLab({ ...opts, server });
  return current;
}
// A lab on a step, allowed to read the page's clipboard.
async function openOn(lesson, step) {
  const lab = await open();
  await lab.page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  assert.ok(await lab.page.evaluate(([l, s]) => window.attnlab.goto(l, s), [lesson, step]));
  await frames(lab.page);
  return lab;
}
// The clipboard's text once `wanted(text)` holds.
const clipboard = (page, wanted, what) => until(async () => {
  const t = await page.evaluate(() => navigator.clipboard.readText());
  return wanted(t) ? t : '';
}, what, 10000);

const mirrorCode = (page) => page.evaluate(() => document.querySelector('#mirror .m-code pre')?.textContent || '');
const mirrorClick = (page, key) => page.evaluate((k) => document.querySelector(`#mirror [data-key="${k}"]`).click(), key);
const centre = (w) => [w.rect.x + w.rect.width / 2, w.rect.y + w.rect.height / 2];

test('the Code view opens from the toolbar, follows the values, copies, and the mirror has it', async () => {
  const { page } = await openOn('first-look', 1);
  // Closed: the mirror offers the button, not the program.
  await mirrorCaughtUp(page);
  assert.equal(await mirrorCode(page), '');
  assert.ok(await page.evaluate(() => !!document.querySelector('#mirror [data-key="m-code"]')));

  await page.mouse.click(...centre(await widget(page, 'step:code')));
  await frames(page);
  await widget(page, 'code:text');
  await mirrorCaughtUp(page);
  let code = await mirrorCode(page);
  assert.match(code, /^# Attention Lab: First look/);
  assert.match(code, /import numpy as np/);
  assert.match(code, /Q = np\.array\(\[\[1\.0, 0\.0\],/);
  assert.match(code, /weights = softmax\(scores\)/);

  // A setting the learner picks is in the program.
  assert.equal(await page.evaluate(() => window.attnlab.setting('score', 'scaled_dot')), '');
  await frames(page);
  await mirrorCaughtUp(page);
  assert.match(await mirrorCode(page), /scores = Q @ K\.T \/ d_k \*\* 0\.5/);

  // The open view in the mirror passes axe-core (WCAG 2.1 A and AA).
  await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
  }));
  assert.deepEqual(result.violations.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`), []);

  // PyTorch, from the mirror's own button (a screen reader's way).
  await mirrorClick(page, 'm-code-torch');
  await frames(page);
  await mirrorCaughtUp(page);
  code = await mirrorCode(page);
  assert.match(code, /import torch/);
  assert.match(code, /torch\.softmax\(scores, dim=-1\)/);
  assert.equal(await page.evaluate(() => document.querySelector('#mirror [data-key="m-code-torch"]').getAttribute('aria-pressed')), 'true');

  // Copy on the canvas reaches the page's clipboard.
  await page.mouse.click(...centre(await widget(page, 'code:copy')));
  await frames(page);
  const copied = await clipboard(page, (t) => t.includes('import torch'), 'the program on the clipboard');
  assert.equal(copied, code);

  // A training step other than the translator's and the induction model's has no
  // program: no button, nothing in the mirror.
  assert.ok(await page.evaluate(() => window.attnlab.goto('sentiment-model', 0)));
  await frames(page);
  const s = await state(page);
  assert.match(s.demo, /^train_sentiment/, `the sentiment step is ${s.demo}`);
  assert.ok(!(await widgets(page)).some((w) => w.id === 'step:code' || w.id === 'code:text'));
  await mirrorCaughtUp(page);
  assert.ok(await page.evaluate(() => !document.querySelector('#mirror .m-code')));

  // Back on a hand-set step the view is still open; Close closes it, and the
  // mirror's Code button, reached with the keyboard, opens it again.
  assert.ok(await page.evaluate(() => window.attnlab.goto('first-look', 1)));
  await frames(page);
  await page.mouse.click(...centre(await widget(page, 'code:close')));
  await frames(page);
  assert.ok(!(await widgets(page)).some((w) => w.id === 'code:text'));
  await mirrorCaughtUp(page);
  await page.focus('#mirror [data-key="m-code"]');
  await page.keyboard.press('Enter');
  await until(async () => (await widgets(page)).some((w) => w.id === 'code:text'), 'the Code view from the mirror');
  await mirrorCaughtUp(page);
  assert.equal(await page.evaluate(() => document.querySelector('#mirror [data-key="m-code"]').getAttribute('aria-expanded')), 'true');
  assert.deepEqual(current.consoleErrors, []);
});

test('the keyboard reaches the Code button and the view\'s tabs', async () => {
  const { page } = await open();
  assert.ok(await page.evaluate(() => window.attnlab.goto('first-look', 1)));
  await frames(page);
  const focused = async () => (await widgets(page)).find((w) => w.focused)?.id;
  const press = async (key) => { await page.keyboard.press(key); await frames(page, 2); };
  // Down enters the controls; the arrows then move between them (ImGui's keyboard navigation).
  const reach = async (id, keys) => {
    const seen = [];
    for (const key of keys) {
      if ((await focused()) === id) return;
      seen.push(await focused());
      await press(key);
    }
    assert.equal(await focused(), id, `the keys went ${seen.join(' -> ')}`);
  };
  await press('ArrowDown');
  await reach('step:code', [...Array(12).fill('ArrowUp'), ...Array(6).fill('ArrowRight')]);
  await press('Space');
  await until(async () => (await widgets(page)).some((w) => w.id === 'code:text'), 'the Code view after Space');
  // Down past the toolbar's second line (Embed, when the first is full) to the tabs, then right.
  await reach('code:tab:torch', ['ArrowDown', 'ArrowDown', 'ArrowRight', 'ArrowDown', 'ArrowRight', ...Array(4).fill('ArrowLeft')]);
  await press('Space');
  await mirrorCaughtUp(page);
  assert.match(await mirrorCode(page), /import torch/);
  await press('Escape');
  assert.equal(await focused(), undefined);
});

test('the trained translator: its program, and its weights copied as JSON', async () => {
  const { page } = await openOn('encoder-decoder', 0);
  await workerReady(page);
  for (let i = 0; i < 3; i++) await page.evaluate(() => window.attnlab.train('step'));
  await until(async () => (await state(page)).experiment?.steps >= 3, 'three training steps');
  await mirrorCaughtUp(page);
  await mirrorClick(page, 'm-code');
  await until(async () => (await widgets(page)).some((w) => w.id === 'code:weights'), 'the Copy weights button');
  await mirrorCaughtUp(page);
  const code = await mirrorCode(page);
  assert.match(code, /def gru\(x, h, name\):/);
  assert.ok(!(await widgets(page)).some((w) => w.id === 'code:tab:torch'), 'a trained model\'s program is NumPy only');
  await page.mouse.click(...centre(await widget(page, 'code:weights')));
  await frames(page);
  const weights = await clipboard(page, (t) => t.startsWith('{"format":"attention-lab-weights"'), 'the weights on the clipboard');
  const saved = JSON.parse(weights);
  assert.equal(saved.model, 'translation');
  assert.ok(saved.params['encoder.W_x'].length > 0);
  assert.deepEqual(saved.shown.source, ['我', '爱', '中国', '。']);
  await screenshotVariety(page, 'code-desktop-en-trained');
  await mirrorClick(page, 'm-code');  // closed again for the tests after this one
});

for (const [device, opts] of [['desktop', { width: 1280, height: 800 }],
                              ['phone', { width: 390, height: 844, deviceScaleFactor: 2, touch: true }]]) {
  test(`screenshots of the Code view on a ${device}, English and Chinese`, async () => {
    const { page } = await open(opts);
    for (const lang of ['en', 'zh']) {
      assert.ok(await page.evaluate(() => window.attnlab.goto('focus', 1)));
      await page.evaluate((l) => window.attnlab.setLanguage(l), lang);
      await frames(page);
      await mirrorCaughtUp(page);
      // Opened as a screen reader would (the same question as the canvas's button).
      if (!(await widgets(page)).some((w) => w.id === 'code:text')) await mirrorClick(page, 'm-code');
      await until(async () => (await widgets(page)).some((w) => w.id === 'code:text'), 'the Code view');
      await frames(page, 4);
      const v = await screenshotVariety(page, `code-${device}-${lang}`);
      assert.ok(v.nonBackground > 0.05, `the ${device} screenshot in ${lang} looks blank`);
      const text = await widget(page, 'code:text');
      const view = await page.evaluate(() => ({ w: innerWidth }));
      assert.ok(text.rect.x >= 0 && text.rect.x + text.rect.width <= view.w + 1, `the code box runs off the ${device} screen`);
    }
  });
}
