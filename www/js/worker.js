// The engine worker: the trace module's Session lives here, off the page's main thread, so a long
// trace never blocks typing, scrolling or the stepper; a statement's kernels run here too, and a
// large storage map is laid out here. The page (engine.js) sends it the compiled module once and
// then one request at a time; requests run in the order they came, each answered with {id, value}
// or {id, error, fatal}. A fatal error (a panic or running out of memory) leaves the instance
// unusable: the page then starts a fresh worker.
import { traceSession } from './session.js';
import { importRuntime } from './worker-runtime.js';

let wasm = null;
let exports = null;
/** The open trace's session (session.js). */
let session = null;
// The panic hook writes the panic's message to console.error before the trap: the error sent
// back carries it instead of a bare "unreachable".
let lastConsoleError = '';
const consoleError = console.error.bind(console);
console.error = (...args) => { lastConsoleError = args.map(String).join(' '); consoleError(...args); };

const memory = () => (exports && exports.memory ? exports.memory.buffer.byteLength : 0);

/** The runtime module, imported into this worker the first time a statement's kernels run (on
 *  WebGPU where the browser offers it to workers, else on the CPU executor), with every file
 *  this worker was given. */
let runtime = null;
const files = new Map();
/** The model the page loaded, in the runtime. */
let model = null;
async function loadRuntime() {
  if (!runtime) {
    const glue = await importRuntime();
    for (const [name, bytes] of files) glue.registerFile(name, bytes);
    runtime = glue;
  }
  return runtime;
}

const handlers = {
  async init({ glue, module, files: given }) {
    wasm = await import(glue);
    exports = await wasm.default({ module_or_path: module });
    session = traceSession(wasm, memory);
    for (const [name, bytes] of given) handlers.file({ name, bytes });
    return { memory: memory() };
  },
  file({ name, bytes }) {
    files.set(name, bytes);
    wasm.registerFile(name, bytes);
    if (runtime) runtime.registerFile(name, bytes);
  },
  async kernels({ src, step }) {
    return (await loadRuntime()).runKernels(src, step);
  },
  async traceKernels({ src }) {
    return (await loadRuntime()).runTraceKernels(src);
  },
  /** Loads a model (ONNX bytes, or a capture's manifest and weights) in place of the last one. */
  async modelLoad({ kind, bytes, weights, batch, backend }) {
    const rt = await loadRuntime();
    const m = kind === 'onnx' ? await rt.WebModel.fromOnnx(bytes, batch, backend) : await rt.WebModel.fromCapture(bytes, weights, backend);
    if (model) model.free();
    model = m;
    return { info: JSON.parse(m.info()), graph: JSON.parse(m.graph()) };
  },
  /** Runs the loaded model on `values`: the run and its class probabilities. */
  async modelRun({ values }) {
    if (!model) throw new Error('no model is loaded');
    const out = await model.run(values);
    return { run: JSON.parse(out), classify: JSON.parse(runtime.classifyRun(out)) };
  },
  open(args) {
    return session.open(args);
  },
  openRecording(args) {
    return session.openRecording(args);
  },
  goto(args) {
    return session.goto(args);
  },
  tensor(args) {
    return session.tensor(args);
  },
  cell(args) {
    return session.cell(args);
  },
};

/** What a trap means, said plainly: the panic's own message when there was one; otherwise a
 *  failed allocation (Rust aborts on one without a message), with the memory the instance had. */
function trapMessage(msg) {
  if (lastConsoleError) return `${lastConsoleError} (${msg})`;
  const gb = (memory() / 2 ** 30).toFixed(1);
  return `the engine ran out of memory (${msg}, with ${gb} GB of wasm memory; one instance can have at most 4 GB): this trace's tensors, with the copies its report and the bridge's run keep, need more`;
}

let queue = Promise.resolve();
onmessage = (e) => {
  const { id, type, ...args } = e.data;
  queue = queue.then(async () => {
    lastConsoleError = '';
    try {
      const value = await handlers[type](args);
      postMessage({ id, value });
    } catch (err) {
      // A trap (WebAssembly.RuntimeError) or an allocation failure (RangeError) ends the instance.
      const fatal = err instanceof WebAssembly.RuntimeError || err instanceof RangeError;
      const msg = String(err && err.message ? err.message : err);
      postMessage({ id, fatal, error: fatal ? trapMessage(msg) : msg });
    }
  });
};
