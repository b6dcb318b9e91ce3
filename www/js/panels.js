// The read-only panels: step info, tensor list, view chain and values. Each takes the adapter's
// JSON and draws it; none computes anything about tensors itself.
import { $, h, fill, tuple } from './dom.js';

/** What the current statement did. */
export function drawStep(state) {
  $('#stepno').textContent = `${state.at} / ${state.steps}`;
  const s = state.step;
  if (!s) {
    fill($('#stepinfo'), h('span', { class: 'dim' }, 'Before the first statement.'));
    return;
  }
  const parts = [h('div', { class: 'mono src' }, h('span', { class: 'dim' }, `line ${s.line}  `), s.source)];
  // The time machine's key sentence first: saved tensors this write made stale, before any
  // backward() runs, as the step's headline.
  for (const w of s.stale || []) parts.push(h('div', { class: 'bad stale headline', role: 'alert' }, w));
  // A recorded step inside a function, or in another of the user's files than the script.
  if (s.function || s.file) {
    parts.push(h('div', { class: 'dim', id: 'step-where' }, [s.function ? `in ${s.function}()` : '', s.file ? `in ${s.file}` : ''].filter(Boolean).join(' ')));
  }
  // Inside loops: which iteration of which loop (outermost first).
  if (s.iterations && s.iterations.length) {
    parts.push(h('div', { class: 'dim', id: 'step-iter' }, s.iterations.map(([line, i]) => `iteration ${i} of the loop on line ${line}`).join(', ')));
  }
  if (s.defines && s.defines.length) parts.push(h('div', {}, h('b', {}, 'defines '), h('span', { class: 'mono' }, s.defines.join(', '))));
  if (s.writes) {
    const n = s.writes.elements_total ?? s.writes.elements.length;
    parts.push(h('div', { id: 'step-writes' }, h('b', {}, 'writes '), `${n} cell${n === 1 ? '' : 's'} of storage #${s.writes.storage}`,
      s.tensors_changed && s.tensors_changed.length ? [h('b', {}, '  seen by '), h('span', { class: 'mono', id: 'observers' }, s.tensors_changed.join(', '))] : ''));
  } else {
    parts.push(h('div', { class: 'dim' }, 'writes nothing'));
  }
  const b = bridgeStep(s.bridge, s.writes);
  if (b) parts.push(b);
  if (s.backward && s.backward.length) parts.push(backwardSteps(s.backward));
  // What print wrote during this statement, as Python would show it.
  if (s.output) parts.push(h('pre', { class: 'mono output', id: 'step-output' }, s.output.replace(/\n$/, '')));
  fill($('#stepinfo'), parts);
}

/**
 * A backward, node by node in the order it ran (PyTorch's ready order): ◀ ▶ step through the
 * nodes; each says where its gradient went, and each AccumulateGrad which `.grad` cells it wrote.
 */
function backwardSteps(entries) {
  let at = 0;
  const box = h('div', { id: 'step-backward' });
  const list = h('ol', { class: 'backward mono small' });
  const detail = h('div', { class: 'small', id: 'backward-detail' });
  // A node recorded by no line of the trace (line 0) is named alone.
  const items = entries.map((e, i) => h('li', { onclick: () => show(i) },
    e.node === 'AccumulateGrad' ? `AccumulateGrad → ${e.into[0]}` : e.line ? `${e.node} (line ${e.line})` : e.node));
  list.append(...items);
  const counter = h('span', { class: 'mono', id: 'backward-at' });
  function show(i) {
    at = Math.max(0, Math.min(entries.length - 1, i));
    items.forEach((li, k) => li.classList.toggle('current', k === at));
    counter.textContent = `${at + 1} / ${entries.length}`;
    const e = entries[at];
    const into = e.into.length ? e.into.join(', ') : 'nowhere (no input needs it)';
    const grad = e.grad_shape && e.grad_shape.length ? `the gradient of shape ${tuple(e.grad_shape)}` : 'the scalar gradient';
    fill(detail, e.node === 'AccumulateGrad'
      ? `adds ${grad} into ${e.into[0]}: ${e.write ? `cells ${e.write.elements.slice(0, 16).join(', ')}${e.write.elements.length > 16 ? ', …' : ''} of storage #${e.write.storage}` : 'nothing written'}`
      : `takes ${grad} of its output and sends one to each input: ${into}`);
    requestAnimationFrame(() => lightBackward(e));
  }
  box.append(h('div', {}, h('b', {}, 'backward '), `ran ${entries.length} node${entries.length === 1 ? '' : 's'} `,
    h('button', { class: 'mini', title: 'previous node of the backward', onclick: () => show(at - 1) }, '◀'), ' ', counter, ' ',
    h('button', { class: 'mini', title: 'next node of the backward', onclick: () => show(at + 1) }, '▶')), list, detail);
  show(0);
  return box;
}

