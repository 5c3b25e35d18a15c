// lab.js: the page's side of Attention Lab: loading progress, fatal errors, and
// window.attnlab, the hook that browser tests (and curious learners) use.
// See README.md, "Developer notes: window.attnlab".
(function () {
  'use strict';
  const loading = document.getElementById('loading');
  const text = document.getElementById('loading-text');
  const bar = document.getElementById('loading-bar');
  const pageErrors = [];
  // The canvas draws at most 2 device pixels per CSS pixel. WebGL here may be
  // software (SwiftShader), and a 3x phone has 2.25 times the pixels of 2x for
  // text that looks the same at arm's length; measured, 3x halved the frame rate
  // while training. SDL and the lab read the ratio from window.devicePixelRatio.
  const kMaxPixelRatio = 2;
  const ratio = Object.getOwnPropertyDescriptor(window, 'devicePixelRatio');
  if (ratio && ratio.get && ratio.configurable) {
    Object.defineProperty(window, 'devicePixelRatio', {
      configurable: true, enumerable: true, get: () => Math.min(kMaxPixelRatio, ratio.get.call(window)),
    });
  }
  // No browser menu over the canvas (it was an inline handler; the page's policy allows none).
  document.getElementById('canvas').addEventListener('contextmenu', (e) => e.preventDefault());

  function fail(message) {
    pageErrors.push(String(message));
    loading.classList.remove('done');
    loading.style.display = '';
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
    const zh = p.lang === 'zh';
    h('p', p.lesson, 'lesson');
    // The title carries the fold button (shown only in a narrow page).
    const title = document.createElement('h2');
    const titleText = document.createElement('span');
    titleText.textContent = p.title;
    const fold = document.createElement('button');
    fold.type = 'button';
    fold.className = 'fold';
    fold.setAttribute('aria-expanded', String(!proseFolded));
    fold.textContent = proseFolded ? (zh ? '展开' : 'Show text') : (zh ? '收起' : 'Hide text');
    fold.addEventListener('click', () => { proseFolded = !proseFolded; showProse(p); canvasResized(); });
    title.append(titleText, fold);
    prose.append(title);
    prose.classList.toggle('folded', proseFolded);
    // "[words](#lesson/step-id)" in the text (the recap's map) becomes a link to that step.
    for (const para of String(p.text).split('\n')) {
      const e = document.createElement('p');
      for (const part of para.split(/(\[[^[\]]+\]\(#[a-z0-9_-]+\/[a-z0-9_-]{1,64}\))/)) {
        const link = /^\[([^[\]]+)\]\((#[a-z0-9_-]+\/[a-z0-9_-]{1,64})\)$/.exec(part);
        if (link) {
          const a = document.createElement('a');
          a.href = link[2];
          if (embed) { a.href = 'index.html' + link[2]; a.target = '_blank'; a.rel = 'noopener'; }
          a.textContent = link[1];
          e.append(a);
        } else if (part) {
          e.append(part);
        }
      }
      prose.append(e);
    }
    h('p', (p.lang === 'zh' ? `第 ${p.step} 步，共 ${p.steps} 步` : `Step ${p.step} of ${p.steps}`), 'where');
    // The language model's steps: the box for the learner's own text.
    if (p.demo === 'train_lm' && !embed) prose.append(ownTextBox(p.lang === 'zh'));
    showTopbar(p);
  }

  // ---- The learner's own text (src/app/lab_own_text.h): pasted, chosen or
  // dropped, it goes to the lab only, which checks it, trains on it, and keeps it
  // on this device if asked; it is never sent anywhere. A file is refused here by
  // its size before it is read, and when it is not UTF-8; everything else is
  // checked by the lab, whose answer comes as the "ownText" event.
  const kMaxOwnTextBytes = 1024 * 1024;
  let ownStatus = null;  // the box's status line, while the box is shown
  function ownTextMessage(zh, text) { if (ownStatus) { ownStatus.textContent = text; ownStatus.dataset.zh = zh ? '1' : ''; } }
  function sendOwnText(text, zh) {
    const keep = document.getElementById('own-text-keep');
    ownTextMessage(zh, zh ? '正在检查文本……' : 'Checking the text...');
    ask('ownText', { text, keep: !!(keep && keep.checked) });
    showOwnTextState();
  }
  function ownTextFile(file, zh) {
    if (!file) return;
    if (file.size > kMaxOwnTextBytes) {
      const kib = Math.ceil(file.size / 1024);
      ownTextMessage(zh, zh ? `这个文件有 ${kib} KiB；实验室最多接受 1024 KiB（1 MiB）。之前的文本仍然保留。`
                            : `The file is ${kib} KiB; the lab takes at most 1024 KiB (1 MiB). Your earlier text is kept.`);
      return;
    }
    file.arrayBuffer().then((buffer) => {
      let text;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(buffer);
      } catch (e) {
        ownTextMessage(zh, zh ? '文件不是 UTF-8 文本：请另存为 UTF-8 后再试。之前的文本仍然保留。'
                              : 'The file is not UTF-8 text: save it as UTF-8 and try again. Your earlier text is kept.');
        return;
      }
      sendOwnText(text.replace(/^\uFEFF/, ''), zh);  // without a byte-order mark
    }, () => ownTextMessage(zh, zh ? '文件读不出来。' : 'The file could not be read.'));
  }
  function showOwnTextState() {
    if (!ownStatus || !Module.calledRun) return;
    const s = ask('state');
    const t = s && s.ownText;
    if (!t) return;
    const keep = document.getElementById('own-text-keep');
    if (keep) keep.checked = !!t.keep;
    if (t.pending) ownTextMessage(ownStatus.dataset.zh === '1', ownStatus.dataset.zh === '1' ? '正在载入你的文本需要的字形……' : 'Loading the glyphs your text needs...');
    else if (t.message) ownTextMessage(ownStatus.dataset.zh === '1', t.message);
  }
  function ownTextBox(zh) {
    const box = document.createElement('section');
    box.id = 'own-text';
    box.setAttribute('aria-labelledby', 'own-text-title');
    const el = (tag, props) => Object.assign(document.createElement(tag), props || {});
    box.append(
      el('h3', { id: 'own-text-title', textContent: zh ? '用你自己的文本训练' : 'Train on your own text' }),
      el('p', { className: 'hint', textContent: zh
        ? '粘贴一段文本，或把 .txt 文件拖放到这里（UTF-8，任何语言，最多 1 MiB）。文本只留在这台设备上，不会发送到任何地方。'
        : 'Paste a text, or drop a .txt file here (UTF-8, any language, at most 1 MiB). It stays on this device and is never sent anywhere.' }));
    const input = el('textarea', { id: 'own-text-input', rows: 4 });
    input.setAttribute('aria-label', zh ? '你的文本' : 'Your text');
    const use = el('button', { type: 'button', id: 'own-text-use', textContent: zh ? '用这段文本训练' : 'Train on this text' });
    use.addEventListener('click', () => sendOwnText(input.value, zh));
    const file = el('input', { type: 'file', id: 'own-text-file', accept: '.txt,text/plain' });
    file.addEventListener('change', () => { ownTextFile(file.files && file.files[0], zh); file.value = ''; });
    // The browser's own file button speaks the browser's language: a label in the
    // learner's opens the same chooser (the input stays focusable, for keys).
    const fileLabel = el('label', { className: 'file' });
    fileLabel.append(file, el('span', { className: 'button', textContent: zh ? '或选择一个 .txt 文件……' : 'Or choose a .txt file...' }));
    const keep = el('input', { type: 'checkbox', id: 'own-text-keep' });
    keep.addEventListener('change', () => { ask('keepOwnText', { keep: keep.checked }); showOwnTextState(); });
    const keepLabel = el('label', { className: 'keep' });
    keepLabel.append(keep, el('span', { textContent: zh ? ' 保存在这台设备上（这个浏览器的存储，最多 1 MiB）'
                                                        : ' Keep it on this device (in this browser\'s storage, at most 1 MiB)' }));
    ownStatus = el('p', { id: 'own-text-status' });
    ownStatus.setAttribute('role', 'status');
    ownStatus.dataset.zh = zh ? '1' : '';
    const row = el('div', { className: 'row' });
    row.append(use, fileLabel);
    box.append(input, row, keepLabel, ownStatus);
    for (const type of ['dragenter', 'dragover']) box.addEventListener(type, (e) => { e.preventDefault(); box.classList.add('drop'); });
    box.addEventListener('dragleave', () => box.classList.remove('drop'));
    box.addEventListener('drop', (e) => {
      e.preventDefault();
      box.classList.remove('drop');
      ownTextFile(e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0], zh);
    });
    requestAnimationFrame(showOwnTextState);
    return box;
  }
  let proseFolded = false;
  let current = null;  // the step shown: {lessonId, step (1-based), steps, lang}

  // ---- Layout by width: wide (lesson list beside the lesson), medium (tablets:
  // the list in a drawer, words beside the canvas), narrow (phones: one column).
  // Decided again on every resize and rotation; the lab keeps its state.
  const stage = document.getElementById('stage');
  // The embed view (embed.html, framed by course pages): one step, its words and
  // panels, and a link to the full lab instead of the lessons and Back / Next.
  const embed = document.documentElement.dataset.view === 'embed';
  stage.classList.toggle('embed', embed);
  const kNarrow = 700, kMedium = 1200;  // CSS px
  const isTouch = () => (window.matchMedia && matchMedia('(pointer: coarse)').matches) || navigator.maxTouchPoints > 0;
  const layoutMode = () => innerWidth < kNarrow ? 'narrow' : innerWidth < kMedium || embed ? 'medium' : 'wide';
  // SDL sizes the canvas from its CSS size on a window resize; a change of the
  // page's own layout needs the same nudge.
  function canvasResized() { requestAnimationFrame(() => window.dispatchEvent(new Event('resize'))); }
  function applyLayout() {
    const mode = layoutMode();
    const changed = !stage.classList.contains(mode);
    stage.classList.remove('wide', 'medium', 'narrow');
    stage.classList.add(mode);
    if (mode === 'wide') closeDrawer(false);
    if (Module.calledRun) ask('layout', { mode, touch: isTouch() });
    if (changed) canvasResized();
  }

  // ---- The top bar: the drawer's button, Back, where we are, Next, the language.
  const $ = (id) => document.getElementById(id);
  function showTopbar(p) {
    current = p;
    const zh = p.lang === 'zh';
    $('counter').textContent = `${p.step} / ${p.steps}`;
    $('counter').setAttribute('aria-label', zh ? `第 ${p.step} 步，共 ${p.steps} 步` : `Step ${p.step} of ${p.steps}`);
    $('back').disabled = p.step <= 1;
    $('next').disabled = p.step >= p.steps;
    $('back').setAttribute('aria-label', zh ? '上一步' : 'Previous step');
    $('next').setAttribute('aria-label', zh ? '下一步' : 'Next step');
    $('menu-label').textContent = zh ? '课程' : 'Lessons';
    $('lang').textContent = zh ? 'English' : '中文';
    $('lang').lang = zh ? 'en' : 'zh-Hans';
    $('lang').setAttribute('aria-label', zh ? 'Switch to English' : '切换到中文');
    $('drawer-title').textContent = zh ? '课程' : 'Lessons';
    $('drawer-close').setAttribute('aria-label', zh ? '关闭课程列表' : 'Close the lesson list');
    $('help').textContent = zh ? '触屏与按键说明' : 'Touch and keys';
    $('cell-edit').textContent = zh ? '编辑' : 'Edit';
    $('open-full').textContent = zh ? '在 Attention Lab 中打开 ↗' : 'Open in Attention Lab ↗';
    if (embed) updateOpenLink();
    if (!$('drawer').hidden) fillDrawer();
  }
  // The full lab at this step with the learner's values (a share link); kept up to
  // date as they change, and again as it is followed.
  function updateOpenLink() {
    const link = Module.calledRun ? ask('currentLink') : '';
    $('open-full').href = 'index.html' + (typeof link === 'string' && link ? '#' + link : '');
  }
  $('open-full').addEventListener('click', () => { if (embed) updateOpenLink(); });
  const stepBy = (d) => { if (current) ask('goto', { lesson: current.lessonId, step: current.step - 1 + d }); };
  $('back').addEventListener('click', () => stepBy(-1));
  $('next').addEventListener('click', () => stepBy(+1));
  $('lang').addEventListener('click', () => ask('language', { lang: current && current.lang === 'zh' ? 'en' : 'zh' }));

  // ---- The drawer: every lesson with how far the learner got.
  function fillDrawer() {
    const list = $('drawer-list');
    list.replaceChildren();
    for (const l of ask('lessons') || []) {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      const name = document.createElement('span');
      name.textContent = l.title;
      const done = document.createElement('span');
      done.className = 'progress';
      done.textContent = `${l.furthest + 1} / ${l.steps}`;
      b.append(name, done);
      if (current && l.id === current.lessonId) b.setAttribute('aria-current', 'true');
      b.addEventListener('click', () => { closeDrawer(true); ask('goto', { lesson: l.id, step: 0 }); });
      li.append(b);
      list.append(li);
    }
  }
  function openDrawer() {
    fillDrawer();
    $('drawer').hidden = false;
    $('scrim').hidden = false;
    $('menu').setAttribute('aria-expanded', 'true');
    ($('drawer-list').querySelector('[aria-current]') || $('drawer-close')).focus();
  }
  function closeDrawer(returnFocus) {
    if ($('drawer').hidden) return;
    $('drawer').hidden = true;
    $('scrim').hidden = true;
    $('menu').setAttribute('aria-expanded', 'false');
    if (returnFocus) $('menu').focus();
  }
  $('menu').addEventListener('click', () => ($('drawer').hidden ? openDrawer() : closeDrawer(true)));
  $('drawer-close').addEventListener('click', () => closeDrawer(true));
  $('scrim').addEventListener('click', () => closeDrawer(true));
  $('help').addEventListener('click', () => { closeDrawer(false); ask('help'); });
  $('drawer').addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.stopPropagation(); closeDrawer(true); } });

  // ---- Typing a number on a touch screen. A phone opens its keyboard only for a
  // focused text field, so a tap on a number (reported by the lab) offers an Edit
  // button; it opens a real input over the number, whose value goes through the
  // same checks as the desktop's typing (lab_type_number). Enter or leaving the
  // field keeps it, Escape cancels.
  let tapped = null, tapTimer = 0;
  const tools = $('cell-tools'), editBtn = $('cell-edit'), input = $('cell-input'), cellError = $('cell-error');
  // Puts the tools at (x, y) of the canvas; near the window's bottom they grow
  // upwards from the line that would have been their top, so an error under the
  // input stays on screen (it shows above it instead).
  function placeTools(x, y, width = 120) {
    const c = $('canvas').getBoundingClientRect();
    tools.style.left = Math.max(4, Math.min(c.left + x, innerWidth - width - 4)) + 'px';
    const top = Math.max(4, c.top + y), low = top + 100 > innerHeight;
    tools.classList.toggle('above', low);
    tools.style.top = low ? '' : top + 'px';
    tools.style.bottom = low ? Math.max(4, innerHeight - Math.min(top + 44, innerHeight)) + 'px' : '';
  }
  function hideTools() {
    clearTimeout(tapTimer);
    tools.hidden = true;
    input.hidden = true;
    cellError.hidden = true;
    tapped = null;
  }
  function offerEdit(t) {
    if (!input.hidden) return;  // already typing into one
    tapped = t;
    const zh = current && current.lang === 'zh';
    editBtn.hidden = false;
    editBtn.setAttribute('aria-label', (zh ? '编辑 ' : 'Edit ') + (t.setting || `${t.name}[${t.row}][${t.col}]`));
    input.hidden = true;
    cellError.hidden = true;
    tools.hidden = false;
    placeTools(t.x, t.y + t.height + 4);
    clearTimeout(tapTimer);
    tapTimer = setTimeout(() => { if (input.hidden) hideTools(); }, 6000);
  }
  // Opens the input over what was tapped (after the Edit button), or at once over a
  // free-text field clicked or tabbed into on a desktop (t.direct): there the
  // browser's input method composes Chinese, which a canvas cannot take.
  function openInput(t) {
    tapped = t;
    clearTimeout(tapTimer);
    editBtn.hidden = true;
    cellError.hidden = true;
    tools.hidden = false;
    input.hidden = false;
    const wide = t.setting && t.width > 110;
    input.style.width = wide ? Math.min(t.width, innerWidth - 8) + 'px' : '';
    // Centred on the field (the input is 44 units tall, a desktop's field about 24).
    placeTools(t.x, t.y + (t.height - 44) / 2, wide ? Math.min(t.width, innerWidth - 8) : 120);
    // A number gets the decimal keyboard; a line of tokens (a prompt) the letters.
    input.inputMode = t.setting ? 'text' : 'decimal';
    input.value = t.setting ? t.text : String(Number(t.value.toFixed(4)));
    input.setAttribute('aria-label', t.setting || `${t.name}[${t.row}][${t.col}]`);
    input.focus();
    input.select();
  }
  editBtn.addEventListener('click', () => { if (tapped) openInput(tapped); });
  function commit(closeOnError) {
    if (!tapped || input.hidden) return;
    const text = input.value.slice(0, 100);
    const why = tapped.setting ? ask('setting', { name: tapped.setting, value: text })
      : ask('typeNumber', { name: tapped.name, row: tapped.row, col: tapped.col, text });
    if (!why) { const back = tapped.direct; hideTools(); if (back) $('canvas').focus(); return; }
    cellError.textContent = why;
    cellError.hidden = false;
    if (closeOnError) { input.hidden = true; tapTimer = setTimeout(hideTools, 3000); }
  }
  input.addEventListener('keydown', (e) => {
    if (e.isComposing || e.keyCode === 229) return;  // an input method's Enter picks its characters
    if (e.key === 'Enter') { e.preventDefault(); commit(false); }
    else if (e.key === 'Escape') { e.preventDefault(); hideTools(); $('canvas').focus(); }
  });
  input.addEventListener('blur', () => commit(true));
  $('canvas').addEventListener('touchstart', () => { if (input.hidden) hideTools(); }, { passive: true });

  // A phone's keyboard opening resizes the window: an open input stays.
  window.addEventListener('resize', () => { applyLayout(); if (!tools.hidden && input.hidden) hideTools(); });
  stage.classList.remove('wide');
  stage.classList.add(layoutMode());  // before the lab starts, so it sizes the canvas right
  // The canvas also changes size without the window doing so (the words above it
  // grow, shrink or fold); SDL only listens for window resizes, so tell it.
  if (window.ResizeObserver) {
    let last = '';
    new ResizeObserver(([e]) => {
      const size = `${Math.round(e.contentRect.width)}x${Math.round(e.contentRect.height)}`;
      if (size !== last) { last = size; if (Module.calledRun) canvasResized(); }
    }).observe(document.getElementById('canvas'));
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
        // The embed view's language comes from its address (embed.html?lang=zh#...).
        const lang = embed ? new URLSearchParams(location.search.slice(0, 200)).get('lang') : null;
        if (lang === 'zh' || lang === 'en') ask('language', { lang });
        applyLayout();
        if (mirror) mirror.rebuild();
        bar.style.width = '100%';
        loading.classList.add('done');
        // Out of the accessibility tree once it has faded (its CSS keeps it a flex box).
        setTimeout(() => { if (loading.classList.contains('done')) loading.style.display = 'none'; }, 400);
        resolveReady();
      } else if (name === 'fatal') {
        fail(data);
      } else if (name === 'step') {
        showProse(data);
      } else if (name === 'ownText') {
        showOwnTextState();
      } else if (name === 'changed') {
        if (mirror) mirror.changed();
        if (embed) updateOpenLink();
      } else if (name === 'numberTap') {
        if (data && data.direct) { if (input.hidden) openInput(data); } else offerEdit(data);
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

  // The step's panels as page content, rebuilt when the lab says something changed.
  const mirror = window.AttnMirror ? window.AttnMirror(ask, document.getElementById('mirror'), document.getElementById('announce')) : null;
  // Keys go to the lab (SDL listens on the window and keeps Tab for the canvas's own
  // controls) only while the canvas or nothing has the focus. Keys pressed in the
  // page's own controls are theirs; with nothing focused, Tab moves into the page
  // (the words, the mirror, then the canvas). SDL listens on the window in the
  // bubbling phase; this listener is added there first (lab.js loads before SDL
  // starts), so the controls' own handlers run and SDL never sees their keys.
  const canvasEl = document.getElementById('canvas');
  for (const type of ['keydown', 'keypress', 'keyup']) {
    window.addEventListener(type, (e) => {
      const a = document.activeElement;
      const nothing = !a || a === document.body || a === document.documentElement;
      if (a === canvasEl || (nothing && e.key !== 'Tab')) return;
      e.stopImmediatePropagation();
    });
  }

  window.attnlab = {
    // Resolves after the first frame has been drawn.
    ready,
    // [{id, title, steps, furthest}] in lesson order.
    lessons: () => ask('lessons'),
    // Current lesson, step, editable values and settings, computed outputs, notices.
    state: () => ask('state'),
    // Interactive widgets drawn in the last frame: [{id, kind, rect: {x, y, width, height}}] in the
    // page's CSS pixels, relative to the viewport (what mouse and touch events use): the lab
    // draws them relative to its canvas, and the canvas sits under a top bar on phones and tablets.
    widgets: () => {
      const list = ask('widgets');
      const c = canvasEl.getBoundingClientRect();
      for (const w of list || []) { w.rect.x += c.left; w.rect.y += c.top; }
      return list;
    },
    // Messages the lab reported (lessons that failed to load, ...), then page-level errors.
    errors: () => ask('errors').concat(pageErrors),
    // Go to a lesson (by id) and step (0-based); true when both exist.
    goto: (lessonId, step) => ask('goto', { lesson: String(lessonId), step: Number(step) }),
    // Load one more lesson from text (lesson file format); false and an errors() entry if it is invalid.
    loadLesson: (file, text) => ask('loadLesson', { file: String(file), text: String(text) }),
    // The page's layout now: 'wide', 'medium' or 'narrow' (decided by its width).
    layout: () => layoutMode(),
    // Switch the language: 'en' or 'zh'.
    setLanguage: (lang) => ask('language', { lang: String(lang) }),
    // Put this step's link, with the learner's values, in the address bar and the clipboard.
    share: () => ask('share'),
    // The HTML that shows this step (with the learner's values) in another page's frame
    // (the Embed button), also put in the clipboard.
    embedSnippet: () => ask('embedSnippet'),
    // Drive the step's live experiment: 'run', 'pause', 'step', 'reset', 'speed' with 'slow' | 'normal' | 'fast',
    // or 'retry' (a new training worker after one failed). True when the step has one.
    train: (action, speed) => ask('train', { action: String(action), speed: String(speed || '') }),
    // How many workers train (1 to 8; the language model's steps are shared among
    // them, to the same bits); answers the count now. Without n, only answers.
    workers: (n) => ask('workers', n === undefined ? {} : { n: Number(n) }),
    // Hand the language model the learner's own text (as the box beside its steps
    // does); the outcome is in state().ownText once any glyphs it needs are in.
    ownText: (text, keep) => ask('ownText', { text: String(text), keep: !!keep }),
    // Set a choice or slider the step shows, as a click or drag on it would: '' when done, else why not.
    setting: (name, value) => ask('setting', { name: String(name), value: String(value) }),
  };
  // The lab saves at most a few times a second; what changed since the last save
  // is written as the page goes away or out of sight (a closed tab, a reload, a
  // phone switching apps), so the learner's last edit is never lost.
  const flush = () => { if (Module.calledRun) ask('flush'); };
  window.addEventListener('pagehide', flush);
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') flush(); });
  // Following a link typed into the address bar, without reloading.
  window.addEventListener('hashchange', () => {
    if (Module.calledRun) ask('link', { fragment: fragmentOf(location.hash) });
  });
  window.addEventListener('error', (e) => pageErrors.push(String(e.message)));
})();
