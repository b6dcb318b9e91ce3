// The sample MNIST CNN (tests/data/models/mnist_cnn.onnx) run in the same headless Chromium by
// the playground's WebModel (asked for WebGPU, for the CPU, and for auto, the page's default) and
// by onnxruntime-web (its WebGPU and wasm execution providers), at batch 1 and 64. Outputs must agree within 1e-4; latencies (host time from the input in hand to
// the output values in hand, the same on both sides: warm-up runs, then timed runs, median and
// spread; at batch 1 each sample is the mean of 20 consecutive runs) go to target/browser-artifacts/model-bench.json. The speed goal is reported, not
// asserted: a shared machine's timings are not a pass/fail signal.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const DIST = path.join(ROOT, 'dist');
const ORT = path.join(HERE, 'node_modules/onnxruntime-web/dist');
const MODEL = path.join(ROOT, 'tests/data/models/mnist_cnn.onnx');
const ARTIFACTS = path.join(ROOT, 'target/browser-artifacts');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const RUNS = Number(process.env.MODEL_BENCH_RUNS || 30);
const WARMUP = Number(process.env.MODEL_BENCH_WARMUP || 5);
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.onnx': 'application/octet-stream' };

// The bench page: the playground's wasm-bindgen module from dist and onnxruntime-web, nothing else.
const BENCH_HTML = (wasmJs, wasm) => `<!doctype html><meta charset="utf-8"><title>model bench</title>
<script type="module">
import init, { WebModel } from '/${wasmJs}';
import * as ort from '/ort/ort.webgpu.min.mjs';
await init({ module_or_path: '/${wasm}' });
ort.env.wasm.wasmPaths = '/ort/';
// Threads need SharedArrayBuffer, which needs cross-origin isolation; the playground is served
// without it, so the wasm provider runs on one thread as it would for the page.
ort.env.wasm.numThreads = self.crossOriginIsolated ? Math.min(4, navigator.hardwareConcurrency) : 1;
const onnx = new Uint8Array(await (await fetch('/mnist_cnn.onnx')).arrayBuffer());
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const stats = (ms) => ({ median_ms: median(ms), min_ms: Math.min(...ms), max_ms: Math.max(...ms), runs: ms.length });
// The page's clock steps by 0.1 ms (no cross-origin isolation), about one batch-1 run on the
// CPU, so a small batch's sample times several consecutive runs and reports their mean.
const perSample = (batch) => (batch < 8 ? 20 : 1);
async function timed(once, warmup, runs, per) {
  let values;
  for (let i = 0; i < warmup; i++) values = await once();
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    for (let j = 0; j < per; j++) values = await once();
    ms.push((performance.now() - t0) / per);
  }
  return { ...stats(ms), runs_per_sample: per, values: Array.from(values) };
}
window.bench = {
  async ours(batch, input, warmup, runs, backend) {
    const t0 = performance.now();
    const model = await WebModel.fromOnnx(onnx, batch, backend);
    const load_ms = performance.now() - t0;
    const info = JSON.parse(model.info());
    const x = new Float32Array(input);
    let last;
    const r = await timed(async () => { last = JSON.parse(await model.run(x)); return last.outputs.logits.values; }, warmup, runs, perSample(batch));
    model.free();
    return { ...r, load_ms, backend: info.backend, choice: info.choice, probe_ms: info.probe_ms, adapter: info.adapter && info.adapter.name, no_gpu: info.no_gpu, kernels: last.kernels, gpu_ms: last.gpu_ms };
  },
  async ort(provider, batch, input, warmup, runs) {
    const session = await ort.InferenceSession.create(onnx, { executionProviders: [provider] });
    const x = new Float32Array(input);
    const r = await timed(async () => {
      const out = await session.run({ input: new ort.Tensor('float32', x, [batch, 1, 28, 28]) });
      return await out.logits.getData();
    }, warmup, runs, perSample(batch));
    await session.release();
    return { ...r, threads: ort.env.wasm.numThreads, cross_origin_isolated: self.crossOriginIsolated };
  },
};
document.body.dataset.ready = '1';
</script>`;

let server;
let base;
let browser;
const results = { runs: RUNS, warmup: WARMUP, latency: 'host ms from the input array in hand to the output values in hand', cases: [] };

function serve() {
  // The model runtime is the page's second wasm module.
  const wasmJs = 'stridelab-web-runtime.js';
  const wasm = 'stridelab-web-runtime_bg.wasm';
  return new Promise((resolve) => {
    server = http.createServer((req, res) => {
      const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file;
      if (rel === '/bench.html') { res.writeHead(200, { 'content-type': 'text/html' }); res.end(BENCH_HTML(wasmJs, wasm)); return; }
      if (rel === '/mnist_cnn.onnx') file = MODEL;
      else if (rel.startsWith('/ort/')) file = path.join(ORT, rel.slice(5));
      else file = path.join(DIST, rel);
      if (!(file === MODEL || file.startsWith(ORT) || file.startsWith(DIST)) || !fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
      fs.createReadStream(file).pipe(res);
    });
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}/`));
  });
}

/** The first `n` MNIST test images as float32 pixels / 255, NCHW. */
function images(n) {
  const raw = zlib.gunzipSync(fs.readFileSync(path.join(ROOT, 'tests/data/mnist/t10k-images-1k-idx3-ubyte.gz')));
  return Array.from(raw.subarray(16, 16 + n * 784), (p) => p / 255);
}

async function benchPage(webgpu) {
  const args = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];
  args.push(webgpu ? '--enable-unsafe-webgpu' : '--disable-webgpu');
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args });
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}bench.html`);
  // The body stays empty (so never "visible"): wait for the flag or a module error.
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 })
    .catch((e) => { throw new Error(`the bench page did not start: ${errors.join('; ') || e}`); });
  return { page, errors };
}