/**
 * The backward node shown, lit where the page draws it: its box in the autograd graph (by name
 * and line; an AccumulateGrad by its leaf), and the `.grad` cells an AccumulateGrad wrote when
 * the storage map shows that storage.
 */
function lightBackward(e) {
  document.querySelectorAll('#autograd .ag-node.current').forEach((g) => g.classList.remove('current'));
  document.querySelectorAll('#storage .cell.grad-written').forEach((c) => c.classList.remove('grad-written'));
  const sel = e.node === 'AccumulateGrad'
    ? `#autograd .ag-node.leaf[data-leaf="${CSS.escape(String(e.into[0]).replace(/\.grad$/, ''))}"]`
    : `#autograd .ag-node[data-node="${CSS.escape(e.node)}"][data-line="${e.line}"]`;
  const box = document.querySelector(sel);
  if (box) box.classList.add('current');
  const grid = document.querySelector('#storage-grid');
  if (e.write && grid && grid.dataset.storage === String(e.write.storage)) {
    for (const c of e.write.elements) {
      const cell = grid.querySelector(`.cell[data-cell="${c}"]`);
      if (cell) cell.classList.add('grad-written');
    }
  }
}

/**
 * The same statement in tinygrad's PyTorch bridge: its write plan (`_apply_inplace`) and where
 * it parts from PyTorch. Nothing when the bridge did nothing PyTorch did not.
 */
function bridgeStep(b, torchWrites) {
  if (!b) return null;
  const tag = b.diverges ? h('span', { class: 'tag diverge', title: 'the bridge\'s run parts from PyTorch\'s at this statement' }, 'bridge diverges') : null;
  if (b.stopped) return h('div', { id: 'step-bridge', class: 'bridge cmp' }, tag, ' the bridge\'s run stopped at an earlier statement');
  if (b.error) return h('div', { id: 'step-bridge', class: 'bridge cmp' }, tag, h('b', {}, ' the bridge fails: '), h('span', { class: 'mono' }, b.error));
  if (!b.write && !b.diverges) return null;
  const parts = [tag];
  if (b.write) {
    const w = b.write;
    const how = w.path === 'assign'
      ? `assigns all ${w.base_len} elements of its base #${w.storage} in order`
      : `builds a flat index of ${w.count} of its base #${w.storage}'s ${w.base_len} positions, clones the base, scatters the value (a later duplicate wins) and replaces the base`;
    parts.push(h('b', {}, ' the bridge '), how, w.through_mirror ? ' (through a reshaped copy it keeps in step)' : '');
    if (w.positions) parts.push(h('div', { class: 'mono small', id: 'bridge-positions' }, `flat positions ${w.positions.slice(0, 24).join(', ')}${(w.positions_total ?? w.positions.length) > 24 ? ', …' : ''}`));
    else if (torchWrites) parts.push(h('span', { class: 'dim' }, ': the same cells as PyTorch'));
  } else if (!torchWrites) {
    parts.push(' the bridge runs this statement where PyTorch raises');
  }
  if (b.tensors_changed.length) parts.push(h('div', {}, h('b', {}, 'bridge: seen by '), h('span', { class: 'mono', id: 'bridge-observers' }, b.tensors_changed.join(', '))));
  if (b.extra.length) parts.push(h('div', { class: 'bad', id: 'bridge-extra' }, `the bridge's write also changes ${b.extra.join(', ')}, which PyTorch's write does not reach`));
  if (b.missed.length) parts.push(h('div', { class: 'bad', id: 'bridge-missed' }, `the bridge's write misses ${b.missed.join(', ')}, which PyTorch's write changes (an alias the bridge copied)`));
  return h('div', { id: 'step-bridge', class: 'bridge cmp' }, parts);
}

