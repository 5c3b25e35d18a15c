// lab.js: the page's side of Attention Lab: loading progress, fatal errors, and
// window.attnlab, the hook that browser tests (and curious learners) use.
// See README.md, "Developer notes: window.attnlab".
(function () {
  'use strict';
  const loading = document.getElementById('loading');
  const text = document.getElementById('loading-text');
  const bar = document.getElementById('loading-bar');
  const pageErrors = [];

  function fail(message) {
    pageErrors.push(String(message));
    loading.classList.remove('done');
    loading.classList.add('failed');
    text.textContent = 'The lab could not start: ' + message;
    rejectReady(new Error(message));
  }

  let resolveReady, rejectReady;
  const ready = new Promise((res, rej) => { resolveReady = res; rejectReady = rej; });
  ready.catch(() => {});  // a failed start is shown on the page; avoid an unhandled rejection

  if (!document.createElement('canvas').getContext('webgl2')) {
    fail('this browser has no WebGL 2.');
  }

  let totalDeps = 0;
  window.Module = {
    canvas: document.getElementById('canvas'),
    setStatus(s) {
      // Emscripten reports "Downloading data... (loaded/total)" while fetching.
      const m = /\((\d+(?:\.\d+)?)\/(\d+)\)/.exec(s || '');
      if (m) bar.style.width = (100 * Number(m[1]) / Number(m[2])).toFixed(0) + '%';
      if (s) text.textContent = s.replace(/\(.*\)/, '').trim() || 'Loading…';
    },
    monitorRunDependencies(left) {
      totalDeps = Math.max(totalDeps, left);
      if (totalDeps) bar.style.width = (100 * (totalDeps - left) / totalDeps).toFixed(0) + '%';
    },
    labFirstFrame() {
      bar.style.width = '100%';
      loading.classList.add('done');
      resolveReady();
    },
    labFatal(message) { fail(message); },
    onAbort(what) { fail('aborted: ' + what); },
    print(s) { console.log(s); },
    printErr(s) { console.warn(s); },
  };

  function call(name, ...args) {
    const types = args.map((a) => (typeof a === 'number' ? 'number' : 'string'));
    return Module.ccall(name, 'number', types, args);
  }
  function json(name) {
    return JSON.parse(Module.UTF8ToString(Module.ccall(name, 'number', [], [])));
  }

  window.attnlab = {
    // Resolves after the first frame has been drawn.
    ready,
    // [{id, title, steps}] in lesson order.
    lessons: () => json('lab_lessons_json_c'),
    // Current lesson, step, editable values and computed outputs.
    state: () => json('lab_state_json_c'),
    // Interactive widgets drawn in the last frame: [{id, kind, rect: {x, y, width, height}}] in CSS pixels.
    widgets: () => json('lab_widgets_json_c'),
    // Messages the lab reported (lessons that failed to load, ...), then page-level errors.
    errors: () => json('lab_errors_json_c').concat(pageErrors),
    // Go to a lesson (by id) and step (0-based); true when both exist.
    goto: (lessonId, step) => call('lab_goto_c', String(lessonId), Number(step) | 0) === 1,
    // Load one more lesson from text (lesson file format); false and an errors() entry if it is invalid.
    loadLesson: (fileName, source) => call('lab_load_lesson_c', String(fileName), String(source)) === 1,
  };
  window.addEventListener('error', (e) => pageErrors.push(String(e.message)));
})();
