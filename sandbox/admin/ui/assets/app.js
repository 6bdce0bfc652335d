// gp-sandbox inspector. It reads the admin API and shows it; the only calls that
// change anything are the clock and reset buttons of the Scenarios & clock view and
// the customer's buttons of the Terminal view.
//
// Safety rule of this file: data reaches the page only as text (el() appends strings
// as text nodes, textContent elsewhere). Nothing received is ever parsed as HTML.

const TOKEN_KEY = 'gpsandbox.adminToken';
const MAX_ROWS = 2000;   // journal entries kept in the page; older ones are paged in on demand
const PAGE = 200;        // journal entries per page
const POLL_MS = 3000;    // refresh of the views that are not the live journal

const $ = (id) => document.getElementById(id);
const main = $('main');
const enc = encodeURIComponent;

// ---------------------------------------------------------------- DOM helpers

// el builds an element: attrs are attributes (class, text, on<event>, others verbatim),
// children are nodes or strings (appended as text).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = String(v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

// link is an in-page link; href is always a '#/...' route built here.
const link = (route, text, attrs = {}) => el('a', { href: '#/' + route, ...attrs }, text);

// widthCol is a <col> of width w; set through the CSSOM, which the page's
// Content-Security-Policy allows, unlike style attributes.
function widthCol(w) {
  const c = el('col');
  if (w) c.style.width = w;
  return c;
}

// table builds a table; a head cell is a title or [title, th attributes]. attrs.cols
// are the columns' preferred widths (null: the rest). The layout stays automatic, so
// that no column gets narrower than its longest word; a table that cannot fit then
// scrolls sideways in its panel.
function table(head, rows, attrs = {}) {
  const { cols, ...rest } = attrs;
  return el('table', rest,
    cols ? el('colgroup', null, cols.map(widthCol)) : null,
    el('thead', null, el('tr', null, head.map((h) => el('th', typeof h === 'string' ? { scope: 'col' } : { scope: 'col', ...h[1] }, typeof h === 'string' ? h : h[0])))),
    rows instanceof HTMLTableSectionElement ? rows : el('tbody', null, rows));
}

function kv(pairs) {
  return el('dl', { class: 'kv' }, pairs.filter((p) => p && p[1] !== undefined && p[1] !== null && p[1] !== '')
    .map(([k, v]) => [el('dt', null, k), el('dd', null, v)]));
}

function pretty(v) {
  if (v === null || v === undefined) return '(none)';
  if (typeof v === 'string') return v;
  return JSON.stringify(v, null, 2);
}
const pre = (v, label) => el('pre', { class: 'body', tabindex: 0, 'aria-label': label }, pretty(v));

function badge(text, kind) { return el('span', { class: 'badge ' + (kind || '') }, text); }

function statusBadge(status) {
  if (status === 0) return badge('no answer', 'err');
  const kind = status < 300 ? 'ok' : status < 500 ? 'warn' : 'err';
  return badge(String(status), kind);
}

function stateBadge(state) {
  const kinds = { ACTIVE: 'ok', FUNDED: 'ok', WITH_MERCHANT: 'warn', UNDER_REVIEW: 'warn', DELIVERED: 'ok', CAPTURED: 'ok', PREAUTHORIZED: 'ok', INITIATED: '', PENDING: 'warn', FAILED: 'err', DROPPED: 'err', DECLINED: 'err', REVERSED: 'warn', CANCELLED: 'warn', OPEN: 'ok', CLOSED: '' };
  return badge(state || '?', kinds[state] ?? '');
}

// shortTime shows a sandbox timestamp without the date when it is today's (sandbox) date.
function shortTime(ts) { return ts ? ts.replace('T', ' ').replace('Z', '') : ''; }

// shortId shortens a long id for a list cell; the full id is in its title and detail.
function shortId(id) { return id && id.length > 22 ? id.slice(0, 13) + '…' + id.slice(-5) : id; }
function shortPath(path) { return path.split('/').map(shortId).join('/'); }
// pathText is shortPath with a line break allowed after each /, and nowhere else (a
// browser would also break an id after its …).
function pathText(path) {
  return shortPath(path).split(/(?<=\/)/).flatMap((p, i) => [i ? el('wbr') : null, el('span', { class: 'nowrap' }, p)]);
}
function timeOfDay(ts) { return ts ? ts.slice(11, 23) : ''; }

// The digits after the decimal point of each currency whose minor unit is not a
// hundredth (ISO 4217); every other currency has two.
const MINOR_DIGITS = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3, CLF: 4, UYW: 4,
};

// majorUnits writes an amount the API gives in minor units ("1000" USD) in major units
// ("10.00"), on the string's digits, so that no amount is rounded.
function majorUnits(minor, currency) {
  const m = /^(-?)0*(\d+)$/.exec(String(minor));
  if (!m) return String(minor);
  const digits = MINOR_DIGITS[String(currency).toUpperCase()] ?? 2;
  if (!digits) return m[1] + m[2];
  const whole = m[2].padStart(digits + 1, '0');
  return m[1] + whole.slice(0, -digits) + '.' + whole.slice(-digits);
}

// money shows an amount in major units with its currency; its title keeps the API's
// value in minor units, to compare with a response.
function money(minor, currency) {
  if (minor === undefined || minor === null || minor === '') return '';
  return el('span', { class: 'money', title: `${minor} in minor units, as the API sends it` }, majorUnits(minor, currency) + ' ' + currency);
}

function resourceRoute(id) {
  if (!id) return null;
  if (id.startsWith('TRN_')) return 'transactions/' + enc(id);
  if (id.startsWith('ORD_')) return 'orders/' + enc(id);
  if (id.startsWith('BAT_')) return 'batches/' + enc(id);
  if (id.startsWith('MER_')) return 'merchants/' + enc(id);
  if (id.startsWith('DEP_')) return 'deposits/' + enc(id);
  if (id.startsWith('DIS_')) return 'disputes/' + enc(id);
  return null;
}
function resourceLink(id) {
  const r = resourceRoute(id);
  return r ? link(r, id, { class: 'mono' }) : el('span', { class: 'mono' }, id);
}

function announce(text) { $('announce').textContent = text; }

// ---------------------------------------------------------------- admin token and API

function takeTokenFromURL() {
  const url = new URL(location.href);
  const t = url.searchParams.get('token');
  if (t === null) return;
  sessionStorage.setItem(TOKEN_KEY, t);
  url.searchParams.delete('token');
  history.replaceState(null, '', url.pathname + url.search + url.hash);
}
const token = () => sessionStorage.getItem(TOKEN_KEY) || '';

class HTTPError extends Error {
  constructor(status, body) {
    super(typeof body === 'object' && body ? `${status} ${body.error_code || ''} ${body.detailed_error_description || ''}` : `${status} ${body}`);
    this.status = status;
  }
}

function authHeaders(extra = {}) {
  const h = { Accept: 'application/json', ...extra };
  if (token()) h.Authorization = 'Bearer ' + token();
  return h;
}

async function api(path, opts = {}) {
  const res = await fetch(path, { ...opts, headers: authHeaders(opts.headers), cache: 'no-store', credentials: 'omit' });
  const text = await res.text();
  let body;
  try { body = JSON.parse(text); } catch { body = text; }
  if (res.status === 401) { askToken(token() ? 'That token was refused.' : ''); }
  if (!res.ok) throw new HTTPError(res.status, body);
  return body;
}

function askToken(message = '') {
  const d = $('login');
  $('login-error').textContent = message;
  if (!d.open) d.showModal();
}

function setupLogin() {
  const d = $('login');
  $('token-button').addEventListener('click', () => askToken());
  $('login-cancel').addEventListener('click', () => d.close());
  $('login-forget').addEventListener('click', () => { sessionStorage.removeItem(TOKEN_KEY); d.close(); restart(); });
  $('login-form').addEventListener('submit', () => {
    sessionStorage.setItem(TOKEN_KEY, $('login-token').value);
    $('login-token').value = '';
    restart();
  });
}

// ---------------------------------------------------------------- router

let current = { view: '', render: null };

function parseRoute() {
  const [path, query] = location.hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { parts, params: new URLSearchParams(query || '') };
}

