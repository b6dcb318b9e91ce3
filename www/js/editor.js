// The trace editor: CodeMirror 6 (bundled into vendor/editor.js from tools/editor by `cargo xtask
// build`) with Python highlighting, the current statement and the failing one marked, the
// error underlined at its column with the message on hover, and the error message below it.
// Plain text in, plain text out.
import { $, h, fill } from './dom.js';
import { createEditor } from './vendor/editor.js';

const errorBox = $('#error');
let changed = () => {};
let timer = 0;
const cm = createEditor($('#source'), {
  label: 'trace source',
  // Runs the edit after typing pauses.
  onChange: (text) => {
    clearTimeout(timer);
    timer = setTimeout(() => changed(text), 200);
  },
});

export function getSource() {
  return cm.text();
}

/** Puts `text` in the editor as one undoable change (Ctrl+Z brings the previous text back). */
export function setSource(text) {
  cm.setText(text);
}

/** Read-only while the page shows a recording (its source is what PyTorch ran), editable for a
 *  trace. */
export function setReadOnly(on) {
  cm.setReadOnly(on);
}

/** Calls `fn(text)` after the user's typing pauses. */
export function onEdit(fn) {
  changed = fn;
}

/** Whether `el` (a key event's target) is inside the editor. */
export const contains = (el) => $('#source').contains(el);

/** The editor's handle, for the browser tests (its text, its view). */
export const handle = cm;

let suggestion = null;

/** Calls `fn(name)` when the user follows an error's "did you mean" to the op reference. */
export function onSuggestion(fn) {
  suggestion = fn;
}

let marking = null;

/** Whether a mark waits for the next frame. */
export const markingPending = () => marking !== null;

/** Marks the editor: `current` is the line of the statement just run, `error` the failing one.
 *  The editor reads the page's layout when it updates (its selection), so the mark waits for
 *  the next frame: inside the task that drew the panels it would force the whole page's layout
 *  there, and a big trace's redraw would block the main thread twice as long. */
export function mark(current, error) {
  if (marking === null) {
    requestAnimationFrame(() => {
      const [c, e] = marking;
      marking = null;
      cm.mark(c, e);
    });
  }
  marking = [current, error];
  if (error) {
    const where = error.column ? `line ${error.line}:${error.column}` : `line ${error.line}`;
    const extra = error.elements ? ` (storage cells ${error.elements.slice(0, 12).join(', ')}${error.elements.length > 12 ? ', …' : ''})` : '';
    // "did you mean view?" (a name PyTorch has that the product does not) and Python's
    // "Did you mean: 'view'?" (a typo): the suggestion links to the op reference.
    const guess = /(?:did you mean |Did you mean: ')([A-Za-z_0-9.]+)'?\?$/.exec(error.message);
    const ref = guess && suggestion ? h('button', { class: 'link', id: 'error-ref', onclick: () => suggestion(guess[1]) }, 'op reference') : null;
    fill(errorBox, h('span', { class: 'where' }, where), h('span', { class: 'kind' }, error.kind), h('span', {}, error.message + extra), ref);
    errorBox.hidden = false;
  } else {
    errorBox.hidden = true;
    fill(errorBox);
  }
}
