// The embed view: a teacher's course page, on another site, frames one step with
// the snippet the full lab's Embed button gives. The step draws in the frame and
// takes a drag, keeps nothing in storage, and links out to the full lab with the
// learner's values; a frame of the full lab itself is refused by its policy.
// Screenshots of the course page: screenshots/embed-{desktop,phone}-{en,zh}.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openLab, startServer, chromiumArgs, shots, state, widgets, frames, until } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { chromium } = createRequire(join(here, '..', '..', 'package.json'))('playwright-core');

let lab, host, browser, snippets = {};
// The course page: another site (localhost, not 127.0.0.1) with the snippet in
// it, and below it a frame of the full lab, which must stay empty.
function startHost(labUrl) {
  return new Promise((res) => {
    const server = createServer((req, resp) => {
      const lang = new URL(req.url, 'http://x').searchParams.get('lang') === 'zh' ? 'zh' : 'en';
      resp.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      resp.end(`<!doctype html><html lang="${lang}"><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>A course page</title>
<body style="font-family: sans-serif; margin: 12px"><h1 style="font-size: 20px">Week 3: attention</h1>
<p>Try the step below, then answer the question in your notes.</p>
${snippets[lang]}
<p>The full lab, framed (refused):</p><iframe id="full" src="${labUrl}index.html" width="300" height="120"></iframe>
</body></html>`);
    });
    server.listen(0, '127.0.0.1', () => res({ url: `http://localhost:${server.address().port}/`, stop: () => server.close() }));
  });
}

before(async () => {
  lab = await openLab({ hash: '#first-look/2' });
  // The full lab's Embed button gives the snippet (here through window.attnlab, which asks the same question).
  snippets.en = await lab.page.evaluate(() => window.attnlab.embedSnippet());
  await lab.page.evaluate(() => window.attnlab.setLanguage('zh'));
  snippets.zh = await lab.page.evaluate(() => window.attnlab.embedSnippet());
  await lab.page.evaluate(() => window.attnlab.setLanguage('en'));
  host = await startHost(lab.server.url);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
});
after(async () => { await browser?.close(); host?.stop(); await lab?.close(); });

test('the Embed button gives an <iframe> of embed.html at this step, in the language', () => {
  const at = `${lab.server.url}embed.html`;
  assert.ok(snippets.en.startsWith(`<iframe src="${at}#first-look/`), snippets.en);
  assert.ok(snippets.zh.startsWith(`<iframe src="${at}?lang=zh#first-look/`), snippets.zh);
  assert.match(snippets.en, /title="Attention Lab: [^"<>]+"/);
});

// Opens the course page; resolves to the page and the embedded step's frame once it has drawn.
async function coursePage(lang, viewport, touch = false) {
  const context = await browser.newContext({ viewport, isMobile: touch, hasTouch: touch, deviceScaleFactor: touch ? 3 : 1 });
  const page = await context.newPage();
  const messages = [];
  page.on('console', (m) => messages.push(`${m.type()}: ${m.text()}`));
  await page.goto(`${host.url}?lang=${lang}`);
  const frame = await until(() => page.frames().find((f) => f.url().includes('/embed.html')), 'the embedded step');
  await frame.waitForFunction(() => window.attnlab !== undefined);
  await frame.evaluate(() => window.attnlab.ready);
  return { context, page, frame, messages };
}

