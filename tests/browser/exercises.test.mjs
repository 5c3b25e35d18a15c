// Exercises solved the way a learner solves them: by dragging with the mouse,
// never with the stored solution. The target of each drag is worked out from
// where the plot draws the arrow heads (widgets()), not from the plot's code.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, state, widgets, frames, screenshotVariety, mirrorCaughtUp, scrollAndClick, scrollTo } from './harness.mjs';

let lab;
before(async () => { lab = await openLab(); });
after(async () => { await lab?.close(); });

const centre = (w) => ({ x: w.rect.x + w.rect.width / 2, y: w.rect.y + w.rect.height / 2 });
const exercise = (s, id) => s.exercises.find((e) => e.id === id);

// The plane's mapping from data to screen, fitted to the arrow heads on screen:
// x_screen = cx + scale * x, y_screen = cy - scale * y (least squares per axis).
async function planeOf(page, matrices) {
  const s = await state(page), ws = await widgets(page);
  const pts = [];
  for (const name of matrices) {
    s.values[name].forEach((row, r) => {
      const w = ws.find((x) => x.id === `drag:${name}:${r}`);
      // A handle clipped by the window edge has a shifted centre: leave it out.
      if (w && Math.abs(w.rect.width - w.rect.height) < 0.5) pts.push({ x: row[0], y: row[1], ...screen(w) });
    });
  }
  function screen(w) { const c = centre(w); return { sx: c.x, sy: c.y }; }
  const fit = (us, vs) => {
    const n = us.length, mu = us.reduce((a, b) => a + b) / n, mv = vs.reduce((a, b) => a + b) / n;
    let num = 0, den = 0;
    us.forEach((u, i) => { num += (u - mu) * (vs[i] - mv); den += (u - mu) ** 2; });
    const slope = num / den;
    return { slope, offset: mv - slope * mu };
  };
  assert.ok(pts.length >= 3, `only ${pts.length} arrow heads on screen`);
  const fx = fit(pts.map((p) => p.x), pts.map((p) => p.sx));
  const fy = fit(pts.map((p) => p.y), pts.map((p) => p.sy));
  // Both axes share one scale (the plane is square), y pointing up.
  assert.ok(fx.slope > 10, `x scale ${fx.slope}`);
  assert.ok(Math.abs(fx.slope + fy.slope) / fx.slope < 0.03, `x scale ${fx.slope}, y scale ${-fy.slope}`);
  return { toScreen: (x, y) => ({ x: fx.offset + fx.slope * x, y: fy.offset + fy.slope * y }) };
}

// Presses on an arrow head, moves in small steps to (x, y) in data units, lets go.
async function dragHead(page, id, plane, x, y) {
  const w = (await widgets(page)).find((v) => v.id === id);
  assert.ok(w, `${id} is not on screen`);
  const from = centre(w), to = plane.toScreen(x, y);
  await page.mouse.move(from.x, from.y);
  await frames(page, 2);  // hovered first, as a real pointer would be
  await page.mouse.down();
  await frames(page, 2);
  for (let i = 1; i <= 12; i++) {
    await page.mouse.move(from.x + ((to.x - from.x) * i) / 12, from.y + ((to.y - from.y) * i) / 12);
    if (i % 3 === 0) await frames(page, 1);
  }
  await frames(page, 2);
  await page.mouse.up();
  await frames(page, 3);
}

const dot = (a, b) => a[0] * b[0] + a[1] * b[1];

// Picks option `k` of a quiz and checks it, by clicking as a learner would.
async function answer(page, quiz, k) {
  for (const id of [`quiz:${quiz}:${k}`, `quiz-check:${quiz}`]) await scrollAndClick(page, id);
  await frames(page, 3);
}

