// pool.test.mjs: the training worker and its helpers as the page runs them --
// the same script (web/trainer-worker.js), the same WebAssembly module (built
// for node: LAB_TRAINER_NODE) and the same protocol (experiments/trainer.h) --
// in node's worker threads, joined by MessageChannels as the page joins its Web
// Workers. The language model trains to the same losses, bit for bit, with 1,
// 2, 3 and 8 workers (the WebAssembly build has no threads of its own).
//
// Run by ctest in the WebAssembly test build (build/web-test), from the source
// folder; the corpora come from the lab's cache (NODERAWFS).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { train } from './pool.mjs';

const moduleFile = process.env.LAB_TRAINER_NODE;

test('1, 2, 3 and 8 workers in node\'s worker threads train the language model to the same bits', { timeout: 900000 }, async () => {
  assert.ok(moduleFile, 'LAB_TRAINER_NODE names the module built for node (ctest sets it)');
  const steps = 24;
  const one = await train(moduleFile, 1, steps);
  const r1 = one.status.runs[0];
  assert.equal(r1.steps, steps);
  console.log(`1 worker: ${steps} steps in ${one.ms.toFixed(0)} ms, loss ${r1.loss}, held-out ${r1.heldoutLoss}`);
  for (const workers of [2, 3, 8]) {
    const many = await train(moduleFile, workers, steps);
    const r = many.status.runs[0];
    console.log(`${workers} workers: ${steps} steps in ${many.ms.toFixed(0)} ms, loss ${r.loss}, held-out ${r.heldoutLoss}`);
    assert.equal(r.steps, steps);
    assert.equal(r.loss, r1.loss, `${workers} workers: the same training loss, bit for bit`);
    assert.equal(r.heldoutLoss, r1.heldoutLoss, `${workers} workers: the same held-out loss, bit for bit`);
    assert.equal(r.accuracy, r1.accuracy);
  }
});