test('a course page on another site frames one step: it draws, takes a drag, keeps nothing, and links out with the values', async () => {
  const { context, page, frame, messages } = await coursePage('en', { width: 1280, height: 900 });
  const st = await state(frame);
  assert.equal(st.lesson, 'first-look');
  assert.equal(st.step, 1);
  // Compact chrome: no lesson list, no Back / Next or Share in the canvas, and the
  // page's bar has the link out instead of the lessons' menu.
  const ids = (await widgets(frame)).map((w) => w.id);
  assert.ok(!ids.some((id) => id.startsWith('nav:') || id === 'step:share' || id === 'step:embed'), ids.join(' '));
  assert.equal(await frame.evaluate(() => getComputedStyle(document.getElementById('menu')).display), 'none');
  assert.notEqual(await frame.evaluate(() => getComputedStyle(document.getElementById('open-full')).display), 'none');
  // Arrow keys do not leave the step.
  await frame.focus('#canvas');
  await page.keyboard.press('ArrowRight');
  await frames(frame, 2);
  assert.equal((await state(frame)).step, 1);

  // A drag on a number, in page coordinates (the frame's box plus the widget's place in it).
  const box = await (await page.$('iframe[src*="embed.html"]')).boundingBox();
  const w = await until(async () => (await widgets(frame)).find((x) => x.id === 'edit:q:1:0'), 'q[1][0] in the frame');
  const before = (await state(frame)).values.q[1][0];
  const x = box.x + w.rect.x + w.rect.width / 2, y = box.y + w.rect.y + w.rect.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + 60, y, { steps: 8 });
  await page.mouse.up();
  await frames(frame, 2);
  const after = (await state(frame)).values.q[1][0];
  assert.ok(after > before + 0.1, `the drag moved q[1][0] from ${before} to ${after}`);
  // Nothing is saved: the frame's storage (partitioned, or refused to a third-party
  // frame, as this Chromium does) holds no progress.
  await frames(frame, 10);
  const kept = await frame.evaluate(() => {
    try { return Object.keys(localStorage).filter((k) => k.startsWith('attnlab.')); } catch { return []; }
  });
  assert.deepEqual(kept, []);
  // "Open in Attention Lab" is the full lab at this step with the dragged value in the link.
  const href = await frame.evaluate(() => document.getElementById('open-full').href);
  assert.ok(href.startsWith(`${lab.server.url}index.html#first-look/`) && href.includes('/v1.'), href);
  assert.equal(await frame.evaluate(() => document.getElementById('open-full').target), '_blank');

  // The full lab in a frame is refused (frame-ancestors 'none'): no lab runs there.
  const full = page.frames().find((f) => f !== frame && f !== page.mainFrame());
  assert.ok(full, 'no second frame');
  const inside = await full.evaluate(() => typeof window.attnlab).catch(() => 'blocked');
  assert.notEqual(inside, 'object', 'the full lab ran inside another site\'s frame');
  assert.ok(messages.some((m) => m.includes('frame-ancestors')), messages.join('\n'));
  await page.screenshot({ path: join(shots, 'embed-desktop-en.png') });
  await context.close();
});

test("opened on the lab's own site, the embed view leaves the learner's saved progress alone", async () => {
  const { page } = lab;  // the full lab, at first-look step 2, has saved its state
  await page.evaluate(() => window.attnlab.goto('first-look', 0));
  const saved = await until(() => page.evaluate(() => {
    const v = localStorage.getItem('attnlab.state');
    return v && JSON.parse(v).step === 0 ? v : null;
  }), 'the lab to save its step');
  const other = await page.context().newPage();
  await other.goto(`${lab.server.url}embed.html#first-look/2`);
  await other.waitForFunction(() => window.attnlab !== undefined);
  await other.evaluate(() => window.attnlab.ready);
  const w = await until(async () => (await widgets(other)).find((x) => x.id === 'edit:q:1:0'), 'q[1][0]');
  const x = w.rect.x + w.rect.width / 2, y = w.rect.y + w.rect.height / 2;
  await other.mouse.move(x, y);
  await other.mouse.down();
  await other.mouse.move(x + 60, y, { steps: 8 });
  await other.mouse.up();
  await frames(other, 10);
  assert.ok((await state(other)).edited, 'the drag did not take');
  await other.close({ runBeforeUnload: true });  // a page going away writes what is unsaved (pagehide)
  assert.equal(await page.evaluate(() => localStorage.getItem('attnlab.state')), saved);
});

test('the embedded step in Chinese, and on a phone', async () => {
  for (const [label, viewport, touch] of [['desktop', { width: 1280, height: 900 }, false], ['phone', { width: 390, height: 844 }, true]]) {
    for (const lang of label === 'desktop' ? ['zh'] : ['en', 'zh']) {
      const { context, page, frame } = await coursePage(lang, viewport, touch);
      assert.equal((await state(frame)).lang, lang);
      assert.equal(await frame.evaluate(() => document.getElementById('open-full').textContent),
                   lang === 'zh' ? '在 Attention Lab 中打开 ↗' : 'Open in Attention Lab ↗');
      // Nothing in the frame lies beyond its width.
      const sideways = await frame.evaluate(() => document.documentElement.scrollWidth - innerWidth);
      assert.ok(sideways <= 0, `${label} ${lang}: the frame scrolls sideways by ${sideways} px`);
      await frames(frame, 2);
      await page.screenshot({ path: join(shots, `embed-${label}-${lang}.png`) });
      await context.close();
    }
  }
});
