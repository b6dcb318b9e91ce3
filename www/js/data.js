// The Data tab: the dataset browser (a paged grid of images with their labels), the user's own
// dataset files (picker and drag-and-drop), the drawing pad and the model input. Decoding,
// pixels, the drawing's resampling and the trace line all come from the wasm adapter; this module
// only moves bytes to canvases and text to elements.
import { $, h, fill } from './dom.js';
import * as model from './model.js';
import * as train from './train.js';
import * as engine from './engine.js';
import { runtime } from './runtime.js';

/** Images per grid page. */
const PAGE = 48;

/** The committed samples, served beside the page; `labels` pairs an image file with its labels. */
const SAMPLES = [
  { name: 'mnist-t10k-images-1k', file: 't10k-images-1k-idx3-ubyte.gz', labels: 'mnist-t10k-labels-1k' },
  { name: 'mnist-t10k-labels-1k', file: 't10k-labels-1k-idx1-ubyte.gz' },
  { name: 'cifar-sample', file: 'sample_batch.bin' },
];

const MODEL_FILE = /\.(onnx|json|safetensors)$/i;

const state = {
  wasm: null,
  /** name -> the adapter's info for every open file. */
  infos: {},
  /** images name -> labels name. */
  labels: {},
  current: null,
  start: 0,
  /** What the model will be given: {values: Float32Array, what, label}. */
  input: null,
  picked: null,
  append: null,
};

const message = (e) => String(e && e.message ? e.message : e);

/** The samples' loading, started once: by the first trace that reads `dataset(...)` or the
 *  first visit to the Data tab, never by the first load of a page that needs neither. */
let samples = null;

/** The runtime module, loaded on first use (the Data tab is its first user). */
async function rt() {
  if (!state.wasm) state.wasm = await runtime();
  return state.wasm;
}

/** Opens a dataset file in the runtime and registers it for `dataset(name)` in traces. */
async function openDataset(file, bytes) {
  const info = JSON.parse((await rt()).openDataset(file, bytes));
  engine.registerFile(info.name, bytes);
  return info;
}

/** Fetches the samples and opens them (which also registers them for dataset(name) in traces);
 *  every caller shares the one fetch. */
export function ensureSamples() {
  if (samples) return samples;
  samples = (async () => {
    const failures = [];
    await Promise.all(SAMPLES.map(async (s) => {
      try {
        const res = await fetch(s.file);
        if (!res.ok) throw new Error(`${s.file}: HTTP ${res.status}`);
        state.infos[s.name] = await openDataset(s.name, new Uint8Array(await res.arrayBuffer()));
      } catch (e) {
        failures.push(`${s.file}: ${message(e)}`);
      }
    }));
    for (const s of SAMPLES) if (s.labels && state.infos[s.labels]) state.labels[s.name] = s.labels;
    if (failures.length) throw new Error(`sample datasets: ${failures.join('; ')}`);
  })();
  return samples;
}

/** Whether the samples are open (a trace reading them can run now). */
export const samplesReady = () => SAMPLES.every((s) => state.infos[s.name]);

function showError(box, e) {
  if (e === null) { box.hidden = true; fill(box); return; }
  fill(box, h('span', {}, message(e)));
  box.hidden = false;
}

function drawSelect() {
  const names = Object.keys(state.infos).filter((n) => state.infos[n].kind !== 'labels');
  fill($('#ds-select'), names.map((n) => {
    const i = state.infos[n];
    const lab = state.labels[n] ? ` + ${state.labels[n]}` : '';
    return h('option', { value: n, selected: n === state.current }, `${n} (${i.count} × ${i.channels}×${i.rows}×${i.cols}${lab})`);
  }));
}

function select(name) {
  state.current = name;
  state.start = 0;
  drawSelect();
  drawGrid();
}

