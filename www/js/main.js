// Boots the page and keeps the viewer's state (trace, step, selected tensor): every user action
// goes through here, asks the wasm adapter for JSON and hands it to the panels to draw. Any
// exception is shown in the error panel and the page stays usable.
import { $, h, fill } from './dom.js';
import * as editor from './editor.js';
import { drawStep, drawTensors, drawChain, drawValues } from './panels.js';
import { drawStorage, wireHover } from './storage.js';
import { drawKernelPrompt, drawTimelinePrompt, onTimelinePick } from './kernels.js';
import { drawAutograd } from './autograd.js';
import { drawLessons, activeLesson, drawNarration } from './lessons.js';
import { initReference, showReference } from './reference.js';
import { detect } from './gpu.js';
import { initData, ensureSamples, samplesReady } from './data.js';
import * as engine from './engine.js';

/** `frag`: the fragment the page last opened or wrote (the address it owns). `recording`: the
 *  recording of a real PyTorch run the page shows instead of a trace (`{json, about}`), or null. */
const app = { wasm: null, session: null, src: '', state: null, selected: null, gpu: null, perf: {}, frag: '', recording: null };
window.stridelab = app;

function fatal(err) {
  const box = $('#fatal');
  const msg = err && err.message ? err.message : String(err);
  fill(box, h('b', {}, 'Something failed: '), msg, ' ', h('button', { onclick: () => { box.hidden = true; } }, 'dismiss'));
  box.hidden = false;
  console.error(err);
}

addEventListener('error', (e) => fatal(e.error || e.message));
addEventListener('unhandledrejection', (e) => fatal(e.reason));

/** Marks, under the slider, the steps where the bridge's run parts from PyTorch's. */
function drawTicks(n, steps) {
  fill($('#bridge-ticks'), Array.from(steps, (k) => h('span', { style: `left: ${n ? (100 * k) / n : 0}%`, title: `step ${k}: the bridge diverges`, onclick: () => goto(k) })));
}

