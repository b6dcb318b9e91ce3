// The Train panel: trains the sample CNN on MNIST's 60,000 training images in the tab, on the CPU
// plan compiled to wasm, as PyTorch would train it (the same initialisation from the seed, batch
// order, loss and optimizer; `stridelab train` runs the same natively). The MNIST files are fetched
// only when training starts, with a progress bar; the model trains in its own worker
// (train-worker.js), off the main thread, in slices of about 40 ms, and the panel draws the loss,
// the batch and test accuracy, steps per second, and the kernels of the last step with their
// times after each. The trained model goes to the model panel, or out as ONNX or as a capture.
import { $, h, fill } from './dom.js';
import { loadOnnx } from './model.js';
import { built } from './engine.js';

/** The full MNIST files as `cargo xtask build` puts them beside the page. */
const FILES = {
  trainImages: 'data/mnist/train-images-idx3-ubyte.gz',
  trainLabels: 'data/mnist/train-labels-idx1-ubyte.gz',
  testImages: 'data/mnist/t10k-images-idx3-ubyte.gz',
  testLabels: 'data/mnist/t10k-labels-idx1-ubyte.gz',
};
/** The 1,000-image test sample the page always has, for evaluation when the full set is absent. */
const SAMPLE_TEST = ['t10k-images-1k-idx3-ubyte.gz', 't10k-labels-1k-idx1-ubyte.gz'];
/** Time per slice of training: the panel redraws after each. */
const SLICE_MS = 40;
/** Test images evaluated per slice. */
const EVAL_PART = 1000;

const state = {
  trainer: null, files: null, test: null, running: false, loop: null, target: 0,
  losses: [], accs: [], evals: [], info: null, started: 0, stepsAtStart: 0, msPerStep: [],
};

const message = (e) => String(e && e.message ? e.message : e);

/** The training worker, started with the first model; ended after a fatal error. */
const worker = { w: null, next: 1, pending: new Map() };

function endWorker(why) {
  if (worker.w) worker.w.terminate();
  worker.w = null;
  state.trainer = null;
  for (const p of worker.pending.values()) p.reject(why);
  worker.pending.clear();
}

/** Asks the training worker to run `type` with `args`; resolves to its value. */
function train(type, args = {}) {
  if (!worker.w) {
    worker.w = new Worker(built('js/train-worker.js'), { type: 'module' });
    worker.w.onmessage = (e) => {
      const { id, value, error, fatal } = e.data;
      const p = worker.pending.get(id);
      worker.pending.delete(id);
      if (error === undefined) p.resolve(value);
      else p.reject(new Error(error));
      if (fatal) endWorker(new Error(`the training stopped after that error (${error}); start again for a fresh model`));
    };
    worker.w.onerror = (e) => {
      e.preventDefault();
      endWorker(new Error(`the training worker failed: ${e.message || 'unknown error'}`));
    };
  }
  const id = worker.next++;
  return new Promise((resolve, reject) => {
    worker.pending.set(id, { resolve, reject });
    worker.w.postMessage({ id, type, ...args });
  });
}

function showError(e) {
  const box = $('#train-error');
  box.hidden = e === null;
  fill(box, e === null ? [] : h('span', {}, message(e)));
}

function status(text) { $('#train-status').textContent = text; }

/** Fetches `url` with the bytes received shown on the progress bar; null on HTTP 404. */
async function fetchBytes(url, progress) {
  const res = await fetch(url);
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  const total = Number(res.headers.get('content-length')) || 0;
  if (!res.body || !res.body.getReader) return new Uint8Array(await res.arrayBuffer());
  const reader = res.body.getReader();
  const parts = [];
  let got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    got += value.length;
    progress(got, total);
  }
  const out = new Uint8Array(got);
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** The four MNIST files: served beside the page, or picked by the user. */
async function served() {
  const bar = $('#train-progress');
  bar.hidden = false;
  const names = Object.keys(FILES);
  const sizes = {};
  const got = {};
  const draw = () => {
    const done = Object.values(sizes).reduce((s, x) => s + x[0], 0);
    const total = Object.values(sizes).reduce((s, x) => s + x[1], 0);
    bar.max = total || 1;
    bar.value = done;
    status(`fetching MNIST: ${(done / 1e6).toFixed(1)} of ${total ? (total / 1e6).toFixed(1) : '?'} MB`);
  };
  try {
    await Promise.all(names.map(async (k) => {
      sizes[k] = [0, 0];
      got[k] = await fetchBytes(FILES[k], (n, t) => { sizes[k] = [n, t]; draw(); });
    }));
  } finally {
    bar.hidden = true;
  }
  return got.trainImages && got.trainLabels ? got : null;
}

