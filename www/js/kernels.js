// The kernel panel: the kernels a step ran, their WGSL, sizes, cost and time bars, and the device
// they ran on. The data comes from the report's `kernels` field or from the wasm GPU runner
// (`runKernels`); when neither exists this says so plainly instead of showing anything made up.
import { $, h, fill } from './dom.js';

let lastTrace = null;

function num(x) {
  if (typeof x !== 'number') return x === undefined || x === null ? '—' : String(x);
  if (x >= 1e9) return `${(x / 1e9).toFixed(2)} G`;
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)} M`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(1)} k`;
  return String(x);
}

const timeOf = (k) => k.time_ns ?? k.duration_ns ?? (k.timing && (k.timing.median_ns ?? k.timing.ns)) ?? null;
const sizeOf = (v) => (Array.isArray(v) ? v.join('×') : v === undefined ? '—' : String(v));

/** Draws `data` = {backend, adapter, timer_resolution_ns, kernels: [...] } or a plain list. */
export function drawKernels(data, gpu) {
  const box = $('#kernels');
  const kernels = Array.isArray(data) ? data : (data && data.kernels) || [];
  const backend = (data && data.backend) || (gpu ? 'WebGPU' : 'CPU interpreter');
  const adapter = (data && data.adapter) || (gpu && gpu.name) || 'none';
  const res = (data && (data.timer_resolution_ns ?? data.timestamp_period_ns)) ?? (gpu && gpu.timestamp_period_ns);
  const head = h('div', { class: 'kmeta' },
    h('span', {}, h('b', {}, 'backend '), backend),
    h('span', {}, h('b', {}, 'adapter '), adapter),
    h('span', {}, h('b', {}, 'timer '), res ? `${res} ns per tick (timestamp-query)` : 'wall clock'));
  if (!kernels.length) {
    fill(box, head, h('p', { class: 'dim' }, 'This step ran no kernels.'));
    return;
  }
  const max = Math.max(1, ...kernels.map((k) => timeOf(k) || 0));
  const rows = kernels.map((k, i) => {
    const t = timeOf(k);
    const why = k.why_not_fused || k.not_fused || k.fusion;
    return h('div', { class: 'kernel', dataset: { k: i } },
      h('div', { class: 'krow' },
        h('span', { class: 'mono kname' }, k.name || `kernel ${i}`),
        h('span', { class: 'mono' }, `grid ${sizeOf(k.global ?? k.dispatch ?? k.workgroups)} · wg ${sizeOf(k.local ?? k.workgroup_size)}`),
        h('span', { class: 'mono' }, `${num(k.bytes)}B · ${num(k.flops)} FLOP`),
        h('span', { class: 'bar' }, h('span', { class: 'fill', style: `width:${t ? Math.max(2, (100 * t) / max) : 0}%` })),
        h('span', { class: 'mono ktime' }, t === null ? '—' : `${(t / 1000).toFixed(1)} µs`)),
      why ? h('div', { class: 'why' }, String(why)) : '',
      h('details', {}, h('summary', {}, 'WGSL'), h('pre', { class: 'wgsl' }, k.wgsl || k.source || '')));
  });
  lastTrace = kernels;
  const dl = h('button', { onclick: downloadTrace }, 'Download Chrome trace');
  fill(box, head, dl, rows);
}

function downloadTrace() {
  if (!lastTrace) return;
  let at = 0;
  const events = lastTrace.map((k) => {
    const dur = (timeOf(k) || 0) / 1000;
    const e = { name: k.name || 'kernel', ph: 'X', ts: at, dur, pid: 1, tid: 1, args: { bytes: k.bytes, flops: k.flops } };
    at += dur;
    return e;
  });
  const blob = new Blob([JSON.stringify({ traceEvents: events })], { type: 'application/json' });
  const a = h('a', { href: URL.createObjectURL(blob), download: 'kernels.trace.json' });
  a.click();
  URL.revokeObjectURL(a.href);
}

/** The panel when the report has no kernels: offers the GPU runner, says why it can't run. */
export function drawKernelPrompt(run, gpu) {
  const box = $('#kernels');
  const msg = h('p', { id: 'kernel-msg', class: 'dim' }, gpu ? 'Kernels of this step run on WebGPU on request.' : 'No WebGPU: kernels need a GPU.');
  const btn = h('button', { id: 'run-kernels', onclick: async () => {
    msg.textContent = 'running…';
    try {
      drawKernels(JSON.parse(await run()), gpu);
    } catch (e) {
      msg.textContent = String(e && e.message ? e.message : e);
    }
  } }, 'Run this step on the GPU');
  fill(box, btn, msg);
}
