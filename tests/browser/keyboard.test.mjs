// The lab driven by the keyboard alone: no mouse event is sent in this file.
// Keys are pressed the way Playwright types (down and up at once, often within
// one frame), which is also what a fast typist does at a low frame rate.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, state, widgets, frames, screenshotVariety } from './harness.mjs';

let lab;
before(async () => { lab = await openLab(); });
after(async () => { await lab?.close(); });

const focused = async (page) => (await widgets(page)).find((w) => w.focused)?.id;

async function press(page, key, n = 1) {
  for (let i = 0; i < n; i++) {
    await page.keyboard.press(key);
    await frames(page, 2);
  }
}

// Presses `key` until the control with id `id` has the keyboard (at most `max` times).
async function moveFocusTo(page, key, id, max = 25) {
  const seen = [];
  for (let i = 0; i < max; i++) {
    const f = await focused(page);
    if (f === id) return;
    seen.push(f);
    await press(page, key);
  }
  throw new Error(`${key} never reached ${id}; focus went ${seen.join(' -> ')}`);
}

test('arrow keys change the step, and page keys the lesson', async () => {
  const { page } = lab;
  assert.ok(await page.evaluate(() => window.attnlab.goto('first-look', 0)));
  await frames(page);
  await press(page, 'ArrowRight');
  assert.equal((await state(page)).step, 1);
  await press(page, 'ArrowRight');
  assert.equal((await state(page)).step, 2);
  await press(page, 'ArrowLeft');
  assert.equal((await state(page)).step, 1);
  const lessons = await page.evaluate(() => window.attnlab.lessons());
  await press(page, 'PageDown');
  let s = await state(page);
  assert.equal(s.lesson, lessons[1].id);
  assert.equal(s.step, 0);
  await press(page, 'PageUp');
  s = await state(page);
  assert.equal(s.lesson, lessons[0].id);
  assert.equal(await focused(page), undefined, 'no control took the keyboard');
});

test('a quiz is answered and checked by moving the keyboard focus and pressing Space', async () => {
  const { page } = lab;
  assert.ok(await page.evaluate(() => window.attnlab.goto('first-look', 1)));
  await frames(page);
  // Down enters the controls; from then on the arrows move between them.
  await press(page, 'ArrowDown');
  assert.notEqual(await focused(page), undefined, 'Down focused no control');
  await moveFocusTo(page, 'ArrowDown', 'quiz:who-wins:0');
  await press(page, 'ArrowDown');
  assert.equal(await focused(page), 'quiz:who-wins:1');
  await screenshotVariety(page, 'keyboard-focus-on-answer');
  assert.equal((await state(page)).step, 1, 'arrows move the focus now, not the step');
  await press(page, 'Space');
  let s = await state(page);
  assert.equal(s.quizzes[0].picked, 1);
  assert.equal(s.quizzes[0].checked, false);
  await moveFocusTo(page, 'ArrowDown', 'quiz-check:who-wins');
  await press(page, 'Space');
  s = await state(page);
  assert.deepEqual(s.quizzes[0], { id: 'who-wins', picked: 1, checked: true, right: false });
  await screenshotVariety(page, 'keyboard-quiz-checked');
  // Esc lets go of the controls: the arrows change the step again.
  await press(page, 'Escape');
  assert.equal(await focused(page), undefined);
  await press(page, 'ArrowRight');
  assert.equal((await state(page)).step, 2);
});

test('digits pick an answer, C checks it, H shows the hints one by one', async () => {
  const { page } = lab;
  assert.ok(await page.evaluate(() => window.attnlab.goto('first-look', 1)));
  await frames(page);
  await press(page, 'r');  // forget the previous test's answer
  let s = await state(page);
  assert.equal(s.quizzes[0].picked, -1);
  await press(page, '3');
  assert.equal((await state(page)).quizzes[0].picked, 2);
  await press(page, '1');
  assert.equal((await state(page)).quizzes[0].picked, 0);
  await press(page, 'c');
  s = await state(page);
  assert.deepEqual(s.quizzes[0], { id: 'who-wins', picked: 0, checked: true, right: true });
  await press(page, '2');  // checked: the answer is locked
  assert.equal((await state(page)).quizzes[0].picked, 0);

  assert.equal(s.exercises[0].hintsShown, 0);
  await press(page, 'h');
  assert.equal((await state(page)).exercises[0].hintsShown, 1);
  await press(page, 'H');
  assert.equal((await state(page)).exercises[0].hintsShown, 2);
  await press(page, 'h');
  s = await state(page);
  assert.equal(s.exercises[0].hintsShown, 3);
  assert.equal(s.exercises[0].hints, 3);
  await press(page, 'h');  // no fourth hint
  assert.equal((await state(page)).exercises[0].hintsShown, 3);
  await screenshotVariety(page, 'keyboard-hints');
});

test('Tab reaches a number ready to type into, Tab again the next one; Enter keeps the value', async () => {
  const { page } = lab;
  assert.ok(await page.evaluate(() => window.attnlab.goto('first-look', 1)));
  await frames(page);
  await press(page, 'r');
  // Tab belongs to the canvas's controls once the canvas has the focus (with nothing
  // focused it moves through the page: the words, the readable mirror, the canvas).
  await page.focus('#canvas');
  await press(page, 'Tab');
  await frames(page, 3);
  const before = await state(page);
  // The first number of the step is Q's top-left cell; typing replaces it.
  for (const ch of '2.5') await press(page, ch);
  await press(page, 'Tab');  // on to Q's next cell, q[0][1]
  await frames(page, 3);
  for (const ch of '-3') await press(page, ch);
  await press(page, 'Enter');
  const s = await state(page);
  assert.equal(s.values.q[0][0], 2.5);
  assert.equal(s.values.q[0][1], -3);
  assert.deepEqual(s.values.q.slice(1), before.values.q.slice(1));
  assert.equal(s.quizzes[0].picked, -1, 'the digits went into the number, not the quiz');
  // Reset by key puts it back.
  await press(page, 'Escape');
  await press(page, 'r');
  assert.equal((await state(page)).values.q[0][0], 1);
});

test('? and F1 open the keys panel, which lists keys in both languages; Esc closes it', async () => {
  const { page } = lab;
  const panel = async () => (await widgets(page)).find((w) => w.id === 'keys:panel');
  assert.equal(await panel(), undefined);
  await press(page, '?');
  const open = await panel();
  assert.ok(open, 'the keys panel did not open');
  assert.ok(open.rect.height > 200, `the keys panel is only ${open.rect.height} px high`);
  await screenshotVariety(page, 'keyboard-keys-panel-en');
  await press(page, 'l');  // the language, by key too
  assert.equal((await state(page)).lang, 'zh');
  assert.ok(await panel());
  await screenshotVariety(page, 'keyboard-keys-panel-zh');
  await press(page, '?');
  assert.equal(await panel(), undefined);
  await press(page, 'F1');
  assert.ok(await panel());
  await press(page, 'Escape');
  assert.equal(await panel(), undefined);
  await press(page, 'L');
  assert.equal((await state(page)).lang, 'en');
  assert.deepEqual(lab.consoleErrors, []);
});
