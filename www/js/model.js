// The model panel: loads a model (the built-in sample, an .onnx file, or a capture's manifest and
// weights) into the runtime module in the engine worker, runs it there on the Data tab's input and draws what came back: the
// class probabilities (softmax done by the adapter), a kernel timeline with bars proportional to
// each kernel's time, and a kernel table whose rows show the kernel's WGSL.
import { $, h, fill, num } from './dom.js';
import * as engine from './engine.js';
import { drawGraph } from './graph.js';

const SAMPLE_MODEL = 'mnist_cnn.onnx';
/** The batch a model is captured at: the panel runs one image at a time. */
const BATCH = 1;

const state = { model: null, info: null, input: () => null, busy: false, reload: null };

/** The backend picked in the panel: auto, webgpu or cpu (the runtime checks the spelling). */
const backendPref = () => $('#model-backend-pref').value;

const message = (e) => String(e && e.message ? e.message : e);

function showError(e) {
  const box = $('#model-error');
  if (e === null) { box.hidden = true; fill(box); return; }
  fill(box, h('span', {}, message(e)));
  box.hidden = false;
}


function ms(x) {
  if (x === null || x === undefined) return '—';
  return x >= 1 ? `${x.toFixed(2)} ms` : `${(x * 1000).toFixed(1)} µs`;
}

const dims = (v) => (Array.isArray(v) ? v.join('×') : '—');
/** A byte count, or a dash where the run does not know it (never "—B"). */
const bytes = (x) => (x === null || x === undefined ? '—' : `${num(x)}B`);
/** A kernel that moves no bytes and does no arithmetic (a reshape the plan kept as a step): its
 *  measured time is the clock's and the runner's overhead, not work. */
const noWork = (k) => k.bytes_read === 0 && k.bytes_written === 0 && !k.flops;

/** The loaded model's description, from its info(). */
function describe() {
  const i = state.info;
  const io = (xs) => (xs || []).map((x) => `${x.name} ${x.dtype} (${(x.shape || []).join(', ')})`).join(', ');
  fill($('#model-info'),
    h('span', { id: 'model-name' }, h('b', {}, 'model '), i.name || 'unnamed'),
    h('span', { id: 'model-backend', title: i.choice || '' }, h('b', {}, 'backend '), i.backend === 'WebGPU' ? `WebGPU${i.adapter && i.adapter.name ? ` (${i.adapter.name})` : ''}` : 'CPU (direct f32 kernels in wasm)'),
    h('span', { id: 'model-choice', class: 'dim small' }, i.choice || ''),
    h('span', {}, h('b', {}, 'inputs '), io(i.inputs)),
    h('span', {}, h('b', {}, 'outputs '), io(i.outputs)),
    h('span', {}, h('b', {}, 'weights '), `${num(i.weights_bytes)}B`),
    h('span', {}, h('b', {}, 'kernels '), String((i.kernels || []).length)));
}

/** Shows a model the engine worker loaded (in place of the previous one): `{info, graph}`. */
function loaded({ info, graph }) {
  state.model = true;
  state.info = info;
  describe();
  fill($('#model-result'));
  fill($('#model-timeline'));
  fill($('#model-kernels'));
  $('#model-wgsl-box').hidden = true;
  // The graph's ops link to their kernels: the row after a run, the WGSL before one.
  drawGraph(graph, (name) => {
    const row = [...document.querySelectorAll('#model-kernels tbody tr')].find((r) => r.querySelector('.kname').textContent === name);
    if (row) { row.click(); row.scrollIntoView({ block: 'nearest' }); return; }
    const k = (state.info.kernels || []).find((x) => x.name === name);
    if (!k) return;
    $('#model-wgsl-name').textContent = `${k.name} · ${k.op || ''}`;
    $('#model-wgsl').textContent = k.wgsl || '(this kernel has no WGSL: it runs on the CPU)';
    $('#model-wgsl-box').hidden = false;
  });
  document.body.dataset.model = 'loaded';
}