// Predict first, for exercises too (lessons/README.md): until every quiz of a step
// is checked, its exercises are one line in the canvas and in the page's mirror,
// with no goal, no live values and no hint or solution button; then they appear.
test('a step\'s exercises wait until its quiz is checked, in the canvas and in the mirror, in both languages', async () => {
  const { page } = lab;
  for (const lang of ['en', 'zh']) {
    await page.evaluate((l) => window.attnlab.setLanguage(l), lang);
    assert.ok(await page.evaluate(() => window.attnlab.goto('first-look', 1)));
    await frames(page, 3);
    let s = await state(page);
    if (s.quizzes[0].picked >= 0) {  // an earlier test's answer: start afresh
      await scrollAndClick(page, 'step:reset');
      s = await state(page);
    }
    assert.equal(s.stepId, 'three-tokens');
    assert.equal(s.quizzes[0].checked, false);
    const ids = async () => (await widgets(page)).map((w) => w.id);
    // The line stands where the exercise would be; with it on screen, no button is.
    await scrollTo(page, 'exercises:locked');
    assert.ok(!(await ids()).some((id) => id === 'hint:cats-to-mice' || id === 'solution:cats-to-mice'),
              'the hint and solution buttons are on the canvas before the quiz is answered');
    await mirrorCaughtUp(page);
    const text = () => page.evaluate(() => document.getElementById('mirror').textContent);
    const goal = lang === 'zh' ? '0.6 的权重' : '0.6 of its weight';
    const locked = lang === 'zh' ? '请先回答上面的问题' : 'Answer the question above first';
    assert.ok((await text()).includes(locked), `the mirror lacks "${locked}"`);
    assert.ok(!(await text()).includes(goal), 'the mirror reads the goal before the quiz is answered');
    assert.ok(!(await text()).includes('weights[cats, mice]'), 'the mirror reads a live value before the quiz is answered');
    // Picked but not checked: still waiting, and H gives no hint.
    await scrollAndClick(page, 'quiz:who-wins:1');  // "chase": wrong, but a prediction
    await page.keyboard.press('h');
    await frames(page, 2);
    assert.equal((await state(page)).exercises[0].hintsShown, 0);
    await scrollTo(page, 'exercises:locked');
    assert.ok(!(await ids()).includes('solution:cats-to-mice'));
    await screenshotVariety(page, `exercise-waits-for-quiz-${lang}`);

    await scrollAndClick(page, 'quiz-check:who-wins');
    assert.equal((await state(page)).quizzes[0].checked, true);
    await scrollTo(page, 'solution:cats-to-mice');  // throws if it never appears
    assert.ok((await ids()).includes('hint:cats-to-mice'), 'no hint button once the quiz is checked');
    assert.ok(!(await ids()).includes('exercises:locked'));
    await mirrorCaughtUp(page);
    assert.ok((await text()).includes(goal), 'the mirror does not read the goal once the quiz is checked');
    assert.ok((await text()).includes('weights[cats, mice]'));
    assert.ok(!(await text()).includes(locked));
    await screenshotVariety(page, `exercise-after-quiz-${lang}`);
    await scrollAndClick(page, 'step:reset');  // leave the step as it was
  }
  await page.evaluate(() => window.attnlab.setLanguage('en'));
  await frames(page, 2);
  assert.deepEqual(lab.consoleErrors, []);
});

test('dragging k_chase along its own line changes only its length, and "chase by length" follows the dot product', async () => {
  const { page } = lab;
  assert.ok(await page.evaluate(() => window.attnlab.goto('inside-the-score', 0)));
  await frames(page);
  // The plane and the exercises wait for the step's quiz: answer it first.
  await answer(page, 'both-longer', 2);
  await scrollTo(page, 'drag:k:1');
  const before = await state(page);
  assert.equal(before.demo, 'dot_geometry');
  assert.equal(exercise(before, 'chase-by-length').met, false);
  const q = before.values.q[0];
  // Straight up, to a length of 1.4: still inside the plane, and still short of the 2.2 the goal needs.
  const plane = await planeOf(page, ['q', 'k']);
  await dragHead(page, 'drag:k:1', plane, 0, 1.4);

  const after = await state(page);
  const kChase = after.values.k[1];
  // Pixels are whole, values are rounded to 0.01: the arrow lands within ~2 px.
  assert.ok(Math.abs(kChase[0]) < 0.06 && Math.abs(kChase[1] - 1.4) < 0.06, `k_chase = ${kChase}, aimed at [0, 1.4]`);
  assert.deepEqual(after.values.q, before.values.q, 'only k_chase moved');
  assert.deepEqual(after.values.k[0], before.values.k[0]);
  assert.deepEqual(after.values.k[2], before.values.k[2]);
  assert.ok(after.edited);
  // The core's dots are q · k: chase has gained q's y for each unit of length, not yet enough to pass cats.
  after.outputs.dots[0].forEach((d, j) => assert.ok(Math.abs(d - dot(q, after.values.k[j])) < 1e-4));
  assert.ok(after.outputs.dots[0][1] > before.outputs.dots[0][1]);
  assert.ok(after.outputs.dots[0][1] < after.outputs.dots[0][0]);
  assert.equal(exercise(after, 'chase-by-length').met, false);
  await screenshotVariety(page, 'exercise-chase-by-length-dragged');
});