const views = {
  requests: { nav: 'requests', title: 'Requests', show: showRequests },
  transactions: { nav: 'resources', title: 'Transactions', show: (r) => showResources('transactions', r) },
  orders: { nav: 'resources', title: 'Orders', show: (r) => showResources('orders', r) },
  batches: { nav: 'resources', title: 'Batches', show: (r) => showResources('batches', r) },
  merchants: { nav: 'resources', title: 'Merchants', show: (r) => showResources('merchants', r) },
  deposits: { nav: 'resources', title: 'Deposits', show: (r) => showResources('deposits', r) },
  disputes: { nav: 'resources', title: 'Disputes', show: (r) => showResources('disputes', r) },
  notifications: { nav: 'notifications', title: 'Notifications', show: showNotifications },
  terminal: { nav: 'terminal', title: 'Terminal', show: showTerminal },
  scenarios: { nav: 'scenarios', title: 'Scenarios & clock', show: showScenarios },
  coverage: { nav: 'coverage', title: 'Coverage', show: showCoverage },
};

function route() {
  const r = parseRoute();
  const name = views[r.parts[0]] ? r.parts[0] : 'requests';
  const view = views[name];
  for (const a of document.querySelectorAll('.top nav a')) {
    if (a.dataset.view === view.nav) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  document.title = view.title + ' · gp-sandbox inspector';
  const changed = current.view !== name;
  current = { view: name, render: null };
  view.show(r, changed);
}

// poll re-renders the current view (not the live journal) while the tab is visible.
function startPolling() {
  setInterval(() => {
    if (document.visibilityState === 'visible' && !$('login').open && !$('confirm').open && current.render) current.render();
  }, POLL_MS);
}

// render replaces main's content, unless the data did not change since last time.
function renderOnce(key, build) {
  if (main.dataset.key === key) return false;
  main.dataset.key = key;
  main.replaceChildren(...[].concat(build()));
  return true;
}

function showError(err) {
  main.dataset.key = '';
  const msg = err && err.status === 401 ? 'The admin token is needed to inspect this sandbox.' : String(err && err.message || err);
  main.replaceChildren(el('p', { class: 'error', role: 'alert' }, msg), el('button', { type: 'button', onclick: () => route() }, 'Try again'));
}

// ---------------------------------------------------------------- requests (live journal)

const FILTERS = [
  ['operation', 'Operation', 'operation'], ['status', 'Status', 'narrow'], ['app_id', 'App'], ['transaction_id', 'Transaction'],
  ['order_id', 'Order'], ['session', 'Session'], ['scenario', 'Scenario'],
];
// Suggestions for the operation filter; the server checks the name.
const OPERATIONS = ['accesstoken', 'adjustment', 'order', 'transaction', 'transaction_detail', 'transaction_list', 'capture',
  'refund', 'reversal', 'reauthorization', 'incremental', 'verification', 'batch_close', 'device', 'terminal_present',
  'terminal_tip', 'terminal_cancel'];

const journal = {
  filterKey: null, entries: [], hasMore: false, selected: '', paused: false, waiting: [],
  streamGen: 0, controller: null, latest: 0,
};

function filterParams(params) {
  const out = new URLSearchParams();
  for (const [name] of FILTERS) { const v = (params.get(name) || '').trim(); if (v) out.set(name, v); }
  return out;
}

async function showRequests(r, changed) {
  const filters = filterParams(r.params);
  const key = filters.toString();
  journal.selected = r.parts[1] || '';
  if (key !== journal.filterKey) {
    journal.filterKey = key;
    main.dataset.key = '';
    main.replaceChildren(el('p', { class: 'muted' }, 'Loading requests…'));
    try {
      const page = await api('/_sandbox/requests?' + withParam(filters, 'limit', PAGE));
      journal.entries = page.requests;
      journal.hasMore = page.requests.length === PAGE;
      journal.waiting = [];
    } catch (err) { journal.filterKey = null; showError(err); return; }
    startStream();
  }
  if (current.view !== 'requests') return;
  if (!changed && $('requests')) selectRequest(); else renderRequests(changed);
}

// selectRequest shows the selected entry without rebuilding the list, so that focus
// and scroll position stay where they are.
function selectRequest() {
  for (const tr of document.querySelectorAll('#requests tr.selected')) tr.classList.remove('selected');
  const e = journal.entries.find((x) => x.request_id === journal.selected);
  const row = e && document.querySelector(`#requests tr[data-seq="${e.seq}"]`);
  if (row) row.classList.add('selected');
  $('request-detail').replaceChildren(...[].concat(e ? requestDetail(e)
    : el('p', { class: 'muted' }, journal.selected ? `${journal.selected} is not among the requests shown.` : 'Select a request to see it whole.')).flat(Infinity).filter(Boolean));
}

function withParam(params, name, value) { const p = new URLSearchParams(params); p.set(name, String(value)); return p.toString(); }

function renderRequests(focusList) {
  main.dataset.key = '';
  const list = el('tbody');
  for (const e of journal.entries) list.append(requestRow(e));
  const selected = journal.entries.find((e) => e.request_id === journal.selected);
  main.replaceChildren(
    el('h2', null, 'Requests'),
    filterForm(),
    el('div', { class: 'toolbar' },
      el('span', { id: 'count', class: 'muted grow', 'aria-live': 'polite' }, countText()),
      el('button', { type: 'button', id: 'pause', 'aria-pressed': String(journal.paused), onclick: togglePause }, journal.paused ? 'Resume live updates' : 'Pause live updates')),
    el('div', { class: 'split' },
      el('div', { class: 'panel' },
        el('div', { class: 'scroll', id: 'request-scroll' },
          table([['#', { class: 'num' }], 'Time', 'Request', 'Status', 'Scenario rule', ['ms', { class: 'num' }]], list,
            { id: 'requests', 'aria-label': 'Journal entries, newest first', cols: ['3.6em', '7.4em', null, '7.5em', '11em', '3.8em'] }),
          journal.entries.length ? null : el('p', { class: 'empty' }, 'No request matches. New ones appear here as they arrive.'),
          journal.hasMore ? el('button', { type: 'button', id: 'older', onclick: loadOlder }, 'Load older requests') : null)),
      el('section', { class: 'panel detail', id: 'request-detail', 'aria-label': 'Selected request' },
        selected ? requestDetail(selected) : el('p', { class: 'muted' }, 'Select a request to see it whole: headers, bodies, the scenario decision, idempotency and timing.'))));
  if (focusList) main.focus();
}

function countText() {
  const n = journal.entries.length;
  const waiting = journal.waiting.length ? ` · ${journal.waiting.length} new while paused` : '';
  return `${n} request${n === 1 ? '' : 's'} shown${journal.hasMore ? ' (older ones: see below)' : ''}${waiting}`;
}

function filterForm() {
  const params = new URLSearchParams(journal.filterKey || '');
  const form = el('form', { class: 'filters', role: 'search', 'aria-label': 'Filter requests' });
  for (const [name, label, kind] of FILTERS) {
    const id = 'filter-' + name;
    let input;
    if (kind === 'operation') {
      input = el('input', { id, name, list: 'operations', autocomplete: 'off', spellcheck: 'false', placeholder: 'any' });
      input.value = params.get(name) || '';
      form.append(el('datalist', { id: 'operations' }, OPERATIONS.map((op) => el('option', { value: op }))));
    } else {
      input = el('input', { id, name, class: kind === 'narrow' ? 'narrow' : null, inputmode: kind === 'narrow' ? 'numeric' : null, autocomplete: 'off', spellcheck: 'false' });
      input.value = params.get(name) || '';
    }
    form.append(el('label', { for: id }, label, input));
  }
  form.append(el('button', { type: 'submit', class: 'primary' }, 'Filter'), el('button', { type: 'button', onclick: () => { location.hash = '#/requests'; } }, 'Clear'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const p = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (String(v).trim()) p.set(k, String(v).trim());
    location.hash = '#/requests' + (p.toString() ? '?' + p : '');
  });
  return form;
}

function requestRoute(e) {
  return 'requests/' + enc(e.request_id) + (journal.filterKey ? '?' + journal.filterKey : '');
}

function requestRow(e) {
  const rule = [e.rule ? el('span', { class: 'rule' }, e.rule) : e.miss ? el('span', { class: 'miss', title: e.miss }, 'miss') : '',
    e.duplicate_of ? [' ', badge('duplicate', 'warn')] : ''];
  return el('tr', { class: e.request_id === journal.selected ? 'selected' : null, 'data-seq': e.seq },
    el('td', { class: 'num' }, link(requestRoute(e), String(e.seq), { 'aria-label': `Request ${e.seq}: ${e.method} ${e.path}, status ${e.status}` })),
    el('td', { class: 'nowrap', title: shortTime(e.time) + ' (sandbox clock)' }, timeOfDay(e.time)),
    el('td', { class: 'path', title: e.method + ' ' + e.path }, el('strong', null, e.method), ' ', pathText(e.path),
      e.operation ? el('span', { class: 'muted' }, ' · ' + e.operation) : null),
    el('td', { class: 'nowrap' }, statusBadge(e.status), e.detailed_error_code ? ' ' + e.detailed_error_code : ''),
    el('td', null, rule),
    el('td', { class: 'num' }, (e.duration_ms ?? 0).toFixed(1)));
}

function requestDetail(e) {
  const decision = e.rule
    ? el('p', null, 'Answered by scenario rule ', el('strong', { class: 'rule' }, e.rule), '.')
    : e.miss
      ? el('p', null, 'No rule matched. Closest miss: ', el('span', { class: 'miss' }, e.miss))
      : el('p', { class: 'muted' }, 'No scenario rule was involved.');
  const draws = (e.draws || []).length
    ? el('ul', null, e.draws.map((d) => el('li', null, `Chance draw of ${d.rule} (call ${d.call}): drew ${d.value.toFixed(4)} against probability ${d.probability}, `,
      d.applied ? badge('applied', 'warn') : badge('not applied'))))
    : null;
  const duplicate = e.duplicate_of
    ? [badge('possible double charge', 'warn'), ' same card, amount, currency and reference as ', resourceLink(e.duplicate_of)] : null;
  const idem = e.headers['X-GP-Idempotency']
    ? [e.headers['X-GP-Idempotency'], ' ', badge(e.idempotency || '?', e.idempotency === 'duplicate' ? 'warn' : '')] : 'no key';
  const related = [];
  const route = resourceRoute(e.resource_id);
  if (route && /^(TRN|ORD|BAT)_/.test(e.resource_id)) related.push(link('requests?' + (e.resource_id.startsWith('ORD_') ? 'order_id=' : 'transaction_id=') + enc(e.resource_id), 'All requests on ' + e.resource_id));
  if (e.session) related.push(link('requests?session=' + enc(e.session), 'All requests of session ' + e.session));
  return [
    el('h3', { class: 'path' }, e.method + ' ' + e.path),
    kv([
      ['Request id', el('span', { class: 'mono' }, e.request_id)],
      ['Sandbox time', shortTime(e.time)],
      ['Duration', (e.duration_ms ?? 0).toFixed(2) + ' ms'],
      ['Status', [statusBadge(e.status), e.error_code ? ` ${e.error_code} ${e.detailed_error_code}` : '']],
      ['Operation', e.operation || '(none)'],
      ['App', e.app_id], ['Session', e.session], ['Version', e.version],
      ['Resource', e.resource_id ? resourceLink(e.resource_id) : null],
      ['Idempotency', idem],
      ['Duplicate of', duplicate],
    ]),
    el('h3', null, 'Scenario'), decision, draws,
    related.length ? el('p', null, related.flatMap((l, i) => (i ? [' · ', l] : [l]))) : null,
    el('h3', null, 'Request headers'), headerTable(e.headers),
    el('h3', null, 'Request body', e.body_truncated ? ' (first 16 KiB)' : ''), pre(e.body, 'Request body'),
    el('h3', null, 'Response headers'), e.response ? headerTable(e.response.headers) : el('p', { class: 'muted' }, 'No answer was sent (a scenario fault closed the connection).'),
    e.response ? [el('h3', null, 'Response body', e.response.body_truncated ? ' (first 16 KiB)' : ''), pre(e.response.body, 'Response body')] : null,
  ];
}

function headerTable(h) {
  const names = Object.keys(h || {}).sort();
  if (!names.length) return el('p', { class: 'muted' }, '(none)');
  return table(['Header', 'Value'], names.map((n) => el('tr', null, el('td', { class: 'mono' }, n), el('td', { class: 'mono' }, h[n]))));
}

async function loadOlder() {
  const oldest = journal.entries[journal.entries.length - 1];
  if (!oldest) return;
  const params = new URLSearchParams(journal.filterKey || '');
  params.set('before', String(oldest.seq));
  params.set('limit', String(PAGE));
  try {
    const page = await api('/_sandbox/requests?' + params);
    journal.entries.push(...page.requests);
    journal.hasMore = page.requests.length === PAGE;
    const body = document.querySelector('#requests tbody');
    if (!body) return;
    body.append(...page.requests.map(requestRow)); // the rows already shown stay as they are
    if (!journal.hasMore) $('older').remove();
    const c = $('count'); if (c) c.textContent = countText();
    announce(`${page.requests.length} older requests loaded`);
  } catch (err) { announce('Could not load older requests: ' + err.message); }
}

function togglePause() {
  journal.paused = !journal.paused;
  if (!journal.paused && journal.waiting.length) { addEntries(journal.waiting); journal.waiting = []; }
  const b = $('pause');
  if (b) { b.setAttribute('aria-pressed', String(journal.paused)); b.textContent = journal.paused ? 'Resume live updates' : 'Pause live updates'; }
  setLive(journal.paused ? 'paused' : 'on', journal.paused ? 'paused' : 'live');
  const c = $('count'); if (c) c.textContent = countText();
}

// addEntries puts new entries (oldest first) on top of the list, keeping at most MAX_ROWS.
function addEntries(entries) {
  const fresh = entries.filter((e) => !journal.entries.length || e.seq > journal.entries[0].seq).reverse();
  if (!fresh.length) return;
  journal.entries.unshift(...fresh);
  if (journal.entries.length > MAX_ROWS) { journal.entries.length = MAX_ROWS; journal.hasMore = true; }
  const body = current.view === 'requests' && document.querySelector('#requests tbody');
  if (!body) return;
  const rows = fresh.map((e) => { const tr = requestRow(e); tr.classList.add('fresh'); return tr; });
  body.prepend(...rows);
  while (body.rows.length > MAX_ROWS) body.lastElementChild.remove();
  const empty = main.querySelector('.empty'); if (empty) empty.remove();
  const c = $('count'); if (c) c.textContent = countText();
  announce(`${fresh.length} new request${fresh.length === 1 ? '' : 's'}`);
}

function onLiveEntry(e) {
  journal.latest = Math.max(journal.latest, e.seq);
  if (journal.paused) {
    journal.waiting.push(e);
    const c = $('count'); if (c) c.textContent = countText();
    return;
  }
  queueEntry(e);
}

// Entries arriving in a burst are added once per frame.
let queued = [];
function queueEntry(e) {
  if (!queued.length) requestAnimationFrame(() => { const q = queued; queued = []; addEntries(q); });
  queued.push(e);
}

function setLive(kind, text) { const l = $('live'); l.className = 'live ' + kind; l.textContent = text; }

// startStream (re)opens GET /_sandbox/requests/stream with the current filters. fetch
// is used rather than EventSource because EventSource cannot send the admin token as a
// header, and a token in the address would end up in logs.
async function startStream() {
  const gen = ++journal.streamGen;
  if (journal.controller) journal.controller.abort();
  const controller = new AbortController();
  journal.controller = controller;
  let delay = 500;
  while (gen === journal.streamGen) {
    const params = new URLSearchParams(journal.filterKey || '');
    const newest = journal.entries.length ? journal.entries[0].seq : 0;
    if (newest) params.set('after', String(Math.max(newest, ...journal.waiting.map((w) => w.seq))));
    try {
      const res = await fetch('/_sandbox/requests/stream?' + params, { headers: authHeaders({ Accept: 'text/event-stream' }), signal: controller.signal, cache: 'no-store', credentials: 'omit' });
      if (res.status === 401) { setLive('off', 'token needed'); askToken(token() ? 'That token was refused.' : ''); return; }
      if (!res.ok) throw new Error('stream answered ' + res.status);
      setLive(journal.paused ? 'paused' : 'on', journal.paused ? 'paused' : 'live');
      delay = 500;
      await readEvents(res.body, (ev) => { if (ev.event === 'request' && gen === journal.streamGen) onLiveEntry(JSON.parse(ev.data)); });
    } catch (err) {
      if (controller.signal.aborted) return;
    }
    if (gen !== journal.streamGen) return;
    setLive('off', 'reconnecting…');
    await new Promise((ok) => setTimeout(ok, delay));
    delay = Math.min(delay * 2, 10000);
  }
}

// readEvents parses a text/event-stream body and calls onEvent for each event.
async function readEvents(body, onEvent) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    let end;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const ev = { event: 'message', data: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const i = line.indexOf(':');
        const field = i < 0 ? line : line.slice(0, i);
        const val = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
        if (field === 'data') ev.data += (ev.data ? '\n' : '') + val;
        else if (field === 'event' || field === 'id') ev[field] = val;
      }
      if (ev.data) onEvent(ev);
    }
  }
}