/** A trace that reads a dataset file (the samples are fetched only when one does). */
const readsDatasets = (src) => /\bdataset\s*\(/.test(src);
/** Whether the samples' fetch has settled (opened, or failed: the trace then says which file). */
let samplesSettled = false;
/** Counts loads: an answer for an older load than the newest is dropped. */
let loads = 0;
/** Whether an open is running in the worker now (a newer load cancels it instead of queueing). */
let opening = false;

/** Says the engine is still running the trace, after a moment, with a Cancel button. */
function showRunning(load) {
  const t0 = performance.now();
  const tick = () => {
    if (load !== loads || !opening) return;
    fill($('#stepinfo'), h('span', { id: 'running' }, `running the trace… ${((performance.now() - t0) / 1000).toFixed(1)} s `),
      h('button', { id: 'cancel', onclick: () => engine.cancel() }, 'Cancel'));
    setTimeout(tick, 250);
  };
  setTimeout(tick, 150);
}

/** Says in the step panel that the engine failed on this `what` (trace or step), and why. */
function engineStopped(e, what) {
  const text = e.fatal ? `the engine stopped on this ${what} (see above) and was restarted` : String(e.message);
  fill($('#stepinfo'), h('span', { class: 'bad', id: 'engine-stopped' }, text));
}

/** Offers the whole trace's kernel timeline for the open trace (a new trace, a new offer). */
function offerTimeline() {
  const src = app.ran;
  drawTimelinePrompt(() => engine.call('traceKernels', { src }), app.gpu);
}

/** How a load treats a source that does not parse: an edit in the editor keeps the last run on
 *  screen (a line is half typed); anything else (a link, a lesson, a file) shows the error alone. */
const EDIT = 'edit';

/**
 * Opens a trace: the engine worker runs it whole, then the page stands on `step` (default: the
 * end). Runs off the main thread; a newer load (the user typing on) cancels an older one.
 */
async function load(src, step, tensor, how) {
  app.src = src;
  const me = ++loads;
  leaveRecording();
  if (readsDatasets(src) && !samplesReady() && !samplesSettled) {
    // The samples come first; a failure to fetch them shows as the trace's own error.
    $('#stepinfo').textContent = 'loading the sample datasets…';
    app.fetching = true;
    return ensureSamples().catch(() => {}).then(() => {
      app.fetching = false;
      samplesSettled = true;
      return app.src === src ? load(src, step, tensor, how) : undefined;
    });
  }
  if (opening) engine.cancel();
  opening = true;
  showRunning(me);
  let opened;
  try {
    const request = engine.open(src, how === EDIT);
    app.perf.open_posted = performance.now();
    opened = await request;
  } catch (e) {
    if (me !== loads) return;
    opening = false;
    app.session = null;
    app.stale = null;
    delete document.body.dataset.stale;
    if (e.cancelled) {
      fill($('#stepinfo'), h('span', { id: 'cancelled' }, 'cancelled: edit the trace or pick a lesson to run again'));
    } else {
      engineStopped(e, 'trace');
      fatal(e);
    }
    return;
  }
  if (me !== loads) return;
  opening = false;
  if (opened.kept) {
    // The edit does not parse (a line half typed): the last run that did stays on screen,
    // dimmed, and the editor says where the source stops parsing.
    app.stale = opened.kept;
    document.body.dataset.stale = '1';
    if (app.state) redraw();
    remember();
    return;
  }
  app.stale = null;
  delete document.body.dataset.stale;
  app.session = opened;
  app.ran = src;
  // The whole trace's timeline belongs to the trace it ran: a new trace offers a new run.
  offerTimeline();
  app.lesson = activeLesson(app.lessons || [], src);
  // A lesson about tinygrad or its bridge shows them (for this visit; the saved choice stays).
  if (app.lesson && app.lesson.compare) applyCompare(true);
  const n = opened.steps;
  $('#slider').max = String(n);
  drawTicks(n, opened.divergences);
  if (tensor) app.selected = tensor;
  await goto(step === undefined || step === null ? n : step);
}

/**
 * Opens a recording of a real PyTorch run (`python -m stridelab_record`'s JSON text, from a file
 * or a link): the worker reads it with the core's reader, the editor shows the recorded source
 * read-only, and the page stands on `step` (default: the end). Nothing runs here: the panels show
 * what PyTorch recorded, with tinygrad's views predicted from each recorded layout.
 */
async function openRecording(json, step, tensor) {
  await startEngine();
  const me = ++loads;
  if (opening) engine.cancel();
  opening = true;
  fill($('#stepinfo'), h('span', { id: 'running' }, 'reading the recording…'));
  let opened;
  try {
    opened = await engine.openRecording(json);
  } catch (e) {
    if (me !== loads) return;
    opening = false;
    if (!e.cancelled) fatal(e);
    return;
  }
  if (me !== loads) return;
  opening = false;
  app.stale = null;
  delete document.body.dataset.stale;
  app.session = opened;
  app.recording = { json, about: opened.about };
  app.src = '';
  app.lesson = activeLesson([], null);
  editor.setSource(opened.about.source);
  editor.setReadOnly(true);
  drawRecordingBanner(opened.about);
  drawNoKernels();
  $('#slider').max = String(opened.steps);
  drawTicks(opened.steps, []);
  if (tensor) app.selected = tensor;
  document.body.dataset.recording = '1';
  await goto(step === undefined || step === null ? opened.steps : step);
}

/** Back to traces: the editor is editable again and the banner goes. */
function leaveRecording() {
  if (!app.recording) return;
  app.recording = null;
  editor.setReadOnly(false);
  $('#recording-banner').hidden = true;
  $('#editor-title').textContent = 'Trace';
  delete document.body.dataset.recording;
}

/** Says, above the read-only source, that this is a recording of real PyTorch and what of it
 *  is predicted. */
function drawRecordingBanner(about) {
  const r = about.recorded;
  const cut = r.cut ? h('div', { class: 'bad', id: 'recording-cut' }, `The recording stops at line ${r.cut.line}: ${r.cut.note}`) : null;
  fill($('#recording-banner'),
    h('div', {}, h('span', { class: 'tag view' }, 'recorded'), h('b', {}, 'A recording of real PyTorch: '),
      h('span', { class: 'mono', id: 'recording-script' }, r.script || 'a script'), ` run by torch ${r.torch} (stridelab_record ${r.recorder}), ${about.steps} step${about.steps === 1 ? '' : 's'}.`),
    h('div', { class: 'small', id: 'recording-predicted' }, "Every PyTorch field is what PyTorch recorded; tinygrad's views are predicted from each recorded layout, and the bridge is not run. The source is read-only: only the lines the steps ran are shown."),
    cut,
    h('button', { id: 'recording-close', title: 'Leave the recording and edit a trace again', onclick: () => closeRecording() }, 'Back to a trace'));
  $('#recording-banner').hidden = false;
  $('#editor-title').textContent = 'Recorded source (read-only)';
}

/** A recording has no kernels: PyTorch ran it. */
function drawNoKernels() {
  const note = 'A recording has no kernels: PyTorch ran it. Open a trace to see its kernels.';
  fill($('#kernels'), h('p', { class: 'dim', id: 'kernel-msg' }, note));
  fill($('#kernel-timeline'), h('p', { class: 'dim', id: 'timeline-msg' }, note));
}

/** Leaves a recording for the trace saved locally (or the first lesson). */
function closeRecording() {
  const saved = savedTrace();
  const src = saved === null ? app.lessons[0].trace : saved;
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  app.frag = '';
  leaveRecording();
  editor.setSource(src);
  load(src);
}

/** Reads a file the user picked or dropped: a recording (.json) opens as one. */
async function openFile(f) {
  const text = await f.text();
  if (/\.json$/i.test(f.name) || /^\s*\{/.test(text)) {
    if (location.hash) history.replaceState(null, '', location.pathname + location.search);
    app.frag = '';
    return openRecording(text);
  }
  editor.setSource(text);
  return load(text);
}

/** The step asked for last while one was being fetched: only the newest is drawn. */
let wanted = null;
let stepping = null;

/** Stands on step `k`: the worker replays to it, the panels draw its state. */
function goto(k) {
  if (!app.session) return Promise.resolve();
  wanted = Math.max(0, Math.min(app.session.steps, k));
  if (!stepping) stepping = pump().finally(() => { stepping = null; });
  return stepping;
}

async function pump() {
  while (wanted !== null) {
    const k = wanted;
    wanted = null;
    const session = app.session;
    const t0 = performance.now();
    let got;
    try {
      got = await engine.call('goto', { k, selected: app.selected });
    } catch (e) {
      if (!e.cancelled) {
        app.session = null;
        engineStopped(e, 'step');
        fatal(e);
      }
      return;
    }
    if (session !== app.session) return;
    app.state = got.state;
    app.selected = got.selected;
    app.tensor = got.tensor;
    $('#slider').value = String(k);
    try {
      redraw();
    } catch (e) {
      fatal(e);
    }
    app.perf.step_ms = performance.now() - t0;
    remember();
  }
}

/** Selects tensor `name`: the list marks it at once, the worker sends its cells, flags and
 *  chain, then the tensor's panels redraw. */
async function select(name) {
  app.selected = name;
  drawList();
  const session = app.session;
  try {
    const t = await engine.call('tensor', { name });
    if (session !== app.session || app.selected !== name) return;
    app.tensor = t;
    drawSelected();
    remember();
  } catch (e) {
    if (!e.cancelled) fatal(e);
  }
}

const SAVED = 'stridelab.trace';
let rememberTimer = 0;

/**
 * The address follows the trace, step and selection (replaceState, debounced, so stepping stays
 * fast and history gets no entry per keystroke), and the trace is saved locally: a reload
 * restores exactly, and opening a lesson or a link leaves the edited trace one Back away.
 */
function remember() {
  clearTimeout(rememberTimer);
  rememberTimer = setTimeout(() => {
    // The engine makes the fragment: before it is in, the address waits for it (startEngine).
    // A recording's address is the link it came from, if any: Share link makes a new one.
    if (!app.session || app.src === undefined || !app.wasm || app.recording) return;
    // A navigation the page has not opened yet (a lesson or link clicked since the timer
    // started) owns the address: writing the old trace over it would lose the new one.
    if (location.hash.slice(1) !== app.frag) return;
    const frag = app.wasm.shareEncode(app.src, app.state ? app.state.at : undefined, app.selected || undefined, app.gpu ? 'webgpu' : 'cpu', currentTab(), shownLayers());
    if (location.hash.slice(1) !== frag) history.replaceState(null, '', `#${frag}`);
    app.frag = frag;
    try {
      localStorage.setItem(SAVED, app.src);
    } catch {
      // Storage can be disabled or full; the address still holds the trace.
    }
  }, 300);
}

/** The trace saved by an earlier visit, if any. */
function savedTrace() {
  try {
    return localStorage.getItem(SAVED);
  } catch {
    return null;
  }
}

function redraw() {
  const s = app.state;
  drawStep(s);
  if (app.stale) {
    $('#stepinfo').prepend(h('div', { class: 'bad', id: 'stale-note' },
      `line ${app.stale.line} does not parse yet: showing the last run that did, dimmed`));
  }
  drawNarration(app.lesson, s.step);
  drawList();
  drawSelected();
  if (!app.recording) drawKernelPrompt(() => engine.call('kernels', { src: app.ran, step: s.at }), app.gpu);
  // Last: the editor reads the page's layout (its selection, its scroll), which is then laid out
  // once, with every panel already redrawn, instead of once here and again at the next frame.
  // A recorded step in another file than the script has no line in the editor.
  // While the source does not parse, its lines are not the run's: the parse error is marked.
  if (app.stale) editor.mark(0, app.stale);
  else editor.mark(s.step && !s.step.file ? s.step.line : 0, s.error && !s.error.file ? s.error : null);
}

function drawList() {
  drawTensors(app.state, app.selected, (name) => { select(name); });
}

/** The selected tensor's panels, from what the worker sent with the step (`app.tensor`). */
function drawSelected() {
  const name = app.selected;
  const s = app.state;
  const t = name ? s.tensors[name] : null;
  const sel = t && app.tensor && app.tensor.name === name ? app.tensor : null;
  drawChain(sel ? sel.chain : [], name);
  drawAutograd(s, name, (n) => { select(n); });
  app.perf.map_ms = drawStorage(s, name, sel && sel.info, sel ? sel.flags : new Uint8Array(), (storage, index) => engine.call('cell', { storage, index }));
  const bt = t && s.bridge && s.bridge.tensors[name];
  drawValues(t && !t.error ? t : null, name, sel && sel.info, bt && bt.values);
}

/** The open tab's name (`inspect`, `kernels`, ...): share links and the address keep it. */
function currentTab() {
  const b = document.querySelector('.tabs button.active');
  return b ? b.dataset.tab : undefined;
}

/** Shows the tab of `button`, hiding the others. */
function showTab(button) {
  for (const o of document.querySelectorAll('.tabs button')) o.classList.toggle('active', o === button);
  for (const t of document.querySelectorAll('.tab')) t.hidden = t.id !== `tab-${button.dataset.tab}`;
}

function shareLink() {
  if (app.recording) {
    const made = JSON.parse(app.wasm.shareEncodeRecording(app.recording.json, app.state ? app.state.at : undefined, app.selected || undefined, currentTab()));
    if (made.error) throw new Error(`This recording cannot travel in a link (${made.error}): share the file.`);
    return `${location.origin}${location.pathname}#${made.fragment}`;
  }
  const frag = app.wasm.shareEncode(app.src, app.state ? app.state.at : undefined, app.selected || undefined, app.gpu ? 'webgpu' : 'cpu', currentTab(), shownLayers());
  return `${location.origin}${location.pathname}#${frag}`;
}

/** Restores a link's trace, step and selection: resolves to true when it is drawn, false when
 *  the fragment is not a link. */
async function openFragment() {
  const frag = location.hash.slice(1);
  app.frag = frag;
  if (!frag) return false;
  await startEngine();
  const d = JSON.parse(app.wasm.shareDecode(frag));
  if (d.error) {
    fatal(new Error(`This link could not be read: ${d.error}`));
    return false;
  }
  if (d.recording !== undefined) {
    const tab = d.view && document.querySelector(`.tabs button[data-tab="${CSS.escape(d.view)}"]`);
    if (tab) showTab(tab);
    await openRecording(d.recording, d.step, d.tensor);
    return true;
  }
  // A link shared with tinygrad and the bridge on opens with them on (for this visit).
  if (d.shown === 'tinygrad') applyCompare(true);
  editor.setSource(d.trace);
  const opened = load(d.trace, d.step, d.tensor);
  // The tab the link was shared from: clicked, so a tab's own opening work runs (Data fetches).
  const tab = d.view && document.querySelector(`.tabs button[data-tab="${CSS.escape(d.view)}"]`);
  if (tab) tab.click();
  await opened;
  return true;
}

function wire() {
  editor.onEdit((text) => load(text, undefined, app.selected, EDIT));
  $('#first').onclick = () => goto(0);
  $('#prev').onclick = () => goto(app.state.at - 1);
  $('#next').onclick = () => goto(app.state.at + 1);
  $('#last').onclick = () => goto(app.session ? app.session.steps : 0);
  $('#slider').oninput = (e) => goto(Number(e.target.value));
  // The key map (also in the stepper's button titles): ←/→/Home/End step outside the editor;
  // Alt+←/→ step from anywhere, the editor included, where the plain keys move the caret.
  addEventListener('keydown', (e) => {
    if (!app.state || !app.session) return;
    const inEditor = editor.contains(e.target);
    if (inEditor && !e.altKey) return;
    const keys = { ArrowLeft: app.state.at - 1, ArrowRight: app.state.at + 1, Home: 0, End: app.session.steps };
    if (e.key in keys) { e.preventDefault(); goto(keys[e.key]); }
  });
  $('#share').onclick = async () => {
    await startEngine();
    let link;
    try {
      link = shareLink();
    } catch (e) {
      fatal(e);
      return;
    }
    history.replaceState(null, '', link);
    app.frag = location.hash.slice(1);
    let copied = true;
    try { await navigator.clipboard.writeText(link); } catch { copied = false; }
    $('#share').textContent = copied ? 'Link copied' : 'Link in address bar';
    setTimeout(() => { $('#share').textContent = 'Share link'; }, 1500);
  };
  $('#download').onclick = () => {
    const [body, type, name] = app.recording ? [app.recording.json, 'application/json', 'recording.json'] : [app.src, 'text/plain', 'trace.py'];
    const a = h('a', { href: URL.createObjectURL(new Blob([body], { type })), download: name });
    a.click();
    URL.revokeObjectURL(a.href);
  };
  $('#upload').onchange = async (e) => {
    const f = e.target.files[0];
    if (!f) return;
    openFile(f);
  };
  $('#open-recording').onchange = async (e) => {
    const f = e.target.files[0];
    e.target.value = '';
    if (!f) return;
    openRecording(await f.text());
  };
  // A recording (or a trace file) dropped anywhere but the Data tab, which takes datasets.
  const ours = (e) => e.dataTransfer && [...e.dataTransfer.types].includes('Files') && !(e.target.closest && e.target.closest('#tab-data'));
  addEventListener('dragover', (e) => {
    if (!ours(e)) return;
    e.preventDefault();
    document.body.classList.add('drop-recording');
  });
  addEventListener('dragleave', (e) => { if (!e.relatedTarget) document.body.classList.remove('drop-recording'); });
  addEventListener('drop', (e) => {
    document.body.classList.remove('drop-recording');
    if (!ours(e)) return;
    e.preventDefault();
    const f = e.dataTransfer.files[0];
    if (f) openFile(f).catch(fatal);
  });
  addEventListener('hashchange', () => openFragment());
  for (const b of document.querySelectorAll('.tabs button')) {
    b.onclick = () => { showTab(b); remember(); };
  }
  wireHover();
  // File pickers are labels around hidden inputs: Enter or Space opens them from the keyboard.
  for (const label of document.querySelectorAll('label.button[tabindex]')) {
    label.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); label.querySelector('input[type=file]').click(); }
    });
  }
}