/** One page of the current dataset as canvases, each tile labelled and clickable. */
function drawGrid() {
  const name = state.current;
  if (!name) {
    fill($('#ds-grid'), h('p', { class: 'dim' }, 'No dataset open.'));
    return;
  }
  const w = state.wasm;
  const labels = state.labels[name];
  const page = JSON.parse(w.datasetPage(name, labels, state.start, PAGE));
  const rgba = w.datasetRgba(name, page.start, page.count);
  const plane = page.rows * page.cols * 4;
  const tiles = [];
  for (let k = 0; k < page.count; k++) {
    const i = page.start + k;
    const c = h('canvas', { width: page.cols, height: page.rows });
    c.getContext('2d').putImageData(new ImageData(new Uint8ClampedArray(rgba.buffer, rgba.byteOffset + k * plane, plane), page.cols, page.rows), 0, 0);
    const label = page.labels ? page.labels[k] : null;
    const text = label === null ? `#${i}` : page.names ? `${label} ${page.names[k]}` : String(label);
    const picked = state.picked && state.picked.name === name && state.picked.i === i;
    tiles.push(h('button', { class: picked ? 'tile picked' : 'tile', title: `image ${i}${label === null ? '' : `, label ${text}`}`, dataset: { i, label: label === null ? '' : label }, onclick: () => pick(name, i, label) },
      c, h('div', { class: 'lab' }, text)));
  }
  fill($('#ds-grid'), tiles);
  $('#ds-range').textContent = `${page.start}–${page.start + page.count - 1} of ${page.total}`;
  const info = state.infos[name];
  $('#ds-info').textContent = `${name}: ${info.kind === 'cifar' ? 'CIFAR-10 batch' : 'IDX images'}, ${info.count} images of ${info.channels}×${info.rows}×${info.cols}`
    + (info.header ? `, ${info.header}-byte header` : '') + (labels ? `, labels from ${labels}` : info.labels ? ', labels in the records' : ', no labels');
}

/** Picks image i: appends its trace line (a view of the file) and makes it the model input. */
function pick(name, i, label) {
  try {
    const line = state.wasm.pickLine(name, state.labels[name], i);
    state.picked = { name, i };
    setInput(state.wasm.imageInput(name, i), `${name}[${i}]`, label, state.infos[name]);
    state.append(line, `img${i}`);
    fill($('#ds-picked'), h('span', {}, 'added to the trace: '), h('code', { id: 'ds-line' }, line), ' — the Inspect tab shows its view and storage_offset');
    drawGrid();
  } catch (e) {
    showError($('#ds-error'), e);
  }
}

/** Makes `values` (channel-first, `shape` = {channels, rows, cols}) the model input and shows it. */
function setInput(values, what, label, shape) {
  state.input = { values, what, label };
  const { rows, cols, channels } = shape;
  const canvas = $('#input-preview');
  canvas.width = cols;
  canvas.height = rows;
  const rgba = state.wasm.inputRgba(values, rows, cols);
  canvas.getContext('2d').putImageData(new ImageData(new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.length), cols, rows), 0, 0);
  $('#input-name').textContent = what;
  fill($('#input-info'), h('span', { id: 'input-desc' }, `${values.length} float32 values (${channels}×${rows}×${cols}), pixels / 255`),
    label === null || label === undefined ? '' : h('span', {}, ` · label ${label}`));
  model.inputChanged();
}

/** Opens the user's files: model files go to the model panel, the rest are datasets. */
async function openFiles(files) {
  const list = [...files];
  const models = list.filter((f) => MODEL_FILE.test(f.name));
  const data = list.filter((f) => !MODEL_FILE.test(f.name));
  if (models.length) await model.openFiles(models);
  if (!data.length) return;
  showError($('#ds-error'), null);
  const opened = [];
  const errors = [];
  for (const f of data) {
    try {
      const info = await openDataset(f.name, new Uint8Array(await f.arrayBuffer()));
      state.infos[info.name] = info;
      opened.push(info);
    } catch (e) {
      errors.push(message(e));
    }
  }
  // A label file pairs with an image file of the same count: one opened with it, else the one shown.
  for (const l of opened.filter((i) => i.kind === 'labels')) {
    const images = [...opened.filter((i) => i.kind === 'images'), state.infos[state.current]].find((i) => i && i.kind === 'images' && i.count === l.count);
    if (images) state.labels[images.name] = l.name;
  }
  const shown = opened.find((i) => i.kind !== 'labels');
  if (shown) select(shown.name);
  else { drawSelect(); drawGrid(); }
  if (errors.length) showError($('#ds-error'), errors.join('\n'));
}

