// scripts/serve.mjs serves its folder and nothing beside it: a path that climbs
// out ("..", encoded or not) must not reach a sibling folder whose name starts
// with the site folder's name (site -> site-old).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const serveScript = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'serve.mjs');
let dir, server, port;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'serve-test-'));
  mkdirSync(join(dir, 'site'));
  mkdirSync(join(dir, 'site-old'));
  writeFileSync(join(dir, 'site', 'index.html'), 'the lab');
  writeFileSync(join(dir, 'site-old', 'secret.txt'), 'not for the page');
  writeFileSync(join(dir, 'secret.txt'), 'not for the page either');
  server = fork(serveScript, [join(dir, 'site'), '0'], { stdio: 'ignore' });
  port = await new Promise((ok, fail) => {
    server.once('message', (m) => ok(m.port));
    server.once('exit', (code) => fail(new Error(`serve.mjs exited with ${code}`)));
  });
});
after(() => {
  server?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// GET with the path exactly as written (no client-side normalisation of "..").
function get(path) {
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => ok({ status: res.statusCode, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

test('the site folder is served', async () => {
  assert.deepEqual(await get('/'), { status: 200, body: 'the lab' });
  assert.deepEqual(await get('/index.html'), { status: 200, body: 'the lab' });
});

test('no path reaches a sibling folder or the parent', async () => {
  for (const path of ['/..%2fsite-old/secret.txt', '/..%2Fsite-old%2Fsecret.txt', '/%2e%2e/site-old/secret.txt',
                      '/..%2fsecret.txt', '/..%5csite-old%5csecret.txt', '/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
                      '/index.html%00', '/%E0%A4%A']) {
    const r = await get(path);
    assert.ok(r.status === 403 || r.status === 404, `${path}: status ${r.status}`);
    assert.ok(!r.body.includes('not for the page'), `${path} served a file outside the site`);
  }
});
