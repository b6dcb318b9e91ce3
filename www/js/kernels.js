// The kernel panel: the kernels a step ran, their WGSL, sizes, cost and time bars, and the device
// they ran on. The data comes from the wasm kernel runner
// (`runKernels`), which runs on WebGPU or, without it, on the CPU IR executor and says which.
import { $, h, fill, num } from './dom.js';

let lastTrace = null;

const timeOf = (k) => k.time_ns ?? null;
const sizeOf = (v) => (Array.isArray(v) ? v.join('×') : v === undefined || v === null ? '—' : String(v));
const us = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1000).toFixed(1)} µs`);

/** Draws the wasm runner's answer: {backend, adapter, line, source, resolution_ns, kernels, trace}. */
export function drawKernels(data) {
  const box = $('#kernels');
  const kernels = data.kernels || [];
  const a = data.adapter || {};
  const res = data.resolution_ns;
  const clock = data.backend === 'WebGPU'
    ? (a.timestamp_query ? `GPU timestamps (${a.timestamp_period_ns} ns/tick), clock step ${res ? res.toFixed(0) : '?'} ns` : `wall clock (no timestamp-query), step ${res ? res.toFixed(0) : '?'} ns`)
    : `performance.now() wall clock, step ${res ? res.toFixed(0) : '?'} ns`;
  const head = h('div', { class: 'kmeta', id: 'kernel-meta' },
    h('span', {}, h('b', {}, 'backend '), data.backend === 'WebGPU' ? 'WebGPU' : 'CPU IR executor (wasm) — no WebGPU device, kernels run on the CPU'),
    h('span', {}, h('b', {}, 'adapter '), [a.name || 'unnamed', a.backend, a.device_type].filter(Boolean).join(' · ')),
    h('span', {}, h('b', {}, 'timer '), clock),
    data.line ? h('span', {}, h('b', {}, `line ${data.line} `), h('code', {}, data.source || '')) : '',
    data.verified ? h('span', { class: 'ok' }, 'outputs match the interpreter') : '');
  if (!kernels.length) {
    fill(box, head, h('p', { class: 'dim', id: 'kernel-msg' }, data.note || 'This step ran no kernels.'));
    return;
  }
  const max = Math.max(1, ...kernels.map((k) => timeOf(k) || 0));
  const rows = kernels.map((k, i) => {
    const t = timeOf(k);
    const time = k.below_resolution
      ? `< ${us(4 * k.resolution_ns)} (below resolution)`
      : t === null ? '—' : `${us(t)}${k.estimated ? ' (est.)' : ''}`;
    return h('div', { class: 'kernel', dataset: { k: i, kind: k.kind, below: String(!!k.below_resolution) } },
      h('div', { class: 'krow' },
        h('span', { class: 'mono kname' }, k.name),
        h('span', { class: 'mono' }, `${k.kind} · global ${sizeOf(k.global_size)} · ${sizeOf(k.workgroups)} groups of ${sizeOf(k.workgroup_size)}`),
        h('span', { class: 'mono' }, `${num(k.bytes_read)}B read · ${num(k.bytes_written)}B written · ${num(k.flops)} FLOP`),
        h('span', { class: 'bar' }, h('span', { class: 'fill', style: `width:${t ? Math.max(2, (100 * t) / max) : 0}%` })),
        h('span', { class: 'mono ktime', dataset: { ns: t === null ? '' : String(t) } }, time)),
      k.reason ? h('div', { class: 'why' }, k.reason) : '',
      k.note ? h('div', { class: 'why note' }, k.note) : '',
      k.wgsl ? h('details', {}, h('summary', {}, 'WGSL'), h('pre', { class: 'wgsl' }, k.wgsl)) : '');
  });
  lastTrace = data.trace;
  const dl = h('button', { id: 'kernel-trace', onclick: downloadTrace }, 'Download Chrome trace');
  fill(box, head, dl, rows);
}

function downloadTrace() {
  if (!lastTrace) return;
  const blob = new Blob([lastTrace], { type: 'application/json' });
  const a = h('a', { href: URL.createObjectURL(blob), download: 'kernels.trace.json' });
  a.click();
  URL.revokeObjectURL(a.href);
}

/** The panel before a run: the step's kernels run on request (WebGPU, else the CPU executor). */
export function drawKernelPrompt(run, gpu) {
  const box = $('#kernels');
  const msg = h('p', { id: 'kernel-msg', class: 'dim' }, gpu
    ? `Runs this step's kernels on WebGPU (${gpu.name || 'adapter'}) and checks them against the interpreter.`
    : 'No WebGPU: this step\'s kernels run on the CPU IR executor (wasm), timed with performance.now().');
  const btn = h('button', { id: 'run-kernels', onclick: async () => {
    msg.textContent = 'running…';
    try {
      drawKernels(JSON.parse(await run()));
    } catch (e) {
      msg.textContent = String(e && e.message ? e.message : e);
    }
  } }, gpu ? 'Run this step on the GPU' : 'Run this step on the CPU');
  fill(box, btn, msg);
}