// ---------------------------------------------------------------- resources

// Each kind of resource is one entry: where to list and read it, its columns and its
// detail. Another kind (batches) is another entry here and a route in views. A paged
// list is read 100 at a time (?limit=&after=); the others answer all at once and take
// no query. A kind without item is read from its list (the back office's).
const KINDS = {
  transactions: {
    title: 'Transactions', one: 'transaction', prefix: 'TRN_', list: '/_sandbox/transactions', key: 'transactions', paged: true, item: (id) => '/_sandbox/transactions/' + enc(id),
    columns: [
      ['Transaction', (t) => link('transactions/' + enc(t.id), shortId(t.id), { class: 'mono nowrap', title: t.id })],
      ['Status', (t) => stateBadge(t.status)],
      [['Amount', { class: 'num' }], (t) => money(t.amount, t.currency), 'num'], [['Gratuity', { class: 'num' }], (t) => money(t.gratuity_amount, t.currency) || '–', 'num'],
      [['Adjusted', { class: 'num' }], (t) => String(t.adjustments.length), 'num'],
    ],
    cols: [null, '10em', '7.5em', '5.5em', '5.5em'],
    detail: transactionDetail,
  },
  orders: {
    title: 'Orders', one: 'order', prefix: 'ORD_', list: '/_sandbox/orders', key: 'orders', paged: true, item: (id) => '/_sandbox/orders/' + enc(id),
    columns: [
      ['Order', (o) => link('orders/' + enc(o.id), shortId(o.id), { class: 'mono nowrap', title: o.id })],
      ['Status', (o) => stateBadge(o.status)], ['Merchant', (o) => o.merchant_name],
      ['Updated (sandbox)', (o) => shortTime(o.time_last_updated), 'nowrap'], [['Actions', { class: 'num' }], (o) => String(o.history.length), 'num'],
    ],
    cols: [null, '9em', '11em', '12.5em', '4.5em'],
    detail: orderDetail,
  },
  batches: {
    title: 'Batches', one: 'batch', prefix: 'BAT_', list: '/_sandbox/batches', key: 'batches', paged: true, item: (id) => '/_sandbox/batches/' + enc(id),
    columns: [
      ['Batch', (b) => link('batches/' + enc(b.id), b.id, { class: 'mono nowrap' })],
      ['Status', (b) => stateBadge(b.status)], ['Merchant', (b) => shortId(b.merchant_id), 'mono nowrap'],
      [['Total', { class: 'num' }], (b) => (b.status === 'OPEN' ? '–' : money(b.amount, b.currency)), 'num'], [['Members', { class: 'num' }], (b) => String(b.transactions.length), 'num'],
    ],
    cols: [null, '7em', '12em', '8em', '7em'],
    detail: batchDetail,
  },
  merchants: {
    title: 'Merchants', one: 'merchant', prefix: 'MER_', list: '/_sandbox/merchants', key: 'merchants',
    columns: [
      ['Merchant', (m) => link('merchants/' + enc(m.id), shortId(m.id), { class: 'mono nowrap', title: m.id })],
      ['Status', (m) => stateBadge(m.status)], ['Name', (m) => m.name],
      [['Accounts', { class: 'num' }], (m) => String(m.accounts.length), 'num'], [['Documents', { class: 'num' }], (m) => String(m.documents.length), 'num'],
    ],
    cols: [null, '9em', '12em', '6em', '7em'],
    detail: merchantDetail,
  },
  deposits: {
    title: 'Deposits', one: 'deposit', prefix: 'DEP_', list: '/_sandbox/deposits', key: 'deposits',
    columns: [
      ['Deposit', (d) => link('deposits/' + enc(d.id), d.id, { class: 'mono nowrap' })],
      ['Status', (d) => stateBadge(d.status)], ['Day', (d) => d.time_created, 'nowrap'],
      [['Amount', { class: 'num' }], (d) => [d.funding_type === 'DEBIT' ? '−' : '', money(d.amount, d.currency)], 'num'],
      ['Merchant', (d) => shortId(d.system.mid), 'mono nowrap'],
    ],
    cols: [null, '7em', '7em', '8em', '12em'],
    detail: depositDetail,
  },
  disputes: {
    title: 'Disputes', one: 'dispute', prefix: 'DIS_', list: '/_sandbox/disputes', key: 'disputes',
    columns: [
      ['Dispute', (d) => link('disputes/' + enc(d.id), shortId(d.id), { class: 'mono nowrap', title: d.id })],
      ['Status', (d) => stateBadge(d.status)], ['Stage', (d) => d.stage],
      [['Amount', { class: 'num' }], (d) => money(d.amount, d.currency), 'num'], ['Transaction', (d) => resourceLink(d.transaction_id)],
    ],
    cols: [null, '10em', '9em', '7.5em', '12em'],
    detail: disputeDetail,
  },
};