async function guarded(what, fn) {
  showError(null);
  state.busy = true;
  $('#model-run').disabled = true;
  $('#model-info').textContent = what;
  try {
    await fn();
  } catch (e) {
    if (state.info) describe();
    else $('#model-info').textContent = 'No model loaded.';
    showError(e);
  } finally {
    state.busy = false;
    inputChanged();
  }
}

function loadSample() {
  state.reload = loadSample;
  return guarded('loading the sample model…', async () => {
    const res = await fetch(SAMPLE_MODEL);
    if (!res.ok) throw new Error(`${SAMPLE_MODEL}: HTTP ${res.status}`);
    loaded(await engine.loadModel({ kind: 'onnx', bytes: new Uint8Array(await res.arrayBuffer()), batch: BATCH, backend: backendPref() }));
  });
}

/** An .onnx file, or a capture: its manifest.json and weights .safetensors together. */
export function openFiles(files) {
  state.reload = () => openFiles(files);
  return guarded('loading the model…', async () => {
    const onnx = files.filter((f) => /\.onnx$/i.test(f.name));
    const manifest = files.find((f) => /\.json$/i.test(f.name));
    const weights = files.find((f) => /\.safetensors$/i.test(f.name));
    const bytes = async (f) => new Uint8Array(await f.arrayBuffer());
    if (onnx.length === 1 && files.length === 1) {
      loaded(await engine.loadModel({ kind: 'onnx', bytes: await bytes(onnx[0]), batch: BATCH, backend: backendPref() }));
    } else if (manifest && weights && files.length === 2) {
      loaded(await engine.loadModel({ kind: 'capture', bytes: await bytes(manifest), weights: await bytes(weights), batch: BATCH, backend: backendPref() }));
    } else {
      throw new Error(`a model is one .onnx file, or a capture's manifest.json and weights.safetensors together; got ${files.map((f) => f.name).join(', ')}`);
    }
  });
}

/** Loads ONNX bytes made in the page (the Train panel's trained model), named `what`. */
export function loadOnnx(bytes, what) {
  state.reload = () => loadOnnx(bytes, what);
  return guarded(`loading the model ${what}…`, async () => {
    loaded(await engine.loadModel({ kind: 'onnx', bytes, batch: BATCH, backend: backendPref() }));
    $('#model-panel').scrollIntoView({ block: 'nearest' });
  });
}

/** Called when the Data tab's input changes: the run button follows what can run. */
export function inputChanged() {
  const input = state.input();
  const btn = $('#model-run');
  btn.disabled = state.busy || !state.model || !input;
  btn.title = !state.model ? 'Load a model first' : !input ? 'Pick an image or draw a digit first' : `Run on ${input.what}`;
}

async function run() {
  const input = state.input();
  if (!state.model || !input) return;
  await guarded(`running on ${input.what}…`, async () => {
    const { run: res, classify: cls } = await engine.call('modelRun', { values: input.values });
    describe();
    drawResult(res, cls, input);
    drawKernels(res);
    // The answer is what the user ran the model for: keep it in view.
    $('#model-result').scrollIntoView({ block: 'nearest' });
  });
}

function drawResult(res, cls, input) {
  const probs = cls.probabilities;
  const rows = probs.map((p, k) => [
    h('span', { class: k === cls.predicted ? 'mono top' : 'mono' }, `class ${k}`),
    h('span', { class: 'bar' }, h('span', { class: 'fill', style: `width:${(100 * p).toFixed(2)}%` })),
    h('span', { class: 'mono prob', dataset: { p: String(p) } }, p.toFixed(4)),
  ]);
  const truth = input.label === null || input.label === undefined ? '' : ` · label ${input.label}`;
  fill($('#model-result'),
    h('div', { class: 'verdict', id: 'model-verdict', dataset: { predicted: cls.predicted } },
      h('b', {}, `predicted ${cls.predicted}`), ` (p = ${probs[cls.predicted].toFixed(4)}) for ${input.what}${truth}`),
    h('div', { class: 'dim small' }, `output ${cls.output} · ${res.gpu_ms === null || res.gpu_ms === undefined ? 'ran on the CPU' : `GPU ${ms(res.gpu_ms)}`} · wall ${ms(res.wall_ms)}`),
    h('div', { class: 'probs', id: 'model-probs' }, rows.flat()));
}

