/* The reading room of yili serve: layer toggles and the script choice remembered (localStorage),
   the clause panel (its reference, its apparatus, three citations to copy), keyboard use.
   Every page works without it: this only adds. No inline script (the CSP forbids it). */
(function () {
  'use strict';
  var body = document.body;
  var KEY = 'yili-room-';
  function get(k) { try { return window.localStorage.getItem(KEY + k); } catch (e) { return null; } }
  function put(k, v) { try { window.localStorage.setItem(KEY + k, v); } catch (e) { /* private mode */ } }
  var params = new URLSearchParams(location.search);

  // the script: a URL that names one wins and is remembered; one that names none follows the choice
  var asked = params.get('script');
  if (asked === 'hans' || asked === 'hant') {
    put('script', asked);
  } else if (get('script') === 'hant' && body.dataset.script !== 'hant' && body.dataset.page !== 'contents') {
    params.set('script', 'hant');
    location.replace(location.pathname + '?' + params.toString() + location.hash);
    return;
  }
  document.querySelectorAll('nav.script a[data-script]').forEach(function (a) {
    var p = new URLSearchParams(location.search);
    p.set('script', a.dataset.script);
    a.href = location.pathname + '?' + p.toString() + location.hash;
  });

  // phones: the bars start folded
  if (window.matchMedia && window.matchMedia('(max-width: 600px)').matches) {
    document.querySelectorAll('details.layers, .toc details').forEach(function (d) { d.open = false; });
  }

  var book = document.querySelector('.book');
  var boxes = Array.prototype.slice.call(document.querySelectorAll('.layers input[data-layer]'));
  var share = parseFloat(body.dataset.share || '0');
  if (book && share > 0) {
    book.style.setProperty('--main', (1 - share).toFixed(3) + 'fr');
    book.style.setProperty('--side', share.toFixed(3) + 'fr');
  }

  // the layers: each can be shown or hidden; the hidden ones are remembered
  function hiddenLayers() { return (get('hidden') || '').split(' ').filter(Boolean); }
  function update() {
    var side = (body.dataset.side || '').split(' ').filter(Boolean);
    var shown = 0;
    boxes.forEach(function (b) {
      document.querySelectorAll('.l-' + b.dataset.layer).forEach(function (el) { el.hidden = !b.checked; });
      if (b.checked && side.indexOf(b.dataset.layer) >= 0) { shown++; }
    });
    if (book) { book.classList.toggle('no-side', shown === 0); }
  }
  function save() {
    var here = boxes.map(function (b) { return b.dataset.layer; });
    var keep = hiddenLayers().filter(function (k) { return here.indexOf(k) < 0; });
    boxes.forEach(function (b) { if (!b.checked) { keep.push(b.dataset.layer); } });
    put('hidden', keep.join(' '));
  }
  var off = hiddenLayers();
  boxes.forEach(function (b) {
    b.checked = off.indexOf(b.dataset.layer) < 0;
    b.addEventListener('change', function () { update(); save(); });
  });
  update();

  // the place the URL names: scrolled to
  var target = body.dataset.target ? document.getElementById(body.dataset.target) : null;
  if (target && !location.hash) { target.scrollIntoView({block: 'center'}); }

  // the clause panel
  var panel = document.getElementById('panel');
  var cites = {};
  var current = null;
  function citeUrl(ref, style) {
    var u = '/cite?ref=' + encodeURIComponent(ref) + '&style=' + style;
    return body.dataset.script === 'hant' ? u + '&script=hant' : u;
  }
  function words(c) {
    var copy = c.cloneNode(true);
    copy.querySelectorAll('.cn, sup').forEach(function (x) { x.remove(); });
    return copy.textContent;
  }
  function openPanel(c) {
    if (!panel) { return; }
    current = c.id;
    cites = {};
    panel.querySelector('.pref').textContent = c.id;
    panel.querySelector('.pwords').textContent = words(c);
    var apps = panel.querySelector('.papps');
    apps.textContent = '';
    c.querySelectorAll('a[href^="#app-"]').forEach(function (a) {
      var li = document.getElementById(a.getAttribute('href').slice(1));
      var item = document.createElement('li');
      item.textContent = li ? li.textContent.replace(/^\d+/, '') : a.title;
      apps.appendChild(item);
    });
    apps.hidden = !apps.children.length;
    panel.querySelector('.done').hidden = true;
    panel.querySelector('.pbuf').value = '';
    panel.querySelector('.pbuf').hidden = true;
    var parts = c.id.split('.');
    panel.querySelector('.plink').href = '/' + parts[0] + '/' + parts.slice(1).join('.') +
      (body.dataset.script === 'hant' ? '?script=hant' : '');
    panel.hidden = false;
    ['zh', 'chicago', 'bibtex'].forEach(function (style) {
      var ref = current;
      fetch(citeUrl(ref, style)).then(function (r) { return r.ok ? r.text() : null; })
        .then(function (t) { if (t !== null && ref === current) { cites[style] = t; } });
    });
  }
  function copied(text) {
    var done = panel.querySelector('.done');
    done.hidden = false;
    panel.dataset.copied = text;
  }
  function fallback(text) {
    var ta = panel.querySelector('.pbuf');
    ta.value = text;
    ta.hidden = false;
    ta.focus();
    ta.select();
    try { if (document.execCommand('copy')) { copied(text); } } catch (e) { /* the text stays selected */ }
  }
  function copy(text) {
    var ta = panel.querySelector('.pbuf');
    ta.value = text;
    ta.hidden = false;
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { copied(text); }, function () { fallback(text); });
    } else {
      fallback(text);
    }
  }
  if (panel) {
    panel.querySelectorAll('.pcite button').forEach(function (b) {
      b.addEventListener('click', function () {
        var style = b.dataset.style;
        if (cites[style] !== undefined) { copy(cites[style]); return; }
        fetch(citeUrl(current, style)).then(function (r) { return r.text(); })
          .then(function (t) { cites[style] = t; copy(t); });
      });
    });
    panel.querySelector('.close').addEventListener('click', function () { panel.hidden = true; });
  }
  document.querySelectorAll('.clause').forEach(function (c) {
    c.tabIndex = 0;
    c.setAttribute('role', 'button');
  });
  document.addEventListener('click', function (ev) {
    var c = ev.target.closest && ev.target.closest('.clause');
    if (c && !ev.target.closest('a')) { openPanel(c); }
  });

  // the keyboard: ← → the sections, / the search box, Esc the panel, Enter a clause
  document.addEventListener('keydown', function (ev) {
    var t = ev.target;
    var typing = t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA');
    if (ev.key === 'Escape' && panel) { panel.hidden = true; return; }
    if (typing || ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    if (ev.key === 'Enter' && t.classList && t.classList.contains('clause')) { openPanel(t); ev.preventDefault(); }
    else if (ev.key === '/') { var q = document.querySelector('form.find input'); if (q) { q.focus(); ev.preventDefault(); } }
    else if (ev.key === 'ArrowLeft' && body.dataset.prev) { location.href = body.dataset.prev; }
    else if (ev.key === 'ArrowRight' && body.dataset.next) { location.href = body.dataset.next; }
  });
}());
