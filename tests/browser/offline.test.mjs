// Offline and installable (issue 25, part 1): after one visit the service worker
// (web/sw.js) has this build's files, those the page loads later only after its
// first frame; the page is installable (manifest, icons, service worker); and a
// reload with no network at all starts the lab, in which every step of every
// lesson opens, the language model gets its text and the poems their glyphs,
// and the training worker trains.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, state, frames, until, workerReady } from './harness.mjs';
import { builtSite } from './builds.mjs';

let lab;
const build = builtSite();
const requests = [];  // {path, start (ms since 1970), byWorker (the service worker's own)}
before(async () => {
  lab = await openLab({
    hash: '#first-look',
    prepare: (page) => page.context().on('requestfinished', (r) => {
      const u = new URL(r.url());
      requests.push({ path: u.pathname.slice(1), start: r.timing().startTime, byWorker: !!r.serviceWorker() });
    }),
  });
});
after(async () => { await lab?.close(); });

const offline = (page) => page.evaluate(() => window.attnlab.offline());
const cachedAll = (page) => until(async () => {
  const s = await offline(page);
  return s.active && s.active.complete ? s : null;
}, 'the service worker to cache every file of the build', 180000);

test('one visit caches every file of the build, the later ones only after the first frame', async () => {
  const { page } = lab;
  const t0 = Date.now();
  const s = await cachedAll(page);
  console.log(`cached ${s.active.eager} files on install and ${s.active.lazy} after the first frame ` +
              `${((Date.now() - t0) / 1000).toFixed(1)} s after it (build ${s.active.build})`);
  assert.equal(s.active.build, build.list.id);
  assert.equal(s.active.eager, Object.keys(build.list.eager).length);
  assert.equal(s.active.lazy, Object.keys(build.list.lazy).length);
  for (const p of ['texts/tang300', 'texts/poem-glyphs.otf', 'trainer-worker.js', 'trainer.js', 'trainer.wasm']) {
    assert.ok(p in build.list.lazy, `${p} is not among the files cached after the first frame`);
  }
  assert.equal(s.controlled, false, 'a first visit is not taken over by the worker it installs');
  // Every request for a later file (the page's, its worker's, the service
  // worker's own) started after the first frame.
  const lazy = requests.filter((r) => r.path in build.list.lazy);
  assert.ok(lazy.some((r) => r.byWorker && r.path === 'texts/tang300'), 'the service worker did not fetch the poems');
  const early = lazy.filter((r) => r.start < s.firstFrameAt);
  assert.deepEqual(early, [], `fetched before the first frame (${new Date(s.firstFrameAt).toISOString()})`);
  const keys = await page.evaluate(() => caches.keys());
  assert.deepEqual(keys, [`attnlab-${build.list.id}`]);
});

test('the page is installable: its manifest parses and Chromium finds nothing missing', async () => {
  const { page } = lab;
  const cdp = await page.context().newCDPSession(page);
  const manifest = await cdp.send('Page.getAppManifest');
  assert.match(manifest.url, /\/manifest\.webmanifest$/);
  assert.deepEqual(manifest.errors, []);
  const parsed = JSON.parse(manifest.data);
  assert.equal(parsed.display, 'standalone');
  assert.ok(parsed.icons.some((i) => i.sizes === '512x512' && i.type === 'image/png'));
  // Playwright's profiles are incognito ones, from which Chromium installs
  // nothing; that is the only reason it may give.
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  assert.deepEqual(installabilityErrors.filter((e) => e.errorId !== 'in-incognito'), []);
  await cdp.detach();
});

test('with no network, a reload starts the lab and every lesson works, its texts and the training worker too', async () => {
  const { page, server } = lab;
  await lab.reload('#first-look');
  assert.equal((await offline(page)).controlled, true, 'the second visit is not served by the service worker');
  await page.context().setOffline(true);
  server.stop();  // and nothing answers on the port either
  const answered = [];
  page.on('response', (r) => answered.push({ path: new URL(r.url()).pathname.slice(1), sw: r.fromServiceWorker(), status: r.status() }));
  const t0 = Date.now();
  await lab.reload('#first-look');
  console.log(`offline reload to the first frame: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const lessons = await page.evaluate(() => window.attnlab.lessons());
  assert.ok(lessons.length >= 10);
  let steps = 0;
  for (const l of lessons) {
    for (let s = 0; s < l.steps; s++) {
      assert.equal(await page.evaluate(([id, n]) => window.attnlab.goto(id, n), [l.id, s]), true, `${l.id}/${s}`);
      await frames(page, 2);
      steps++;
    }
  }
  console.log(`opened ${steps} steps of ${lessons.length} lessons offline`);
  // The language model's text, the poems and their glyphs come from the cache.
  assert.ok(await page.evaluate(() => window.attnlab.goto('language-model', 0)));
  await until(async () => (await state(page)).experiment?.runs, 'the language model\'s text from the cache', 120000);
  await workerReady(page);
  assert.ok(await page.evaluate(() => window.attnlab.train('step')));
  await until(async () => {
    const ex = (await state(page)).experiment;
    return ex.error === undefined && ex.steps >= 1 && ex.runs[0].evaluatedAt >= 0;
  }, 'one training step in the worker, evaluated', 120000);
  assert.ok(await page.evaluate(() => window.attnlab.goto('language-model', 3)));
  await until(async () => (await state(page)).experiment?.runs, 'the poems and their glyphs from the cache', 120000);
  assert.equal((await state(page)).experiment.corpus, 'chinese');
  assert.ok(await page.evaluate(() => window.attnlab.train('step')));
  await until(async () => (await state(page)).experiment.steps >= 1, 'one training step on the poems', 120000);
  assert.deepEqual(await page.evaluate(() => window.attnlab.errors()), []);
  // Everything the page and its worker got came from the service worker, whole.
  const ours = answered.filter((r) => r.path in build.list.eager || r.path in build.list.lazy || r.path === '');
  for (const p of ['', 'index.wasm', 'index.data', 'texts/us-constitution', 'texts/tang300', 'texts/poem-glyphs.otf', 'trainer.wasm']) {
    assert.ok(ours.some((r) => r.path === p), `${p || 'the page'} was not loaded`);
  }
  assert.deepEqual(ours.filter((r) => !r.sw || r.status !== 200), []);
  assert.deepEqual(lab.consoleErrors, []);
});