function close(a, b, what) {
  assert.equal(a.length, b.length, `${what}: lengths`);
  const worst = a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
  assert.ok(worst <= 1e-4, `${what}: largest difference ${worst}`);
  return worst;
}

before(async () => {
  assert.ok(fs.existsSync(path.join(DIST, 'index.html')), 'dist/ is built (cargo xtask build)');
  assert.ok(fs.existsSync(path.join(ORT, 'ort.webgpu.min.mjs')), 'onnxruntime-web is installed (npm ci)');
  base = await serve();
});

after(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.writeFileSync(path.join(ARTIFACTS, 'model-bench.json'), JSON.stringify(results, null, 2));
  if (browser) await browser.close();
  server.close();
});

test('MNIST CNN: WebModel (webgpu, cpu, auto) agrees with onnxruntime-web (webgpu, wasm) at batch 1 and 64', { timeout: 900000 }, async () => {
  const { page, errors } = await benchPage(true);
  for (const batch of [1, 64]) {
    const input = images(batch);
    const ours = {};
    for (const backend of ['webgpu', 'cpu', 'auto']) {
      ours[backend] = await page.evaluate(([b, x, w, r, k]) => window.bench.ours(b, x, w, r, k), [batch, input, WARMUP, RUNS, backend]);
      assert.equal(ours[backend].values.length, batch * 10);
    }
    assert.equal(ours.webgpu.backend, 'WebGPU', `batch ${batch}: asked for WebGPU (${ours.webgpu.no_gpu})`);
    assert.equal(ours.cpu.backend, 'CPU', `batch ${batch}: asked for the CPU`);
    assert.match(ours.auto.choice, /^auto: /);
    close(ours.cpu.values, ours.webgpu.values, `batch ${batch}: ours CPU vs ours WebGPU`);
    const row = { batch, ours_webgpu: strip(ours.webgpu), ours_cpu: strip(ours.cpu), ours_auto: strip(ours.auto) };
    for (const provider of ['webgpu', 'wasm']) {
      const theirs = await page.evaluate(([p, b, x, w, r]) => window.bench.ort(p, b, x, w, r), [provider, batch, input, WARMUP, RUNS]);
      row[`ort_${provider}`] = { ...strip(theirs), max_abs_diff: close(ours.auto.values, theirs.values, `batch ${batch}: ours vs ORT ${provider}`) };
    }
    // The goal compares what the page runs by default (auto) with onnxruntime-web's faster provider.
    const best = Math.min(row.ort_webgpu.median_ms, row.ort_wasm.median_ms);
    row.ratio_auto_vs_ort_best = ours.auto.median_ms / best;
    row.ratio_auto_vs_ort_webgpu = ours.auto.median_ms / row.ort_webgpu.median_ms;
    row.ratio_auto_vs_ort_wasm = ours.auto.median_ms / row.ort_wasm.median_ms;
    results.cases.push(row);
    console.log(JSON.stringify({ batch, ours_webgpu: ours.webgpu.median_ms, ours_cpu: ours.cpu.median_ms, ours_auto: ours.auto.median_ms, auto: ours.auto.backend, ort_webgpu: row.ort_webgpu.median_ms, ort_wasm: row.ort_wasm.median_ms }));
  }
  assert.deepEqual(errors, []);
  await browser.close();
  browser = null;
});

test('MNIST CNN: WebModel without WebGPU falls back to the CPU and still agrees', { timeout: 600000 }, async () => {
  const { page, errors } = await benchPage(false);
  const runs = Math.max(1, Math.min(RUNS, 5));
  for (const batch of [1, 64]) {
    const input = images(batch);
    const ours = await page.evaluate(([b, x, w, r]) => window.bench.ours(b, x, w, r, 'auto'), [batch, input, 1, runs]);
    assert.equal(ours.backend, 'CPU');
    const theirs = await page.evaluate(([b, x, w, r]) => window.bench.ort('wasm', b, x, w, r), [batch, input, 1, runs]);
    const row = results.cases.find((c) => c.batch === batch) || { batch };
    row.ours_auto_without_webgpu = { ...strip(ours), max_abs_diff: close(ours.values, theirs.values, `batch ${batch}: ours (CPU) vs ORT wasm`) };
    if (!results.cases.includes(row)) results.cases.push(row);
  }
  assert.deepEqual(errors, []);
});

/** A result without its output values (kept only for the comparison). */
function strip(r) {
  const { values, ...rest } = r;
  return rest;
}
