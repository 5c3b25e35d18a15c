// The language-model lesson (curriculum H) in the page: its text is fetched
// only when the lesson opens, the model trains in the worker until its held-out
// loss is below the bigram baseline (the time and the frame rate are printed,
// not asserted), samples follow a typed prompt in both languages, and a head
// switched off changes the loss.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, state, frames, until, measureTraining, scrollAndClick } from './harness.mjs';

let lab;
before(async () => { lab = await openLab(); });
after(async () => { await lab?.close(); });

// The lessons' texts and their glyphs the page fetched (the later lessons' glyphs,
// fetched after the first frame whatever the lesson, are glyphs.test.mjs's).
const fetched = (page) => page.evaluate(() =>
  performance.getEntriesByType('resource').map((e) => e.name)
    .filter((n) => n.includes('/texts/') && !n.endsWith('/texts/lesson-glyphs.otf')));
// Clicks the prompt's field: the page opens its own input over it (a canvas
// cannot take an input method's characters), focused and holding the prompt.
async function openPromptInput(page) {
  await scrollAndClick(page, 'text:prompt');
  await until(() => page.evaluate(() => {
    const i = document.getElementById('cell-input');
    return !i.hidden && document.activeElement === i;
  }), 'the page\'s input over the prompt field');
}
const inputShown = (page) => page.evaluate(() => !document.getElementById('cell-input').hidden);

// The step's experiment has its text (no loading note) and its first evaluation.
async function built(page) {
  return until(async () => {
    const ex = (await state(page)).experiment;
    return ex && ex.error === undefined && ex.runs && ex.runs[0].evaluatedAt >= 0 ? ex : null;
  }, 'the language model to be built from its fetched text', 120000);
}

test('the text loads when the lesson opens, and the model trains below the bigram baseline (time and fps printed)', async () => {
  const { page } = lab;
  assert.deepEqual(await fetched(page), [], 'a text was fetched before its lesson opened');
  const r = await measureTraining(page, 'language-model', 0, (st) => st.experiment && st.experiment.belowBigramAt >= 0,
                                  { ceilingMs: 600000 });
  const texts = await fetched(page);
  assert.ok(texts.some((n) => n.endsWith('/texts/us-constitution')), JSON.stringify(texts));
  assert.ok(!texts.some((n) => n.endsWith('/texts/tang300')), 'the poems were fetched before their step');
  const ex = (await state(page)).experiment;
  console.log(`language model (English): below the bigram (${ex.bigramLoss.toFixed(3)}) at step ${ex.belowBigramAt}, ` +
              `${r.seconds.toFixed(1)} s after Start; held-out ${ex.runs[0].heldoutLoss.toFixed(3)}; ` +
              `${r.stepsPerSecond.toFixed(1)} steps per second in the worker; ${r.fps.toFixed(1)} frames per second while training`);
  assert.ok(ex.runs[0].heldoutLoss < ex.bigramLoss);
  assert.ok(ex.unigramLoss > ex.bigramLoss);
  assert.ok(ex.sample.length > 50, `sample: ${ex.sample}`);
  assert.deepEqual(lab.consoleErrors, []);
});

test('a typed prompt is continued, a refused one changes nothing, and a head switched off changes the held-out loss', async () => {
  const { page } = lab;
  // Typed with the keyboard into the page's input, kept with Enter.
  await openPromptInput(page);
  await page.keyboard.press('Control+A');
  await page.keyboard.type('We the People');
  await page.keyboard.press('Enter');
  assert.equal(await inputShown(page), false, 'Enter did not keep the typed prompt');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'canvas', 'the focus did not go back to the lab');
  let ex = await until(async () => {
    const e = (await state(page)).experiment;
    return e.prompt === 'We the People' && e.promptContinuation.length > 10 ? e : null;
  }, 'the typed prompt to be continued');
  assert.equal(ex.promptNext.length, 5);
  // A prompt the checks refuse (over 32 characters) says why in the page and
  // changes nothing; Escape leaves it.
  await openPromptInput(page);
  await page.keyboard.press('Control+A');
  await page.keyboard.type('x'.repeat(40));
  await page.keyboard.press('Enter');
  assert.match(await page.evaluate(() => document.getElementById('cell-error').textContent), /32/);
  assert.equal(await inputShown(page), true, 'a refused prompt closed the input');
  await page.keyboard.press('Escape');
  assert.equal(await inputShown(page), false);
  await frames(page, 2);
  assert.equal((await state(page)).experiment.promptContinuation, ex.promptContinuation);
  // The keyboard alone reaches it: Tab through the canvas's controls opens the page's input.
  await page.focus('#canvas');
  let tabs = 0;
  while (!(await page.evaluate(() => document.activeElement.id === 'cell-input'))) {
    assert.ok(++tabs <= 40, 'Tab never reached the prompt field');
    await page.keyboard.press('Tab');
    await frames(page, 2);
  }
  await page.keyboard.press('Escape');
  assert.equal(await inputShown(page), false);
  // The same checks answer a script (window.attnlab.setting says why, or '').
  assert.match(await page.evaluate(() => window.attnlab.setting('prompt', 'x'.repeat(40))), /32/);
  // The heads step: one step evaluates the model and measures every head.
  assert.ok(await page.evaluate(() => window.attnlab.goto('language-model', 2)));
  await until(async () => (await state(page)).experiment?.runs, 'the heads step to open');
  await page.evaluate(() => window.attnlab.train('step'));
  ex = await until(async () => {
    const e = (await state(page)).experiment;
    return e.headOffLoss && e.headOffLoss.length === 8 ? e : null;
  }, 'the heads to be measured');
  const loss = ex.allHeadsLoss;
  assert.equal(await page.evaluate(() => window.attnlab.setting('ablate', '1.2')), '');
  await frames(page, 2);
  ex = (await state(page)).experiment;
  assert.equal(ex.ablate, '1.2');
  console.log(`head 1.2 off (after one step): held-out loss ${loss.toFixed(4)} -> ${ex.ablatedLoss.toFixed(4)}`);
  assert.notEqual(ex.ablatedLoss, loss, 'switching head 1.2 off did not change the loss');
  assert.deepEqual(lab.consoleErrors, []);
});

