// step_shots.mjs: screenshots of lesson steps as a learner sees them, on a desktop
// (1280 x 800) and a phone (390 x 844, touch, 2x pixels), in English and in
// Chinese, for an author to look at after changing a step. Taken in headless
// Chromium from the built page (build/web/site, or LAB_SITE).
//
//   scripts/lab build web
//   NODE_PATH=node_modules node scripts/step_shots.mjs LESSON[:STEP[-STEP]] ... [--answer] [--out DIR]
//
// STEP is 1-based (all steps when left out; a range like 2-4). --train runs a
// live experiment's training to its end (at fast speed) before the answered
// picture, so trained curves and notes show; --tall takes them in a window
// tall enough for every panel. --answer picks the
// first option of every quiz and checks it, so the hidden panels and after-texts
// show too (a second picture, "-answered"). Pictures go to DIR (default
// build/web/screenshots/steps), named LESSON-STEP-PROFILE-LANG[-answered].png; the
// script prints each name and the step's title.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const args = process.argv.slice(2);
const flag = (f) => args.includes(f);
const outIndex = args.indexOf('--out');
const out = resolve(outIndex >= 0 ? args[outIndex + 1] : join(here, '..', 'build', 'web', 'screenshots', 'steps'));
const wanted = args.filter((a, i) => !a.startsWith('--') && (outIndex < 0 || i !== outIndex + 1));
if (!wanted.length) {
  console.error('usage: node scripts/step_shots.mjs LESSON[:STEP[-STEP]] ... [--answer] [--out DIR]');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const { openLab, startServer, frames, state, until, workerReady } = await import('../tests/browser/harness.mjs');

// --tall: the same widths with a window tall enough to hold a long step's
// panels in one picture (the canvas scrolls inside the window otherwise).
const tall = flag('--tall');
const profiles = {
  desktop: { width: 1280, height: tall ? 2800 : 800 },
  phone: { width: 390, height: tall ? 4200 : 844, deviceScaleFactor: tall ? 1 : 2, touch: true },
};
const server = await startServer();
try {
  for (const [profile, opts] of Object.entries(profiles)) {
    const lab = await openLab({ ...opts, server });
    try {
      const { page } = lab;
      const lessons = await page.evaluate(() => window.attnlab.lessons());
      for (const w of wanted) {
        const [id, range] = w.split(':');
        const lesson = lessons.find((l) => l.id === id);
        if (!lesson) { console.error(`no lesson '${id}' (lessons: ${lessons.map((l) => l.id).join(', ')})`); process.exitCode = 1; continue; }
        const [from, to] = range ? range.split('-').map(Number) : [1, lesson.steps];
        for (let step = from; step <= (to || from); step++) {
          for (const lang of ['en', 'zh']) {
            await page.evaluate(([l, s, g]) => { window.attnlab.setLanguage(g); return window.attnlab.goto(l, s); }, [id, step - 1, lang]);
            await frames(page, 6);
            const name = `${id}-${step}-${profile}-${lang}`;
            await page.screenshot({ path: join(out, name + '.png'), fullPage: true });
            const st = await state(page);
            console.log(`${name}.png  ${st.stepId}`);
            if (flag('--train') && st.experiment && !(st.experiment.done && st.experiment.synced)) {
              await workerReady(page);
              const t0 = Date.now();
              await page.evaluate(() => { window.attnlab.train('speed', 'fast'); window.attnlab.train('run'); });
              const e = await until(async () => {
                const x = (await state(page)).experiment;
                return x && x.done && !x.evaluating && x.synced ? x : null;
              }, `${id} step ${step} to train`, 900000);
              console.log(`  trained ${e.steps} steps in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
              await frames(page, 6);
            }
            if (flag('--answer') && st.quizzes.length) {
              // As a keyboard learner answers: 1 picks the first option of the first
              // quiz not yet checked, C checks it.
              await page.focus('#canvas');
              for (let q = 0; q < st.quizzes.length; q++) {
                await page.keyboard.press('Escape');
                await page.keyboard.type('1');
                await frames(page, 2);
                await page.keyboard.type('c');
                await frames(page, 2);
              }
              await frames(page, 6);
              await page.screenshot({ path: join(out, name + '-answered.png'), fullPage: true });
              console.log(`${name}-answered.png`);
            }
          }
        }
      }
    } finally {
      await lab.close();
    }
  }
} finally {
  server.stop();
}
