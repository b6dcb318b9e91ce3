// The backend banner: asks the wasm adapter for a WebGPU device and says plainly which backend
// the page uses and why; without WebGPU the CPU interpreter (the core in wasm) does everything.
import { $ } from './dom.js';

export async function detect(wasm) {
  const banner = $('#banner');
  const say = (state, text) => { banner.dataset.state = state; banner.textContent = text; };
  if (!('gpu' in navigator) || !navigator.gpu) {
    say('cpu', 'CPU interpreter (wasm) — this browser exposes no WebGPU (navigator.gpu is missing)');
    return null;
  }
  try {
    const info = JSON.parse(await wasm.gpuInfo());
    const ts = info.timestamp_query ? `timestamp-query yes (${info.timestamp_period_ns} ns/tick)` : 'timestamp-query no';
    say('gpu', `WebGPU — ${info.name || 'unnamed adapter'} · ${ts}`);
    return info;
  } catch (e) {
    // wgpu lists every backend it tried; the first clause is the reason, the rest goes in the tooltip.
    const why = String(e && e.message ? e.message : e);
    say('cpu', `CPU interpreter (wasm) — WebGPU adapter unavailable: ${why.split(/[;:]/)[0]}`);
    banner.title = why;
    return null;
  }
}