const THEME = 'stridelab.theme';
const THEMES = ['auto', 'dark', 'light'];

/** Applies a theme: `auto` follows the system's preference (the CSS's light-dark pairs). */
function applyTheme(theme) {
  if (theme === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  $('#theme').textContent = `theme: ${theme}`;
}

/** The theme button cycles auto → dark → light; the choice is kept locally. */
function wireTheme() {
  let theme = 'auto';
  try { theme = THEMES.includes(localStorage.getItem(THEME)) ? localStorage.getItem(THEME) : 'auto'; } catch { /* storage off */ }
  applyTheme(theme);
  $('#theme').onclick = () => {
    theme = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length];
    applyTheme(theme);
    try { localStorage.setItem(THEME, theme); } catch { /* storage off: the choice lasts the visit */ }
  };
}

const COMPARE = 'stridelab.compare';

/** What a link says the viewer shows beside PyTorch: `tinygrad` when tinygrad & bridge is on. */
function shownLayers() {
  return document.body.dataset.compare === '1' ? 'tinygrad' : undefined;
}

/** Shows or hides tinygrad's views and the bridge's story beside PyTorch's (`.cmp` elements, the
 *  slider's divergence ticks, the padding hatch of tinygrad's masks). */
function applyCompare(on) {
  if (on) document.body.dataset.compare = '1';
  else delete document.body.dataset.compare;
  $('#compare').textContent = `tinygrad & bridge: ${on ? 'on' : 'off'}`;
  $('#compare').setAttribute('aria-pressed', String(on));
}

