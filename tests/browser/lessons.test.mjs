// Every step of every lesson renders in both languages without errors. With
// LAB_TOUR_SHOTS=1 a screenshot of each is saved under the build's screenshots/
// folder for people to look at (harness.mjs, stepVariety).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, state, frames, stepVariety, until } from './harness.mjs';

let lab;
// Tall, so that each screenshot shows the whole step (the layout's widths are those
// of an ordinary 1280-wide window).
before(async () => { lab = await openLab({ width: 1280, height: 2400 }); });
after(async () => { await lab?.close(); });

for (const lang of ['en', 'zh']) {
  test(`visits every step of every lesson (${lang})`, async () => {
    const { page } = lab;
    assert.equal(await page.evaluate((l) => window.attnlab.setLanguage(l), lang), lang);
    const lessons = await page.evaluate(() => window.attnlab.lessons());
    let visited = 0;
    for (const l of lessons) {
      for (let s = 0; s < l.steps; s++) {
        assert.ok(await page.evaluate(([id, step]) => window.attnlab.goto(id, step), [l.id, s]));
        await frames(page);
        let st = await state(page);
        // A later lesson's Chinese glyphs come after the first frame (glyphs.test.mjs).
        if (st.glyphsPending) st = await until(async () => { const v = await state(page); return !v.glyphsPending && v; }, 'the glyphs');
        assert.equal(st.undrawable, '', `${l.id} step ${s} has characters the font lacks`);
        assert.equal(st.lesson, l.id);
        assert.equal(st.step, s);
        assert.equal(st.lang, lang);
        assert.equal(st.computeError, undefined, `${l.id} step ${s}: ${st.computeError}`);
        const prose = await page.evaluate(() => document.getElementById('prose').innerText);
        assert.ok(prose.trim().length > 20, `${l.id} step ${s} has no readable text in the page`);
        if (lang === 'zh') assert.match(prose, /[\u4e00-\u9fff]/, `${l.id} step ${s} shows no Chinese text`);
        const v = await stepVariety(page, `lesson-${lang}-${l.id}-${s + 1}`);
        assert.ok(v.nonBackground > 0.02, `${l.id} step ${s} looks blank`);
        visited++;
      }
    }
    assert.ok(visited > 0);
    assert.deepEqual(lab.consoleErrors, []);
    assert.deepEqual(await page.evaluate(() => window.attnlab.errors()), []);
  });
}