const resources = { kind: '', items: [], next: '', key: '' };

async function showResources(kind, r) {
  const spec = KINDS[kind];
  const id = r.parts[1] || '';
  const render = async () => {
    try {
      const first = await api(spec.paged ? spec.list + '?limit=100' : spec.list);
      const more = resources.kind === kind ? resources.items.length - 100 : 0;
      let items = first[spec.key], next = first.next;
      while (more > 0 && next && items.length < 100 + more) {
        const page = await api(spec.list + '?limit=100&after=' + enc(next));
        items = items.concat(page[spec.key]); next = page.next;
      }
      resources.kind = kind; resources.items = items; resources.next = next;
      const selected = !id ? null : spec.item ? await api(spec.item(id)).catch((err) => ({ error: err }))
        : items.find((item) => item.id === id) || { error: new Error('not found') };
      const extra = selected && !selected.error && kind === 'orders' ? await api('/_sandbox/notifications?order_id=' + enc(id)) : null;
      if (current.render !== render) return;
      renderOnce(JSON.stringify([kind, id, items, next, selected && (selected.error ? String(selected.error.message) : selected), extra]),
        () => resourcesPage(spec, kind, id, selected, extra));
    } catch (err) { if (current.render === render) showError(err); }
  };
  current.render = render;
  main.dataset.key = '';
  await render();
}

function resourcesPage(spec, kind, id, selected, extra) {
  const rows = resources.items.map((item) => el('tr', { class: item.id === id ? 'selected' : null },
    spec.columns.map(([, cell, cls]) => el('td', { class: cls || null }, cell(item)))));
  const lookup = el('form', { class: 'toolbar', role: 'search', 'aria-label': 'Open by id' },
    el('label', { for: 'lookup' }, 'Open by id '), el('input', { id: 'lookup', name: 'id', autocomplete: 'off', spellcheck: 'false', placeholder: spec.prefix + '…' }),
    el('button', { type: 'submit' }, 'Open'));
  lookup.addEventListener('submit', (ev) => { ev.preventDefault(); const v = lookup.elements.id.value.trim(); if (v) location.hash = '#/' + kind + '/' + enc(v); });
  return [
    el('h2', null, 'Resources'),
    el('nav', { class: 'tabs', 'aria-label': 'Resource kinds' }, Object.entries(KINDS).map(([k, s]) => link(k, s.title, { class: 'tab', 'aria-current': k === kind ? 'page' : null }))),
    el('div', { class: 'split' },
      el('div', { class: 'panel' }, lookup,
        el('div', { class: 'scroll' }, table(spec.columns.map(([h]) => h), rows, { id: kind, 'aria-label': spec.title, cols: spec.cols }),
          rows.length ? null : el('p', { class: 'empty' }, `No ${kind} yet.`),
          resources.next ? el('button', { type: 'button', onclick: () => loadMoreResources(spec) }, `Load more ${kind}`) : null)),
      el('section', { class: 'panel detail', id: 'resource-detail', 'aria-label': 'Selected ' + spec.one },
        !selected ? el('p', { class: 'muted' }, `Select a ${spec.one} to see its state and history.`)
          : selected.error ? el('p', { class: 'error', role: 'alert' }, `${id}: ${selected.error.message}`)
            : spec.detail(selected, extra))),
  ];
}