test('"right angle" is met by dragging the query arrow square to k_cats', async () => {
  const { page } = lab;
  const before = await state(page);
  assert.equal(exercise(before, 'right-angle').met, false);
  const kCats = before.values.k[0];
  // At right angles to k_cats, turned left, length 1.
  const len = Math.hypot(kCats[0], kCats[1]), target = [-kCats[1] / len, kCats[0] / len];
  const plane = await planeOf(page, ['q', 'k']);
  await dragHead(page, 'drag:q:0', plane, target[0], target[1]);
  const after = await state(page);
  const d = after.outputs.dots[0][0];
  assert.ok(Math.abs(d) < 0.05, `q · k_cats = ${d} with q = ${after.values.q[0]}`);
  assert.equal(exercise(after, 'right-angle').met, true);
  await screenshotVariety(page, 'exercise-right-angle-dragged');
  assert.deepEqual(lab.consoleErrors, []);
});

// A quiz's 'after' text (lessons/README.md) is in the page's prose only once the
// quiz is checked, in the learner's language; the step's own text stays.
test('prose that would give a quiz away appears only after it is checked', async () => {
  const { page } = lab;
  const prose = () => page.evaluate(() => document.getElementById('prose').innerText);
  await page.evaluate(() => window.attnlab.goto('first-look', 2));
  await frames(page, 3);
  assert.equal((await state(page)).stepId, 'scaled');
  assert.match(await prose(), /divided by the square root/);
  assert.doesNotMatch(await prose(), /Dividing keeps the scores/);
  await page.evaluate(() => window.attnlab.setLanguage('zh'));
  await frames(page, 3);
  assert.doesNotMatch(await prose(), /缩放让分数保持/);
  await page.evaluate(() => window.attnlab.setLanguage('en'));
  await frames(page, 3);
  // Pick the right answer ("Flatter", the third) and check it, by clicking as a learner would.
  await answer(page, 'sharper-or-flatter', 2);
  assert.deepEqual((await state(page)).quizzes[0], { id: 'sharper-or-flatter', picked: 2, checked: true, right: true });
  assert.match(await prose(), /divided by the square root/);
  assert.match(await prose(), /Dividing keeps the scores/);
  await screenshotVariety(page, 'after-text-revealed-en');
  await page.evaluate(() => window.attnlab.setLanguage('zh'));
  await frames(page, 3);
  assert.match(await prose(), /缩放让分数保持/);
  await screenshotVariety(page, 'after-text-revealed-zh');
  await page.evaluate(() => window.attnlab.setLanguage('en'));
  await frames(page, 2);
  assert.deepEqual(lab.consoleErrors, []);
});

test("the recap's map links to each step, and a link takes the learner there", async () => {
  const { page } = lab;
  await page.evaluate(() => window.attnlab.goto('recap', 0));
  await frames(page, 3);
  // The map follows the step's question (it would answer it): answer it first.
  assert.equal(await page.evaluate(() => document.querySelectorAll('#prose a').length), 0);
  await answer(page, 'one-sentence', 0);
  await frames(page, 3);
  const hrefs = await page.evaluate(() => [...document.querySelectorAll('#prose a')].map((a) => a.getAttribute('href')));
  assert.ok(hrefs.length >= 30, `only ${hrefs.length} links`);
  // Every link names a lesson that exists, and a step by its id (test_lessons checks
  // that each id is a step of that lesson, with the link's words as its title).
  const lessons = await page.evaluate(() => window.attnlab.lessons());
  for (const h of hrefs) {
    const [id, step] = h.slice(1).split('/');
    const l = lessons.find((x) => x.id === id);
    assert.ok(l, `${h}: no lesson ${id}`);
    assert.match(step, /^[a-z][a-z0-9_-]*$/, `${h}: a step is named by its id`);
  }
  await screenshotVariety(page, 'recap-map-en');
  await page.click('#prose a[href="#focus/soft-vs-hard"]');
  await page.waitForFunction(() => window.attnlab.state().lesson === 'focus');
  const s = await state(page);
  assert.equal(s.stepId, 'soft-vs-hard');
  assert.deepEqual(lab.consoleErrors, []);
});
