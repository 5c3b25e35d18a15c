// builds.mjs: more than one build of the page for the service-worker tests. A
// "build" is a copy of the built site with a few files changed and its sw.js
// written again (scripts/precache.mjs), as a new release would be; `Served` is
// one address whose folder can be switched from one build to another, as a
// host's deploy does.
import { cpSync, mkdtempSync, appendFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { site } from './harness.mjs';
import { precacheList, sha256, writeServiceWorker } from '../../scripts/precache.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const template = join(here, '..', '..', 'web', 'sw.js');

// The built site as it is: {dir, list}.
export function builtSite() {
  return { dir: site, list: precacheList(site) };
}

// A copy of the built site in which the page, its script and style, the worker's
// script and one lesson text differ by a comment or a blank line, with its own
// sw.js: {dir, list}. `tag` names it in the changed files.
export function modifiedCopy(tag, scratch) {
  const dir = join(scratch, `site-${tag}`);
  cpSync(site, dir, { recursive: true });
  appendFileSync(join(dir, 'index.html'), `<!-- build ${tag} -->\n`);
  for (const f of ['lab.js', 'lab.css', 'offline.js', 'trainer-worker.js']) appendFileSync(join(dir, f), `\n/* build ${tag} */\n`);
  appendFileSync(join(dir, 'texts', 'us-declaration'), '\n');
  return { dir, list: writeServiceWorker(dir, template) };
}

// A folder for the copies, removed by `done`.
export function scratchDir() {
  const dir = mkdtempSync(join(tmpdir(), 'attnlab-builds-'));
  return { dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}

// A symbolic link the server serves; `use(build)` points it at that build's
// folder in one step (a rename over the old link).
export function servedLink(scratch) {
  const link = join(scratch, 'served');
  let n = 0;
  const use = (build) => {
    const next = `${link}.${n++}`;
    symlinkSync(build.dir, next);
    renameSync(next, link);
  };
  return { link, use };
}

// Which builds have `bytes` as their file `path`: their names (a file the copies
// left alone is every build's).
export function whichBuilds(path, bytes, builds) {
  const h = sha256(bytes);
  return Object.entries(builds).filter(([, b]) => (b.list.eager[path] || b.list.lazy[path] || (b.list.demand || {})[path]) === h).map(([name]) => name);
}
