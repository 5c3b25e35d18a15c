// The page's Content-Security-Policy (web/shell.html, scripts/serve.mjs): every
// step, in both languages, runs without one policy violation and without one
// request that leaves the page's own origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, frames, screenshotVariety } from './harness.mjs';

test('every step runs under the strict policy: no violation, no request to another origin', async () => {
  const lab = await openLab();
  try {
    const { page, server } = lab;
    const origin = new URL(server.url).origin;
    const foreign = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.protocol !== 'data:' && u.protocol !== 'blob:' && u.origin !== origin) foreign.push(r.url());
    });
    // Record violations from the very start of the page: a fresh load with the
    // listener installed before any of the page's own scripts run.
    await page.addInitScript(() => {
      window.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        window.__violations.push(`${e.violatedDirective}: ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`));
    });
    await lab.reload();
    const policy = await page.evaluate(() =>
      document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content'));
    assert.match(policy, /default-src 'self'/);
    assert.match(policy, /base-uri 'none'/);
    assert.match(policy, /object-src 'none'/);
    assert.doesNotMatch(policy, /unsafe-inline|'unsafe-eval'/);
    const lessons = await page.evaluate(() => window.attnlab.lessons());
    let visited = 0;
    for (const [i, l] of lessons.entries()) {
      if (i === Math.floor(lessons.length / 2)) await page.evaluate(() => window.attnlab.setLanguage('zh'));
      for (let s = 0; s < l.steps; s++) {
        assert.equal(await page.evaluate(([id, n]) => window.attnlab.goto(id, n), [l.id, s]), true);
        await frames(page, 2);
        visited++;
      }
    }
    // A live experiment trains under the policy too.
    await page.evaluate(() => window.attnlab.goto('encoder-decoder', 0));
    await page.evaluate(() => window.attnlab.train('run'));
    await frames(page, 20);
    await page.evaluate(() => window.attnlab.train('pause'));
    await screenshotVariety(page, 'csp-training');
    await page.evaluate(() => window.attnlab.setLanguage('en'));
    const violations = await page.evaluate(() => window.__violations);
    console.log(`visited ${visited} steps; ${violations.length} violations; ${foreign.length} foreign requests`);
    assert.ok(visited > 40);
    assert.deepEqual(violations, []);
    assert.deepEqual(foreign, []);
    // The recorder works: an inline script is blocked, and seen.
    await page.evaluate(() => { const s = document.createElement('script'); s.textContent = 'window.__ran = 1'; document.body.append(s); });
    await page.waitForFunction(() => window.__violations.length > 0);
    assert.equal(await page.evaluate(() => window.__ran), undefined);
    assert.match((await page.evaluate(() => window.__violations))[0], /script-src/);
    assert.ok(lab.consoleErrors.every((e) => /Content Security Policy/.test(e)), lab.consoleErrors.join('\n'));
  } finally {
    await lab.close();
  }
});
