// trainer-worker.js: the page's training worker (a plain Web Worker: no shared
// memory, so no cross-origin isolation is needed). It loads its own WebAssembly
// module of the lab's headless layers (trainer.js, built from
// src/app/trainer_main.cpp), passes the page's messages to it, and trains in
// slices between them: after each slice the event loop runs, so a Pause or a
// new setting is read within one slice (lab/trainer.h, kWorkerSliceMs).
'use strict';
importScripts('trainer.js');

let M = null;            // the module, once loaded
const pending = [];      // messages that came before it
let timer = 0;           // a slow-speed pause
let queued = false;      // a slice is queued on the channel
// A MessageChannel schedules the next slice at once; setTimeout(0) would wait
// at least 4 ms after a few nested calls.
const channel = new MessageChannel();
channel.port1.onmessage = () => { queued = false; loop(); };

function schedule(waitMs) {
  if (timer) { clearTimeout(timer); timer = 0; }
  if (waitMs < 0) return;  // nothing runs: wait for a message
  if (waitMs === 0) {
    if (!queued) { queued = true; channel.port2.postMessage(0); }
    return;
  }
  timer = setTimeout(() => { timer = 0; loop(); }, waitMs);
}
function loop() { if (M) schedule(M._trainer_tick(performance.now())); }
function deliver(buffer) {
  const bytes = new Uint8Array(buffer), p = M._malloc(bytes.length);
  M.HEAPU8.set(bytes, p);
  M._trainer_receive(p, bytes.length);
  M._free(p);
}

self.onmessage = (e) => {
  if (!(e.data instanceof ArrayBuffer)) return;  // the page sends bytes only
  if (!M) { pending.push(e.data); return; }
  deliver(e.data);
  schedule(0);
};

const failed = (why) => { postMessage({ type: 'failed', why: String(why).slice(0, 300) }); close(); };
AttnTrainer({
  print: (s) => console.log(s),
  printErr: (s) => console.warn(s),
  onAbort: (what) => failed('the training module stopped: ' + what),
}).then((m) => {
  M = m;
  postMessage({ type: 'ready' });
  for (const b of pending.splice(0)) deliver(b);
  schedule(0);
}).catch((e) => failed('the training module could not load: ' + (e && e.message ? e.message : e)));
