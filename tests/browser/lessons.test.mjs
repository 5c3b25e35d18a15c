// Every step of every lesson renders without errors; a screenshot of each is
// saved under the build's screenshots/ folder for people to look at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, state, frames, screenshotVariety } from './harness.mjs';

let lab;
before(async () => { lab = await openLab(); });
after(async () => { await lab?.close(); });

test('visits every step of every lesson', async () => {
  const { page } = lab;
  const lessons = await page.evaluate(() => window.attnlab.lessons());
  let visited = 0;
  for (const l of lessons) {
    for (let s = 0; s < l.steps; s++) {
      assert.ok(await page.evaluate(([id, step]) => window.attnlab.goto(id, step), [l.id, s]));
      await frames(page);
      const st = await state(page);
      assert.equal(st.lesson, l.id);
      assert.equal(st.step, s);
      assert.equal(st.computeError, undefined, `${l.id} step ${s}: ${st.computeError}`);
      const v = await screenshotVariety(page, `lesson-${l.id}-${s + 1}`);
      assert.ok(v.nonBackground > 0.02, `${l.id} step ${s} looks blank`);
      visited++;
    }
  }
  assert.ok(visited > 0);
  assert.deepEqual(lab.consoleErrors, []);
  assert.deepEqual(await page.evaluate(() => window.attnlab.errors()), []);
});
