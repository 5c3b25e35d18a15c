// swtrace.mjs: what the browser says about a page's service workers, over CDP
// (ServiceWorker.enable): each version's status (new, installing, installed,
// activating, activated, redundant) and running status (starting, running,
// stopping, stopped), with the seconds since tracing began and the test's own
// notes in between. Printed when a test fails, so a failure says where the
// lifecycle stopped; LAB_SWTRACE=1 prints it always.
export async function traceServiceWorkers(page) {
  const t0 = Date.now();
  const lines = [];
  const last = new Map();  // versionId -> what was last recorded
  const note = (text) => lines.push(`${((Date.now() - t0) / 1000).toFixed(2).padStart(7)} s  ${text}`);
  const cdp = await page.context().newCDPSession(page);
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const v of versions) {
      const s = `version ${v.versionId}: ${v.status}, ${v.runningStatus}`;
      if (last.get(v.versionId) !== s) { last.set(v.versionId, s); note(s); }
    }
  });
  cdp.on('ServiceWorker.workerErrorReported', ({ errorMessage: e }) => note(`error in version ${e.versionId}: ${e.errorMessage}`));
  await cdp.send('ServiceWorker.enable');
  return { note, text: () => lines.join('\n'), stop: () => cdp.detach().catch(() => {}) };
}

// Runs body(trace) with the page's service workers traced; prints the trace if
// it throws (or always, with LAB_SWTRACE=1), and once if it is still running
// after `watchdogMs` (a wait with no ceiling of its own, such as an evaluate
// that never returns, shows where it is before the test's time runs out).
export async function withServiceWorkerTrace(page, body, { watchdogMs = 420000 } = {}) {
  const trace = await traceServiceWorkers(page);
  const print = (why = '') => console.log(`service workers, as the browser saw them${why}:\n${trace.text()}`);
  const dog = setTimeout(() => print(` (still running after ${watchdogMs / 1000} s)`), watchdogMs);
  dog.unref();
  try {
    await body(trace);
    if (process.env.LAB_SWTRACE) print();
  } catch (e) {
    print();
    throw e;
  } finally {
    clearTimeout(dog);
    await trace.stop();
  }
}
