// The induction model trained in the page (issue 15): started with the real
// Start button at normal speed, it must reach the induction phase (the
// repeated half's held-out loss below half the first half's) in the page. The
// time it took and the frame rate are printed against the goal (20 s at 30 fps
// or more), not asserted: speed is a measurement (the project keeps speed out of
// pass/fail; on this 2-core machine with software WebGL the step drew 27-30 fps
// before training until heatmaps stopped drawing rows out of sight, and about
// 45 since). Then the best induction head is
// switched off with its button, without retraining, and the repeated-half loss
// must rise towards the first half's; at half its output, part way. A second
// test drags the weights of one attention row through the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, state, frames, scrollAndClick, screenshotVariety, until, mirrorCaughtUp } from './harness.mjs';

let lab;
before(async () => { lab = await openLab(); });
after(async () => { await lab?.close(); });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const click = scrollAndClick;

// Types a value into the page's readable mirror of the canvas (its number
// fields commit through the same path as a drag), then lets the lab redraw.
async function typeInMirror(page, name, value) {
  await mirrorCaughtUp(page);  // the mirror is rebuilt a moment after a change
  const field = page.locator('#mirror').getByRole('spinbutton', { name }).first();
  await field.fill(value);
  await field.press('Enter');
  // Leave the field: the mirror is never rebuilt under a field in use.
  await field.evaluate((e) => e.blur());
  await frames(page, 3);
  await mirrorCaughtUp(page);
}

