// The autograd panel: the backward graph behind the selected tensor as PyTorch holds it at this
// step. Nodes are laid out by depth from the tensor's grad_fn (gradients flow left to right,
// into the leaves' AccumulateGrad on the far right); under each node, the tensors it saved with
// the version each had when saved and has now. A saved tensor a write has changed since is
// stale (a backward through its node fails) and is drawn in red. Clicking a saved tensor that a
// name holds selects it, so the storage map shows its cells.
import { $, h, fill, tuple } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
const ROW = 30, PAD = 8, GAP = 30;
/** About how wide a character of the graph's 12 px labels is, to size boxes to their text. */
const CHAR = 7;

function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** The nodes reachable from `root` (all nodes when null), each at its longest distance from it. */
function layers(nodes, root) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const depth = new Map();
  const starts = root === null ? nodes.filter((n) => !nodes.some((m) => m.next.some((e) => e && e.node === n.id))) : [byId.get(root)];
  const visit = (n, d) => {
    if (!n || (depth.has(n.id) && depth.get(n.id) >= d)) return;
    depth.set(n.id, d);
    for (const e of n.next) if (e && e.node !== undefined) visit(byId.get(e.node), d + 1);
  };
  starts.forEach((n) => visit(n, 0));
  return depth;
}

function savedText(s) {
  const who = s.tensor || `${tuple(s.shape)} tensor`;
  return `${who} · v${s.saved_version}${s.stale ? ` → v${s.version} stale` : ''}`;
}

/** Draws the graph of `name`'s grad_fn (or, for a leaf, of every node that feeds it). */
export function drawAutograd(state, name, onSelect) {
  const panel = $('#autograd-panel');
  const nodes = state.autograd_graph || [];
  if (!nodes.length) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const own = nodes.find((n) => n.outputs.includes(name));
  const depth = layers(nodes, own ? own.id : null);
  const shown = nodes.filter((n) => depth.has(n.id));
  $('#autograd-name').textContent = own ? `${name}.grad_fn = ${own.name}` : 'the whole graph';
  const stale = shown.flatMap((n) => n.saved.filter((s) => s.stale).map((s) => `${n.name} (line ${n.line})`));
  fill($('#autograd-summary'), stale.length
    ? h('span', { class: 'bad' }, `a backward through ${[...new Set(stale)].join(', ')} will fail: a tensor it saved was changed in place since`)
    : h('span', { class: 'dim' }, 'every saved tensor is at the version it was saved at'));
  // Columns by depth; leaves (AccumulateGrad) in one column after the deepest node.
  const cols = new Map();
  for (const n of shown) {
    const d = depth.get(n.id);
    if (!cols.has(d)) cols.set(d, []);
    cols.get(d).push(n);
  }
  const leafCol = Math.max(...cols.keys()) + 1;
  const leaves = [...new Set(shown.flatMap((n) => n.next.filter((e) => e && 'leaf' in e).map((e) => e.leaf || '(unnamed leaf)')))];
  // Boxes as wide as their longest label (a node's name and line, its saved tensors, a leaf's
  // `AccumulateGrad → name.grad`), so no label is cut or runs into the next column.
  const labels = [
    ...shown.map((n) => `${n.name}  line ${n.line}`),
    ...shown.flatMap((n) => n.saved.map((s) => `  saved ${savedText(s)}`)),
    ...leaves.map((l) => `AccumulateGrad → ${l}.grad`),
  ];
  const WIDTH = Math.max(180, 16 + CHAR * Math.max(...labels.map((l) => l.length)));
  const COL = WIDTH + GAP;
  const pos = new Map();
  const height = (n) => ROW * (1 + n.saved.length) + PAD;
  let maxY = 0;
  for (const [d, col] of cols) {
    let y = PAD;
    for (const n of col) {
      pos.set(n.id, { x: PAD + d * COL, y, hgt: height(n) });
      y += height(n) + PAD;
    }
    maxY = Math.max(maxY, y);
  }
  leaves.forEach((l, i) => pos.set(`leaf:${l}`, { x: PAD + leafCol * COL, y: PAD + i * (ROW + PAD), hgt: ROW }));
  maxY = Math.max(maxY, PAD + leaves.length * (ROW + PAD));
  const edges = [];
  for (const n of shown) {
    const a = pos.get(n.id);
    for (const e of n.next) {
      if (!e) continue;
      const b = pos.get('leaf' in e ? `leaf:${e.leaf || '(unnamed leaf)'}` : e.node);
      if (!b) continue;
      const x1 = a.x + WIDTH, y1 = a.y + ROW / 2, x2 = b.x, y2 = b.y + ROW / 2;
      edges.push(svg('path', { class: 'ag-edge', d: `M${x1},${y1} C${x1 + 20},${y1} ${x2 - 20},${y2} ${x2},${y2}`, 'marker-end': 'url(#ag-arrow)' }));
    }
  }
  const boxes = [];
  for (const n of shown) {
    const p = pos.get(n.id);
    const hasStale = n.saved.some((s) => s.stale);
    const g = svg('g', { class: `ag-node${hasStale ? ' stale' : ''}${n.freed ? ' freed' : ''}`, 'data-node': n.name, 'data-line': n.line, transform: `translate(${p.x},${p.y})` },
      svg('rect', { width: WIDTH, height: p.hgt, rx: 4 }),
      svg('text', { x: 6, y: 18, class: 'ag-name' }, n.name),
      svg('text', { x: WIDTH - 6, y: 18, class: 'ag-line', 'text-anchor': 'end' }, `line ${n.line}`),
      svg('title', {}, `${n.name}, recorded by line ${n.line}${n.outputs.length ? `; grad_fn of ${n.outputs.join(', ')}` : ''}${n.freed ? '; its saved tensors were freed by a backward' : ''}`));
    n.saved.forEach((s, i) => {
      const row = svg('text', { x: 12, y: 18 + ROW * (i + 1), class: `ag-saved${s.stale ? ' stale' : ''}`, 'data-saved': s.tensor || '', onclick: () => s.tensor && onSelect(s.tensor) },
        `saved ${savedText(s)}`);
      const cells = s.elements ? `; cells ${s.elements.slice(0, 12).join(', ')}${s.elements.length > 12 ? ', …' : ''} of storage #${s.storage}` : '';
      row.append(svg('title', {}, `saved at version ${s.saved_version}, now ${s.version}${cells}${s.tensor ? '; click to select it' : ''}`));
      g.append(row);
    });
    boxes.push(g);
  }
  for (const l of leaves) {
    const p = pos.get(`leaf:${l}`);
    boxes.push(svg('g', { class: 'ag-node leaf', 'data-leaf': l, transform: `translate(${p.x},${p.y})`, onclick: () => l !== '(unnamed leaf)' && onSelect(l) },
      svg('rect', { width: WIDTH, height: ROW, rx: 4 }),
      svg('text', { x: 6, y: 19, class: 'ag-name' }, `AccumulateGrad → ${l}.grad`)));
  }
  const width = PAD + (leafCol + 1) * COL;
  const defs = svg('defs', {}, svg('marker', { id: 'ag-arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto' }, svg('path', { d: 'M0,0 L10,5 L0,10 z' })));
  fill($('#autograd'), svg('svg', { width, height: maxY, viewBox: `0 0 ${width} ${maxY}`, role: 'img', 'aria-label': `autograd graph: ${shown.map((n) => n.name).join(', ')}` }, defs, edges, boxes));
}
