// lab.js: the page's side of Attention Lab: loading progress, fatal errors, and
// window.attnlab, the hook that browser tests (and curious learners) use.
// See README.md, "Developer notes: window.attnlab".
(function () {
  'use strict';
  const loading = document.getElementById('loading');
  const text = document.getElementById('loading-text');
  const bar = document.getElementById('loading-bar');
  const pageErrors = [];
  // No browser menu over the canvas (it was an inline handler; the page's policy allows none).
  document.getElementById('canvas').addEventListener('contextmenu', (e) => e.preventDefault());

  function fail(message) {
    pageErrors.push(String(message));
    loading.classList.remove('done');
    loading.classList.add('failed');
    text.textContent = 'The lab could not start: ' + message;
    rejectReady(new Error(message));
  }

  // The step's words also live in the page's DOM (readable by screen readers,
  // selectable, zoomable), beside the canvas.
  const prose = document.getElementById('prose');
  function showProse(p) {
    if (!prose || !p || !p.title) return;
    document.documentElement.lang = p.lang === 'zh' ? 'zh-Hans' : 'en';
    prose.replaceChildren();
    const h = (tag, text, cls) => { const e = document.createElement(tag); e.textContent = text; if (cls) e.className = cls; prose.append(e); };
    h('p', p.lesson, 'lesson');
    h('h2', p.title);
    // "[words](#lesson/step)" in the text (the recap's map) becomes a link to that step.
    for (const para of String(p.text).split('\n')) {
      const e = document.createElement('p');
      for (const part of para.split(/(\[[^[\]]+\]\(#[a-z0-9_-]+\/[0-9]{1,3}\))/)) {
        const link = /^\[([^[\]]+)\]\((#[a-z0-9_-]+\/[0-9]{1,3})\)$/.exec(part);
        if (link) {
          const a = document.createElement('a');
          a.href = link[2];
          a.textContent = link[1];
          e.append(a);
        } else if (part) {
          e.append(part);
        }
      }
      prose.append(e);
    }
    h('p', (p.lang === 'zh' ? `第 ${p.step} 步，共 ${p.steps} 步` : `Step ${p.step} of ${p.steps}`), 'where');
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
    // Events from the app (platform::page_event).
    labEvent(name, data) {
      if (name === 'firstFrame') {
        bar.style.width = '100%';
        loading.classList.add('done');
        resolveReady();
      } else if (name === 'fatal') {
        fail(data);
      } else if (name === 'step') {
        showProse(data);
      }
    },
    onAbort(what) { fail('aborted: ' + what); },
    print(s) { console.log(s); },
    printErr(s) { console.warn(s); },
  };

  // Every question goes through one exported C function: lab_query(name, argJson) -> JSON.
  // Strings cross on the heap, never on the small wasm stack (ccall's 'string'
  // copies onto the stack, and a few MB there overwrite the lab's memory), and
  // their length is checked first.
  const kMaxArgChars = 4 * 1024 * 1024;
  function heapString(s) {
    const n = Module.lengthBytesUTF8(s) + 1, p = Module._malloc(n);
    if (!p) throw new Error('out of memory');
    Module.stringToUTF8(s, p, n);
    return p;
  }
  function ask(name, arg) {
    const json = JSON.stringify(arg ?? null) ?? 'null';
    if (json.length > kMaxArgChars) {
      pageErrors.push(`${name}: the request is too long (${json.length} characters, at most ${kMaxArgChars})`);
      return null;
    }
    const n = heapString(String(name)), a = heapString(json);
    try {
      return JSON.parse(Module.UTF8ToString(Module._lab_query(n, a)));
    } finally {
      Module._free(n);
      Module._free(a);
    }
  }
  // A link from the address bar: length first (the lab takes at most a few KB),
  // then a decoding that cannot throw; what does not decode is passed as it is
  // and refused by the link parser with a notice.
  function fragmentOf(hash) {
    const raw = String(hash || '').replace(/^#/, '').slice(0, 16384);
    try { return decodeURIComponent(raw); } catch (e) { return raw; }
  }

  window.attnlab = {
    // Resolves after the first frame has been drawn.
    ready,
    // [{id, title, steps, furthest}] in lesson order.
    lessons: () => ask('lessons'),
    // Current lesson, step, editable values and settings, computed outputs, notices.
    state: () => ask('state'),
    // Interactive widgets drawn in the last frame: [{id, kind, rect: {x, y, width, height}}] in CSS pixels.
    widgets: () => ask('widgets'),
    // Messages the lab reported (lessons that failed to load, ...), then page-level errors.
    errors: () => ask('errors').concat(pageErrors),
    // Go to a lesson (by id) and step (0-based); true when both exist.
    goto: (lessonId, step) => ask('goto', { lesson: String(lessonId), step: Number(step) }),
    // Load one more lesson from text (lesson file format); false and an errors() entry if it is invalid.
    loadLesson: (file, text) => ask('loadLesson', { file: String(file), text: String(text) }),
    // Switch the language: 'en' or 'zh'.
    setLanguage: (lang) => ask('language', { lang: String(lang) }),
    // Put this step's link, with the learner's values, in the address bar and the clipboard.
    share: () => ask('share'),
    // Drive the step's live experiment: 'run', 'pause', 'step', 'reset', or 'speed' with 'slow' | 'normal' | 'fast'.
    // True when the step has one.
    train: (action, speed) => ask('train', { action: String(action), speed: String(speed || '') }),
  };
  // Following a link typed into the address bar, without reloading.
  window.addEventListener('hashchange', () => {
    if (Module.calledRun) ask('link', { fragment: fragmentOf(location.hash) });
  });
  window.addEventListener('error', (e) => pageErrors.push(String(e.message)));
})();
