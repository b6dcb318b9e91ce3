// Boots the page and keeps the viewer's state (trace, step, selected tensor): every user action
// goes through here, asks the wasm adapter for JSON and hands it to the panels to draw. Any
// exception is shown in the error panel and the page stays usable.
import { $, h, fill } from './dom.js';
import * as editor from './editor.js';
import { drawStep, drawTensors, drawChain, drawValues } from './panels.js';
import { drawStorage, wireHover } from './storage.js';
import { drawKernelPrompt } from './kernels.js';
import { drawAutograd } from './autograd.js';
import { drawLessons, activeLesson, drawNarration } from './lessons.js';
import { initReference, showReference } from './reference.js';
import { detect } from './gpu.js';
import { initData, ensureSamples, samplesReady } from './data.js';

/** `frag`: the fragment the page last opened or wrote (the address it owns). */
const app = { wasm: null, session: null, src: '', state: null, selected: null, gpu: null, perf: {}, frag: '' };
window.stridelab = app;

function wasmReady() {
  if (window.wasmBindings) return Promise.resolve(window.wasmBindings);
  return new Promise((resolve) => addEventListener('TrunkApplicationStarted', () => resolve(window.wasmBindings), { once: true }));
}

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

/** Opens a trace: runs it whole, then stands on `step` (default: the end). */
/** A trace that reads a dataset file (the samples are fetched only when one does). */
const readsDatasets = (src) => /\bdataset\s*\(/.test(src);
/** Whether the samples' fetch has settled (opened, or failed: the trace then says which file). */
let samplesSettled = false;

function load(src, step, tensor) {
  app.src = src;
  if (readsDatasets(src) && !samplesReady() && !samplesSettled) {
    // The samples come first; a failure to fetch them shows as the trace's own error.
    $('#stepinfo').textContent = 'loading the sample datasets…';
    ensureSamples(app.wasm).catch(() => {}).finally(() => {
      samplesSettled = true;
      if (app.src === src) load(src, step, tensor);
    });
    return;
  }
  try {
    if (app.session) app.session.free();
    app.session = new app.wasm.Session(src);
  } catch (e) {
    // A panic inside the adapter: keep the editor usable and say what happened.
    app.session = null;
    fatal(e);
    return;
  }
  app.lesson = activeLesson(app.lessons || [], src);
  const n = app.session.stepCount();
  $('#slider').max = String(n);
  drawTicks(n, app.session.bridgeDivergences());
  if (tensor) app.selected = tensor;
  goto(step === undefined || step === null ? n : step);
}

function goto(k) {
  if (!app.session) return;
  const t0 = performance.now();
  try {
    const n = app.session.stepCount();
    k = Math.max(0, Math.min(n, k));
    app.state = JSON.parse(app.session.goto(k));
    $('#slider').value = String(k);
    const names = Object.keys(app.state.tensors);
    if (!names.includes(app.selected)) {
      const defined = app.state.step && app.state.step.defines.filter((d) => names.includes(d));
      app.selected = (defined && defined[0]) || names[names.length - 1] || null;
    }
    redraw();
  } catch (e) {
    fatal(e);
  }
  app.perf.step_ms = performance.now() - t0;
  remember();
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
    if (!app.session || app.src === undefined) return;
    // A navigation the page has not opened yet (a lesson or link clicked since the timer
    // started) owns the address: writing the old trace over it would lose the new one.
    if (location.hash.slice(1) !== app.frag) return;
    const frag = app.wasm.shareEncode(app.src, app.state ? app.state.at : undefined, app.selected || undefined, app.gpu ? 'webgpu' : 'cpu', currentTab());
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
  drawNarration(app.lesson, s.step);
  editor.mark(s.step ? s.step.line : 0, s.error);
  drawTensors(s, app.selected, (name) => { app.selected = name; redraw(); remember(); });
  drawSelected();
  drawKernelPrompt(() => app.wasm.runKernels(app.src, s.at), app.gpu);
}

function drawSelected() {
  const name = app.selected;
  const s = app.state;
  const t = name ? s.tensors[name] : null;
  const info = t ? JSON.parse(app.session.cells(name)) : null;
  const flags = t ? app.session.flags(name) : new Uint8Array();
  drawChain(t ? JSON.parse(app.session.chain(name)) : [], name);
  drawAutograd(s, name, (n) => { app.selected = n; redraw(); remember(); });
  app.perf.map_ms = drawStorage(s, name, info, flags, app.session);
  const bt = t && s.bridge && s.bridge.tensors[name];
  drawValues(t && !t.error ? t : null, name, info, bt && bt.values);
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
  const frag = app.wasm.shareEncode(app.src, app.state ? app.state.at : undefined, app.selected || undefined, app.gpu ? 'webgpu' : 'cpu', currentTab());
  return `${location.origin}${location.pathname}#${frag}`;
}

/** Restores a link's trace, step and selection; false when the fragment is not a link. */
function openFragment() {
  const frag = location.hash.slice(1);
  app.frag = frag;
  if (!frag) return false;
  const d = JSON.parse(app.wasm.shareDecode(frag));
  if (d.error) {
    fatal(new Error(`This link could not be read: ${d.error}`));
    return false;
  }
  editor.setSource(d.trace);
  load(d.trace, d.step, d.tensor);
  // The tab the link was shared from: clicked, so a tab's own opening work runs (Data fetches).
  const tab = d.view && document.querySelector(`.tabs button[data-tab="${CSS.escape(d.view)}"]`);
  if (tab) tab.click();
  return true;
}

function wire() {
  editor.onEdit((text) => load(text, undefined, app.selected));
  $('#first').onclick = () => goto(0);
  $('#prev').onclick = () => goto(app.state.at - 1);
  $('#next').onclick = () => goto(app.state.at + 1);
  $('#last').onclick = () => goto(app.session.stepCount());
  $('#slider').oninput = (e) => goto(Number(e.target.value));
  // The key map (also in the stepper's button titles): ←/→/Home/End step outside the editor;
  // Alt+←/→ step from anywhere, the editor included, where the plain keys move the caret.
  addEventListener('keydown', (e) => {
    if (!app.state) return;
    const inEditor = e.target === $('#source');
    if (inEditor && !e.altKey) return;
    const keys = { ArrowLeft: app.state.at - 1, ArrowRight: app.state.at + 1, Home: 0, End: app.session.stepCount() };
    if (e.key in keys) { e.preventDefault(); goto(keys[e.key]); }
  });
  $('#share').onclick = async () => {
    const link = shareLink();
    history.replaceState(null, '', link);
    app.frag = location.hash.slice(1);
    let copied = true;
    try { await navigator.clipboard.writeText(link); } catch { copied = false; }
    $('#share').textContent = copied ? 'Link copied' : 'Link in address bar';
    setTimeout(() => { $('#share').textContent = 'Share link'; }, 1500);
  };
  $('#download').onclick = () => {
    const a = h('a', { href: URL.createObjectURL(new Blob([app.src], { type: 'text/plain' })), download: 'trace.py' });
    a.click();
    URL.revokeObjectURL(a.href);
  };
  $('#upload').onchange = async (e) => {
    const f = e.target.files[0];
    if (!f) return;
    const text = await f.text();
    editor.setSource(text);
    load(text);
  };
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

/** Appends a statement to the trace and stands after it with `tensor` selected. */
function appendLine(line, tensor) {
  const src = `${editor.getSource().replace(/\s*$/, '')}\n${line}\n`;
  editor.setSource(src);
  load(src, undefined, tensor);
}

async function boot() {
  app.wasm = await wasmReady();
  // The sample datasets are fetched by the first trace that reads one, or the Data tab.
  // Exposed for the browser tests' timing of a step and its redraw.
  app.goto = goto;
  wire();
  initData(app, appendLine);
  initReference(app.wasm.opNames());
  editor.onSuggestion(showReference);
  const lessons = JSON.parse(app.wasm.lessons());
  app.lessons = lessons;
  drawLessons(lessons);
  if (!openFragment()) {
    const saved = savedTrace();
    const src = saved === null ? lessons[0].trace : saved;
    editor.setSource(src);
    load(src, undefined, saved === null ? lessons[0].tensor : undefined);
  }
  app.perf.interactive_ms = performance.now();
  document.body.dataset.ready = '1';
  app.gpu = await detect(app.wasm);
  if (app.state) redraw();
  document.body.dataset.gpu = app.gpu ? 'webgpu' : 'cpu';
}

boot().catch(fatal);
