// The backend banner: asks the browser for a WebGPU adapter (plain WebGPU, no wasm: the page's
// first load does not wait for the runtime module) and says plainly which backend the page uses
// and why; without WebGPU the CPU interpreter (the core in wasm) does everything.
import { $ } from './dom.js';

/** Resolves to `{name, timestamp_query, timestamp_period_ns}` of the browser's adapter, or null. */
export async function detect() {
  const banner = $('#banner');
  const say = (state, text) => { banner.dataset.state = state; banner.textContent = text; };
  if (!('gpu' in navigator) || !navigator.gpu) {
    say('cpu', 'Kernels on the CPU (wasm): this browser has no WebGPU');
    banner.title = 'navigator.gpu is missing: every kernel runs on the CPU executor compiled to wasm';
    return null;
  }
  try {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) throw new Error('no adapter: the browser offers WebGPU but found no usable device');
    const a = adapter.info || {};
    const name = [a.vendor, a.architecture, a.description].filter(Boolean).join(' ') || 'unnamed adapter';
    // WebGPU timestamps count nanoseconds.
    const info = { name, timestamp_query: adapter.features.has('timestamp-query'), timestamp_period_ns: 1 };
    // Plain words on the page; the adapter's exact features in the tooltip.
    say('gpu', `Kernels on WebGPU (${info.name}), timed by ${info.timestamp_query ? 'GPU timestamps' : 'the wall clock'}`);
    banner.title = `adapter: ${info.name}; timestamp-query ${info.timestamp_query ? `yes (${info.timestamp_period_ns} ns/tick)` : 'no: kernel times are wall-clock'}`;
    return info;
  } catch (e) {
    const why = String(e && e.message ? e.message : e);
    say('cpu', 'Kernels on the CPU (wasm): no WebGPU device here');
    banner.title = why;
    return null;
  }
}
