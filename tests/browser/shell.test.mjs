// The page as a learner first meets it: it loads, draws, answers the test hook,
// and reacts to drags, clicks and arrow keys.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, state, widget, widgets, frames, screenshotVariety, dragWidget } from './harness.mjs';

let lab;
before(async () => { lab = await openLab(); });
after(async () => { await lab?.close(); });

test('loads without console errors and hides the progress card', async () => {
  assert.deepEqual(lab.consoleErrors, []);
  const hidden = await lab.page.evaluate(() => document.getElementById('loading').classList.contains('done'));
  assert.ok(hidden, 'the loading card is still shown');
  assert.deepEqual(await lab.page.evaluate(() => window.attnlab.errors()), []);
});

test('the canvas shows the lab, not a blank page', async () => {
  const v = await screenshotVariety(lab.page, 'shell-first-frame');
  assert.ok(v.nonBackground > 0.02, `only ${(v.nonBackground * 100).toFixed(2)}% of pixels differ from the background`);
  assert.ok(v.distinctColours > 20, `only ${v.distinctColours} colours on screen`);
});

test('lessons() lists lessons with titles and step counts', async () => {
  const lessons = await lab.page.evaluate(() => window.attnlab.lessons());
  assert.ok(lessons.length > 0);
  for (const l of lessons) {
    assert.match(l.id, /^[\w-]+$/);
    assert.ok(l.title.length > 0);
    assert.ok(l.steps > 0);
  }
});

test('dragging a query number changes the state and the weights', async () => {
  const { page } = lab;
  assert.ok(await page.evaluate(() => window.attnlab.goto('first-look', 1)));
  await frames(page);
  const before = await state(page);
  assert.equal(before.demo, 'qkv_basic');
  const w = await widget(page, 'edit:q:0:0');
  const y = w.rect.y + w.rect.height / 2;
  await page.mouse.move(w.rect.x + w.rect.width / 2, y);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(w.rect.x + w.rect.width / 2 + i * 15, y, { steps: 2 });
  await page.mouse.up();
  await frames(page);
  const afterDrag = await state(page);
  assert.ok(afterDrag.values.q[0][0] > before.values.q[0][0] + 0.5,
    `q[0][0] went from ${before.values.q[0][0]} to ${afterDrag.values.q[0][0]}`);
  assert.notDeepEqual(afterDrag.outputs.weights[0], before.outputs.weights[0]);
  // The displayed weights are the softmax of the displayed scores.
  const s = afterDrag.outputs.scores[0], m = Math.max(...s), e = s.map((x) => Math.exp(x - m));
  const z = e.reduce((a, b) => a + b, 0);
  e.forEach((x, j) => assert.ok(Math.abs(x / z - afterDrag.outputs.weights[0][j]) < 1e-5));
  await screenshotVariety(page, 'shell-after-drag');
});

// A frame that would look exactly like the last one drawn is not drawn again
// (platform::frames_drawn): a learner reading a step costs the GPU nothing. The
// canvas must keep showing the step meanwhile, and a change must still be drawn.
test('at rest the page stops drawing, keeps showing the step, and draws again on a change', async () => {
  const { page } = lab;
  assert.ok(await page.evaluate(() => window.attnlab.goto('first-look', 1)));
  await frames(page, 5);
  const a = await state(page), t0 = Date.now();
  await frames(page, 30);
  const b = await state(page), seconds = (Date.now() - t0) / 1000;
  assert.ok(b.frames - a.frames >= 30);
  // One drawing a second is kept (in case a texture changed), plus one for slack.
  assert.ok(b.drawn - a.drawn <= Math.ceil(seconds) + 1,
    `${b.drawn - a.drawn} of ${b.frames - a.frames} unchanged frames drawn in ${seconds.toFixed(1)} s`);
  const rest = await screenshotVariety(page, 'shell-at-rest');
  assert.ok(rest.nonBackground > 0.02, 'the canvas went blank when the page stopped drawing');
  await dragWidget(page, 'edit:q:0:0', 40, 4);
  const c = await state(page);
  assert.notEqual(c.values.q[0][0], b.values.q[0][0]);
  assert.ok(c.drawn > b.drawn, 'a drag was not drawn');
});

