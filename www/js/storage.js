// The storage map: one storage as a grid of cells, the selected tensor's elements marked with
// their logical index, the current step's writes and an overlap error's cells painted. Small
// storages are DOM cells (hoverable both ways with the values table); large ones are drawn
// aggregated on a canvas, since a million DOM nodes would freeze the page.
import { $, h, fill, tuple } from './dom.js';

import { DOM_LIMIT, SELECTED, REPEATED, WRITTEN, OVERLAP, rowLength } from './mapgrid.js';

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
  // A recording knows the cells its named tensors cover; the others are blank.
  const known = st.known !== undefined && st.known < st.len ? ` · ${st.known} of ${st.len} cells recorded` : '';
  $('#storage-name').textContent = `#${sid} · ${st.len} × ${st.dtype} · version ${st.version}${known}`;
  const t0 = performance.now();
  if (st.len <= DOM_LIMIT && st.values) drawGrid(box, st, flags, rowLength(state, sid, st.len));
  else if (info.map) drawCanvas(box, st, info.map);
  else fill(box, h('div', { class: 'dim' }, 'No map: the storage is too large to send and was not laid out.'));
  return performance.now() - t0;
}

/** Rows of a grid longer than this wrap to the panel's width instead. */
const GRID_ROW_MAX = 32;

function drawGrid(box, st, flags, { row, owner }) {
  // Rows of the storage's last dimension when a tensor lays the whole storage out in rows (a
  // [2, 12] storage is 2 rows of 12, so q/k/v thirds are columns): aliasing reads as it is
  // shaped. Otherwise the grid wraps to the panel's width; cell numbers say where rows start.
  const rows = owner && row <= GRID_ROW_MAX;
  const columns = rows ? `repeat(${row}, minmax(4.6em, 1fr))` : 'repeat(auto-fill, minmax(4.6em, 1fr))';
  // Focusable: arrow keys walk the cells, each lit and read out as on hover (see wireHover).
  const grid = h('div', {
    class: 'cells', id: 'storage-grid', style: `grid-template-columns: ${columns}`, dataset: { storage: current.sid },
    tabindex: '0', role: 'group', 'aria-label': `storage #${current.sid}: arrow keys walk its cells`,
  });
  const frag = document.createDocumentFragment();
  for (let c = 0; c < st.len; c++) {
    const els = current.byCell.get(c);
    const label = els ? tuple(unravel(els[0], current.shape)) + (els.length > 1 ? ` +${els.length - 1}` : '') : '';
    frag.append(h('div', { class: cellClass(flags[c] || 0), dataset: { cell: c } },
      h('span', { class: 'ci' }, String(c)), h('span', { class: 'cv' }, fmt(st.values[c])), h('span', { class: 'cl' }, label)));
  }
  grid.append(frag);
  const structure = rows
    ? `${st.len} cells as ${Math.ceil(st.len / row)} rows of ${row} (${owner}'s last dimension)`
    : `${st.len} cells, wrapped to the panel`;
  fill(box, h('div', { class: 'controls mapbar' }, h('span', { class: 'dim small', id: 'map-structure' }, structure)), grid);
}

const COLORS = { 0: 0xffe9e4e0, [SELECTED]: 0xfff0b86a, [WRITTEN]: 0xff3c9cf0, [OVERLAP]: 0xff3030e0 };
/** The map's zoom, kept across steps and tensors: CSS pixels per canvas pixel (0: fit the panel). */
let zoom = 0;

/**
 * Large storages on a canvas: rows of the storage's innermost dimension, each pixel one cell (or,
 * past 1,024 pixels a side, a block of cells showing the strongest flag in it), the selected
 * tensor's cells in its colour. Zoom with the buttons or Ctrl+wheel; pan by scrolling or dragging.
 */
