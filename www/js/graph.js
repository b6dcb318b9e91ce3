// The model graph beside the kernel table (what Netron shows): the model's ops top to bottom in
// execution order, an edge from the op that wrote each value to every op that reads it, and a
// side panel with the picked op's inputs, outputs, shapes, attributes and the kernels it became.
// Everything comes from the runtime's `graph()`; this module only draws it.
import { $, h, fill } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
const BOX_W = 220, BOX_H = 34, GAP = 18, PAD = 8;

function svg(tag, attrs, ...kids) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  for (const k of kids) e.append(k);
  return e;
}

const dims = (s) => (s && s.length ? s.join('×') : 'scalar');

/** An attribute as the manifest stores it (`{ints: [..]}`, `{int: 1}`, ...) in plain text. */
function attr(v) {
  if (v === null || typeof v !== 'object') return String(v);
  const [kind, x] = Object.entries(v)[0] || ['', ''];
  if (Array.isArray(x)) return `[${x.join(', ')}]`;
  return kind === 'string' ? JSON.stringify(x) : String(x);
}

/** Draws `graph` (the runtime's `graph()`); `pickKernel(name)` selects a kernel's row. */
export function drawGraph(graph, pickKernel) {
  const nodes = graph.nodes || [];
  const index = new Map(nodes.map((n, i) => [n.id, i]));
  const y = (i) => PAD + i * (BOX_H + GAP);
  const height = PAD * 2 + nodes.length * (BOX_H + GAP);
  const root = svg('svg', { width: BOX_W + 120, height, class: 'mgraph', role: 'img', 'aria-label': `the model's graph: ${nodes.length} ops` });
  // Edges first, under the boxes: straight down to the next op, a curve on the right otherwise.
  nodes.forEach((n, i) => {
    for (const v of n.inputs || []) {
      if (!v || v.from === null || v.from === undefined || !index.has(v.from)) continue;
      const j = index.get(v.from);
      const y0 = y(j) + BOX_H, y1 = y(i);
      const d = i === j + 1
        ? `M ${BOX_W / 2} ${y0} L ${BOX_W / 2} ${y1}`
        : `M ${BOX_W} ${y(j) + BOX_H / 2} C ${BOX_W + 40 + 8 * (i - j)} ${y(j) + BOX_H / 2}, ${BOX_W + 40 + 8 * (i - j)} ${y1 + BOX_H / 2}, ${BOX_W} ${y1 + BOX_H / 2}`;
      root.append(svg('path', { d, class: 'medge', 'data-from': j, 'data-to': i }, svg('title', {}, `${v.name} ${dims(v.shape)}`)));
    }
  });
  const side = h('div', { class: 'mnode', id: 'model-node' }, h('span', { class: 'dim' }, 'Click an op for its inputs, outputs, attributes and kernels.'));
  const pick = (i) => {
    for (const g of root.querySelectorAll('.mbox')) g.classList.toggle('picked', Number(g.dataset.i) === i);
    const n = nodes[i];
    const value = (v) => (v ? h('tr', {}, h('td', { class: 'mono' }, v.name), h('td', { class: 'mono' }, dims(v.shape)), h('td', {}, v.dtype), h('td', { class: 'dim' }, v.role)) : h('tr', {}, h('td', { class: 'dim' }, '(omitted)')));
    const attrs = Object.entries(n.attributes || {});
    fill(side,
      h('div', {}, h('b', {}, n.op), ' ', h('span', { class: 'mono dim' }, n.name)),
      h('h3', {}, 'inputs'), h('table', { class: 'grid', id: 'model-node-inputs' }, h('tbody', {}, (n.inputs || []).map(value))),
      h('h3', {}, 'outputs'), h('table', { class: 'grid' }, h('tbody', {}, (n.outputs || []).map(value))),
      h('h3', {}, 'attributes'), attrs.length
        ? h('table', { class: 'grid', id: 'model-node-attrs' }, h('tbody', {}, attrs.map(([k, v]) => h('tr', {}, h('td', { class: 'mono' }, k), h('td', { class: 'mono' }, attr(v))))))
        : h('div', { class: 'dim' }, 'none'),
      h('h3', {}, 'became'), h('ul', { id: 'model-node-kernels' }, (n.kernels || []).map((k) => h('li', {}, h('button', { class: 'link mono', onclick: () => pickKernel(k) }, k)))));
  };
  nodes.forEach((n, i) => {
    const out = (n.outputs || [])[0];
    const g = svg('g', { class: 'mbox', 'data-i': i, 'data-op': n.op, tabindex: 0, role: 'button', 'aria-label': `${n.op} ${n.name}` },
      svg('rect', { x: 0, y: y(i), width: BOX_W, height: BOX_H, rx: 4 }),
      svg('text', { x: 8, y: y(i) + 14, class: 'mop' }, n.op),
      svg('text', { x: 8, y: y(i) + 28, class: 'mshape' }, out ? `→ ${dims(out.shape)}` : ''));
    g.addEventListener('click', () => pick(i));
    g.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(i); } });
    root.append(g);
  });
  fill($('#model-graph'), h('div', { class: 'mgraph-wrap' }, h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': "the model's graph (scrolls)" }, root), side));
}
