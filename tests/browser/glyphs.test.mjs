// The later lessons' Chinese glyphs (src/app/lab_glyphs.h): the page's first
// download holds only the glyphs its first frame may draw; the rest come a moment
// after it. A later lesson opened in Chinese shows a loading line until they are in
// the atlas, never boxes, and a failed fetch is said on the page while the lab runs on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, state, frames, until, shots } from './harness.mjs';
import { join } from 'node:path';

const FONT = '/texts/lesson-glyphs.otf';
// The state a learner leaves when they were reading the second lesson in Chinese.
const zhLater = JSON.stringify({ version: 3, layout: 5, lang: 'zh', lesson: 'focus', step: 0, furthest: { focus: 0 } });

// When attnlab.ready resolves and when the page first asked for the font, on the
// page's performance clock (a held answer has no resource timing yet).
function markReady(page) {
  return page.addInitScript((font) => {
    let value;
    Object.defineProperty(window, 'attnlab', {
      configurable: true,
      get: () => value,
      set: (v) => { value = v; v?.ready?.then(() => { window.__readyAt = performance.now(); }, () => {}); },
    });
    const fetch = window.fetch;
    window.fetch = (what, ...rest) => {
      if (String(what).endsWith(font.slice(1)) && window.__fontAt === undefined) window.__fontAt = performance.now();
      return fetch(what, ...rest);
    };
  }, FONT);
}
const fontEntry = (page) => page.evaluate(() => (window.__fontAt === undefined ? null : { start: window.__fontAt, readyAt: window.__readyAt }));

test('in English on the first lesson the glyphs are fetched after the first frame, and every step draws', async () => {
  const lab = await openLab({ prepare: markReady });
  try {
    const { page } = lab;
    const e = await until(() => fontEntry(page), 'the later glyphs to be fetched');
    assert.ok(e.start > e.readyAt, `fetched at ${e.start} ms, before the first frame at ${e.readyAt} ms`);
    const s = await until(async () => { const v = await state(page); return !v.glyphsPending && v; }, 'the glyphs');
    assert.equal(s.undrawable, '');
    assert.deepEqual(await page.evaluate(() => window.attnlab.errors()), []);
  } finally {
    await lab.close();
  }
});

test('a later lesson opened in Chinese shows a loading line until its glyphs are in, then its text', async () => {
  let release;
  const held = new Promise((r) => { release = r; });
  const lab = await openLab({
    prepare: async (page) => {
      await markReady(page);
      await page.addInitScript((s) => { if (!sessionStorage.getItem('seeded')) { sessionStorage.setItem('seeded', '1'); localStorage.setItem('attnlab.state', s); } }, zhLater);
      // Held until the test has seen the loading line.
      await page.route(`**${FONT}`, async (route) => { await held; await route.continue(); });
    },
  });
  try {
    const { page } = lab;
    let s = await state(page);
    assert.equal(s.lang, 'zh');
    assert.equal(s.lesson, 'focus');
    const e = await until(() => fontEntry(page), 'the later glyphs to be asked for');
    assert.ok(e.start <= e.readyAt, 'a later lesson in Chinese asks for its glyphs before the first frame');
    assert.equal(s.glyphsPending, true);
    assert.notEqual(s.undrawable, '', 'without the second font the text has characters the atlas lacks');
    await frames(page, 3);
    await page.screenshot({ path: join(shots, 'glyphs-loading-zh.png') });
    release();
    s = await until(async () => { const v = await state(page); return !v.glyphsPending && v; }, 'the glyphs to come');
    assert.equal(s.undrawable, '');
    await frames(page, 3);
    await page.screenshot({ path: join(shots, 'glyphs-in-zh.png') });
    // Every step of every lesson draws in Chinese with nothing missing.
    const lessons = await page.evaluate(() => window.attnlab.lessons());
    for (const l of lessons) {
      for (let i = 0; i < l.steps; i++) {
        assert.ok(await page.evaluate(([id, n]) => window.attnlab.goto(id, n), [l.id, i]));
        const v = await state(page);
        assert.equal(v.undrawable, '', `${l.id} step ${i + 1} has characters the font lacks`);
      }
    }
    assert.deepEqual(await page.evaluate(() => window.attnlab.errors()), []);
  } finally {
    await lab.close();
  }
});

test('when the glyphs cannot be had, the page says so and the lab runs on', async () => {
  const lab = await openLab({
    prepare: async (page) => {
      await page.addInitScript((s) => { if (!sessionStorage.getItem('seeded')) { sessionStorage.setItem('seeded', '1'); localStorage.setItem('attnlab.state', s); } }, zhLater);
      await page.route(`**${FONT}`, (route) => route.fulfill({ status: 200, contentType: 'font/otf', body: 'not a font at all' }));
    },
  });
  try {
    const { page } = lab;
    const errors = await until(async () => {
      const x = await page.evaluate(() => window.attnlab.errors());
      return x.length ? x : null;
    }, 'the failure to be said');
    assert.match(errors.join('\n'), /汉字字形没能载入/);
    const s = await state(page);
    assert.equal(s.glyphsPending, false, 'the text shows, rather than a loading line for ever');
    assert.ok(await page.evaluate(() => window.attnlab.goto('first-look', 1)));
    assert.equal((await state(page)).undrawable, '', 'the first lesson needs nothing from the second font');
  } finally {
    await lab.close();
  }
});