export function drawCanvas(box, st, map) {
  const len = st.len;
  const { row, owner, rows, cg, rg, w, hgt, agg } = map;
  const canvas = h('canvas', { width: w, height: hgt, class: 'map', id: 'storage-canvas' });
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(w, hgt);
  const px = new Uint32Array(img.data.buffer);
  px.fill(0xfff8f8f8);
  const paint = [COLORS[0]];
  for (let f = 1; f < 16; f++) paint.push(f & OVERLAP ? COLORS[OVERLAP] : f & WRITTEN ? COLORS[WRITTEN] : f & SELECTED ? COLORS[SELECTED] : COLORS[0]);
  // Every pixel that covers a cell (the last row may end early), by its flags.
  for (let y = 0, p = 0; y < hgt; y++) {
    for (let x = 0; x < w; x++, p++) {
      if (y * rg * row + x * cg < len) px[p] = paint[agg[p] & 15];
    }
  }
  ctx.putImageData(img, 0, 0);
  const view = h('div', { class: 'mapview', id: 'storage-view' }, canvas);
  const fit = () => Math.max(1e-3, (view.clientWidth || 512) / w);
  // Fit is the panel's width (CSS keeps the canvas's aspect): drawing the map reads no layout,
  // which would force the whole page's layout inside the task that received the state.
  const apply = () => {
    canvas.style.width = zoom ? `${w * zoom}px` : '100%';
    canvas.style.height = zoom ? `${hgt * zoom}px` : 'auto';
    $('#map-zoom').textContent = zoom ? `${zoom < 1 ? zoom.toFixed(2) : zoom}×` : 'fit';
  };
  const setZoom = (z) => { zoom = z; apply(); };
  const step = (k) => setZoom(Math.min(64, Math.max(1 / 16, (zoom || fit()) * k)));
  view.addEventListener('wheel', (ev) => {
    if (!ev.ctrlKey) return;
    ev.preventDefault();
    step(ev.deltaY < 0 ? 2 : 0.5);
  }, { passive: false });
  let drag = null;
  view.addEventListener('pointerdown', (ev) => { drag = { x: ev.clientX, y: ev.clientY, l: view.scrollLeft, t: view.scrollTop }; });
  addEventListener('pointerup', () => { drag = null; });
  view.addEventListener('pointermove', (ev) => {
    if (drag && ev.buttons) { view.scrollLeft = drag.l - (ev.clientX - drag.x); view.scrollTop = drag.t - (ev.clientY - drag.y); }
  });
  canvas.addEventListener('mousemove', async (ev) => {
    const r = canvas.getBoundingClientRect();
    const x = Math.floor((ev.clientX - r.left) * w / r.width);
    const y = Math.floor((ev.clientY - r.top) * hgt / r.height);
    const first = y * rg * row + x * cg;
    if (first >= len || !current) return;
    const shown = current;
    const v = st.values ? st.values[first] : await current.cell(current.sid, first);
    if (shown !== current) return;
    const at = `row ${Math.floor(first / row)}, column ${first % row}`;
    $('#hover').textContent = cg * rg > 1
      ? `a block of ${rg} × ${cg} cells from #${current.sid}[${first}] (${at}) = ${v}`
      : `storage #${current.sid}[${first}] (${at}) = ${v}`;
  });
  const block = cg * rg > 1 ? `; a pixel is a block of ${rg} × ${cg} cells` : '; a pixel is a cell';
  fill(box,
    h('div', { class: 'controls mapbar' },
      h('span', { class: 'dim small', id: 'map-structure' }, `${len} cells as ${rows} rows of ${row}${owner ? ` (${owner}'s last dimension)` : ''}${block}`),
      h('span', { class: 'spacer' }),
      h('button', { title: 'zoom out (Ctrl+wheel)', onclick: () => step(0.5) }, '−'),
      h('button', { id: 'map-zoom', title: 'fit the panel', onclick: () => setZoom(0) }, 'fit'),
      h('button', { title: 'zoom in (Ctrl+wheel)', onclick: () => step(2) }, '+')),
    view);
  apply();
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
  // The keyboard's way in: the focused grid lights one cell, arrows move it (up and down by a
  // row of the grid as laid out), Home/End go to the ends; the page's stepping keys stay off.
  let at = 0;
  $('#storage').addEventListener('focusin', (ev) => {
    if (ev.target.id !== 'storage-grid' || !current) return;
    const first = document.querySelector('#storage .cell.sel');
    at = first ? Number(first.dataset.cell) : Math.min(at, current.st.len - 1);
    light(true, at);
  });
  $('#storage').addEventListener('focusout', () => light(false));
  $('#storage').addEventListener('keydown', (ev) => {
    const grid = ev.target.closest('#storage-grid');
    if (!grid || !current) return;
    const cols = getComputedStyle(grid).gridTemplateColumns.split(' ').filter(Boolean).length || 1;
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -cols, ArrowDown: cols };
    let next = at;
    if (ev.key in moves) next = at + moves[ev.key];
    else if (ev.key === 'Home') next = 0;
    else if (ev.key === 'End') next = current.st.len - 1;
    else return;
    ev.preventDefault();
    ev.stopPropagation();
    at = Math.max(0, Math.min(current.st.len - 1, next));
    const cell = grid.querySelector(`.cell[data-cell="${at}"]`);
    if (cell) cell.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    light(true, at);
  });
}
