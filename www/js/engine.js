// The page's side of the engine worker (worker.js): starts it with the trace module the page
// already compiled (one fetch, one compile), sends requests and resolves their answers. Cancel and
// a fatal error in the worker (a panic, running out of memory) end that worker and start a fresh
// one, with every dataset file registered again; its memory goes with it. A trace replaced after
// one that grew the worker's memory past `RECYCLE_BYTES` gets a fresh worker too, so memory is
// returned to the browser instead of staying with the tab.
//
// Until the trace module is in (the page starts it after the first render), the example's
// recorded answers (example.json, made at build time by the worker's own session code) answer for
// the worker; the first request they cannot answer waits for the worker, which is first brought to
// where the recording stood (the example opened, the same step).
import { pick } from './session.js';

/** The page's build stamp (tools/web/stamp_build.sh): every module file is asked for with it. */
const BUILD = document.documentElement.dataset.build || 'dev';

/** The worker's wasm memory past which the next trace starts in a fresh worker. */
const RECYCLE_BYTES = 256 << 20;

/** `model`: the last model load asked for, loaded again in every worker started later. */
const engine = { worker: null, glue: '', module: null, files: new Map(), pending: new Map(), next: 1, memory: 0, model: null, recording: null, queued: [] };

function settle(id, fn) {
  const p = engine.pending.get(id);
  if (!p) return;
  engine.pending.delete(id);
  fn(p);
  if (!engine.pending.size) document.body.removeAttribute('data-busy');
}

function rejectAll(err) {
  engine.queued = [];
  for (const id of [...engine.pending.keys()]) settle(id, (p) => p.reject(err));
}

/**
 * Answers for the worker from the example's recording (`rec`: example.json, its flags made byte
 * arrays again), as the worker would: `undefined` for anything it holds no answer for. It follows
 * the session the way the worker does: opened on the example, standing on a step.
 */
function recorded(rec, type, args) {
  if (type === 'open') {
    if (args.src !== rec.src) return undefined;
    rec.at = null;
    return structuredClone(rec.open);
  }
  if (rec.at === undefined) return undefined;
  const step = rec.steps[type === 'goto' ? args.k : rec.at];
  if (!step) return undefined;
  if (type === 'goto') {
    rec.at = args.k;
    const name = pick(step.state, args.selected);
    return structuredClone({ state: step.state, selected: name, tensor: name === null ? null : step.tensors[name] });
  }
  if (type === 'tensor') return step.tensors[args.name] ? structuredClone(step.tensors[args.name]) : undefined;
  if (type === 'cell') return step.cells[`${args.storage}:${args.index}`];
  return undefined;
}

/** Draws the example from its recorded answers until the trace module is in. */
export function useRecording(example) {
  for (const step of example.steps) for (const t of Object.values(step.tensors)) t.flags = Uint8Array.from(t.flags);
  engine.recording = { ...example, at: undefined };
}

function spawn() {
  // The build stamp travels in the worker's address: it loads the runtime with it.
  const w = new Worker(new URL(`./worker.js?v=${BUILD}`, import.meta.url), { type: 'module' });
  w.onmessage = (e) => {
    const { id, value, error, fatal } = e.data;
    if (error === undefined) {
      if (value && typeof value.memory === 'number') engine.memory = value.memory;
      settle(id, (p) => p.resolve(value));
      return;
    }
    // A model whose load ends the worker is not loaded again in the next one.
    if (fatal && engine.pending.get(id) && engine.pending.get(id).type === 'modelLoad') engine.model = null;
    settle(id, (p) => p.reject(Object.assign(new Error(error), { fatal })));
    if (fatal) restart(new Error('the engine stopped after that error and was restarted'));
  };
  w.onerror = (e) => {
    e.preventDefault();
    restart(new Error(`the engine worker failed: ${e.message || 'unknown error'}`));
  };
  engine.worker = w;
  engine.memory = 0;
  call('init', { glue: engine.glue, module: engine.module, files: [...engine.files] });
  if (engine.model) call('modelLoad', engine.model).catch(() => {});
  // The session the recording stood in for: the example opened, on the same step.
  const rec = engine.recording;
  engine.recording = null;
  if (rec && rec.at !== undefined) {
    call('open', { src: rec.src }).catch(() => {});
    if (rec.at !== null) call('goto', { k: rec.at, selected: null }).catch(() => {});
  }
  for (const q of engine.queued) w.postMessage(q);
  engine.queued = [];
}

