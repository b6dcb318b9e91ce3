// DOM helpers shared by the panels. Every string goes in as text (textContent), never as HTML, so
// names and comments from a trace or a link can never become markup or script.

/** Builds an element: `h('td', {class: 'x', dataset: {i: 3}}, 'text', child)`. */
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k === 'title') e.title = String(v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** Replaces an element's children. */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== undefined && c !== null && c !== false));
}

export const $ = (sel) => document.querySelector(sel);

/** `[3, 4]` as `(3, 4)`, the way PyTorch prints sizes. */
export function tuple(xs) {
  if (!Array.isArray(xs)) return String(xs);
  return xs.length === 1 ? `(${xs[0]},)` : `(${xs.join(', ')})`;
}

// A count in k/M/G, or a dash for a missing one.
export function num(x) {
  if (typeof x !== 'number') return x === undefined || x === null ? '—' : String(x);
  if (x >= 1e9) return `${(x / 1e9).toFixed(2)} G`;
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)} M`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(1)} k`;
  return String(x);
}