/** Files from the picker, by their MNIST names (`train-images…`, `t10k-labels…`, gzip or raw). */
async function picked(list) {
  const find = (re) => [...list].find((f) => re.test(f.name));
  const bytes = async (f) => (f ? new Uint8Array(await f.arrayBuffer()) : null);
  const files = {
    trainImages: await bytes(find(/train-images/)),
    trainLabels: await bytes(find(/train-labels/)),
    testImages: await bytes(find(/t10k-images/)),
    testLabels: await bytes(find(/t10k-labels/)),
  };
  if (!files.trainImages || !files.trainLabels) {
    throw new Error(`pick MNIST's train-images-idx3-ubyte and train-labels-idx1-ubyte (and, for the test accuracy, the t10k files); got ${[...list].map((f) => f.name).join(', ')}`);
  }
  return files;
}

/** The form's run: a change of any of these (the backend included) starts a fresh model. */
function config() {
  return {
    optimizer: $('#train-opt').value,
    lr: Number($('#train-lr').value),
    momentum: Number($('#train-momentum').value),
    batch: Number($('#train-batch').value),
    seed: Number($('#train-seed').value),
  };
}

/** A fresh model from the form, on the loaded files. */
async function create() {
  if (!state.files) {
    state.files = await served();
    if (!state.files) {
      throw new Error('this page is served without the MNIST training files: open them with "MNIST files…" (train-images-idx3-ubyte.gz and train-labels-idx1-ubyte.gz, and the t10k files for the test accuracy)');
    }
  }
  state.trainer = null;
  const backend = $('#train-backend').value;
  status(`preparing the model on ${backend === 'webgpu' ? 'WebGPU' : 'the CPU'}…`);
  const info = await train('create', { config: JSON.stringify(config()), images: state.files.trainImages, labels: state.files.trainLabels, backend });
  let test = state.files.testImages && state.files.testLabels ? [state.files.testImages, state.files.testLabels] : null;
  let what = 'the test images';
  if (!test) {
    const [x, y] = await Promise.all(SAMPLE_TEST.map((u) => fetchBytes(u, () => {})));
    if (x && y) { test = [x, y]; what = 'the test sample'; }
  }
  if (test) await train('setTest', { images: test[0], labels: test[1] });
  state.trainer = true;
  state.test = test ? what : null;
  state.info = info;
  Object.assign(state, { losses: [], accs: [], evals: [], msPerStep: [] });
  $('#train-info').textContent = `${state.info.backend} · ${state.info.architecture} · ${state.info.parameters.toLocaleString()} parameters · ${state.info.optimizer_name} · batch ${state.info.batch} · ${state.info.steps_per_epoch} steps per epoch of ${state.info.train_images.toLocaleString()} images · seed ${state.info.seed}`;
  document.body.dataset.train = 'ready';
}

const frame = () => new Promise((r) => setTimeout(r, 0));

/** Evaluates on the test set in parts between frames. */
async function evaluate() {
  if (!state.trainer || !state.test) return null;
  let correct = 0; let total = 0; let loss = 0; let images = Infinity;
  for (let start = 0; start < images; start += EVAL_PART) {
    const r = await train('evaluate', { start, count: EVAL_PART });
    images = r.images;
    correct += r.correct; loss += r.loss * r.total; total += r.total;
    status(`evaluating on ${state.test}: ${total.toLocaleString()} of ${images.toLocaleString()}`);
    state.testCount = images;
    await frame();
  }
  const e = { step: lastStep(), accuracy: correct / total, loss: loss / total, total };
  state.evals.push(e);
  $('#train-eval').textContent = `test accuracy ${(100 * e.accuracy).toFixed(2)}% (loss ${e.loss.toFixed(4)}) on ${total.toLocaleString()} ${state.test.replace(/^the /, '')} after step ${e.step}`;
  $('#train-eval').dataset.accuracy = String(e.accuracy);
  draw();
  return e;
}

