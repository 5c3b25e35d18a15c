// serve.mjs: a small static file server for the built lab (no dependencies).
//   node scripts/serve.mjs DIR [PORT]    serves DIR on http://127.0.0.1:PORT/
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';

const root = resolve(process.argv[2] || '.');
const port = Number(process.argv[3] || process.env.PORT || 8080);
const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.data': 'application/octet-stream',
  '.json': 'application/json', '.png': 'image/png', '.ttf': 'font/ttf', '.svg': 'image/svg+xml',
  '.webmanifest': 'application/manifest+json',
};

// The page's policy (web/shell.html has it too, for hosts that send no headers,
// but a <meta> policy cannot say who may frame the page). The full lab may not be
// framed by anyone; the embed view (embed.html, one step) by any site.
const policy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self'; font-src 'self'; connect-src 'self'; worker-src 'self'; manifest-src 'self'; base-uri 'none'; object-src 'none'; form-action 'none'";
const headersFor = (file) => basename(file) === 'embed.html'
  ? { 'Content-Security-Policy': `${policy}; frame-ancestors *` }
  : { 'Content-Security-Policy': `${policy}; frame-ancestors 'none'`, 'X-Frame-Options': 'DENY' };

const server = createServer(async (req, res) => {
  try {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    // Resolve first, then require the result to lie inside root: a prefix test on
    // the text let "/..%2fsite-old/x" reach a sibling folder named like root.
    let file = resolve(root, '.' + path);
    const inside = relative(root, file);
    if (path.includes('\0') || inside === '..' || inside.startsWith('..' + sep) || isAbsolute(inside)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    if ((await stat(file).catch(() => null))?.isDirectory()) file = join(file, 'index.html');
    const body = await readFile(file);
    res.writeHead(200, { 'Content-Type': types[extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-cache',
                         ...headersFor(file), 'X-Content-Type-Options': 'nosniff' });
    res.end(body);
  } catch {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
  }
});
server.on('error', (e) => {
  console.error(e.code === 'EADDRINUSE' ? `port ${port} is in use: set PORT to another number` : String(e));
  process.exit(1);
});
server.listen(port, '127.0.0.1', () => {
  const { port: p } = server.address();
  console.log(`Attention Lab is ready: http://127.0.0.1:${p}/`);
  if (process.send) process.send({ port: p });
});