/** Every live tensor; clicking a row selects it. */
export function drawTensors(state, selected, onSelect) {
  // A recording's tensors are PyTorch's as recorded: the bridge was not run.
  const bridge = state.recording ? h('th', { class: 'cmp', title: 'a recording of real PyTorch: the bridge was not run' }, 'bridge (not run)') : h('th', { class: 'cmp' }, 'bridge');
  const head = h('tr', {}, ['name', 'shape', 'dtype', 'storage', 'strides', 'format', 'offset', ''].map((c) => h('th', {}, c)), bridge, h('th', {}, 'autograd'));
  const rows = Object.entries(state.tensors).map(([name, t]) => {
    if (t.error) return h('tr', { dataset: { name } }, h('td', { class: 'mono' }, name), h('td', { colspan: 9, class: 'bad' }, t.error));
    const changed = state.step && state.step.tensors_changed && state.step.tensors_changed.includes(name);
    return h('tr', { dataset: { name }, tabindex: 0, 'aria-selected': String(name === selected), class: [name === selected ? 'selected' : '', changed ? 'changed' : ''].join(' ').trim() || undefined, onclick: () => onSelect(name), onkeydown: (e) => rowKey(e, name, onSelect) },
      h('td', { class: 'mono' }, name),
      h('td', { class: 'mono' }, tuple(t.shape)),
      h('td', {}, t.dtype),
      h('td', { class: 'mono' }, `#${t.torch.storage}`),
      h('td', { class: 'mono' }, tuple(t.torch.strides)),
      formatCell(t.torch),
      h('td', { class: 'mono' }, String(t.torch.storage_offset)),
      h('td', {}, h('span', { class: t.torch.is_view ? 'tag view' : 'tag copy', title: t.torch.copy_reason || (t.torch.is_view ? '' : 'no _base (detach(), .data and view(dtype) share a storage without one): the storage column says what it shares') }, t.torch.is_view ? 'view' : t.torch.copy_reason ? 'copy' : 'own')),
      bridgeCell(t.bridge),
      autogradCell(t.autograd));
  });
  fill($('#tensors'), h('thead', {}, head), h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: 10, class: 'dim' }, 'No tensors yet.'))));
}

/** Keyboard selection in the tensor list: ↑/↓ select the row above or below, Enter or Space this one. */
function rowKey(e, name, onSelect) {
  const row = e.currentTarget;
  const next = e.key === 'ArrowDown' ? row.nextElementSibling : e.key === 'ArrowUp' ? row.previousElementSibling : e.key === 'Enter' || e.key === ' ' ? row : null;
  if (!next || !next.dataset.name) return;
  e.preventDefault();
  onSelect(next.dataset.name);
  // The list is redrawn on selection: focus the new row with that name.
  const again = document.querySelector(`#tensors tr[data-name="${CSS.escape(next.dataset.name)}"]`);
  if (again) again.focus();
}

/** Where tinygrad's PyTorch bridge disagrees about a tensor: its values, its strides/offset. */
function bridgeCell(b) {
  if (!b) return h('td', { class: 'cmp' });
  const tags = [];
  if (b.diverges) {
    const why = b.values_match_torch === null ? 'the bridge\'s run has no such tensor (it failed first, or bound it where PyTorch raised)' : 'the bridge\'s run ends with other values';
    tags.push(h('span', { class: 'tag diverge', title: why }, '≠ values'));
  }
  if (!b.matches_torch) tags.push(h('span', { class: 'tag meta', title: `the bridge reports strides ${tuple(b.strides)}, offset ${b.storage_offset}` }, '≠ strides'));
  return h('td', { class: 'small cmp' }, tags);
}

/** Autograd's view of a tensor: its grad_fn, or that it is a leaf requiring grad (and has .grad). */
function autogradCell(a) {
  if (!a || (!a.requires_grad && !a.grad)) return h('td', { class: 'small dim' }, '');
  if (a.grad_fn_error) return h('td', { class: 'small bad', title: a.grad_fn_error }, 'grad_fn refused');
  const text = a.grad_fn ? a.grad_fn : 'leaf';
  const title = a.grad_fn ? `grad_fn=<${a.grad_fn}>` : `requires_grad=True${a.grad ? `; .grad = [${a.grad.slice(0, 6).join(', ')}${a.grad.length > 6 ? ', …' : ''}]` : ''}`;
  return h('td', { class: 'small mono', title }, text);
}

/** The memory format the core names for a tensor's strides (null: dense in no named order). */
function formatCell(torch) {
  const f = torch.memory_format;
  const title = f ? `contiguous in ${f} order${torch.is_contiguous ? '' : '; is_contiguous() is False'}` : 'dense in neither row-major nor channels-last order';
  return h('td', { class: f ? 'small' : 'small dim', title }, f ?? '—');
}