const lastStep = () => (state.losses.length ? state.losses[state.losses.length - 1].step : 0);

async function loop() {
  const epochs = Math.max(1, Number($('#train-epochs').value) || 1);
  state.target = epochs * state.info.steps_per_epoch;
  state.started = performance.now();
  state.stepsAtStart = lastStep();
  let epoch = state.losses.length ? state.losses[state.losses.length - 1].epoch : 0;
  while (state.running && lastStep() < state.target) {
    const r = await train('run', { ms: SLICE_MS, steps: state.target - lastStep() });
    for (const s of r.steps) {
      state.losses.push(s);
      state.msPerStep.push(s.ms);
    }
    drawKernels(r.kernels);
    const done = lastStep();
    const rate = (done - state.stepsAtStart) / ((performance.now() - state.started) / 1000);
    const last = r.steps[r.steps.length - 1];
    status(`epoch ${last.epoch} · step ${done} of ${state.target} · loss ${last.loss.toFixed(4)} · ${rate.toFixed(1)} steps/s · ${median(state.msPerStep.slice(-50)).toFixed(1)} ms per step`);
    $('#train-status').dataset.steps = String(done);
    draw();
    const epochEnded = done % state.info.steps_per_epoch === 0 && last.epoch > epoch;
    epoch = last.epoch;
    await frame();
    if (epochEnded || done >= state.target) await evaluate();
  }
  state.running = false;
}