test('Next/Back buttons and arrow keys change the step', async () => {
  const { page } = lab;
  await page.evaluate(() => window.attnlab.goto('first-look', 0));
  await frames(page);
  const next = await widget(page, 'nav:next');
  await page.mouse.click(next.rect.x + next.rect.width / 2, next.rect.y + next.rect.height / 2);
  await frames(page);
  assert.equal((await state(page)).step, 1);
  const back = await widget(page, 'nav:back');
  await page.mouse.click(back.rect.x + back.rect.width / 2, back.rect.y + back.rect.height / 2);
  await frames(page);
  assert.equal((await state(page)).step, 0);
  await page.keyboard.press('ArrowRight');
  await frames(page);
  assert.equal((await state(page)).step, 1);
  await page.keyboard.press('ArrowRight');
  await frames(page);
  assert.equal((await state(page)).step, 2);
  await page.keyboard.press('ArrowLeft');
  await frames(page);
  assert.equal((await state(page)).step, 1);
  assert.ok((await widgets(page)).some((x) => x.id === 'nav:back'));
});

test('a lesson that cannot load shows an error and the rest keeps working', async () => {
  const { page } = lab;
  const ok = await page.evaluate(() => window.attnlab.loadLesson('broken.lesson',
    'lesson: broken\ntitle: Broken\n\nstep: one\ntitle: One\ndemo: qkv_basic\ntokens: a | b\nq: [[1, 2], [3]]\n'));
  assert.equal(ok, false);
  const errors = await page.evaluate(() => window.attnlab.errors());
  assert.ok(errors.some((e) => e.includes('broken.lesson:8')), JSON.stringify(errors));
  await frames(page);
  await page.keyboard.press('ArrowRight');
  await frames(page);
  assert.ok((await state(page)).step >= 0);
  const v = await screenshotVariety(page, 'shell-error-panel');
  assert.ok(v.nonBackground > 0.02);
  assert.deepEqual(lab.consoleErrors, []);
});

test('the canvas is sharp on a high-DPI screen and follows the window size', async () => {
  const hi = await openLab({ width: 900, height: 700, deviceScaleFactor: 2 });
  try {
    const size = await hi.page.evaluate(() => {
      const c = document.getElementById('canvas');
      return { w: c.width, h: c.height, cssW: c.clientWidth, cssH: c.clientHeight, dpr: devicePixelRatio, winH: innerHeight,
               bottom: c.getBoundingClientRect().bottom };
    });
    assert.equal(size.dpr, 2);
    // It ends exactly at the window's bottom (below the top bar at this width): a
    // taller canvas would hide the bottom of the lab.
    assert.equal(Math.round(size.bottom), size.winH);
    assert.ok(Math.abs(size.w - size.cssW * 2) <= 2, `${size.w} vs 2 x ${size.cssW}`);
    assert.ok(Math.abs(size.h - size.cssH * 2) <= 2, `${size.h} vs 2 x ${size.cssH}`);
    await screenshotVariety(hi.page, 'shell-hidpi');
    await hi.page.setViewportSize({ width: 1100, height: 650 });
    await frames(hi.page, 5);
    const resized = await hi.page.evaluate(() => {
      const c = document.getElementById('canvas');
      return { w: c.width, h: c.height, cssW: c.clientWidth, cssH: c.clientHeight, winH: innerHeight,
               bottom: c.getBoundingClientRect().bottom };
    });
    assert.ok(resized.cssW > size.cssW, 'the canvas did not grow with the window');
    assert.equal(Math.round(resized.bottom), resized.winH);
    // clientWidth is rounded to whole CSS pixels; the backing store follows the exact width.
    assert.ok(Math.abs(resized.w - resized.cssW * 2) <= 2, `${resized.w} vs 2 x ${resized.cssW}`);
    assert.ok(Math.abs(resized.h - resized.cssH * 2) <= 2, `${resized.h} vs 2 x ${resized.cssH}`);
    assert.deepEqual(hi.consoleErrors, []);
  } finally {
    await hi.close();
  }
});