/** Ends the worker (whatever it is doing), rejects what was asked of it with `why`, starts a fresh one. */
function restart(why) {
  if (engine.worker) engine.worker.terminate();
  engine.worker = null;
  engine.recording = null;
  rejectAll(why);
  if (engine.module) spawn();
}

/** `/name?v=build`: the page's build stamp pins every module file to this build in caches. */
export const built = (name) => `/${name}?v=${BUILD}`;

/** Fetches and compiles `url` (streaming where the server says application/wasm). */
async function compile(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  if ((res.headers.get('content-type') || '').startsWith('application/wasm')) return WebAssembly.compileStreaming(res);
  return WebAssembly.compile(await res.arrayBuffer());
}

/**
 * Loads the trace module: fetched and compiled once, started here (share links, lessons, the op
 * reference) and handed, compiled, to the engine worker, which imports the same glue. Resolves
 * to the main thread's bindings.
 */
export async function start() {
  engine.glue = new URL(built('stridelab-web.js'), location.href).href;
  const [module, glue] = await Promise.all([compile(built('stridelab-web_bg.wasm')), import(engine.glue)]);
  await glue.default({ module_or_path: module });
  engine.module = module;
  spawn();
  return glue;
}

/** Asks the worker to run `type` with `args`; resolves to its value, rejects with its error. */
export function call(type, args = {}) {
  const id = engine.next++;
  document.body.dataset.busy = '1';
  return new Promise((resolve, reject) => {
    engine.pending.set(id, { resolve, reject, type });
    if (engine.worker) {
      engine.worker.postMessage({ id, type, ...args });
      return;
    }
    const answer = engine.recording && !engine.queued.length ? recorded(engine.recording, type, args) : undefined;
    if (answer === undefined) engine.queued.push({ id, type, ...args });
    else queueMicrotask(() => settle(id, (p) => p.resolve(answer)));
  });
}

/** Opens a trace in the worker, in a fresh one if the last trace left a large memory behind.
 *  `keep`: a source that does not parse leaves the open trace open (session.js `open`). */
export function open(src, keep) {
  if (engine.memory > RECYCLE_BYTES && !engine.pending.size) restart(new Error('recycled'));
  return call('open', { src, keep });
}

/** Opens a recording of a real PyTorch run (its JSON text) in the worker, as `open` opens a
 *  trace; resolves to `{steps, divergences, about}` or rejects with the reader's error. */
export function openRecording(json) {
  if (engine.memory > RECYCLE_BYTES && !engine.pending.size) restart(new Error('recycled'));
  return call('openRecording', { json });
}

/**
 * Loads a model in the worker (`{kind: 'onnx', bytes}` or `{kind: 'capture', bytes, weights}`,
 * with `batch` and `backend`): resolves to `{info, graph}`. A fresh worker (after Cancel, a
 * panic or a memory recycle) loads it again.
 */
export function loadModel(args) {
  engine.model = args;
  return call('modelLoad', args);
}

/** Stops whatever the worker runs now: its requests reject with `cancelled` set. */
export function cancel() {
  restart(Object.assign(new Error('cancelled'), { cancelled: true }));
}

/** Whether the worker has work in hand. */
export const busy = () => engine.pending.size > 0;

/** Registers a dataset file for `dataset(name)`: now, and in every worker started later. */
export function registerFile(name, bytes) {
  engine.files.set(name, bytes);
  // A worker started later is given every file with its module.
  if (engine.worker) call('file', { name, bytes }).catch(() => {});
}

/** The worker's wasm memory in bytes, as last reported. */
export const memoryBytes = () => engine.memory;
