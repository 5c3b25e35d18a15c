// Hostile input from the page's side (issue 12): links a chat app mangled, a
// fragment of megabytes set after start, a lesson text far too long. Each must
// leave the lab running, with a notice or an error, and its memory intact.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, startServer, state, frames, screenshotVariety, malformedLinks, stillRunning, startedAnyway } from './harness.mjs';

let server;
before(async () => { server = await startServer(); });
after(() => server?.stop());

for (const hash of malformedLinks) {
  test(`a link that does not decode starts the lab all the same: ${hash.slice(0, 24)}`, async () => {
    const lab = await openLab({ hash, server });
    try {
      await startedAnyway(lab);
    } finally {
      await lab.close();
    }
  });
}

test('a 2 MB fragment set after start is refused with a notice, and the lab keeps its memory', async () => {
  const lab = await openLab({ server });
  try {
    const { page } = lab;
    await page.evaluate(() => { location.hash = 'first-look/2/v1.' + 'A'.repeat(2 * 1024 * 1024); });
    await frames(page, 5);
    const s = await state(page);
    assert.ok(s.notices.some((n) => /too long/.test(n)), JSON.stringify(s.notices));
    await stillRunning(page);
    await screenshotVariety(page, 'hostile-long-fragment');
    assert.deepEqual(lab.consoleErrors, []);
  } finally {
    await lab.close();
  }
});

test('a lesson text far too long is refused, and the lab keeps running', async () => {
  const lab = await openLab({ server });
  try {
    const { page } = lab;
    // Past the page's own limit: refused before it reaches the wasm memory.
    const huge = await page.evaluate(() => window.attnlab.loadLesson('huge.lesson', 'lesson: huge\n' + '#'.repeat(6 * 1024 * 1024)));
    assert.ok(!huge);
    assert.ok((await page.evaluate(() => window.attnlab.errors())).some((e) => /too long/.test(e)));
    // Under the page's limit, over the lesson limit (1 MiB): the lab says so.
    const big = await page.evaluate(() => window.attnlab.loadLesson('big.lesson', 'lesson: big\n' + '#'.repeat(2 * 1024 * 1024)));
    assert.equal(big, false);
    assert.ok((await page.evaluate(() => window.attnlab.errors())).some((e) => /too large/.test(e)));
    await stillRunning(page);
  } finally {
    await lab.close();
  }
});