async function loadMoreResources(spec) {
  try {
    const page = await api(spec.list + '?limit=100&after=' + enc(resources.next));
    resources.items = resources.items.concat(page[spec.key]);
    resources.next = page.next;
    main.dataset.key = '';
    if (current.render) await current.render();
  } catch (err) { announce('Could not load more: ' + err.message); }
}

function actionText(a) { return a && a.type ? `${a.type} · ${a.result_code} · ${shortTime(a.time_created)}` : ''; }

function transactionDetail(t) {
  const rows = t.adjustments.slice().reverse().map((a) => el('tr', null,
    el('td', { class: 'num' }, String(a.seq)), el('td', { class: 'time' }, shortTime(a.time)), // date and time may wrap in a narrow panel
    el('td', null, Object.entries(a.changes).map(([f, c]) => el('div', { class: 'mono' }, `${f}: ${c.from || '(none)'} → ${c.to}`)),
      el('div', { class: 'muted small' }, `${a.action_id} by ${a.app_id}`))));
  return [
    el('h3', { class: 'mono' }, t.id),
    kv([
      ['Status', stateBadge(t.status)], ['Type', t.type],
      ['Amount', money(t.amount, t.currency)], ['Authorization amount', money(t.authorization_amount, t.currency)],
      ['Gratuity', money(t.gratuity_amount, t.currency) || '(none)'],
      ['Merchant', t.merchant_id], ['Country', t.country], ['Reference', t.reference],
      ['Batch', t.batch_id ? [link('batches/' + enc(t.batch_id), t.batch_id, { class: 'mono' }), t.batch_closed ? ' (closed)' : ' (open)'] : ''],
      ['Created (sandbox)', shortTime(t.time_created)], ['Last action', actionText(t.action)],
      ['Result', t.payment_method ? `${t.payment_method.result} ${t.payment_method.message}` : ''],
    ]),
    el('p', null, link('requests?transaction_id=' + enc(t.id), 'Requests on this transaction')),
    el('h3', null, `Adjustments (${t.adjustments.length}), newest first`),
    rows.length ? table([['#', { class: 'num' }], 'Time (sandbox)', 'Changes, action and app'], rows, { 'aria-label': 'Adjustment history', cols: ['2.5em', null, null] })
      : el('p', { class: 'muted' }, 'Never adjusted.'),
  ];
}

function orderDetail(o, notes) {
  const history = o.history.slice().reverse().map((a) => el('tr', null,
    el('td', null, a.type, el('div', { class: 'muted small' }, `${a.id} by ${a.app_name || a.app_id}`)), el('td', { class: 'time' }, shortTime(a.time_created))));
  const products = (o.request.products || []).map((p) => el('tr', null, el('td', { class: 'mono' }, p.id), el('td', { class: 'num' }, String(p.quantity ?? ''))));
  return [
    el('h3', { class: 'mono' }, o.id),
    kv([
      ['Status', stateBadge(o.status)], ['Merchant', `${o.merchant_name} (${o.merchant_id})`], ['App', o.app_id],
      ['Created (sandbox)', shortTime(o.time_created)], ['Updated (sandbox)', shortTime(o.time_last_updated)],
      ['Notifications to', o.status_url ? el('span', { class: 'mono' }, o.status_url) : '(no status_url)'],
    ]),
    el('p', null, link('requests?order_id=' + enc(o.id), 'Requests on this order'), ' · ', link('notifications?order=' + enc(o.id), 'Its notifications')),
    el('h3', null, 'History, newest first'),
    table(['Action', 'Time (sandbox)'], history, { 'aria-label': 'Order history' }),
    products.length ? [el('h3', null, 'Products'), table(['Product', ['Quantity', { class: 'num' }]], products)] : null,
    el('h3', null, 'Notifications'),
    notes && notes.notifications.length ? notificationTable(notes.notifications, null) : el('p', { class: 'muted' }, 'None.'),
  ];
}

function batchDetail(b) {
  return [
    el('h3', { class: 'mono' }, b.id),
    kv([
      ['Status', stateBadge(b.status)], ['Merchant', b.merchant_id], ['Account', b.account_id],
      ['Opened (sandbox)', shortTime(b.time_created)], ['Closed (sandbox)', b.time_closed ? shortTime(b.time_closed) : 'still open'],
      ['Closed by', b.closed_by],
      ['Total', b.status === 'OPEN' ? 'made when the batch closes' : [money(b.amount, b.currency), ` in ${b.transaction_count} transaction${b.transaction_count === 1 ? '' : 's'}`]],
    ]),
    el('h3', null, 'Transactions'),
    b.transactions.length ? el('ul', null, b.transactions.map((id) => el('li', null, resourceLink(id)))) : el('p', { class: 'muted' }, 'None yet.'),
  ];
}

// The back office: a merchant's accounts and documents (hash and size, never the
// content) and no payout details; a deposit's bank account by its last four digits.
function merchantDetail(m) {
  const accounts = m.accounts.map((a) => el('tr', null, el('td', { class: 'mono' }, a.id), el('td', null, a.name), el('td', null, a.type), el('td', null, stateBadge(a.status))));
  const documents = m.documents.map((d) => el('tr', null, el('td', { class: 'mono' }, d.id), el('td', null, d.function), el('td', null, d.format),
    el('td', { class: 'num' }, String(d.size)), el('td', { class: 'mono', title: 'SHA-256 of the uploaded content' }, d.sha256.slice(0, 12) + '…')));
  return [
    el('h3', { class: 'mono' }, m.id),
    kv([
      ['Status', stateBadge(m.status)], ['Name', m.name], ['Type', m.type], ['Legal name', m.legal_name], ['DBA', m.dba],
      ['Boarded by', m.app_id], ['Review until (sandbox)', shortTime(m.review_until)],
      ['Created (sandbox)', shortTime(m.time_created)], ['Updated (sandbox)', shortTime(m.time_last_updated)],
    ]),
    el('h3', null, `Accounts (${accounts.length})`),
    accounts.length ? table(['Account', 'Name', 'Type', 'Status'], accounts, { 'aria-label': 'Accounts' }) : el('p', { class: 'muted' }, 'None.'),
    el('h3', null, `Documents (${documents.length})`),
    documents.length ? table(['Document', 'Function', 'Format', ['Bytes', { class: 'num' }], 'SHA-256'], documents, { 'aria-label': 'Documents' }) : el('p', { class: 'muted' }, 'None.'),
    m.order_ids.length ? [el('h3', null, 'Orders its boarding placed'), el('ul', null, m.order_ids.map((id) => el('li', null, resourceLink(id))))] : null,
  ];
}

function countAmount(t, currency) { return [money(t.amount, currency), ` in ${t.count}`]; }

function depositDetail(d) {
  return [
    el('h3', { class: 'mono' }, d.id),
    kv([
      ['Status', stateBadge(d.status)], ['Day', d.time_created], ['Shown by the API', d.visible ? 'yes' : 'not yet: its day has not come'],
      ['Amount', [money(d.amount, d.currency), ' ', d.funding_type]], ['Merchant', `${d.system.name} (${d.system.mid})`],
      ['Bank account', d.bank_transfer.masked_account_number_last4 ? '…' + d.bank_transfer.masked_account_number_last4 : ''],
      ['Sales', countAmount(d.sales, d.currency)], ['Refunds', countAmount(d.refunds, d.currency)],
      ['Chargebacks', countAmount(d.disputes.chargebacks, d.currency)], ['Reversals', countAmount(d.disputes.reversals, d.currency)],
      ['Discounts', countAmount(d.discounts, d.currency)], ['Fees', money(d.fees.amount, d.currency)],
    ]),
    el('h3', null, 'Transactions it paid'),
    d.transaction_ids.length ? el('ul', null, d.transaction_ids.map((id) => el('li', null, resourceLink(id)))) : el('p', { class: 'muted' }, 'None listed.'),
    d.dispute_ids.length ? [el('h3', null, 'Disputes whose funds it moved'), el('ul', null, d.dispute_ids.map((id) => el('li', null, resourceLink(id))))] : null,
  ];
}