function median(xs) {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function drawKernels(kernels) {
  const total = kernels.reduce((s, k) => s + k.ms, 0);
  const max = Math.max(0, ...kernels.map((k) => k.ms));
  const head = h('tr', {}, ['phase', 'kernel', 'time', ''].map((c) => h('th', {}, c)));
  const rows = kernels.map((k) => h('tr', {},
    h('td', { class: 'mono' }, k.phase),
    h('td', { class: 'mono' }, k.name),
    h('td', { class: 'mono ktime' }, k.ms >= 1 ? `${k.ms.toFixed(2)} ms` : `${(k.ms * 1000).toFixed(0)} µs`),
    h('td', {}, h('span', { class: 'bar' }, h('span', { class: 'fill', style: `width:${max > 0 ? (100 * k.ms) / max : 0}%` })))));
  const foot = h('tr', {}, h('td', {}, ''), h('td', { class: 'mono' }, 'one step'), h('td', { class: 'mono' }, `${total.toFixed(2)} ms`), h('td', {}, ''));
  fill($('#train-kernels'), h('thead', {}, head), h('tbody', {}, rows, foot));
}

/** Loss per step (and its running mean), batch accuracy, and the test evaluations. */
function draw() {
  const c = $('#train-plot');
  const g = c.getContext('2d');
  const W = c.width; const H = c.height;
  g.clearRect(0, 0, W, H);
  const n = Math.max(state.target || 0, lastStep(), 1);
  const maxLoss = Math.max(2.5, ...state.losses.slice(0, 20).map((s) => s.loss));
  const x = (step) => 36 + ((W - 44) * step) / n;
  const yLoss = (v) => 8 + (H - 28) * (1 - Math.min(v, maxLoss) / maxLoss);
  const yAcc = (v) => 8 + (H - 28) * (1 - v);
  g.strokeStyle = '#ccc'; g.lineWidth = 1;
  g.strokeRect(36, 8, W - 44, H - 28);
  g.fillStyle = '#666'; g.font = '11px sans-serif';
  g.fillText(maxLoss.toFixed(1), 4, 14); g.fillText('0', 20, H - 20); g.fillText(`step ${n}`, W - 60, H - 6);
  const line = (pts, color, width) => {
    if (pts.length < 2) return;
    g.strokeStyle = color; g.lineWidth = width; g.beginPath();
    pts.forEach(([px, py], i) => (i ? g.lineTo(px, py) : g.moveTo(px, py)));
    g.stroke();
  };
  line(state.losses.map((s) => [x(s.step), yLoss(s.loss)]), 'rgba(40, 90, 200, 0.25)', 1);
  let acc = 0; let mean = 0;
  const smooth = []; const accs = [];
  state.losses.forEach((s, i) => {
    mean = i ? 0.95 * mean + 0.05 * s.loss : s.loss;
    acc = i ? 0.95 * acc + 0.05 * (s.correct / s.size) : s.correct / s.size;
    smooth.push([x(s.step), yLoss(mean)]);
    accs.push([x(s.step), yAcc(acc)]);
  });
  line(smooth, 'rgb(40, 90, 200)', 2);
  line(accs, 'rgb(30, 150, 80)', 1.5);
  g.fillStyle = 'rgb(200, 60, 40)';
  for (const e of state.evals) { g.beginPath(); g.arc(x(e.step), yAcc(e.accuracy), 4, 0, 2 * Math.PI); g.fill(); }
}

function buttons() {
  // A stopped run's last slice may still be in flight: everything waits for it (state.loop).
  const busy = state.running || state.loop !== null;
  $('#train-start').disabled = busy;
  $('#train-start').textContent = state.trainer && lastStep() > 0 && lastStep() < state.target ? 'Resume' : 'Train';
  $('#train-stop').disabled = !state.running;
  for (const id of ['#train-eval-btn', '#train-onnx', '#train-capture', '#train-use', '#train-log']) $(id).disabled = busy || !state.trainer;
  for (const id of ['#train-opt', '#train-lr', '#train-momentum', '#train-batch', '#train-seed', '#train-backend']) $(id).disabled = busy;
  $('#train-momentum').closest('label').hidden = $('#train-opt').value !== 'sgd';
}

async function start() {
  showError(null);
  try {
    // A finished run, or a changed form, starts a fresh model; a stopped one resumes.
    const key = JSON.stringify({ ...config(), backend: $('#train-backend').value });
    const fresh = !state.trainer || lastStep() >= state.target || state.configText !== key;
    state.running = true;
    buttons();
    if (fresh) {
      await create();
      state.configText = key;
    }
    state.loop = loop();
    await state.loop;
  } catch (e) {
    state.running = false;
    showError(e);
    status('');
  } finally {
    state.loop = null;
    buttons();
  }
}

/** The run as `stridelab train --log` writes it, plus the configuration and the evaluations. */
function log() {
  return { info: state.info, config: config(), steps: state.losses, evaluations: state.evals };
}

function download(bytes, name, type) {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function guarded(fn) {
  showError(null);
  try { await fn(); } catch (e) { showError(e); }
}

/** Wires the panel. */
export function init() {
  // WebGPU is offered where the browser has it (the model panel's detection sets data-gpu).
  const gpuOption = $('#train-backend option[value="webgpu"]');
  gpuOption.disabled = !navigator.gpu;
  if (!navigator.gpu) gpuOption.textContent = 'WebGPU (not in this browser)';
  $('#train-start').onclick = start;
  $('#train-stop').onclick = () => { state.running = false; buttons(); };
  $('#train-eval-btn').onclick = () => guarded(evaluate);
  $('#train-onnx').onclick = () => guarded(async () => download(await train('onnx'), 'mnist_cnn_trained.onnx', 'application/octet-stream'));
  $('#train-capture').onclick = () => guarded(async () => {
    const [manifest, weights] = await train('capture');
    download(manifest, 'manifest.json', 'application/json');
    download(weights, 'weights.safetensors', 'application/octet-stream');
  });
  $('#train-log').onclick = () => guarded(async () => download(JSON.stringify(log(), null, 1), 'train-log.json', 'application/json'));
  $('#train-use').onclick = () => guarded(async () => loadOnnx(await train('onnx'), `trained for ${lastStep()} steps`));
  $('#train-files').onchange = (e) => guarded(async () => {
    state.files = await picked(e.target.files);
    state.configText = null;
    status(`picked ${[...e.target.files].map((f) => f.name).join(', ')}`);
  }).finally(() => { e.target.value = ''; });
  $('#train-opt').onchange = () => {
    const lr = { adam: 0.001, adamw: 0.001, sgd: 0.01 }[$('#train-opt').value];
    $('#train-lr').value = String(lr);
    buttons();
  };
  buttons();
  draw();
}