/** PyTorch's story comes first: tinygrad and the bridge are a view the user turns on, and the
 *  choice is kept locally. */
function wireCompare() {
  let on = false;
  try { on = localStorage.getItem(COMPARE) === '1'; } catch { /* storage off */ }
  applyCompare(on);
  $('#compare').onclick = () => {
    const now = document.body.dataset.compare !== '1';
    applyCompare(now);
    try { localStorage.setItem(COMPARE, now ? '1' : '0'); } catch { /* storage off: the choice lasts the visit */ }
    remember();
  };
}

/** Appends a statement to the trace and stands after it with `tensor` selected. */
function appendLine(line, tensor) {
  const src = `${editor.getSource().replace(/\s*$/, '')}\n${line}\n`;
  editor.setSource(src);
  load(src, undefined, tensor);
}

/** The example's recorded answers and the page's static data (tools/web/record_example.mjs). */
async function fetchExample() {
  const res = await fetch(engine.built('example.json'));
  if (!res.ok) throw new Error(`example.json: HTTP ${res.status}`);
  return res.json();
}

let engineStarted = null;
/** Starts the trace module (main thread and worker) once; the address then follows the trace. */
function startEngine() {
  engineStarted = engineStarted || engine.start().then((wasm) => {
    app.wasm = wasm;
    // The browser tests make links with the page's own encoder.
    window.wasmBindings = wasm;
    remember();
  });
  return engineStarted;
}