test('an induction head forms in the page (time and frame rate printed against the 20 s / 30 fps goal), and switching it off raises the repeated-half loss', async () => {
  const { page } = lab;
  assert.ok(await page.evaluate(() => window.attnlab.goto('induction-heads', 1)));
  await frames(page);
  let st = await state(page);
  assert.equal(st.demo, 'train_induction');
  assert.equal(st.experiment.steps, 0);
  await click(page, 'train:speed:normal');
  await click(page, 'train:run');
  const t0 = Date.now();
  const f0 = (await state(page)).frames;
  let phaseMs = -1;
  const samples = [];
  while (Date.now() - t0 < 240000) {  // a ceiling far above the seconds it takes
    await sleep(250);
    st = await state(page);
    samples.push({ ms: Date.now() - t0, frames: st.frames, steps: st.experiment.steps });
    if (st.experiment.inductionPhaseAt > 0) {
      phaseMs = Date.now() - t0;
      break;
    }
  }
  const last = samples[samples.length - 1];
  const fps = ((last.frames - f0) * 1000) / last.ms;
  console.log(`in-page induction: phase at step ${st.experiment.inductionPhaseAt}, ${(phaseMs / 1000).toFixed(2)} s after ` +
              `Start; ${fps.toFixed(1)} frames per second while training (${last.frames - f0} frames in ` +
              `${(last.ms / 1000).toFixed(2)} s); ${st.experiment.runs[0].msPerStep.toFixed(2)} ms per training step; ` +
              `first-half loss ${st.experiment.firstHalfLoss.toFixed(3)}, repeated-half loss ` +
              `${st.experiment.repeatedHalfLoss.toFixed(3)}, best induction head ${st.experiment.bestInductionHead} ` +
              `(score ${st.experiment.bestInductionScore.toFixed(2)})`);
  console.log(`goal: phase within 20 s at 30 fps or more: ${phaseMs > 0 && phaseMs <= 20000 ? 'met' : 'missed'} on time, ` +
              `${fps >= 30 ? 'met' : 'missed'} on frame rate`);
  assert.ok(phaseMs > 0, `waited 240 s for the induction phase: ${JSON.stringify(samples.slice(-3))}`);

  // Train on to the end, then switch the best induction head off.
  await page.evaluate(() => { window.attnlab.train('speed', 'fast'); window.attnlab.train('run'); });
  const t1 = Date.now();
  await until(async () => (await state(page)).experiment.done, 'the 600 steps to finish', 300000);
  st = await state(page);
  console.log(`the rest of the 600 steps at fast speed: ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  const head = st.experiment.bestInductionHead, kept = st.experiment.repeatedHalfLoss;
  const first = st.experiment.firstHalfLoss, steps = st.experiment.steps;
  assert.ok(st.experiment.bestInductionScore > 0.5, `${st.experiment.bestInductionScore}`);
  await click(page, `choice:ablate:${head}`);
  await frames(page, 3);
  st = await state(page);
  assert.equal(st.experiment.ablate, head);
  assert.equal(st.experiment.steps, steps, 'switching a head off does not retrain');
  const off = st.experiment.ablatedRepeatedHalfLoss;
  console.log(`head ${head} off: repeated-half loss ${kept.toFixed(3)} -> ${off.toFixed(3)} (first half ${first.toFixed(3)})`);
  assert.ok(off > 3 * kept, `repeated-half loss only ${kept} -> ${off}`);
  const v = await screenshotVariety(page, 'induction-ablated');
  assert.ok(v.nonBackground > 0.02);

  // Half of the head instead of none of it, through the page's number field:
  // the loss lands between, at once, still without retraining.
  await typeInMirror(page, /output times s/, '0.5');
  st = await state(page);
  assert.equal(st.experiment.headScale, 0.5);
  assert.equal(st.experiment.steps, steps);
  const half = st.experiment.ablatedRepeatedHalfLoss;
  console.log(`head ${head} x 0.5: repeated-half loss ${half.toFixed(3)}`);
  assert.ok(half > kept && half < off, `${kept} < ${half} < ${off}`);
  assert.deepEqual(lab.consoleErrors, []);
});

test('the best induction head\'s last row, dragged weight by weight, moves its heatmap row and the prediction', async () => {
  const { page } = lab;
  assert.ok(await page.evaluate(() => window.attnlab.goto('induction-heads', 3)));
  await frames(page);
  assert.equal((await state(page)).stepId, 'redirect');
  await page.evaluate(() => { window.attnlab.train('speed', 'fast'); window.attnlab.train('run'); });
  await until(async () => (await state(page)).experiment.done, 'the 300 steps to finish', 300000);
  let st = await state(page);
  assert.equal(st.experiment.redirectRow, undefined);
  // The step's quiz keeps the predictions note hidden until it is answered.
  await click(page, 'quiz:redirect-how-often:1');
  await frames(page);
  await click(page, 'quiz-check:redirect-how-often');
  await frames(page);
  // One weight on position 2 and one on position 3: half each.
  await typeInMirror(page, /, \w2$/, '1');
  await typeInMirror(page, /, \w3$/, '1');
  st = await state(page);
  assert.equal(st.experiment.redirectDragged, true);
  const row = st.experiment.redirectRow;
  const [l, h] = st.experiment.bestInductionHead.split('.');
  const P = st.outputs[`head_${l}_${h}`];
  assert.ok(Math.abs(P[row][2] - 0.5) < 1e-4 && Math.abs(P[row][3] - 0.5) < 1e-4, JSON.stringify(P[row]));
  const note = await page.locator('#mirror').getByText(/your weights: 0.50 on \w2, 0.50 on \w3/).count();
  assert.ok(note > 0, 'the predictions note names the dragged weights');
  // All weight on position 2: the prediction is the one the slider's redirect onto 2 gives.
  await typeInMirror(page, /, \w3$/, '0');
  const dragged = (await state(page)).experiment.redirectedPrediction;
  await typeInMirror(page, /, \w2$/, '0');
  assert.equal((await state(page)).experiment.redirectRow, undefined);
  await typeInMirror(page, /Point the best induction head/, '2');
  assert.equal((await state(page)).experiment.redirectedPrediction, dragged);
  await typeInMirror(page, /Point the best induction head/, '-1');
  // The row's Random and Reset buttons reach the trained model too (no retraining).
  await click(page, 'randomise:row');
  st = await state(page);
  assert.equal(st.experiment.redirectDragged, true);
  assert.ok(st.experiment.done);
  await click(page, 'reset:row');
  st = await state(page);
  assert.equal(st.experiment.redirectRow, undefined);
  assert.ok(st.experiment.done);
  assert.deepEqual(lab.consoleErrors, []);
});