/** The drawing pad: pointer events cover mouse, pen and touch; ink is the canvas's alpha. */
function wirePad() {
  const pad = $('#pad');
  const ctx = pad.getContext('2d');
  let drawing = false;
  const at = (e) => {
    const r = pad.getBoundingClientRect();
    return [(e.clientX - r.left) * (pad.width / r.width), (e.clientY - r.top) * (pad.height / r.height)];
  };
  pad.addEventListener('pointerdown', (e) => {
    drawing = true;
    pad.setPointerCapture(e.pointerId);
    Object.assign(ctx, { lineWidth: 20, lineCap: 'round', lineJoin: 'round', strokeStyle: '#fff' });
    ctx.beginPath();
    ctx.moveTo(...at(e));
    ctx.lineTo(...at(e));
    ctx.stroke();
  });
  pad.addEventListener('pointermove', (e) => {
    if (!drawing) return;
    ctx.lineTo(...at(e));
    ctx.stroke();
  });
  const end = () => {
    if (!drawing) return;
    drawing = false;
    useDrawing();
  };
  pad.addEventListener('pointerup', end);
  pad.addEventListener('pointercancel', end);
  $('#pad-clear').onclick = () => ctx.clearRect(0, 0, pad.width, pad.height);
}

async function useDrawing() {
  const pad = $('#pad');
  const img = pad.getContext('2d').getImageData(0, 0, pad.width, pad.height);
  try {
    const values = (await rt()).drawingInput(new Uint8Array(img.data.buffer), pad.width, pad.height);
    state.picked = null;
    setInput(values, 'drawing', null, { rows: 28, cols: 28, channels: 1 });
  } catch (e) {
    fill($('#input-info'), h('span', { class: 'bad' }, message(e)));
  }
}

/** Wires the tab; `append(line, tensor)` adds a statement to the trace and steps to it. */
export function initData(app, append) {
  state.append = append;
  app.data = state;
  $('#ds-select').onchange = (e) => select(e.target.value);
  $('#ds-prev').onclick = () => { state.start = Math.max(0, state.start - PAGE); drawGrid(); };
  $('#ds-next').onclick = () => {
    const n = state.current ? state.infos[state.current].count : 0;
    if (state.start + PAGE < n) { state.start += PAGE; drawGrid(); }
  };
  $('#ds-files').onchange = (e) => openFiles(e.target.files).finally(() => { e.target.value = ''; });
  const tab = $('#tab-data');
  tab.addEventListener('dragover', (e) => { e.preventDefault(); tab.classList.add('dragging'); });
  tab.addEventListener('dragleave', (e) => { if (e.target === tab) tab.classList.remove('dragging'); });
  tab.addEventListener('drop', (e) => {
    e.preventDefault();
    tab.classList.remove('dragging');
    if (e.dataTransfer && e.dataTransfer.files.length) openFiles(e.dataTransfer.files);
  });
  wirePad();
  model.init(() => state.input);
  train.init();
  // The grid's first dataset, once the samples are in: at the first visit to the tab.
  let shown = false;
  const show = () => {
    if (shown) return;
    shown = true;
    $('#ds-info').textContent = 'loading the sample datasets…';
    ensureSamples().catch((e) => showError($('#ds-error'), e)).finally(() => {
      const first = SAMPLES.find((s) => state.infos[s.name] && state.infos[s.name].kind !== 'labels');
      if (first && !state.current) select(first.name);
      else drawSelect();
      if (!state.current) drawGrid();
    });
  };
  $('.tabs button[data-tab="data"]').addEventListener('click', show);
  if (!$('#tab-data').hidden) show();
}
