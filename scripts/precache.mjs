// precache.mjs: writes the page's service worker (site/sw.js) from web/sw.js with
// the list of files of this build and a SHA-256 of each, so the worker can keep
// the page working offline and tell this build's files from any other's. Run by
// the build after the page, the worker's module and the assets are in place:
//   node scripts/precache.mjs SITE TEMPLATE      (TEMPLATE: web/sw.js)
// The list's own hash names the build, so a changed file gives another list,
// another sw.js and, in the browser, an update. sw.js is rewritten only when it
// changes.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

// Loaded before the first frame: cached when the service worker installs.
export const EAGER = ['index.html', 'index.js', 'index.wasm', 'index.data', 'lab.js', 'lab.css', 'mirror.js',
                      'offline.js', 'favicon.svg', 'manifest.webmanifest', 'icons/icon.svg', 'icons/icon-192.png',
                      'icons/icon-512.png', 'icons/maskable-512.png'];
// Cached only when the page asks for them (the common Chinese characters' glyphs:
// only a learner's own Chinese text needs them, and they are 1.6 MB), never in the
// background fill after the first frame.
export const ON_DEMAND = ['texts/common-glyphs.otf'];
// Never cached: the worker itself, and the fonts the build packs into index.data
// (site/fonts/ holds them for the desktop build; the page never fetches them).
const SKIP = (path) => path === 'sw.js' || path.startsWith('fonts/') || path.split('/').some((p) => p.startsWith('.'));
const MARK = '/* precache */ null';

function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}
export const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

// {id, eager: {path: sha256}, lazy: {path: sha256}, demand: {path: sha256}} for the files in `site`.
// Everything that is not in EAGER or skipped loads after the first frame (the
// lessons' texts, the poems' glyphs, the training worker's files, and any page
// added later): cached in the background once the page has drawn.
export function precacheList(site) {
  const eager = {}, lazy = {}, demand = {};
  const files = walk(site).map((f) => relative(site, f).split(sep).join('/')).filter((p) => !SKIP(p)).sort();
  for (const path of files) {
    if (!/^[A-Za-z0-9._/-]+$/.test(path)) throw new Error(`${path}: a file name the page could not ask for as it is`);
    (EAGER.includes(path) ? eager : ON_DEMAND.includes(path) ? demand : lazy)[path] = sha256(readFileSync(join(site, path)));
  }
  const missing = EAGER.filter((p) => !(p in eager));
  if (missing.length) throw new Error(`the site has no ${missing.join(', ')}`);
  const id = sha256(JSON.stringify({ eager, lazy, demand })).slice(0, 16);
  return { id, eager, lazy, demand };
}

// Writes site/sw.js from the template; returns the list.
export function writeServiceWorker(site, template) {
  const list = precacheList(site);
  const text = readFileSync(template, 'utf8');
  if (text.split(MARK).length !== 2) throw new Error(`${template} must hold "${MARK}" exactly once`);
  const out = text.replace(MARK, JSON.stringify(list, null, 1));
  const file = join(site, 'sw.js');
  if (!existsSync(file) || readFileSync(file, 'utf8') !== out) writeFileSync(file, out);
  return list;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const [site, template] = process.argv.slice(2);
  if (!site || !template) {
    console.error('usage: node scripts/precache.mjs SITE TEMPLATE');
    process.exit(2);
  }
  const list = writeServiceWorker(resolve(site), resolve(template));
  const size = (group) => Object.keys(group).reduce((n, p) => n + readFileSync(join(site, p)).length, 0);
  const mb = (n) => (n / 1048576).toFixed(2);
  console.log(`sw.js: build ${list.id}, ${Object.keys(list.eager).length} files on install (${mb(size(list.eager))} MB), ` +
              `${Object.keys(list.lazy).length} after the first frame (${mb(size(list.lazy))} MB), ` +
              `${Object.keys(list.demand).length} when asked for (${mb(size(list.demand))} MB)`);
}
