// The training worker: the Train panel's model lives here, in the runtime module, off the page's
// main thread (on WebGPU where the browser offers it to workers, as Chromium does, or the CPU
// plan). The panel (train.js) sends one request at a time and draws what comes back; requests
// run in the order they came, each answered with {id, value} or {id, error, fatal}. A fatal
// error (a trap, running out of memory) leaves the instance unusable: the panel then ends this
// worker and the next model starts in a fresh one.

import { importRuntime } from './worker-runtime.js';

let runtime = null;
let trainer = null;

async function load() {
  if (!runtime) runtime = await importRuntime();
  return runtime;
}

function model() {
  if (!trainer) throw new Error('no model: start training first');
  return trainer;
}

const handlers = {
  /** A fresh model from the form's `config` (JSON) on the training files; resolves to its info. */
  async create({ config, images, labels, backend }) {
    const rt = await load();
    if (trainer) trainer.free();
    trainer = null;
    trainer = await rt.WebTrainer.create(config, images, labels, backend);
    return JSON.parse(trainer.info());
  },
  setTest({ images, labels }) {
    model().setTest(images, labels);
  },
  /** Trains for about `ms` milliseconds, at most `steps` steps. */
  async run({ ms, steps }) {
    return JSON.parse(await model().run(ms, steps));
  },
  async evaluate({ start, count }) {
    return JSON.parse(await model().evaluate(start, count));
  },
  onnx() {
    return model().onnx();
  },
  capture() {
    return model().capture();
  },
};

let queue = Promise.resolve();
onmessage = (e) => {
  const { id, type, ...args } = e.data;
  queue = queue.then(async () => {
    try {
      postMessage({ id, value: await handlers[type](args) });
    } catch (err) {
      const fatal = err instanceof WebAssembly.RuntimeError || err instanceof RangeError;
      postMessage({ id, fatal, error: String(err && err.message ? err.message : err) });
    }
  });
};
