// trainer-worker.js: the page's training workers (plain Web Workers: no shared
// memory, so no cross-origin isolation is needed). Each loads its own
// WebAssembly module of the lab's headless layers (trainer.js, built from
// src/app/trainer_main.cpp). One is the training worker: it passes the page's
// messages to the module and trains in slices between them; after each slice
// the event loop runs, so a Pause or a new setting is read within one slice
// (experiments/trainer.h, kWorkerSliceMs). The others are its helpers
// (experiments/shares.h): each computes shares of the language model's steps,
// which it gets from the training worker, and answers, through a MessageChannel
// the page made for the two of them. The page says which role a worker has:
//   {type: 'helpers', ports: [MessagePort...]}   to the training worker: its helpers now
//   {type: 'helper', port: MessagePort}         makes this worker a helper
// and otherwise sends the training worker the protocol's bytes (ArrayBuffers).
//
// The same script runs in node's worker threads for the tests (tests/node):
// there the module is the one named in workerData, and the page is the thread
// that started it.
'use strict';
const inNode = typeof importScripts !== 'function';
/* global importScripts, AttnTrainer */
let host, Factory;  // where the page is (postMessage, close, a message handler), and the module's factory
if (inNode) {
  const { parentPort, workerData } = require('worker_threads');
  Factory = require(workerData.module);
  host = { post: (m, t) => parentPort.postMessage(m, t), close: () => process.exit(0),
           listen: (fn) => parentPort.on('message', (data) => fn({ data })) };
} else {
  importScripts('trainer.js');
  Factory = AttnTrainer;
  host = { post: (m, t) => postMessage(m, t), close: () => close(), listen: (fn) => { self.onmessage = fn; } };
}

let M = null;            // the module, once loaded
const pending = [];      // what came before it: [kind, data]
let timer = 0;           // a slow-speed pause
let queued = false;      // a slice is queued on the channel
// A MessageChannel schedules the next slice at once; setTimeout(0) would wait
// at least 4 ms after a few nested calls. In node a port delivers up to a
// thousand queued messages before anything else runs, which left the page's
// messages unread for as long as training ran: there setImmediate, which lets
// the event loop look at every port between two slices.
const channel = new MessageChannel();
channel.port1.onmessage = () => { queued = false; loop(); };
const nextSlice = inNode ? () => setImmediate(() => { queued = false; loop(); }) : () => channel.port2.postMessage(0);

function schedule(waitMs) {
  if (timer) { clearTimeout(timer); timer = 0; }
  if (waitMs < 0) return;  // nothing runs: wait for a message (or a helper's result)
  if (waitMs === 0) {
    if (!queued) { queued = true; nextSlice(); }
    return;
  }
  timer = setTimeout(() => { timer = 0; loop(); }, waitMs);
}
function loop() { if (M) schedule(M._trainer_tick(performance.now())); }
// Bytes into the module's memory for one call of `fn`.
function call(fn, buffer) {
  const bytes = new Uint8Array(buffer), p = M._malloc(bytes.length);
  M.HEAPU8.set(bytes, p);
  fn(p, bytes.length);
  M._free(p);
}
function handle(kind, data) {
  if (kind === 'message') { call(M._trainer_receive, data); schedule(0); }
  else if (kind === 'result') { call(M._trainer_result, data); schedule(0); }
  else if (kind === 'job') call(M._trainer_job, data);
  else if (kind === 'helpers') { M.labHelpers = data; M._trainer_set_helpers(data.length); schedule(0); }
}
function take(kind, data) {
  if (!M) pending.push([kind, data]);
  else handle(kind, data);
}

host.listen((e) => {
  const d = e.data;
  if (d instanceof ArrayBuffer) { take('message', d); return; }  // the page's protocol
  if (!d || typeof d !== 'object') return;
  if (d.type === 'helpers' && Array.isArray(d.ports)) {
    const ports = d.ports.filter((p) => p instanceof MessagePort).slice(0, 16);
    // The old helpers' ports close; their shares still out are done here.
    if (M && M.labHelpers) for (const p of M.labHelpers) p.close();
    for (const p of ports) p.onmessage = (m) => { if (m.data instanceof ArrayBuffer) take('result', m.data); };
    take('helpers', ports);
  } else if (d.type === 'helper' && d.port instanceof MessagePort) {
    const port = d.port;
    port.onmessage = (m) => { if (m.data instanceof ArrayBuffer) take('job', m.data); };
    if (M) M.labCoordinator = port;
    else pending.push(['coordinator', port]);
  }
});

const failed = (why) => { host.post({ type: 'failed', why: String(why).slice(0, 300) }); host.close(); };
Factory({
  print: (s) => console.log(s),
  printErr: (s) => console.warn(s),
  onAbort: (what) => failed('the training module stopped: ' + what),
}).then((m) => {
  M = m;
  M.labSend = (buffer) => host.post(buffer, [buffer]);
  host.post({ type: 'ready' });
  for (const [kind, data] of pending.splice(0)) {
    if (kind === 'coordinator') M.labCoordinator = data;
    else handle(kind, data);
  }
  schedule(0);
}).catch((e) => failed('the training module could not load: ' + (e && e.message ? e.message : e)));
