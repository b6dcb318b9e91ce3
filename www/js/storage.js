// The storage map: one storage as a grid of cells, the selected tensor's elements marked with
// their logical index, the current step's writes and an overlap error's cells painted. Small
// storages are DOM cells (hoverable both ways with the values table); large ones are drawn
// aggregated on a canvas, since a million DOM nodes would freeze the page.
import { $, h, fill, tuple } from './dom.js';

const SELECTED = 1, REPEATED = 2, WRITTEN = 4, OVERLAP = 8;
/** Above this many cells the map is a canvas: beyond it DOM cells cost more than a step's budget. */
export const DOM_LIMIT = 1024;

let current = null; // {sid, cells, byCell, shape, name, cell}

function unravel(i, shape) {
  const idx = [];
  for (let d = shape.length - 1; d >= 0; d--) { idx.unshift(i % shape[d]); i = Math.floor(i / shape[d]); }
  return idx;
}

function fmt(v) {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(+v.toPrecision(4));
  return v === null || v === undefined ? '' : String(v);
}

function cellClass(f) {
  const c = ['cell'];
  if (f & SELECTED) c.push('sel');
  if (f & REPEATED) c.push('rep');
  if (f & WRITTEN) c.push('wr');
  if (f & OVERLAP) c.push('ov');
  return c.join(' ');
}

/** Draws `name`'s storage. `info` is the adapter's `cells(name)`, `flags` its `flags(name)`;
 *  `cell(storage, index)` resolves to one cell's value (asked of the engine worker on hover). */
export function drawStorage(state, name, info, flags, cell) {
  const box = $('#storage');
  const t = name && state.tensors[name];
  if (!t || !info || info.storage === null || info.storage === undefined) {
    current = null;
    $('#storage-name').textContent = '';
    fill(box, h('div', { class: 'dim' }, 'Select a tensor.'));
    return 0;
  }
  const sid = info.storage;
  const st = state.storages[String(sid)];
  const byCell = new Map();
  info.cells.forEach((c, i) => { const l = byCell.get(c); if (l) l.push(i); else byCell.set(c, [i]); });
  current = { sid, cells: info.cells, byCell, shape: t.shape, name, cell, st };
  $('#storage-name').textContent = `#${sid} · ${st.len} × ${st.dtype} · version ${st.version}`;
  const t0 = performance.now();
  if (st.len <= DOM_LIMIT && st.values) drawGrid(box, st, flags);
  else drawCanvas(box, st, flags);
  return performance.now() - t0;
}

function drawGrid(box, st, flags) {
  // The grid wraps to the panel's width; cell numbers say where each row starts.
  const grid = h('div', { class: 'cells', style: 'grid-template-columns: repeat(auto-fill, minmax(4.6em, 1fr))' });
  const frag = document.createDocumentFragment();
  for (let c = 0; c < st.len; c++) {
    const els = current.byCell.get(c);
    const label = els ? tuple(unravel(els[0], current.shape)) + (els.length > 1 ? ` +${els.length - 1}` : '') : '';
    frag.append(h('div', { class: cellClass(flags[c] || 0), dataset: { cell: c } },
      h('span', { class: 'ci' }, String(c)), h('span', { class: 'cv' }, fmt(st.values[c])), h('span', { class: 'cl' }, label)));
  }
  grid.append(frag);
  fill(box, grid);
}

const COLORS = { 0: 0xffe9e4e0, [SELECTED]: 0xfff0b86a, [WRITTEN]: 0xff3c9cf0, [OVERLAP]: 0xff3030e0 };

/** Aggregated canvas: each pixel covers `group` consecutive cells and shows the strongest flag. */
export function drawCanvas(box, st, flags) {
  const len = st.len;
  const w = Math.max(1, Math.min(512, Math.ceil(Math.sqrt(len))));
  const group = Math.max(1, Math.ceil(len / (w * w)));
  const hgt = Math.max(1, Math.ceil(len / group / w));
  const canvas = h('canvas', { width: w, height: hgt, class: 'map', id: 'storage-canvas' });
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(w, hgt);
  const px = new Uint32Array(img.data.buffer);
  px.fill(0xfff8f8f8);
  for (let p = 0, c = 0; c < len; p++) {
    let f = 0;
    const end = Math.min(len, c + group);
    for (; c < end; c++) f |= flags[c];
    px[p] = f & OVERLAP ? COLORS[OVERLAP] : f & WRITTEN ? COLORS[WRITTEN] : f & SELECTED ? COLORS[SELECTED] : COLORS[0];
  }
  ctx.putImageData(img, 0, 0);
  canvas.addEventListener('mousemove', async (ev) => {
    const r = canvas.getBoundingClientRect();
    const x = Math.floor((ev.clientX - r.left) * w / r.width);
    const y = Math.floor((ev.clientY - r.top) * hgt / r.height);
    const first = (y * w + x) * group;
    if (first >= len || !current) return;
    const shown = current;
    const v = st.values ? st.values[first] : await current.cell(current.sid, first);
    if (shown !== current) return;
    $('#hover').textContent = group > 1
      ? `cells ${first}…${Math.min(len, first + group) - 1} of #${current.sid}; [${first}] = ${v}`
      : `storage #${current.sid}[${first}] = ${v}`;
  });
  fill(box, h('div', { class: 'dim small' }, `${len} cells, ${group} per pixel`), canvas);
}

async function light(on, cell) {
  document.querySelectorAll('.lit').forEach((e) => e.classList.remove('lit'));
  if (!on || !current) { $('#hover').textContent = ''; return; }
  const els = current.byCell.get(cell) || [];
  const sc = document.querySelector(`#storage .cell[data-cell="${cell}"]`);
  if (sc) sc.classList.add('lit');
  for (const i of els) {
    const td = document.querySelector(`#values td[data-i="${i}"]`);
    if (td) td.classList.add('lit');
  }
  const shown = current;
  const v = current.st.values ? fmt(current.st.values[cell]) : await current.cell(current.sid, cell);
  if (shown !== current) return;
  const who = els.map((i) => `${current.name}[${unravel(i, current.shape).join(', ')}]`);
  $('#hover').textContent = `storage #${current.sid}[${cell}] = ${v}${who.length ? '  ←  ' + who.slice(0, 6).join(', ') + (who.length > 6 ? ', …' : '') : ''}`;
}

/** Hover links: a storage cell lights its tensor elements, a tensor element its storage cell. */
export function wireHover() {
  $('#storage').addEventListener('mouseover', (ev) => {
    const c = ev.target.closest('.cell');
    if (c) light(true, Number(c.dataset.cell));
  });
  $('#values').addEventListener('mouseover', (ev) => {
    const td = ev.target.closest('td[data-i]');
    if (td && current) light(true, current.cells[Number(td.dataset.i)]);
  });
  for (const sel of ['#storage', '#values']) $(sel).addEventListener('mouseleave', () => light(false));
}
