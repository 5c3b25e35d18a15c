// offline.js: the page's side of the service worker (web/sw.js). After the first
// frame it registers the worker and asks it to cache the files the lessons load
// later; when a new build is waiting, it shows a quiet notice whose Reload lets
// that build take over. The saved state lives in localStorage, which an update
// leaves alone (and the lab writes as the page goes away).
(function () {
  'use strict';
  const sw = navigator.serviceWorker;
  const notice = document.getElementById('update');
  const $ = (id) => document.getElementById(id);
  let reg = null, firstFrameAt = 0, reloading = false, outgoing = null;
  if (!sw || !notice || !window.attnlab) return;
  const hadController = !!sw.controller;

  // The notice speaks the page's language (lab.js sets <html lang> with each step).
  function label() {
    const zh = document.documentElement.lang === 'zh-Hans';
    $('update-text').textContent = zh ? '新版本已就绪：' : 'A new version is ready:';
    $('update-reload').textContent = zh ? '重新加载' : 'Reload';
    $('update-later').setAttribute('aria-label', zh ? '稍后' : 'Not now');
  }
  new MutationObserver(label).observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });

  const post = (w, message) => { try { if (w) w.postMessage(message); } catch (e) { /* gone meanwhile */ } };

  // A build is waiting (only an update: a first visit has no controller). It
  // caches its later files too, so the next build is whole offline at once.
  let shown = false;
  function waiting(w) {
    if (!sw.controller) return;
    if (firstFrameAt) post(w, { type: 'cache-lazy' });
    if (shown) return;
    shown = true;
    label();
    notice.hidden = false;
    // Said once, politely, through the page's live region (emptied first, as mirror.js does).
    const say = $('announce'), text = $('update-text').textContent + ' ' + $('update-reload').textContent;
    if (say) { say.textContent = ''; setTimeout(() => { say.textContent = text; }, 30); }
  }
  function watch(r) {
    if (r.waiting) waiting(r.waiting);
    r.addEventListener('updatefound', () => {
      const w = r.installing;
      if (w) w.addEventListener('statechange', () => { if (w.state === 'installed') waiting(w); });
    });
  }

  $('update-reload').addEventListener('click', () => {
    const w = reg && reg.waiting;
    if (!w) { location.reload(); return; }
    // The new build takes over (controllerchange below reloads). No timer: a reload
    // while the new worker is still activating (slow on a busy machine) would be
    // served the old build's page and then, once the new one took over, its files.
    // Reload once it is active (should controllerchange not come), or on the old
    // build should it fail (redundant).
    // From now on the old build's worker is left alone (offline() below no longer
    // asks it): Chromium stops it so the new one can take over, and a message or
    // request reaching it while it stops starts it again, after which the new build
    // waits until the old worker has been idle for 30 s, or 5 minutes if it never is.
    outgoing = reg.active;
    w.addEventListener('statechange', () => {
      if ((w.state === 'activated' || w.state === 'redundant') && !reloading) { reloading = true; location.reload(); }
    });
    post(w, { type: 'skip-waiting' });
  });
  $('update-later').addEventListener('click', () => { notice.hidden = true; });
  // Another build took over (this tab's Reload, or another tab's): every tab of the
  // lab reloads, so none keeps running with the old build's files.
  sw.addEventListener('controllerchange', () => {
    if (hadController && !reloading) { reloading = true; location.reload(); }
  });

  // Registered after the first frame, so its downloads never delay it.
  window.attnlab.ready.then(() => {
    firstFrameAt = performance.timeOrigin + performance.now();
    return sw.register('sw.js');
  }).then((r) => {
    reg = r;
    watch(r);
    return sw.ready;
  }).then((r) => {
    post(r.active, { type: 'cache-lazy' });
    if (r.waiting) post(r.waiting, { type: 'cache-lazy' });
  }).catch(() => { /* no service worker (a private window, a host without https): the lab works online */ });

  // A page left open for days looks for a new build when it comes back into view.
  let lastCheck = Date.now();
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState !== 'visible' || !reg || Date.now() - lastCheck < 30 * 60 * 1000) return;
    lastCheck = Date.now();
    reg.update().catch(() => {});
  });

  // What a worker says is checked: a status object with a 16-digit build and counts.
  function checked(d) {
    const count = (n) => Number.isInteger(n) && n >= 0 && n < 100000;
    if (!d || typeof d !== 'object' || d.type !== 'status' || typeof d.build !== 'string' || !/^[0-9a-f]{16}$/.test(d.build) ||
        ![d.eager, d.eagerCached, d.lazy, d.lazyCached].every(count)) return null;
    return { build: d.build, eager: d.eager, eagerCached: d.eagerCached, lazy: d.lazy, lazyCached: d.lazyCached,
             complete: d.eagerCached === d.eager && d.lazyCached === d.lazy };
  }
  function statusOf(w) {
    if (!w) return Promise.resolve(null);
    return new Promise((res) => {
      const ch = new MessageChannel();
      const t = setTimeout(() => res(null), 5000);
      ch.port1.onmessage = (e) => { clearTimeout(t); res(checked(e.data)); };
      try { w.postMessage({ type: 'status' }, [ch.port2]); } catch (e) { clearTimeout(t); res(null); }
    });
  }
  // For tests and the curious: where the offline copy stands. Once Reload has asked
  // the new build to take over (`updating`), the old build's worker is not asked:
  // `active` is null until the new one is active.
  window.attnlab.offline = async () => {
    const active = reg && reg.active !== outgoing ? reg.active : null;
    return {
      controlled: !!sw.controller,
      notice: !notice.hidden,
      updating: !!outgoing,
      firstFrameAt,
      active: await statusOf(active),
      waiting: await statusOf(reg && reg.waiting),
    };
  };
})();