/**
 * The first render needs no wasm when the page opens on the example (no link in the address, no
 * other trace saved): it is drawn from the example's recorded answers, and the trace module is
 * fetched after it (`body[data-drawn]`, then `body[data-ready]` once the engine is in). A link or
 * a saved trace needs the engine first.
 */
async function boot() {
  // Exposed for the browser tests: a step and its redraw (resolves when drawn), and whether the
  // engine has work in hand.
  app.goto = goto;
  app.openRecording = openRecording;
  app.editor = editor.handle;
  app.busy = () => app.fetching || engine.busy() || stepping !== null || editor.markingPending();
  app.memory = engine.memoryBytes;
  wire();
  wireTheme();
  wireCompare();
  onTimelinePick((step) => goto(step));
  initData(app, appendLine);
  const example = await fetchExample();
  initReference(example.opReference);
  editor.onSuggestion(showReference);
  const lessons = example.lessons;
  app.lessons = lessons;
  drawLessons(lessons);
  const gpu = detect();
  const saved = savedTrace();
  const src = saved === null ? lessons[0].trace : saved;
  const linked = location.hash.length > 1;
  if (linked || src !== example.src) await startEngine();
  else engine.useRecording(example);
  if (!(linked && (await openFragment()))) {
    editor.setSource(src);
    await load(src, undefined, saved === null ? lessons[0].tensor : undefined);
  }
  app.perf.drawn_ms = performance.now();
  document.body.dataset.drawn = '1';
  await startEngine();
  app.perf.interactive_ms = performance.now();
  document.body.dataset.ready = '1';
  app.gpu = await gpu;
  if (app.state) redraw();
  if (!document.querySelector('#timeline-track') && !app.recording) offerTimeline();
  document.body.dataset.gpu = app.gpu ? 'webgpu' : 'cpu';
}

boot().catch(fatal);
