// The backend banner: asks the browser for a WebGPU adapter (plain WebGPU, no wasm: the page's
// first load does not wait for the runtime module) and says plainly which backend the page uses
// and why; without WebGPU the CPU interpreter (the core in wasm) does everything.
import { $ } from './dom.js';

/** Resolves to `{name, timestamp_query, timestamp_period_ns}` of the browser's adapter, or null. */
export async function detect() {
  const banner = $('#banner');
  const say = (state, text) => { banner.dataset.state = state; banner.textContent = text; };
  if (!('gpu' in navigator) || !navigator.gpu) {
    say('cpu', 'CPU interpreter (wasm) — this browser exposes no WebGPU (navigator.gpu is missing)');
    return null;
  }
  try {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) throw new Error('no adapter: the browser offers WebGPU but found no usable device');
    const a = adapter.info || {};
    const name = [a.vendor, a.architecture, a.description].filter(Boolean).join(' ') || 'unnamed adapter';
    // WebGPU timestamps count nanoseconds.
    const info = { name, timestamp_query: adapter.features.has('timestamp-query'), timestamp_period_ns: 1 };
    const ts = info.timestamp_query ? `timestamp-query yes (${info.timestamp_period_ns} ns/tick)` : 'timestamp-query no';
    say('gpu', `WebGPU — ${info.name} · ${ts}`);
    return info;
  } catch (e) {
    const why = String(e && e.message ? e.message : e);
    say('cpu', `CPU interpreter (wasm) — WebGPU adapter unavailable: ${why.split(/[;:]/)[0]}`);
    banner.title = why;
    return null;
  }
}
