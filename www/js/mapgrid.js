// The storage map's layout, shared by the engine worker (which lays out large maps, so a
// 2^24-cell storage crosses to the page as a few MB of pixels, not its flags) and the page.
// Pure functions over the state's JSON and the session's flag bytes.

/** Bits of a cell's flag byte (the session's CELL_* constants). */
export const SELECTED = 1, REPEATED = 2, WRITTEN = 4, OVERLAP = 8;
/** Above this many cells the map is a canvas: beyond it DOM cells cost more than a step's budget. */
export const DOM_LIMIT = 1024;
/** The canvas's largest side in pixels: past it, a pixel covers a block of cells (a canvas of
 *  more than 2^20 pixels costs the page's main thread more than a step's budget to paint). */
const MAX_SIDE = 1024;

/**
 * The row length the map is drawn with: the last dimension of a tensor of two or more dimensions
 * that covers the whole storage in row-major order from its start (its base, usually), so rows of
 * the map are rows of the data; otherwise about a square.
 */
export function rowLength(state, sid, len) {
  for (const [n, t] of Object.entries(state.tensors)) {
    const tt = t.torch;
    if (!tt || tt.storage !== sid || t.shape.length < 2) continue;
    const numel = t.shape.reduce((a, b) => a * b, 1);
    let want = 1;
    let contiguous = true;
    for (let i = t.shape.length - 1; i >= 0; i--) {
      if (t.shape[i] > 1 && tt.strides[i] !== want) contiguous = false;
      want *= t.shape[i];
    }
    const last = t.shape[t.shape.length - 1];
    if (numel === len && contiguous && tt.storage_offset === 0 && last > 1) return { row: last, owner: n };
  }
  return { row: Math.max(1, Math.ceil(Math.sqrt(len))), owner: null };
}

/**
 * The canvas map of storage `sid` (`flags`, one byte per cell): `rows` rows of `row` cells, a
 * pixel per cell, or past 1,024 pixels a side a block of `rg` × `cg` cells showing every flag
 * in it (`agg`, one byte per pixel, `w` × `hgt`).
 */
export function layoutMap(state, sid, flags) {
  const len = flags.length;
  const { row, owner } = rowLength(state, sid, len);
  const rows = Math.ceil(len / row);
  const cg = Math.ceil(row / MAX_SIDE);
  const rg = Math.ceil(rows / MAX_SIDE);
  const w = Math.ceil(row / cg);
  const hgt = Math.max(1, Math.ceil(rows / rg));
  let agg;
  if (cg === 1 && rg === 1) {
    agg = new Uint8Array(w * hgt);
    agg.set(flags);
  } else {
    // Each cell's flags folded into its pixel: one pass, the column's pixel looked up.
    agg = new Uint8Array(w * hgt);
    const colPixel = new Uint32Array(row);
    for (let col = 0; col < row; col++) colPixel[col] = Math.floor(col / cg);
    for (let r = 0, c = 0; r < rows; r++) {
      const base = Math.floor(r / rg) * w;
      const end = Math.min(len, c + row);
      for (let col = 0; c < end; c++, col++) agg[base + colPixel[col]] |= flags[c];
    }
  }
  return { len, row, owner, rows, cg, rg, w, hgt, agg };
}