function viewsText(views) {
  return views.map((v) => {
    const mask = v.mask ? ` mask=${v.mask.map((m) => `(${m[0]},${m[1]})`).join('')}` : '';
    return `View(${tuple(v.shape)}, ${tuple(v.strides)}, off=${v.offset}${mask})`;
  });
}

/** Which output of a multi-output op (`q, k, v = x.chunk(3)`) a chain row's tensor is. */
function outputTag(o) {
  if (!o) return '';
  const node = o.multi_output_node
    ? `one of the views of PyTorch's ${o.multi_output_node} node: autograd refuses in-place writes to it`
    : 'a view of its own: in-place writes stay allowed under autograd';
  return h('span', { class: 'tag view', title: node }, ` output ${o.index} of ${o.count} · ${o.op}`);
}

/** A chain row's kind: a view (PyTorch's `_is_view()`), an alias of the row before that is not
 * a view (`detach()`, `.data`, `view(dtype)`: same storage, no `_base`), the root, or a copy. */
function chainTag(t, prev) {
  if (t.torch.is_view) return h('span', { class: 'tag view', title: t.torch.copy_reason || '' }, 'view');
  if (prev && !t.torch.copy_reason && prev.torch.storage === t.torch.storage) {
    return h('span', { class: 'tag view', title: 'shares the storage but has no _base (not a view in PyTorch)' }, 'alias');
  }
  return h('span', { class: 'tag copy', title: t.torch.copy_reason || '' }, prev || t.torch.copy_reason ? 'copy' : 'new');
}

/** Root to tensor, one row per op, PyTorch / tinygrad / bridge side by side. */
export function drawChain(rows, name) {
  $('#chain-name').textContent = name || '';
  // A recorded tensor: PyTorch's layout as recorded, tinygrad's predicted from it, no bridge.
  const predicted = rows.some((r) => r.tensor.predicted);
  const head = h('tr', {},
    h('th', {}, 'op'),
    h('th', { class: 'group' }, 'PyTorch: shape · strides · offset'), h('th', {}, 'format'), h('th', {}, ''),
    h('th', { class: 'group cmp' }, predicted ? h('span', { title: 'predicted by the product from the recorded shape, strides and offset' }, 'tinygrad: views (predicted)') : 'tinygrad: views'), h('th', { class: 'cmp' }, 'index · valid'),
    h('th', { class: 'group cmp' }, 'bridge: strides · offset'));
  const body = rows.map((r, i) => {
    const t = r.tensor;
    const b = t.bridge;
    return h('tr', { dataset: { row: i } },
      h('td', { class: 'mono op' }, r.op, outputTag(t.torch.output_of)),
      h('td', { class: 'mono group' }, `${tuple(t.shape)} · ${tuple(t.torch.strides)} · ${t.torch.storage_offset}`),
      formatCell(t.torch),
      h('td', {}, chainTag(t, i > 0 ? rows[i - 1].tensor : null)),
      h('td', { class: 'mono group cmp' }, viewsText(t.views).map((v) => h('div', {}, v))),
      h('td', { class: 'mono small cmp' }, h('div', {}, t.index), t.valid && t.valid !== 'True' && t.valid !== 'true' ? h('div', { class: 'dim' }, `valid: ${t.valid}`) : ''),
      b ? h('td', { class: `mono group cmp ${b.matches_torch ? '' : 'diverge'}`, title: b.matches_torch ? 'agrees with PyTorch' : 'differs from PyTorch' },
        `${tuple(b.strides)} · ${b.storage_offset}`, b.matches_torch ? '' : h('span', { class: 'flag' }, ' ≠ torch'))
        : h('td', { class: 'group dim small cmp', title: 'a recording of real PyTorch: the bridge was not run' }, 'not run'));
  });
  fill($('#chain'), h('thead', {}, head), h('tbody', {}, body.length ? body : h('tr', {}, h('td', { colspan: 7, class: 'dim' }, name ? 'Not defined yet at this step.' : 'Select a tensor.'))));
}

// More DOM cells than this would blow the 50 ms redraw budget; the rest are summarized.
const MAX_SHOWN = 1024;

function fmt(v) {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(+v.toPrecision(6));
  return String(v);
}

