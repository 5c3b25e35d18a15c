// The training worker in the page (issue 23): training runs in a plain Web
// Worker and the page draws from its snapshots. Same seed, same bits as
// natively; interventions answer on the next frame while it trains; a worker
// that dies gives a notice and a Retry that works, with the saved state intact;
// what the worker side sends cannot break the page; the first frame does not
// wait for it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLab, state, frames, until, workerReady, scrollAndClick, screenshotVariety, widgets } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const golden = JSON.parse(readFileSync(join(here, '..', 'experiments', 'golden_training.json'), 'utf8'));

let lab;
before(async () => { lab = await openLab({ hash: '#first-look' }); });
after(async () => { await lab?.close(); });

// The page's worker, as Playwright sees it.
const pageWorker = (page) => until(() => page.workers().find((w) => w.url().endsWith('trainer-worker.js')),
                                   'the training worker to appear');
const synced = (page, what) => until(async () => (await state(page)).experiment?.synced, what, 120000);

// One lesson with a step per golden run, loaded through the page hook.
function goldenLesson() {
  let text = 'lesson: golden\ntitle: Golden runs\n';
  golden.runs.forEach((g, i) => {
    text += `\nstep: run-${i}\ntitle: ${g.demo}\ndemo: ${g.demo}\nsteps: ${g.steps}\ntext:\n  Seed 1, ${g.steps} steps.\n`;
  });
  return text;
}

test('the first frame does not wait for the worker, which loads a moment later', async () => {
  const { page } = lab;
  const st = await state(page);
  assert.equal(st.lesson, 'first-look');
  assert.equal(st.worker.started, false, 'a step with no training starts no worker before its first frames');
  await frames(page, 40);
  assert.equal((await state(page)).worker.started, true);
  await workerReady(page);
  assert.ok(await pageWorker(page));
});

// Found when a tap on a quiz answer went astray on a loaded machine: a line
// "Starting the training worker..." above the Start button went away once the
// worker was ready, and everything below it moved up by a line, under the pointer.
test('nothing on a training step moves when the worker becomes ready; meanwhile the bar says it is starting', async () => {
  // The worker's script is held back until the layout has been measured.
  let release, hits = 0;
  const held = new Promise((r) => { release = r; });
  const own = await openLab({ hash: '#encoder-decoder', prepare: (page) => page.route(/trainer-worker\.js$/, async (route) => {
    hits++;
    await held;
    await route.continue();
  }) });
  try {
    const { page } = own;
    await until(() => hits > 0, 'the page to ask for the worker');
    await frames(page, 3);
    const st = await state(page);
    assert.equal(st.demo, 'train_translation');
    assert.equal(st.worker.ready, false);
    const layout = async () => (await widgets(page)).filter((w) => !w.id.startsWith('lesson:'))
      .map((w) => `${w.id} at ${w.rect.x},${w.rect.y}`);
    const starting = await layout();
    assert.ok(starting.some((l) => l.startsWith('quiz:stop-for-love:0 ')), starting.join('; '));
    release();
    await workerReady(page);
    await frames(page, 3);
    assert.deepEqual(await layout(), starting);
    assert.deepEqual(own.consoleErrors, []);
  } finally {
    release();
    await own.close();
  }
});

test('trained in the Web Worker, the models end at exactly the losses they reach natively and under node', async () => {
  const { page } = lab;
  assert.ok(await page.evaluate((t) => window.attnlab.loadLesson('golden.lesson', t), goldenLesson()),
            JSON.stringify(await page.evaluate(() => window.attnlab.errors())));
  for (let i = 0; i < golden.runs.length; i++) {
    const g = golden.runs[i];
    assert.ok(await page.evaluate((s) => window.attnlab.goto('golden', s), i));
    await frames(page, 2);
    assert.equal((await state(page)).demo, g.demo);
    await page.evaluate(() => { window.attnlab.train('speed', 'fast'); window.attnlab.train('run'); });
    await until(async () => (await state(page)).experiment.done, `${g.demo} to finish ${g.steps} steps`, 300000);
    const run = (await state(page)).experiment.runs[0];
    console.log(`${g.demo}, ${g.steps} steps in the worker: loss ${run.loss.toPrecision(9)} (native ${g.loss}), ` +
                `held-out ${run.heldoutLoss.toPrecision(9)} (native ${g.heldoutLoss})`);
    // The page reports float32 numbers; the golden text is their %.9g.
    assert.equal(Math.fround(run.loss), Math.fround(Number(g.loss)), `${g.demo} training loss`);
    assert.equal(Math.fround(run.heldoutLoss), Math.fround(Number(g.heldoutLoss)), `${g.demo} held-out loss`);
  }
});

