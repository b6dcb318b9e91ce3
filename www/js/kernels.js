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
      k.fused ? h('div', { class: 'fused' }, k.fused) : '',
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

/**
 * A run button in `box` with a line saying what it will do (`about`); clicked, the line says
 * `running`, then `draw` gets the parsed answer of `run()`, or the line says why it failed.
 */
function prompt(box, { id, msgId, label, about, running, run, draw }) {
  const msg = h('p', { id: msgId, class: 'dim' }, about);
  const btn = h('button', { id, onclick: async () => {
    msg.textContent = running;
    try {
      draw(JSON.parse(await run()));
    } catch (e) {
      msg.textContent = String(e && e.message ? e.message : e);
    }
  } }, label);
  fill(box, btn, msg);
}

/** Whether the step's kernels run by themselves on each step: once asked for, the panel keeps
 *  showing the kernels of the step the page stands on (while the Kernels tab is open) instead of
 *  going back to its button. */
let following = false;
/** The pending run of a followed step: stepping on within `FOLLOW_MS` replaces it, so holding an
 *  arrow key queues no kernel runs in the engine worker. */
let followTimer = 0;
const FOLLOW_MS = 150;
/** Counts prompts: a run's answer for a step the page has left is not drawn over the new one. */
let generation = 0;

/** The panel before a run: the step's kernels run on request (WebGPU, else the CPU executor),
 *  and after the first request on every step while the Kernels tab is open. */
export function drawKernelPrompt(run, gpu) {
  clearTimeout(followTimer);
  const gen = ++generation;
  const stop = () => {
    following = false;
    drawKernelPrompt(run, gpu);
  };
  prompt($('#kernels'), {
    id: 'run-kernels',
    msgId: 'kernel-msg',
    label: gpu ? 'Run this step on the GPU' : 'Run this step on the CPU',
    about: gpu
      ? `Runs this step's kernels on WebGPU (${gpu.name || 'adapter'}) and checks them against the interpreter.`
      : 'No WebGPU: this step\'s kernels run on the CPU IR executor (wasm), timed with performance.now().',
    running: 'running…',
    run: () => {
      following = true;
      return run();
    },
    draw: (data) => {
      if (gen !== generation) return;
      drawKernels(data);
      $('#kernels').prepend(h('div', { class: 'small dim', id: 'kernel-follow' }, 'runs each step as you step · ',
        h('button', { class: 'link', id: 'kernel-unfollow', onclick: stop }, 'stop')));
    },
  });
  if (following && !$('#tab-kernels').hidden) {
    followTimer = setTimeout(() => { if (gen === generation) $('#run-kernels').click(); }, FOLLOW_MS);
  }
}

/** A kernel's time as the panel says it: the median, with min–max where it ran more than once. */
function timeText(k) {
  if (k.below_resolution) return `< ${us(4 * k.resolution_ns)} (below resolution)`;
  const t = timeOf(k);
  if (t === null) return '—';
  const sp = k.spread_ns;
  return sp && k.repeats > 1 ? `${us(sp.median_ns)} median (${us(sp.min_ns)}–${us(sp.max_ns)}, ${k.repeats} runs)` : us(t);
}

/** The whole trace's timeline before a run: a button, and what it will do. */
export function drawTimelinePrompt(runAll, gpu) {
  prompt($('#kernel-timeline'), {
    id: 'run-trace-kernels',
    msgId: 'timeline-msg',
    label: 'Run the whole trace',
    about: `Runs every statement's kernels in order on ${gpu ? 'WebGPU' : 'the CPU IR executor (no WebGPU)'}, checked against the interpreter, and lays them out on one track.`,
    running: 'running every statement…',
    run: runAll,
    draw: drawTimeline,
  });
}

let onPick = () => {};

/** `pick(step)`: what clicking a kernel or a statement does (the page steps there). */
export function onTimelinePick(pick) {
  onPick = pick;
}

/**
 * Draws the whole trace's kernels: one track for the backend with a segment per kernel (width by
 * time, statements told apart by shade), a table of statements (line ↔ kernels), and the picked
 * kernel's details: what fused into it, why it ends, its time and WGSL.
 */
export function drawTimeline(data) {
  const box = $('#kernel-timeline');
  const steps = data.steps || [];
  const all = steps.flatMap((s) => (s.kernels || []).map((k, i) => ({ s, k, i })));
  const total = all.reduce((t, { k }) => t + (timeOf(k) || 0), 0);
  const a = data.adapter || {};
  const detail = h('div', { id: 'timeline-detail', class: 'tdetail' }, h('span', { class: 'dim' }, 'Click a kernel for what fused into it, its time and its WGSL.'));
  const show = ({ s, k }) => {
    for (const e of box.querySelectorAll('.tseg.picked')) e.classList.remove('picked');
    const seg = box.querySelector(`.tseg[data-step="${s.step}"][data-k="${all.find((x) => x.k === k).i}"]`);
    if (seg) seg.classList.add('picked');
    fill(detail,
      h('div', {}, h('b', { class: 'mono' }, k.name), ` · line ${s.line} `, h('code', {}, s.source)),
      h('div', { class: 'fused' }, k.fused || ''),
      h('div', { class: 'why' }, k.reason || ''),
      k.note ? h('div', { class: 'why note' }, k.note) : '',
      h('div', { class: 'mono' }, `${k.kind} · ${timeText(k)} · timer step ${data.resolution_ns ? data.resolution_ns.toFixed(0) : '?'} ns`),
      k.wgsl ? h('pre', { class: 'wgsl', id: 'timeline-wgsl' }, k.wgsl) : '');
  };
  const segs = all.map((x) => h('span', {
    class: `tseg${x.s.step % 2 ? ' odd' : ''}${x.k.below_resolution ? ' below' : ''}`,
    dataset: { step: x.s.step, k: x.i, line: x.s.line },
    style: `flex-grow: ${Math.max(total / 200, timeOf(x.k) || 0)}`,
    title: `line ${x.s.line}: ${x.k.name} · ${timeText(x.k)}`,
    onclick: () => { show(x); onPick(x.s.step); },
  }));
  const rows = steps.filter((s) => s.kernels.length).map((s) => h('tr', { dataset: { step: s.step }, onclick: () => { show({ s, k: s.kernels[0] }); onPick(s.step); } },
    h('td', { class: 'mono' }, `line ${s.line}`),
    h('td', { class: 'mono' }, s.source),
    h('td', {}, s.kernels.map((k) => k.name).join(', ')),
    h('td', { class: 'mono' }, us(s.kernels.reduce((t, k) => t + (timeOf(k) || 0), 0)))));
  const none = steps.filter((s) => !s.kernels.length).length;
  fill(box,
    h('div', { class: 'kmeta' },
      h('span', {}, h('b', {}, 'backend '), data.backend === 'WebGPU' ? `WebGPU (${a.name || 'adapter'})` : 'CPU IR executor (wasm)'),
      h('span', {}, h('b', {}, 'kernels '), `${all.length} in ${steps.length - none} of ${steps.length} statements`),
      h('span', {}, h('b', {}, 'total '), us(total)),
      data.verified ? h('span', { class: 'ok' }, 'outputs match the interpreter') : ''),
    h('div', { class: 'ttrack' }, h('span', { class: 'tlabel' }, data.backend), h('div', { class: 'tsegs', id: 'timeline-track' }, segs)),
    h('table', { class: 'grid', id: 'timeline-lines' }, h('tbody', {}, rows)),
    detail);
}