function disputeDetail(d) {
  const t = d.transaction;
  return [
    el('h3', { class: 'mono' }, d.id),
    kv([
      ['Status', stateBadge(d.status)], ['Stage', d.stage], ['Result', d.result], ['Shown by the API', d.visible ? 'yes' : 'not yet'],
      ['Amount', money(d.amount, d.currency)], ['Reason', [d.reason_code, d.reason_description ? ' · ' + d.reason_description : '']],
      ['Merchant', `${d.merchant_name} (${d.merchant_id})`], ['Transaction', resourceLink(d.transaction_id)],
      ['Card', [t.payment_method.card.brand, ' ', t.payment_method.card.masked_number_first6last4].join('').trim()], ['ARN', t.payment_method.card.arn],
      ['Deposit', d.deposit_id ? resourceLink(d.deposit_id) : ''],
      ['Created (sandbox)', shortTime(d.time_created)], ['Stage since (sandbox)', shortTime(d.stage_time_created)],
      ['Respond by (sandbox)', shortTime(d.time_to_respond_by)], ['Last action', actionText(d.action)],
    ]),
    el('h3', null, `Documents (${d.documents.length})`),
    d.documents.length ? el('ul', null, d.documents.map((doc) => el('li', null, el('span', { class: 'mono' }, doc.id), doc.type ? ' · ' + doc.type : '')))
      : el('p', { class: 'muted' }, 'None.'),
    el('p', { class: 'muted small' }, 'As stored: GP\'s API moves a dispute along the sandbox clock when it reads it.'),
  ];
}

// ---------------------------------------------------------------- notifications

function lastAnswer(n) {
  const a = n.attempts[n.attempts.length - 1];
  if (!a) return 'not sent yet';
  return a.http_status ? 'HTTP ' + a.http_status : a.error;
}

function notificationRoute(n) { return 'notifications/' + enc(n.order_id) + '/' + n.seq; }

function notificationTable(list, selected) {
  return table(['Order · seq', 'Change', 'State', ['Tries', { class: 'num' }], 'Last answer', 'Next attempt'],
    list.map((n) => el('tr', { class: selected === n ? 'selected' : null },
      el('td', null, link(notificationRoute(n), `${shortId(n.order_id)} · ${n.seq}`, { class: 'mono nowrap', title: n.order_id, 'aria-label': `${n.order_id} notification ${n.seq}` })),
      el('td', null, n.action.replace('ORDER_', '')), el('td', null, stateBadge(n.state)), el('td', { class: 'num' }, String(n.attempts.length)),
      el('td', null, lastAnswer(n)), el('td', { class: 'nowrap', title: 'sandbox clock' }, n.next_attempt ? timeOfDay(n.next_attempt) : '–'))),
    { 'aria-label': 'Notifications', cols: [null, '7.5em', '8.5em', '3.5em', '7em', '7em'] });
}

function notificationDetail(n) {
  const attempts = n.attempts.map((a, i) => el('tr', null,
    el('td', { class: 'num' }, String(i + 1)), el('td', { class: 'nowrap' }, shortTime(a.time)),
    el('td', null, a.http_status ? [badge('HTTP ' + a.http_status, a.http_status < 300 ? 'ok' : 'err'), a.http_status < 300 ? ' delivered' : ''] : [badge('failed', 'err'), ' ', a.error]),
    el('td', { class: 'nowrap' }, a.next_attempt ? 'retry at ' + shortTime(a.next_attempt) : '–')));
  return [
    el('h3', null, `${n.action} of `, link('orders/' + enc(n.order_id), n.order_id, { class: 'mono' }), ` · #${n.seq}`),
    kv([
      ['State', stateBadge(n.state)], ['To', el('span', { class: 'mono' }, n.url)], ['Created (sandbox)', shortTime(n.created)],
      ['Next attempt', n.next_attempt ? shortTime(n.next_attempt) + ' (sandbox clock)' : '–'],
      ['X-GP-Signature', el('code', null, n.signature)],
    ]),
    el('h3', null, `Attempts (${n.attempts.length})`),
    attempts.length ? table([['#', { class: 'num' }], 'Time (sandbox)', 'Answer', 'Retry'], attempts, { 'aria-label': 'Delivery attempts' })
      : el('p', { class: 'muted' }, 'Not sent yet.'),
    el('h3', null, 'Body'), pre(n.body, 'Notification body'),
  ];
}

async function showNotifications(r) {
  const order = r.params.get('order') || '';
  const [selOrder, selSeq] = [r.parts[1] || '', Number(r.parts[2] || 0)];
  const render = async () => {
    try {
      const data = await api('/_sandbox/notifications' + (order ? '?order_id=' + enc(order) : ''));
      if (current.render !== render) return;
      const list = data.notifications.slice().reverse();
      const selected = list.find((n) => n.order_id === selOrder && n.seq === selSeq) || null;
      renderOnce(JSON.stringify([order, selOrder, selSeq, list]), () => {
        const form = el('form', { class: 'toolbar', role: 'search', 'aria-label': 'Filter notifications' },
          el('label', { for: 'ntf-order' }, 'Order '), el('input', { id: 'ntf-order', name: 'order', autocomplete: 'off', placeholder: 'ORD_…' }),
          el('button', { type: 'submit' }, 'Filter'), order ? link('notifications', 'Show all') : null);
        form.elements.order.value = order;
        form.addEventListener('submit', (ev) => { ev.preventDefault(); const v = form.elements.order.value.trim(); location.hash = '#/notifications' + (v ? '?order=' + enc(v) : ''); });
        return [
          el('h2', null, 'Notifications'),
          el('p', { class: 'muted' }, 'Order status notifications, newest first, with every delivery attempt. Retries wait for the sandbox clock.'),
          el('div', { class: 'split' },
            el('div', { class: 'panel' }, form, el('div', { class: 'scroll' }, list.length ? notificationTable(list, selected) : el('p', { class: 'empty' }, 'No notification yet: orders with notifications.status_url send them.'))),
            el('section', { class: 'panel detail', id: 'notification-detail', 'aria-label': 'Selected notification' },
              selected ? notificationDetail(selected) : el('p', { class: 'muted' }, 'Select a notification to see its attempts, signature and body.'))),
        ];
      });
    } catch (err) { if (current.render === render) showError(err); }
  };
  current.render = render;
  main.dataset.key = '';
  await render();
}

// ---------------------------------------------------------------- terminal

// The Terminal view: each simulated terminal's screen as the customer sees it, and the
// customer's hands: choose a tip, present a test card (by name: no card data is typed
// or shown here), cancel. Each button is one admin call, which the journal records.

const TIP_PERCENTS = [15, 18, 20];
const ENTRY_WORDS = { CHIP: 'insert', CONTACTLESS_CHIP: 'tap', SWIPE: 'swipe', MANUAL: 'keyed' };
let terminalNote = null; // the outcome of the last button pressed: { id, text, error }

async function showTerminal() {
  const render = async () => {
    try {
      const data = await api('/_sandbox/terminals');
      if (current.render !== render) return;
      renderOnce(JSON.stringify([data, terminalNote]), () => [
        el('h2', null, 'Terminal'),
        el('p', { class: 'muted' }, 'Each terminal\'s screen, as the customer sees it. A command sent by POST /devices to a terminal in INITIATED mode, or to a busy one, waits its turn here; one that needs the customer waits for a card (or a signature, a scan, an entry).'),
        data.terminals.length
          ? el('div', { class: 'cards', id: 'terminals' }, data.terminals.map((t) => terminalPanel(t, data.cards)))
          : el('p', { class: 'empty' }, 'No terminal: the fixtures give each merchant one.'),
      ]);
    } catch (err) { if (current.render === render) showError(err); }
  };
  current.render = render;
  main.dataset.key = '';
  await render();
}

// ---------------------------------------------------------------- coverage

async function showCoverage() {
  const render = async () => {
    try {
      const c = await api('/_sandbox/coverage');
      if (current.render !== render) return;
      renderOnce(JSON.stringify(c), () => coveragePage(c));
    } catch (err) { if (current.render === render) showError(err); }
  };
  current.render = render;
  main.dataset.key = '';
  await render();
}

