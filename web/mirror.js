// mirror.js: the step's panels as real page content, for screen readers and the
// keyboard: tables for matrices, number inputs for editable cells, radio buttons
// for quizzes and choices, buttons for hints and training, a progress bar. It is
// visually hidden (the canvas shows the same thing) and comes after the words in
// the tab order. Everything is built from the lab's own description of the step
// (the 'mirror' question, src/app/lab_mirror.cpp), and every action goes through
// the same lab functions as the canvas, so nothing here knows any maths.
// lab.js creates it: AttnMirror(ask, root, announcer) -> { changed(), rebuild() }.
(function () {
  'use strict';

  const fmt = (v) => (v === null || v === undefined ? '–' : Number(v).toFixed(3).replace(/\.?0+$/, '') || '0');

  window.AttnMirror = function (ask, root, announcer) {
    let last = null;       // the description the DOM shows now
    let timer = 0;
    let pending = false;

    function el(tag, props, ...kids) {
      const e = document.createElement(tag);
      for (const [k, v] of Object.entries(props || {})) {
        if (v === undefined || v === null || v === false) continue;
        if (k === 'text') e.textContent = v;
        else if (k === 'on') for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
        else if (k in e && typeof v !== 'string') e[k] = v;
        else e.setAttribute(k, v === true ? '' : v);
      }
      for (const k of kids) if (k) e.append(k);
      return e;
    }
    const say = (text) => { if (text) { announcer.textContent = ''; setTimeout(() => { announcer.textContent = text; }, 30); } };

    // A grid (editor, heatmap, arrows, bars, a vector set): a table with headers;
    // editable cells are number inputs whose change goes through typeNumber.
    function grid(p, title, name, key) {
      const t = el('table', {}, el('caption', { text: title }));
      const cols = p.cols && p.cols.length ? p.cols : (p.values[0] || []).map((_, c) => `${c + 1}`);
      const head = el('tr', {}, el('td'));
      cols.forEach((c) => head.append(el('th', { scope: 'col', text: c })));
      t.append(el('thead', {}, head));
      const body = el('tbody');
      p.values.forEach((row, r) => {
        const rowName = (p.rows && p.rows[r]) || `${r + 1}`;
        const tr = el('tr', {}, el('th', { scope: 'row', text: rowName }));
        row.forEach((v, c) => {
          if (!p.editable) { tr.append(el('td', { text: fmt(v) })); return; }
          const input = el('input', {
            type: 'number', value: String(v), min: String(p.min), max: String(p.max), step: String(p.step),
            'aria-label': `${title}: ${rowName}, ${cols[c]}`, 'data-key': `${key}:${r}:${c}`,
            on: { change: (e) => commitNumber(e.target, name, r, c),
                  keydown: (e) => { if (e.key === 'Enter') commitNumber(e.target, name, r, c); } },
          });
          tr.append(el('td', {}, input));
        });
        body.append(tr);
      });
      t.append(body);
      return t;
    }
    function commitNumber(input, name, row, col) {
      delete input.dataset.dirty;
      const why = ask('typeNumber', { name, row, col, text: String(input.value).slice(0, 100) });
      input.setAttribute('aria-invalid', why ? 'true' : 'false');
      if (why) say(why);
    }

    function panel(p, w) {
      // A plain block, not a landmark: headings and captions carry the titles.
      const box = el('div', { class: 'm-panel' });
      if (p.hidden) { box.append(el('p', { text: `${p.title ? p.title + w.colon : ''}${p.text}` })); return box; }
      switch (p.kind) {
        case 'editor': case 'heatmap': case 'arrows': case 'bars':
          if (p.values) box.append(grid(p, p.title || p.name, p.name, `edit:${p.name}`));
          break;
        case 'vectors':
          if (p.text) box.append(el('p', { text: p.text }));
          for (const s of p.sets || []) box.append(grid(s, `${p.title} (${s.name})`, s.name, `edit:${s.name}`));
          break;
        case 'lines': {
          box.append(el('h3', { text: p.title }));
          const list = el('ul');
          for (const s of p.series || []) {
            list.append(el('li', { text: s.points ? `${s.name}: ${w.lastValue} ${fmt(s.last)} (${w.range} ${fmt(s.min)} … ${fmt(s.max)}, ${s.points} ${w.points})` : `${s.name}: ${w.noPoints}` }));
          }
          box.append(list);
          if (p.text) box.append(el('p', { text: p.text }));
          break;
        }
        case 'choice': {
          const fs = el('fieldset', {}, el('legend', { text: p.title || p.setting }));
          for (const o of p.options) {
            const id = `m-choice-${p.setting}-${o.value}`;
            fs.append(el('div', {},
              el('input', { type: 'radio', id, name: `m-choice-${p.setting}`, value: o.value, checked: o.value === p.current,
                            'data-key': id, on: { change: () => ask('setting', { name: p.setting, value: o.value }) } }),
              el('label', { for: id, text: o.label })));
          }
          box.append(fs);
          break;
        }
        case 'slider': {
          const id = `m-slider-${p.setting}`;
          box.append(el('label', { for: id, text: p.title || p.setting }),
            el('input', { type: 'number', id, 'data-key': id, min: String(p.min), max: String(p.max), step: String(p.step || 'any'),
                          value: String(p.value),
                          on: { change: (e) => { const why = ask('setting', { name: p.setting, value: String(e.target.value) }); if (why) say(why); } } }));
          break;
        }
        case 'text': {
          const id = `m-text-${p.setting}`;
          box.append(el('label', { for: id, text: p.title || p.setting }),
            el('input', { type: 'text', id, 'data-key': id, value: p.value, maxlength: '64', autocomplete: 'off',
                          on: { change: (e) => { const why = ask('setting', { name: p.setting, value: String(e.target.value).slice(0, 100) });
                                                 e.target.setAttribute('aria-invalid', why ? 'true' : 'false'); if (why) say(why); } } }));
          if (p.text) box.append(el('p', { text: p.text }));
          break;
        }
        default:
          // Notes and shapes: a paragraph per line, so a reader can step through them.
          if (p.title) box.append(el('h3', { text: p.title }));
          for (const line of String(p.text || '').split('\n')) if (line.trim()) box.append(el('p', { text: line }));
      }
      return box;
    }

    function quiz(q, i, w) {
      const fs = el('fieldset', { class: 'm-quiz' }, el('legend', { text: `${w.predict}${w.colon}${q.question}` }));
      q.options.forEach((o, k) => {
        const id = `m-quiz-${q.id}-${k}`;
        fs.append(el('div', {},
          el('input', { type: 'radio', id, name: `m-quiz-${q.id}`, checked: q.picked === k, disabled: q.checked, 'data-key': id,
                        on: { change: () => ask('quizPick', { quiz: i, option: k }) } }),
          el('label', { for: id, text: o })));
      });
      if (!q.checked) {
        fs.append(el('button', { type: 'button', 'data-key': `m-check-${q.id}`, text: w.check, 'aria-describedby': q.picked < 0 ? `m-pick-${q.id}` : undefined,
                                 on: { click: () => { if (q.picked < 0 && !fs.querySelector('input:checked')) say(w.pickFirst); else ask('quizCheck', { quiz: i }); } } }));
        if (q.picked < 0) fs.append(el('p', { id: `m-pick-${q.id}`, text: w.pickFirst }));
      } else {
        fs.append(el('p', { text: q.right ? w.right : `${w.wrong} ${q.options[q.answer]}` }), el('p', { text: q.explain }));
      }
      return fs;
    }

    const goalStatus = (x, w) => (x.met ? w.goalMet : `${w.goalOpen}${w.colon}` + x.conditions.map((c) =>
      c.pending ? `${c.text} (${w.notMeasured})` : `${c.text} (${w.now} ${fmt(c.now)}${c.other !== undefined ? ', ' + fmt(c.other) : ''})`).join('; '));
    function exercise(x, i, w) {
      const box = el('div', { class: 'm-exercise' },
        el('h3', { text: `${w.tryIt}${w.colon}${x.goal}` }),
        el('p', { text: goalStatus(x, w) }));
      if (x.error) box.append(el('p', { text: x.error }));
      if (x.hints.length) {
        const list = el('ol');
        x.hints.forEach((h) => list.append(el('li', { text: h })));
        box.append(list);
      }
      if (x.hints.length < x.hintCount)
        box.append(el('button', { type: 'button', 'data-key': `m-hint-${x.id}`, text: x.hints.length ? w.nextHint : w.showHint,
                                  on: { click: () => ask('hint', { exercise: i }) } }));
      box.append(el('button', { type: 'button', 'data-key': `m-solution-${x.id}`, text: w.showSolution,
                                on: { click: () => ask('solution', { exercise: i }) } }));
      return box;
    }

    function training(t, w) {
      const label = t.running ? w.pause : t.started ? w.resume : w.start;
      const box = el('div', { class: 'm-training', role: 'group', 'aria-label': w.training });
      // The training worker stopped: why, and a way to start it again.
      if (t.failed) box.append(el('p', { role: 'alert', text: t.failed }),
        el('button', { type: 'button', 'data-key': 'm-train-retry', text: w.retry,
                       on: { click: () => ask('train', { action: 'retry', speed: '' }) } }));
      box.append(
        el('button', { type: 'button', 'data-key': 'm-train-run', text: label, disabled: t.finished,
                       on: { click: () => ask('train', { action: t.running ? 'pause' : 'run', speed: '' }) } }),
        el('button', { type: 'button', 'data-key': 'm-train-step', text: w.step, disabled: t.finished,
                       on: { click: () => ask('train', { action: 'step', speed: '' }) } }),
        el('button', { type: 'button', 'data-key': 'm-train-reset', text: w.reset, disabled: !t.started,
                       on: { click: () => ask('train', { action: 'reset', speed: '' }) } }));
      const speeds = el('div', { role: 'group', 'aria-label': w.speed });
      for (const s of ['slow', 'normal', 'fast'])
        speeds.append(el('button', { type: 'button', 'data-key': `m-speed-${s}`, text: w[s], 'aria-pressed': String(t.speed === s),
                                     on: { click: () => ask('train', { action: 'speed', speed: s }) } }));
      // Workers: a number field (1 .. the most), its label saying the cores there are.
      const workers = el('label', { class: 'm-workers' });
      workers.append(el('span', { text: t.workersLabel }),
        el('input', { type: 'number', min: '1', max: String(t.maxWorkers), step: '1', value: String(t.workers),
                      'data-key': 'm-train-workers', 'aria-describedby': 'm-workers-tip',
                      on: { change: (e) => ask('workers', { n: Number(e.target.value) }) } }),
        el('span', { id: 'm-workers-tip', class: 'm-tip', text: t.workersTip }));
      box.append(workers);
      const progressText = t.finished ? w.finished : `${t.progress} / ${t.planned}`;
      box.append(speeds, el('progress', { max: String(Math.max(1, t.planned)), value: String(t.progress),
                                          'aria-label': w.progress, 'aria-valuetext': progressText }),
        el('span', { text: progressText }));
      return box;
    }

    // The Code view (lab_mirror.cpp): a button that opens it; open, the language,
    // the program in a <pre> and a Copy button.
    function copyText(text, pre) {
      const bySelection = () => {
        const range = document.createRange();
        range.selectNodeContents(pre);
        const sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        try { document.execCommand('copy'); } catch (e) { /* the program stays selected */ }
      };
      try { navigator.clipboard.writeText(text).catch(bySelection); } catch (e) { bySelection(); }
    }
    function code(c) {
      const box = el('div', { class: 'm-code' },
        el('button', { type: 'button', 'data-key': 'm-code', text: c.open ? c.close : c.label, 'aria-expanded': String(c.open),
                       on: { click: () => ask('code', { open: !c.open, lang: '' }) } }));
      if (!c.open) return box;
      const langs = el('div', { role: 'group', 'aria-label': c.title });
      for (const [id, label] of c.trained ? [] : [['numpy', 'NumPy'], ['torch', 'PyTorch']])
        langs.append(el('button', { type: 'button', 'data-key': `m-code-${id}`, text: label, 'aria-pressed': String(c.lang === id),
                                    on: { click: () => ask('code', { open: true, lang: id }) } }));
      const name = c.lang === 'torch' ? 'PyTorch' : 'NumPy';
      const pre = el('pre', { tabindex: '0', 'data-key': 'm-code-text', 'aria-label': `${c.title} (${name})` }, el('code', { text: c.text || '' }));
      box.append(el('h3', { text: c.title }), langs, el('p', { text: c.about }), pre,
        el('button', { type: 'button', 'data-key': 'm-code-copy', text: c.copy,
                       on: { click: () => { copyText(c.text || '', pre); say(c.copied); } } }));
      // A trained model's weights: the lab copies them (they are not on the page).
      if (c.trained) box.append(el('button', { type: 'button', 'data-key': 'm-code-weights', text: c.copyWeights,
                                                on: { click: () => { if (ask('copyWeights')) say(c.copied); } } }));
      return box;
    }

    // Extra words the mirror needs that the canvas does not show.
    function more(lang) {
      return lang === 'zh'
        ? { heading: '本步的面板（可读版本）', lastValue: '最新', range: '范围', points: '个点', noPoints: '还没有数据点', training: '训练', progress: '训练进度',
            colon: '：', started: '训练开始了', paused: '训练暂停了', done: '训练完成', accuracy: '准确率', goal: '目标达成：', changed: '已改为' }
        : { heading: 'This step’s panels, readable', lastValue: 'last', range: 'range', points: 'points', noPoints: 'no points yet', training: 'Training', progress: 'Training progress',
            colon: ': ', started: 'Training started', paused: 'Training paused', done: 'Training finished', accuracy: 'accuracy', goal: 'Goal met:', changed: 'now' };
    }

    // What changed since the last description, in one short sentence (or none).
    function announcement(a, b, w) {
      if (!a || a.lessonId !== b.lessonId || a.stepId !== b.stepId || a.lang !== b.lang) return '';
      for (let i = 0; i < b.quizzes.length; i++) {
        const q = b.quizzes[i], was = a.quizzes[i];
        if (was && q.checked && !was.checked) return q.right ? w.right : `${w.wrong} ${q.options[q.answer]}`;
      }
      for (let i = 0; i < b.exercises.length; i++)
        if (b.exercises[i].met && a.exercises[i] && !a.exercises[i].met) return `${w.goal} ${b.exercises[i].goal}`;
      const ta = a.training, tb = b.training;
      if (ta && tb) {
        if (tb.finished && !ta.finished) {
          const run = (window.attnlab.state().experiment || {}).runs;
          const acc = run && run[0] && typeof run[0].accuracy === 'number' ? `, ${w.accuracy} ${(run[0].accuracy * 100).toFixed(1)}%` : '';
          return `${w.done}${acc}`;
        }
        if (tb.running && !ta.running) return w.started;
        if (!tb.running && ta.running && !tb.finished) return w.paused;
        if (tb.running) return '';  // no value-by-value news while training
      }
      for (let i = 0; i < b.panels.length; i++) {
        const p = b.panels[i], q = a.panels[i];
        if (!q || p.id !== q.id) continue;
        const sets = p.kind === 'vectors' ? (p.sets || []).map((s, k) => [s, (q.sets || [])[k]]) : [[p, q]];
        for (const [s, t] of sets) {
          if (!s || !t || !s.editable || !s.values || !t.values) continue;
          for (let r = 0; r < s.values.length; r++)
            for (let c = 0; c < s.values[r].length; c++)
              if (t.values[r] && s.values[r][c] !== t.values[r][c])
                return `${p.title || s.name}: ${(s.rows || [])[r] || r + 1}, ${(s.cols || [])[c] || c + 1} ${w.changed} ${fmt(s.values[r][c])}`;
        }
      }
      return '';
    }

    function rebuild() {
      timer = 0;
      // Never pull a field out from under the learner while they type in it.
      const active = document.activeElement;
      if (active && root.contains(active) && active.tagName === 'INPUT' && active.dataset.dirty) {
        pending = true;
        return;
      }
      const m = ask('mirror');
      if (!m || !m.words) return;
      const w = Object.assign({}, m.words, more(m.lang));
      const news = announcement(last, m, w);
      const focusKey = active && root.contains(active) ? active.dataset.key : null;
      root.lang = m.lang === 'zh' ? 'zh-Hans' : 'en';
      root.setAttribute('aria-label', w.heading);
      const parts = [el('h2', { text: w.heading })];
      if (m.error) parts.push(el('p', { text: m.error }));
      if (m.training) parts.push(training(m.training, w));
      m.quizzes.forEach((q, i) => parts.push(quiz(q, i, w)));
      if (m.code) parts.push(code(m.code));
      m.panels.forEach((p) => parts.push(panel(p, w)));
      // While the step's quiz is unchecked its exercises are one line (lab_mirror.cpp).
      if (m.exercisesLocked) parts.push(el('div', { class: 'm-exercise' }, el('h3', { text: w.tryIt }), el('p', { text: m.exercisesLocked })));
      m.exercises.forEach((x, i) => parts.push(exercise(x, i, w)));
      root.replaceChildren(...parts);
      root.querySelectorAll('input[type=number], input[type=text]').forEach((i) => i.addEventListener('input', () => { i.dataset.dirty = '1'; }));
      if (focusKey) {
        const again = root.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
        if (again) {
          again.focus({ preventScroll: true });
          // A field rebuilt under the focus starts with its whole value selected,
          // as a field reached with Tab does: what is typed next replaces the
          // number instead of landing in front of it ("1" typed over "0" is 1, not 10).
          if (again.tagName === 'INPUT' && typeof again.select === 'function') again.select();
        }
      }
      last = m;
      root.dataset.revision = String(m.revision);  // which of the lab's changes this shows (tests wait for it)
      say(news);
    }

    // Called when the lab says something changed (it sends at most a few a second).
    function changed() {
      if (timer) return;
      timer = setTimeout(rebuild, 120);
    }
    root.addEventListener('focusout', (e) => {
      if (e.target.dataset) delete e.target.dataset.dirty;
      if (pending) { pending = false; changed(); }
    });
    return { changed, rebuild };
  };
})();
