// The induction model trained in the page (issue 15): started with the real
// Start button at normal speed, it must reach the induction phase (the
// repeated half's held-out loss below half the first half's) in the page. The
// time it took and the frame rate are printed against the goal (20 s at 30 fps
// or more), not asserted: speed is a measurement (the project keeps speed out of
// pass/fail), and on a 2-core machine with software WebGL this step draws at
// about 27-30 fps even before training starts. Then the best induction head is
// switched off with its button, without retraining, and the repeated-half loss
// must rise towards the first half's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, state, frames, scrollAndClick, screenshotVariety } from './harness.mjs';

let lab;
before(async () => { lab = await openLab(); });
after(async () => { await lab?.close(); });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const click = scrollAndClick;

test('an induction head forms in the page (time and frame rate printed against the 20 s / 30 fps goal), and switching it off raises the repeated-half loss', async () => {
  const { page } = lab;
  assert.ok(await page.evaluate(() => window.attnlab.goto('induction-heads', 0)));
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
  while (Date.now() - t0 < 60000) {
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
  assert.ok(phaseMs > 0, `no induction phase within 60 s: ${JSON.stringify(samples.slice(-3))}`);

  // Train on to the end, then switch the best induction head off.
  await page.evaluate(() => { window.attnlab.train('speed', 'fast'); window.attnlab.train('run'); });
  const t1 = Date.now();
  while (!(await state(page)).experiment.done && Date.now() - t1 < 150000) await sleep(250);
  st = await state(page);
  console.log(`the rest of the 600 steps at fast speed: ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  assert.ok(st.experiment.done, 'the 600 steps did not finish within 150 s');
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
  assert.deepEqual(lab.consoleErrors, []);
});