function terminalPanel(t, cards) {
  const w = t.waiting;
  const note = terminalNote && terminalNote.id === t.id ? terminalNote : null;
  return el('section', { class: 'panel terminal', id: 'terminal-' + t.id, 'aria-label': 'Terminal ' + t.id },
    el('h3', { class: 'mono' }, t.id, ' ', stateBadge(t.status), ' ', badge(t.mode)),
    el('p', { class: 'muted small' }, `${t.model || 'terminal'} of ${t.merchant_id}, account ${t.account_id}`),
    terminalScreen(t),
    t.queued && t.queued.length ? el('p', { class: 'muted small', id: 'queued-' + t.id },
      `${t.queued.length} queued behind it: `, t.queued.map((q) => q.command).join(', ')) : null,
    w ? [
      w.tip_prompt ? tipControls(t.id, w) : null,
      t.screen === 'WAITING_FOR_CARD' ? [
        el('h4', null, 'Present a card'),
        el('div', { class: 'toolbar card-buttons' }, cards.map((c) => el('button', {
          type: 'button', 'data-card': c.name,
          onclick: () => terminalAction(t.id, 'present', { card: c.name }, `${c.name} presented`),
        }, el('strong', null, c.name), el('span', { class: 'muted small' }, ` ${c.brand} ${c.masked_number} · ${ENTRY_WORDS[c.entry_mode] || c.entry_mode}`, c.note ? ` · ${c.note}` : '')))),
      ] : el('div', { class: 'toolbar' }, el('button', { type: 'button', id: 'complete-' + t.id,
        onclick: () => terminalAction(t.id, 'present', {}, `The customer answered ${w.command}`) }, 'Customer answers')),
      el('div', { class: 'toolbar' }, el('button', { type: 'button', class: 'danger', id: 'cancel-' + t.id,
        onclick: () => terminalAction(t.id, 'cancel', null, 'The customer cancelled') }, 'Customer cancels')),
    ] : t.mode === 'COMPLETE' ? el('p', { class: 'muted' }, 'This terminal answers each command at once with its default card. ',
      el('button', { type: 'button', class: 'link', onclick: () => setTerminalMode(t.id) }, 'Wait for a card here (INITIATED mode)')) : null,
    el('p', { class: note && note.error ? 'error' : 'muted', role: 'status', id: 'terminal-note-' + t.id }, note ? note.text : ''));
}

// terminalScreen is the terminal's display: the waiting command, else idle with the
// last answer.
function terminalScreen(t) {
  const w = t.waiting;
  if (w) {
    const tip = w.tip_amount;
    const total = tip !== undefined ? (BigInt(w.base_amount || '0') + BigInt(tip)).toString() : null;
    return el('div', { class: 'screen', 'data-screen': 'waiting' },
      el('p', null, w.command),
      w.base_amount ? el('p', { class: 'amount' }, majorUnits(w.base_amount, w.currency) + ' ' + w.currency) : null,
      tip !== undefined ? el('p', null, `Tip ${majorUnits(tip, w.currency)} · Total ${majorUnits(total, w.currency)} ${w.currency}`)
        : w.tip_prompt ? el('p', { class: 'prompt' }, 'Add a tip?') : null,
      el('p', { class: 'prompt' }, t.screen === 'WAITING_FOR_CARD' ? 'Insert, tap or swipe' : 'Waiting for the customer'));
  }
  return el('div', { class: 'screen', 'data-screen': 'idle' },
    el('p', null, 'Ready'),
    t.last ? terminalResult(t.last) : el('p', { class: 'dim' }, 'No command yet'));
}

function terminalResult(l) {
  const r = l.response || {};
  const h = r.host || {};
  const p = r.payment;
  const c = l.currency;
  if (r.result !== 'Success' || r.error_code) { // failed, or refused by the host
    return el('p', { class: 'result' }, `${l.command}: ${r.error_message || 'FAILED'}`, r.error_code ? ` (${r.error_code})` : '');
  }
  return [
    el('p', { class: 'result' }, `${l.command}: APPROVED`, h.total_amount ? ` ${majorUnits(h.total_amount, c)} ${c}` : ''),
    h.tip_amount && h.tip_amount !== '0' ? el('p', null, `incl. tip ${majorUnits(h.tip_amount, c)}`) : null,
    p ? el('p', null, `${p.card_type} ${p.masked_pan} · ${p.card_acquisition}`, h.approval_code ? ` · auth ${h.approval_code}` : '') : null,
    r.batch ? el('p', null, `Batch ${r.batch.batch_id} ${r.batch.status} · ${r.batch.count} · ${majorUnits(r.batch.total_amount, c)} ${c}`) : null,
    r.transaction_id ? el('p', null, link('transactions/' + enc(r.transaction_id), r.transaction_id, { class: 'mono' })) : null,
  ];
}

function tipControls(id, w) {
  const base = BigInt(w.base_amount || '0');
  const form = el('form', { class: 'toolbar', 'aria-label': 'Tip on terminal ' + id },
    el('button', { type: 'button', onclick: () => terminalAction(id, 'tip', { tip: '0' }, 'No tip') }, 'No tip'),
    TIP_PERCENTS.map((p) => {
      const tip = ((base * BigInt(p) + 50n) / 100n).toString();
      return el('button', { type: 'button', 'data-tip': tip, onclick: () => terminalAction(id, 'tip', { tip }, `Tip ${p}%`) },
        `${p}% (${majorUnits(tip, w.currency)})`);
    }),
    el('label', { for: 'tip-' + id }, 'or '),
    el('input', { id: 'tip-' + id, name: 'tip', class: 'narrow', size: 7, placeholder: '2.50', autocomplete: 'off', inputmode: 'decimal' }),
    el('button', { type: 'submit' }, 'Add tip'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const tip = minorUnits(form.elements.tip.value.trim(), w.currency);
    if (tip === null) { terminalNote = { id, text: 'A tip is an amount such as 2.50', error: true }; main.dataset.key = ''; current.render(); return; }
    terminalAction(id, 'tip', { tip }, 'Tip chosen');
  });
  return [el('h4', null, 'Tip'), form];
}

// minorUnits reads an amount typed in major units ("2.5") as the API's minor units
// ("250"), on the digits, or null when it is not one.
function minorUnits(text, currency) {
  const digits = MINOR_DIGITS[String(currency).toUpperCase()] ?? 2;
  const m = /^(\d+)(?:\.(\d*))?$/.exec(text);
  if (!m || (m[2] || '').length > digits) return null;
  return String(BigInt(m[1] + (m[2] || '').padEnd(digits, '0')));
}

async function terminalAction(id, action, body, done) {
  try {
    const opts = { method: 'POST' };
    if (body) { opts.headers = { 'Content-Type': 'application/json' }; opts.body = JSON.stringify(body); }
    const d = await api(`/_sandbox/devices/${enc(id)}/${action}`, opts);
    terminalNote = { id, text: `${done}: ${d.id} is ${d.status}` };
  } catch (err) { terminalNote = { id, text: 'Not done: ' + err.message, error: true }; }
  announce(terminalNote.text);
  main.dataset.key = '';
  if (current.render) current.render();
}