test('the poems: a Chinese reader\'s steps train on them, fetched when such a step opens, a Chinese prompt continued in Chinese', async () => {
  const { page } = lab;
  // A Chinese reader is on the poems from the first step (corpus.zh in the
  // lesson): switching language enters the heads step again on them.
  assert.equal((await state(page)).settings.corpus, 'english');
  assert.ok(await page.evaluate(() => window.attnlab.setLanguage('zh')));
  await frames(page, 2);
  assert.equal((await state(page)).settings.corpus, 'chinese');
  assert.ok(await page.evaluate(() => window.attnlab.goto('language-model', 0)));
  await frames(page, 2);
  assert.equal((await state(page)).settings.corpus, 'chinese');
  assert.ok(await page.evaluate(() => window.attnlab.goto('language-model', 3)));
  // The experiment opens once the poems and their glyphs are in; one step then
  // evaluates the untrained model.
  await until(async () => (await state(page)).experiment?.runs, 'the poems and their glyphs to load', 120000);
  const texts = await fetched(page);
  assert.ok(texts.some((n) => n.endsWith('/texts/tang300')), JSON.stringify(texts));
  assert.ok(texts.some((n) => n.endsWith('/texts/poem-glyphs.otf')), JSON.stringify(texts));
  await page.evaluate(() => window.attnlab.train('step'));
  await built(page);
  // Typed through an input method, as a Chinese learner types: the browser
  // composes the pinyin, then hands over the characters (Chrome's protocol
  // drives that composition the way a real input method does).
  const poemLine = '床前明月光，疑是地上霜。举头望明月，';
  await openPromptInput(page);
  await page.keyboard.press('Control+A');
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Input.imeSetComposition', { text: 'chuang', selectionStart: 6, selectionEnd: 6 });
  await cdp.send('Input.insertText', { text: poemLine });
  await page.keyboard.press('Enter');
  assert.equal(await inputShown(page), false, 'Enter did not keep the composed prompt');
  const ex = await until(async () => {
    const e = (await state(page)).experiment;
    return e.prompt === poemLine && e.promptContinuation && e.promptContinuation.length > 0 ? e : null;
  }, 'the continuation of the Chinese prompt');
  await frames(page, 3);
  const v = await page.screenshot({ path: `${process.env.LAB_SHOTS || '.'}/language-model-poems-zh.png` });
  assert.ok(v.length > 0);
  assert.match(ex.promptContinuation, /[\u4e00-\u9fff]/, ex.promptContinuation);
  assert.equal(ex.corpus, 'chinese');
  assert.ok(ex.unigramLoss > ex.bigramLoss);
  await page.evaluate(() => window.attnlab.setLanguage('en'));
  assert.deepEqual(lab.consoleErrors, []);
  assert.deepEqual(await page.evaluate(() => window.attnlab.errors()), []);
});

// Issue 36: the page's training worker and a helper train the same bits as the
// worker alone. A lesson of one step (loaded as a learner's own lesson file
// would be) gives the model a budget of 30 steps, trained at fast speed to
// the end; with 2 workers the helper computes a share of every step. The
// worker's time per step is printed.
test('with 2 workers the page trains the language model to the same losses, bit for bit, as with 1 (times printed)', async () => {
  const { page } = lab;
  const steps = 30;
  assert.ok(await page.evaluate((n) => window.attnlab.loadLesson('workers.lesson',
    `lesson: workers-check\ntitle: Workers\ntitle.zh: 工作线程\n\nstep: short\ntitle: Short\ntitle.zh: 短\n` +
    `demo: train_lm\nsteps: ${n}\ntext:\n  A short run.\ntext.zh:\n  短短一段训练。\n`), steps));
  const runTo = async (workers) => {
    await page.evaluate((n) => window.attnlab.workers(n), workers);
    await until(async () => (await state(page)).worker.workers === workers, `the page to take ${workers} worker(s)`);
    await page.evaluate(() => window.attnlab.goto('workers-check', 0));
    await frames(page, 2);
    await page.evaluate(() => { window.attnlab.train('reset'); window.attnlab.train('speed', 'fast'); });
    await until(async () => (await state(page)).experiment?.steps === 0, 'the model to start again');
    const t0 = Date.now();
    await page.evaluate(() => window.attnlab.train('run'));
    const ex = await until(async () => {
      const e = (await state(page)).experiment;
      return e && e.done && !e.evaluating && e.steps === steps && e.synced ? e : null;
    }, `${steps} steps with ${workers} worker(s)`, 300000);
    const r = ex.runs[0];
    console.log(`${workers} worker(s): ${steps} steps in ${((Date.now() - t0) / 1000).toFixed(1)} s, ` +
                `${r.msPerStep.toFixed(2)} ms per step in the worker; loss ${r.loss}, held-out ${r.heldoutLoss}; ` +
                `shares computed by helpers ${ex.helperShares}`);
    assert.equal(ex.helperShares, workers === 1 ? 0 : steps, `shares computed by helpers with ${workers} worker(s)`);
    return r;
  };
  const one = await runTo(1), two = await runTo(2);
  assert.equal(two.loss, one.loss, 'the same training loss, bit for bit');
  assert.equal(two.heldoutLoss, one.heldoutLoss, 'the same held-out loss, bit for bit');
  assert.deepEqual(lab.consoleErrors, []);
});