/** The run's kernels joined with the model's (op, WGSL, sizes): by name, or by the model
 *  kernel's name when the run timed it whole (`conv` for its GPU kernels `conv.main`, ...). */
function joined(res) {
  const known = (state.info && state.info.kernels) || [];
  // A CPU step that ran several kernels as one (`k4_conv+k5_relu`) shows the first one's.
  const lead = (k) => k.name.split('+')[0];
  return (res.kernels || []).map((k) => ({ ...(known.find((x) => x.name === k.name) || known.find((x) => x.name.startsWith(`${lead(k)}.`)) || {}), ...k }));
}

function drawKernels(res) {
  const ks = joined(res);
  // What a bar or segment shows: measured work (no-work steps and those below the clock's
  // resolution get a sliver, never a length their overhead would give them).
  const worked = (k) => (k.below_resolution || noWork(k) ? 0 : k.ms || 0);
  const max = Math.max(0, ...ks.map(worked));
  const total = ks.reduce((s, k) => s + worked(k), 0);
  const time = (k) => (noWork(k) ? `no work (${ms(k.ms)} overhead)` : k.below_resolution ? `below resolution (< ${ms(k.resolution_ms)})` : ms(k.ms));
  const select = (i) => {
    for (const e of document.querySelectorAll('#model-timeline .seg, #model-kernels tbody tr')) e.classList.toggle('sel', Number(e.dataset.k) === i);
    const k = ks[i];
    $('#model-wgsl-name').textContent = `${k.name} · ${k.op || ''}`;
    $('#model-wgsl').textContent = k.wgsl || '(this kernel has no WGSL: it runs on the CPU)';
    $('#model-wgsl-box').hidden = false;
  };
  // Bars proportional to time; kernels too fast to time get a sliver so they stay visible.
  fill($('#model-timeline'), ks.map((k, i) => h('div', {
    class: worked(k) ? 'seg' : 'seg below',
    dataset: { k: i },
    title: `${k.name} · ${k.op || '?'} · ${time(k)}`,
    style: `flex: ${total > 0 && worked(k) ? worked(k) / total : 0} 0 ${worked(k) ? 0 : 3}px`,
    onclick: () => select(i),
  })));
  const head = h('tr', {}, ['#', 'kernel', 'op', 'dispatch', 'workgroup', 'read', 'written', 'FLOP', 'time', ''].map((c) => h('th', {}, c)));
  const rows = ks.map((k, i) => h('tr', { dataset: { k: i }, onclick: () => select(i) },
    h('td', { class: 'mono' }, String(i)),
    h('td', { class: 'mono kname' }, k.name),
    h('td', { class: 'mono' }, k.op || '—'),
    h('td', { class: 'mono' }, dims(k.dispatch)),
    h('td', { class: 'mono' }, dims(k.workgroup)),
    h('td', { class: 'mono' }, bytes(k.bytes_read)),
    h('td', { class: 'mono' }, bytes(k.bytes_written)),
    h('td', { class: 'mono' }, num(k.flops)),
    h('td', { class: 'mono ktime', dataset: { ms: k.ms === null || k.ms === undefined ? '' : String(k.ms), source: k.source || '' } }, time(k)),
    h('td', {}, h('span', { class: 'bar' }, h('span', { class: 'fill', style: `width:${max > 0 && worked(k) ? Math.max(2, (100 * worked(k)) / max) : 0}%` })))));
  fill($('#model-kernels'), h('thead', {}, head), h('tbody', {}, rows));
}

/** Wires the panel; `input()` returns the Data tab's current input or null. */
export function init(input) {
  state.input = input;
  $('#model-sample').onclick = loadSample;
  $('#model-files').onchange = (e) => openFiles([...e.target.files]).finally(() => { e.target.value = ''; });
  $('#model-run').onclick = run;
  // A new choice applies to the loaded model at once: it is loaded again on that backend.
  $('#model-backend-pref').onchange = () => { if (state.reload && !state.busy) state.reload(); };
  $('#model-info').textContent = 'No model loaded.';
  inputChanged();
}