/** The bridge run's values of a tensor whose values diverge, the differing ones marked. */
function bridgeValuesTable(vals, bvals, cols) {
  const n = Math.min(bvals.length, MAX_SHOWN);
  const differ = bvals.reduce((c, v, i) => c + (String(v) !== String(vals[i]) ? 1 : 0), 0);
  const rows = [];
  for (let i = 0; i < n; i += cols) {
    rows.push(h('tr', {}, bvals.slice(i, Math.min(n, i + cols)).map((v, j) => h('td', { class: String(v) !== String(vals[i + j]) ? 'diverge' : undefined, title: `PyTorch: ${fmt(vals[i + j])}` }, fmt(v)))));
  }
  return h('div', { id: 'bridge-values', class: 'cmp' },
    h('div', { class: 'slice dim' }, `the bridge's run ends with (${differ} of ${bvals.length} differ from PyTorch's):`),
    h('table', { class: 'vals mono' }, h('tbody', {}, rows)));
}

/** The values table drawn last: its layout key and its value cells in element order. Stepping
 *  with the same tensor shape selected updates these cells in place: rebuilding 1,024 cells was
 *  most of a step's cost (their style and the table's layout), and a value that did not change
 *  then costs nothing. */
let shownValues = { key: null, tds: [] };

/** One value cell's text, class and title: a padding element (tinygrad's mask) is marked. */
function valueCell(td, v, pad) {
  const text = fmt(v);
  if (td.textContent !== text) td.textContent = text;
  if (td.classList.contains('pad') !== pad) td.classList.toggle('pad', pad);
  const title = pad ? 'padding (masked in tinygrad)' : '';
  if (td.title !== title) td.title = title;
}

/** The tensor's values as a table per 2-D slice; `cells` marks padding (tinygrad mask). */
export function drawValues(t, name, cells, bridgeValues) {
  $('#values-name').textContent = t ? `${name} ${tuple(t.shape)} ${t.dtype}` : '';
  const box = $('#values');
  const vals = t ? t.values : [];
  const tg = cells && cells.tinygrad;
  // Long tensors arrive cut (the session's PAGE_VALUES); values_total counts them all.
  const total = t ? t.values_total ?? vals.length : 0;
  const key = t && !bridgeValues ? `${t.shape.join('x')}:${vals.length}:${total}` : null;
  if (key !== null && key === shownValues.key && box.contains(shownValues.tds[0] || null)) {
    shownValues.tds.forEach((td, k) => valueCell(td, vals[k], tg && tg[k] === null));
    return;
  }
  shownValues = { key: null, tds: [] };
  if (!t) { fill(box); return; }
  const shape = t.shape.length ? t.shape : [];
  // A long 1-D tensor wraps at 16 per row, each row labelled with its first index.
  const wrap = shape.length === 1 && shape[0] > 16;
  const cols = wrap ? 16 : shape.length >= 1 ? shape[shape.length - 1] : 1;
  const rowsPer = wrap ? Math.ceil(shape[0] / 16) : shape.length >= 2 ? shape[shape.length - 2] : 1;
  const lead = shape.slice(0, Math.max(0, shape.length - 2));
  const per = wrap ? vals.length : cols * rowsPer;
  const slices = per === 0 ? 0 : Math.ceil(vals.length / per);
  const out = [];
  const tds = [];
  for (let s = 0; s < slices && tds.length < MAX_SHOWN; s++) {
    if (lead.length) {
      const idx = [];
      let r = s;
      for (let d = lead.length - 1; d >= 0; d--) { idx.unshift(r % lead[d]); r = Math.floor(r / lead[d]); }
      out.push(h('div', { class: 'slice mono dim' }, `[${idx.join(', ')}, :, :]`));
    }
    const trs = [];
    for (let i = 0; i < rowsPer && tds.length < MAX_SHOWN; i++) {
      const row = wrap ? [h('th', { class: 'dim' }, String(i * cols))] : [];
      for (let j = 0; j < cols; j++) {
        const k = s * per + i * cols + j;
        if (k >= vals.length) break;
        const td = h('td', { dataset: { i: k } });
        valueCell(td, vals[k], tg && tg[k] === null);
        row.push(td);
        tds.push(td);
      }
      trs.push(h('tr', {}, row));
    }
    out.push(h('table', { class: 'vals mono' }, h('tbody', {}, trs)));
  }
  if (tds.length < total) out.push(h('div', { class: 'dim' }, `… ${total - tds.length} more elements not shown`));
  if (!vals.length) out.push(h('div', { class: 'dim' }, 'No elements.'));
  if (bridgeValues) out.push(bridgeValuesTable(vals, bridgeValues, cols));
  fill(box, out);
  shownValues = { key, tds };
}