test('while the worker trains, switching a head off or typing a prompt answers on the very next frame', async () => {
  const { page } = lab;
  assert.ok(await page.evaluate(() => window.attnlab.goto('induction-heads', 1)));
  await frames(page, 2);
  await workerReady(page);
  await page.evaluate(() => { window.attnlab.train('speed', 'normal'); window.attnlab.train('run'); });
  await until(async () => (await state(page)).experiment.evaluating === false && (await state(page)).experiment.steps > 30,
              'the induction model to train a little', 120000);
  // The head is switched off: the page's own copy of the model measures it at
  // once, without a message to the worker, so the very next frame shows it.
  // The setting and the state are read in one go: no frame is drawn between
  // them, so the frame that follows draws the answer.
  const [why, st0, st1] = await page.evaluate(() => {
    const s0 = window.attnlab.state();
    const w = window.attnlab.setting('ablate', '2.1');
    return [w, s0, window.attnlab.state()];
  });
  assert.equal(why, '');
  assert.equal(st0.experiment.running, true);
  assert.equal(st1.frames, st0.frames, 'no frame was drawn in between');
  let st = st1;
  // A typed prompt: its predictions are there at once too.
  const [whyPrompt, p0, p1] = await page.evaluate(() => {
    const s0 = window.attnlab.state();
    const w = window.attnlab.setting('prompt', 'C F A K C F');
    return [w, s0, window.attnlab.state()];
  });
  assert.equal(whyPrompt, '');
  assert.equal(p1.frames, p0.frames);
  assert.equal(p1.experiment.promptPredictions.length, 6, JSON.stringify(p1.experiment));
  assert.equal(st.experiment.ablate, '2.1');
  assert.ok(Number.isFinite(st.experiment.ablatedRepeatedHalfLoss), JSON.stringify(st.experiment));
  assert.equal(st.experiment.running, true, 'switching a head off does not stop training');
  const stepsThen = st.experiment.steps;
  await until(async () => (await state(page)).experiment.steps > stepsThen, 'training to go on after the edit', 60000);
  await page.evaluate(() => window.attnlab.train('pause'));
  await synced(page, 'the pause');
  assert.deepEqual(lab.consoleErrors, []);
});

test('what the worker side sends cannot break the page', async () => {
  const { page } = lab;
  assert.ok(await page.evaluate(() => window.attnlab.goto('induction-heads', 1)));
  await frames(page, 2);
  const before = await state(page);
  const w = await pageWorker(page);
  // Bytes that are no message, a message cut short, objects of no known shape,
  // text, a claimed failure with no text, a huge length field.
  await w.evaluate(() => {
    postMessage(new ArrayBuffer(3));
    postMessage(new Uint8Array([0x54, 0x52, 0x4e, 0x31, 32, 255, 255, 255, 127]).buffer);
    postMessage({ type: 'snapshot', state: 'x' });
    postMessage('a string');
    postMessage(null);
    postMessage({ type: 'ready', extra: new Array(1000).fill('x') });
    postMessage(new Uint8Array([0x54, 0x52, 0x4e, 0x31, 33]).buffer);  // a pong with trailing nothing: fine
  });
  await until(async () => (await state(page)).worker.rejected >= before.worker.rejected + 2, 'the bad messages to be refused');
  await frames(page, 5);
  const after = await state(page);
  assert.equal(after.worker.failed, undefined, JSON.stringify(after.worker));
  assert.equal(after.experiment.steps, before.experiment.steps);
  assert.deepEqual(lab.consoleErrors, []);
  // The page still trains.
  await page.evaluate(() => window.attnlab.train('step'));
  await synced(page, 'one step after the bad messages');
  assert.equal((await state(page)).experiment.steps, before.experiment.steps + 1);
});

test('a worker that dies mid-run gives a notice and a Retry that works, and the saved state is intact', async () => {
  const { page } = lab;
  assert.ok(await page.evaluate(() => window.attnlab.goto('encoder-decoder', 0)));
  await frames(page, 2);
  await page.evaluate(() => window.attnlab.train('run'));
  await until(async () => (await state(page)).experiment.steps > 0, 'training to start', 120000);
  // The saved state, once the lab has written it (it saves a few times a second).
  const read = () => page.evaluate(() => localStorage.getItem('attnlab.state'));
  let saved = null;
  await until(async () => { const now = await read(); const same = now !== null && now === saved; saved = now; await frames(page, 20); return same; },
              'the saved state to settle');
  // The worker ends itself, as a crash would: no message, no error event.
  const w = await pageWorker(page);
  await w.evaluate(() => close()).catch(() => {});
  const st = await until(async () => { const s = await state(page); return s.worker.failed ? s : null; },
                         'the page to notice the worker stopped', 120000);
  assert.equal(st.experiment.running, false);
  assert.match(st.worker.failed, /stopped answering|stopped/);
  await screenshotVariety(page, 'worker-failed');
  // The learner's saved state is untouched.
  assert.equal(await page.evaluate(() => localStorage.getItem('attnlab.state')), saved);
  // Retry: a new worker, the experiment from the beginning, and it trains.
  await scrollAndClick(page, 'train:retry');
  await until(async () => { const s = await state(page); return !s.worker.failed && s.worker.ready; }, 'the new worker to load', 120000);
  assert.equal((await state(page)).experiment.steps, 0);
  await page.evaluate(() => window.attnlab.train('run'));
  await until(async () => (await state(page)).experiment.steps > 0, 'the new worker to train', 120000);
  await page.evaluate(() => window.attnlab.train('pause'));
  assert.deepEqual(await page.evaluate(() => window.attnlab.errors()), []);
  assert.deepEqual(lab.consoleErrors, []);
});