async function setTerminalMode(id) {
  try {
    await api(`/_sandbox/devices/${enc(id)}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ mode: 'INITIATED' }) });
    terminalNote = { id, text: 'Commands now wait for a card here.' };
  } catch (err) { terminalNote = { id, text: 'Not changed: ' + err.message, error: true }; }
  main.dataset.key = '';
  if (current.render) current.render();
}

function coverageExamples(item) {
  const links = item.examples.map((x) => link('requests/' + enc(x.request_id), '#' + x.seq, { class: 'mono' }));
  const notes = (item.notifications || []).map((n) => el('span', { class: 'mono' }, n));
  return [...links, ...notes].flatMap((a, i) => (i ? [' ', a] : [a]));
}

function coveragePage(c) {
  const rows = c.items.map((item) => el('tr', { 'data-item': item.id },
    el('td', null, item.covered ? badge('covered', 'ok') : badge('not covered', 'err')),
    el('td', null, item.group),
    el('td', null, el('strong', null, item.title), el('br'), item.satisfied_by, el('br'), el('span', { class: 'muted' }, 'SDK tests: ' + item.source)),
    el('td', { class: 'num' }, String(item.count)), el('td', null, ...coverageExamples(item))));
  const errors = c.seen.errors.map((e) => el('tr', null, el('td', { class: 'num' }, String(e.status)),
    el('td', { class: 'mono' }, `${e.error_code} ${e.detailed_error_code}`), el('td', { class: 'num' }, String(e.count)),
    el('td', null, ...coverageExamples(e))));
  const counts = (m) => Object.keys(m).sort().map((k) => `${k} ${m[k]}`).join(' · ') || 'none';
  return [
    el('h2', null, 'Coverage'),
    el('p', { id: 'coverage-summary', role: 'status' },
      `${c.summary.covered} of ${c.summary.items} checklist items covered by the ${c.requests} requests in the journal (since the last reset or clear).`),
    el('section', { class: 'panel', 'aria-labelledby': 'seen-title' },
      el('h3', { id: 'seen-title' }, 'Seen'),
      kv([['Operations', counts(c.seen.operations)], ['Entry modes', counts(c.seen.entry_modes)],
        ['Approved', String(c.seen.outcomes.approved)], ['Declined by result', counts(c.seen.outcomes.declined)],
        ['Partial', String(c.seen.outcomes.partial)], ['Tips', String(c.seen.tips)], ['Batch closes', String(c.seen.batch_closes)],
        ['Notifications', counts(c.seen.notifications)]]),
      el('h3', null, 'Error tuples answered'),
      errors.length ? table([['Status', { class: 'num' }], 'Error', ['Count', { class: 'num' }], 'Requests'], errors, { 'aria-label': 'Errors seen' })
        : el('p', { class: 'muted' }, 'No GP error in the journal.')),
    el('section', { class: 'panel', 'aria-labelledby': 'checklist-title' },
      el('h3', { id: 'checklist-title' }, 'Card-present checklist'),
      table(['', 'Group', 'Item', ['Count', { class: 'num' }], 'Requests'], rows, { id: 'coverage', 'aria-label': 'Checklist' })),
  ];
}

// ---------------------------------------------------------------- scenarios and clock

async function showScenarios() {
  const render = async () => {
    try {
      const [clock, sc, st] = await Promise.all([api('/_sandbox/clock'), api('/_sandbox/scenarios'), api('/_sandbox/scenario-state')]);
      if (current.render !== render) return;
      renderOnce(JSON.stringify([clock, sc, st]), () => scenariosPage(clock, sc, st));
    } catch (err) { if (current.render === render) showError(err); }
  };
  current.render = render;
  main.dataset.key = '';
  await render();
}

function scenariosPage(clock, sc, st) {
  const scenarios = sc.scenarios.map((s) => el('tr', null,
    el('td', null, s.name ? link('requests?scenario=' + enc(s.name), s.name, { class: 'rule' }) : el('span', { class: 'muted' }, '(not loaded)')),
    el('td', null, s.global ? badge('global', 'ok') : 'no'),
    el('td', { class: 'mono' }, s.file), el('td', { class: 'num' }, String(s.rules)),
    el('td', null, s.load_error ? el('span', { class: 'error' }, '✕ ' + s.load_error) : s.description || '')));
  const bindings = st.bindings.map((b) => el('tr', null, el('td', null, b.kind),
    el('td', null, b.kind === 'transaction' ? resourceLink(b.id) : el('span', { class: 'mono' }, b.id)), el('td', { class: 'rule' }, b.scenarios.join(', '))));
  const sessions = st.sessions.map((s) => el('tr', null,
    el('td', null, link('requests?session=' + enc(s.session), s.session, { class: 'mono' })),
    el('td', { class: 'rule' }, s.scenarios.join(' | ') || '–'), el('td', { class: 'num' }, String(s.requests)), el('td', { class: 'nowrap' }, shortTime(s.last_seen))));
  const steps = st.steps.map((s) => el('tr', null, el('td', { class: 'rule' }, `${s.scenario}#${s.rule}`), el('td', { class: 'mono' }, s.scope), el('td', { class: 'num' }, String(s.count))));
  return [
    el('h2', null, 'Scenarios & clock'),
    el('div', { class: 'cards' },
      el('section', { class: 'panel', 'aria-labelledby': 'clock-title' },
        el('h3', { id: 'clock-title' }, 'Sandbox clock'),
        el('p', { class: 'clock-now', id: 'clock-now' }, shortTime(clock.now)),
        el('p', { class: 'muted' }, clock.frozen ? 'Frozen: it moves only when advanced.' : 'Running.'),
        clockControls(),
        el('h3', null, 'Reset'),
        el('p', { class: 'muted' }, 'Wipe all state and load the fixtures again.'),
        el('button', { type: 'button', class: 'danger', id: 'reset', onclick: confirmReset }, 'Reset the sandbox…'),
        el('p', { id: 'clock-result', role: 'status' })),
      el('section', { class: 'panel', 'aria-labelledby': 'active-title' },
        el('h3', { id: 'active-title' }, 'Active scenarios'),
        kv([['Globally', sc.active.length ? el('span', { class: 'rule' }, sc.active.join(', ')) : 'none'],
          ['Chance seed', sc.seed ? [el('span', { class: 'mono' }, sc.seed), ' (--seed repeats the draws of outcomes with a probability)'] : null]]),
        el('h3', null, 'By binding'),
        bindings.length ? table(['Kind', 'Id', 'Scenarios'], bindings, { 'aria-label': 'Bindings' }) : el('p', { class: 'muted' }, 'No fixture record is bound to a scenario.'),
        el('h3', null, 'By session (X-Sandbox-Scenario)'),
        sessions.length ? table(['Session', 'Named scenarios', ['Requests', { class: 'num' }], 'Last seen'], sessions, { 'aria-label': 'Sessions' }) : el('p', { class: 'muted' }, 'No request in the journal named a session.'),
        el('h3', null, 'Sequence counters'),
        steps.length ? table(['Rule', 'Scope', ['Answered', { class: 'num' }]], steps, { 'aria-label': 'Sequence counters' }) : el('p', { class: 'muted' }, 'No sequence rule has answered yet.'))),
    el('section', { class: 'panel', 'aria-labelledby': 'loaded-title' },
      el('h3', { id: 'loaded-title' }, `Loaded scenarios (${sc.scenarios.length})`),
      table(['Name', 'Active', 'File', ['Rules', { class: 'num' }], 'Description or load error'], scenarios, { id: 'scenarios', 'aria-label': 'Loaded scenarios' })),
  ];
}

function clockControls() {
  const form = el('form', { class: 'toolbar', 'aria-label': 'Advance the clock' },
    ['1m', '1h', '24h'].map((d) => el('button', { type: 'button', onclick: () => advance(d) }, '+' + d)),
    el('label', { for: 'advance' }, 'or by '),
    el('input', { id: 'advance', name: 'advance', class: 'narrow', placeholder: '90s', autocomplete: 'off', size: 6 }),
    el('button', { type: 'submit' }, 'Advance'));
  form.addEventListener('submit', (ev) => { ev.preventDefault(); const v = form.elements.advance.value.trim(); if (v) advance(v); });
  return form;
}

async function advance(duration) {
  const out = $('clock-result');
  try {
    const c = await api('/_sandbox/clock', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ advance: duration }) });
    out.textContent = 'Clock advanced by ' + duration + ': now ' + shortTime(c.now);
    updateClock(c);
    main.dataset.key = '';
    if (current.render) current.render();
  } catch (err) { out.textContent = 'Not advanced: ' + err.message; out.className = 'error'; }
}

function confirmReset() {
  const d = $('confirm');
  d.returnValue = '';
  d.addEventListener('close', async () => {
    if (d.returnValue !== 'confirm') return;
    const out = $('clock-result');
    try {
      await api('/_sandbox/reset', { method: 'POST' });
      journal.entries = []; // a reset empties the journal too
      if (out) out.textContent = 'The sandbox was reset.';
      announce('The sandbox was reset.');
      main.dataset.key = '';
      if (current.render) current.render();
    } catch (err) { if (out) { out.textContent = 'Not reset: ' + err.message; out.className = 'error'; } }
  }, { once: true });
  d.showModal();
}

// ---------------------------------------------------------------- header clock, start

function updateClock(c) { $('clock').textContent = 'sandbox ' + shortTime(c.now) + (c.frozen ? ' (frozen)' : ''); }

async function refreshClock() {
  if (document.visibilityState !== 'visible') return;
  try { updateClock(await api('/_sandbox/clock')); } catch { $('clock').textContent = 'clock unavailable'; }
}

function restart() {
  journal.filterKey = null;
  refreshClock();
  route();
}

// setupSkipLink makes "Skip to content" move focus to the content. Followed as a link,
// its #main would change the address, which this page reads as a route (to Requests).
function setupSkipLink() {
  document.querySelector('a.skip').addEventListener('click', (ev) => {
    ev.preventDefault();
    main.focus();
  });
}

function start() {
  takeTokenFromURL();
  setupLogin();
  setupSkipLink();
  window.addEventListener('hashchange', route);
  startPolling();
  setInterval(refreshClock, 5000);
  restart();
  if (current.view !== 'requests') {
    // The journal is live whichever view is open, so that it is current when shown.
    showRequestsInBackground();
  }
}

async function showRequestsInBackground() {
  journal.filterKey = '';
  try {
    const page = await api('/_sandbox/requests?limit=' + PAGE);
    journal.entries = page.requests;
    journal.hasMore = page.requests.length === PAGE;
  } catch { journal.filterKey = null; return; }
  startStream();
}

start();
