// sw.js: the page's service worker. It keeps one build of the lab offline: the
// files the page needs before its first frame are cached when it installs, the
// ones it loads later (the lessons' texts, the poems' glyphs, the training
// worker) when the page asks, after its first frame (web/offline.js). Every file
// it hands out belongs to its own build: it is served from this build's cache, or
// fetched and checked against this build's SHA-256 before it is used, so a page
// never mixes one build's files with another's. A new build waits until the
// learner reloads from the page's notice; when it takes over, the old build's
// cache is deleted.
//
// Files the page fetches only when a learner needs them (the common Chinese
// characters' glyphs) are kept once fetched, never fetched in the background.
//
// The build writes site/sw.js from this file (scripts/precache.mjs): the marked
// null below becomes {id, eager: {path: sha256}, lazy: {path: sha256}, demand: {path: sha256}}.
'use strict';
const BUILD = /* precache */ null;

const PREFIX = 'attnlab-';
const CACHE = BUILD ? PREFIX + BUILD.id : '';
const FILES = BUILD ? Object.assign({}, BUILD.eager, BUILD.lazy, BUILD.demand || {}) : {};
const scope = self.registration.scope;
const urlOf = (path) => new URL(path, scope).href;
const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');

// One file of this build from the network, checked: a response that is not 200
// or whose bytes are another build's is refused. The page itself is asked for by
// its folder's address (a host may redirect index.html there). A fresh Response
// holds the bytes: a redirected one may not answer a navigation.
async function fetchChecked(path) {
  const r = await fetch(urlOf(path === 'index.html' ? './' : path), { cache: 'no-cache', credentials: 'same-origin' });
  if (r.status !== 200) throw new Error(`${path}: the server answered ${r.status}`);
  const body = await r.arrayBuffer();
  if (hex(await crypto.subtle.digest('SHA-256', body)) !== FILES[path]) {
    throw new Error(`${path}: the server has another version of this file`);
  }
  return new Response(body, { status: 200, statusText: r.statusText, headers: r.headers });
}

// Caches the files of `paths` that are not cached yet; `parallel` for the install,
// one at a time in the background. Throws at the first failure.
async function fill(paths, parallel) {
  const cache = await caches.open(CACHE);
  const one = async (path) => {
    if (await cache.match(urlOf(path))) return;
    await cache.put(urlOf(path), await fetchChecked(path));
  };
  if (parallel) await Promise.all(paths.map(one));
  else for (const p of paths) await one(p);
}

self.addEventListener('install', (e) => {
  e.waitUntil(BUILD ? fill(Object.keys(BUILD.eager), true) : Promise.reject(new Error('sw.js has no list of files')));
});

// The other builds' caches go (an old one, or a newer one that never took over).
self.addEventListener('activate', (e) => {
  e.waitUntil(caches.keys().then((keys) =>
    Promise.all(keys.filter((k) => k.startsWith(PREFIX) && k !== CACHE).map((k) => caches.delete(k)))));
});

// The files loaded after the first frame, once at a time; a failure (offline, or
// the server already has a newer build) leaves the rest for the next request.
let lazyFill = null;
function fillLazy() {
  if (!lazyFill) {
    lazyFill = fill(Object.keys(BUILD.lazy), false).catch(() => {}).then(() => { lazyFill = null; });
  }
  return lazyFill;
}

async function status() {
  const cache = await caches.open(CACHE);
  const has = async (paths) => (await Promise.all(paths.map((p) => cache.match(urlOf(p))))).filter(Boolean).length;
  const eager = Object.keys(BUILD.eager), lazy = Object.keys(BUILD.lazy);
  return { type: 'status', build: BUILD.id, eager: eager.length, eagerCached: await has(eager),
           lazy: lazy.length, lazyCached: await has(lazy) };
}

// Messages come from the lab's own pages only, and are checked: an object with a
// known type. 'cache-lazy' caches the later files, 'skip-waiting' lets a waiting
// build take over (the notice's Reload), 'status' answers on the given port.
self.addEventListener('message', (e) => {
  const d = e.data;
  if (!BUILD || e.origin !== self.location.origin || !e.source || e.source.type !== 'window') return;
  if (!d || typeof d !== 'object' || typeof d.type !== 'string') return;
  if (d.type === 'cache-lazy') e.waitUntil(fillLazy());
  else if (d.type === 'skip-waiting') e.waitUntil(self.skipWaiting());
  else if (d.type === 'status' && e.ports.length === 1) e.waitUntil(status().then((s) => e.ports[0].postMessage(s)));
});

// Answers from this build's cache; what is missing is fetched, checked and kept.
// What cannot be had for this build is a 503, never another build's file.
async function fromBuild(path) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(urlOf(path));
  if (hit) return hit;
  try {
    const r = await fetchChecked(path);
    await cache.put(urlOf(path), r.clone());
    return r;
  } catch (err) {
    return new Response(`Attention Lab: ${err.message}. Reload the page.`,
                        { status: 503, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
  }
}

self.addEventListener('fetch', (e) => {
  const req = e.request;
  if (!BUILD || req.method !== 'GET') return;
  const url = new URL(req.url);
  const here = url.origin + url.pathname;
  if (!here.startsWith(scope)) return;
  let path = here.slice(scope.length);
  if (req.mode === 'navigate') {
    if (path === '') path = 'index.html';  // a query in the page's address is the page's
  } else if (url.search) {
    return;  // the lab asks for its files without a query
  }
  if (!Object.prototype.hasOwnProperty.call(FILES, path)) return;  // not the lab's: the network as usual
  e.respondWith(fromBuild(path));
});
