// Attention as today's language models run it (curriculum I1-I4) in the page:
// two position kinds trained side by side and read past the training length;
// text generated with and without the key/value cache, the same both ways; and
// one key/value head shrinking the cache. Short runs of the lessons' demos
// (their own budgets are 400 and 1000 steps); the times are printed, not
// asserted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, state, frames, until, workerReady } from './harness.mjs';

let lab;
before(async () => { lab = await openLab(); });
after(async () => { await lab?.close(); });

// A one-step lesson around `demo` with `params` (lines "key: value"), opened.
async function openStep(page, id, demo, params) {
  const text = `lesson: ${id}\ntitle: Check\ntitle.zh: 检查\n\nstep: one\ntitle: One\ntitle.zh: 一\n` +
    `demo: ${demo}\n${params}\ntext:\n  A short run.\ntext.zh:\n  短短一段训练。\n`;
  assert.ok(await page.evaluate(([f, t]) => window.attnlab.loadLesson(f, t), [`${id}.lesson`, text]));
  await page.evaluate((l) => window.attnlab.goto(l, 0), id);
  await frames(page, 2);
  await workerReady(page);
}

// Runs the open step's experiment to its end at fast speed; returns its status
// and the seconds it took.
async function trainToEnd(page, what) {
  await until(async () => (await state(page)).experiment?.steps === 0, `${what} to be built`, 120000);
  const t0 = Date.now();
  await page.evaluate(() => { window.attnlab.train('speed', 'fast'); window.attnlab.train('run'); });
  const ex = await until(async () => {
    const e = (await state(page)).experiment;
    return e && e.done && !e.evaluating && e.synced ? e : null;
  }, `${what} to finish`, 600000);
  return { ex, seconds: (Date.now() - t0) / 1000 };
}

test('two position kinds train side by side and are read to four times the training length; learned stops at 32', async () => {
  const { page } = lab;
  await openStep(page, 'reach-check', 'train_positions', 'steps: 100\nposition: learned\nposition_b: alibi');
  const { ex, seconds } = await trainToEnd(page, 'learned and ALiBi');
  const [learned, alibi] = ex.models;
  console.log(`learned and ALiBi, 100 steps each: ${seconds.toFixed(1)} s; inside ${learned.inside.toFixed(3)} / ` +
              `${alibi.inside.toFixed(3)}, ALiBi at 97-128 ${alibi.far.toFixed(3)}`);
  assert.equal(ex.context, 32);
  assert.equal(learned.reach, 32, 'a learned table reads only its 32 positions');
  assert.equal(learned.far, undefined, 'and has no value past them');
  assert.equal(learned.curve.length, 32);
  assert.equal(alibi.reach, 128, 'ALiBi reads to four times the training length');
  assert.equal(alibi.curve.length, 128);
  assert.ok(alibi.curve.every((v) => Number.isFinite(v) && v > 0), 'a loss at every position');
  assert.ok(Number.isFinite(alibi.far));
  assert.deepEqual(lab.consoleErrors, []);
});

test('the cache generates the same text as re-reading it, faster, and one key/value head holds a quarter of the numbers', async () => {
  const { page } = lab;
  await openStep(page, 'cache-check', 'train_kv_cache', 'steps: 100\nkv_heads: 4');
  const { ex, seconds } = await trainToEnd(page, 'the cached model');
  assert.equal(ex.timed.length, 2, 'timed at 32 and 128 characters');
  for (const t of ex.timed) {
    console.log(`${t.chars} characters: ${t.withCharsPerSecond.toFixed(0)} characters/s with the cache, ` +
                `${t.withoutCharsPerSecond.toFixed(0)} re-reading the text (${(t.withoutMs / t.withMs).toFixed(1)}x)`);
    assert.equal(t.same, true, `the same ${t.chars} characters both ways`);
  }
  assert.equal(ex.text.length > 0, true);
  console.log(`100 steps in ${seconds.toFixed(1)} s; the text: ${JSON.stringify(ex.text.slice(0, 60))}`);
  const four = ex.models[0];
  assert.equal(four.kvHeads, 4);
  assert.equal(four.entries, 144, 'every position of the prompt and the 128 characters');

  // The learner switches to one key/value head: the model starts again, and
  // its cache holds a quarter of the numbers.
  assert.equal(await page.evaluate(() => window.attnlab.setting('kv_heads', '1')), '');
  const one = await until(async () => {
    const e = (await state(page)).experiment;
    return e && e.models && e.models[0].kvHeads === 1 ? e.models[0] : null;
  }, 'the one-head model', 120000);
  assert.equal(one.entries, 144);
  assert.equal(one.bytes * 4, four.bytes, `${one.bytes} bytes against ${four.bytes}`);
  console.log(`cache after 144 positions: ${four.bytes} bytes with 4 key/value heads, ${one.bytes} with 1`);
  assert.deepEqual(lab.consoleErrors, []);
});
