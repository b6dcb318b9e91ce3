// The page's code editor: CodeMirror 6 with Python highlighting, the statement the stepper stands
// on marked and scrolled into view, the failing line marked and its error underlined at its
// column (the message on hover), and one undo history across every text the page puts in it.
// esbuild bundles this file into www/js/vendor/editor.js (`cargo xtask build`); www/js/editor.js
// is the page's side of it.
import { EditorState, StateEffect, StateField, Annotation, Compartment } from '@codemirror/state';
import { EditorView, Decoration, keymap, lineNumbers, drawSelection, hoverTooltip } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { python } from '@codemirror/lang-python';
import { HighlightStyle, syntaxHighlighting, indentUnit } from '@codemirror/language';
import { tags } from '@lezer/highlight';

/** Marks a change the page made (a lesson, a link): not an edit to run again. */
const fromPage = Annotation.define();
/** `{current, error}`: the line the stepper stands on and the failing statement's error. */
const setMarks = StateEffect.define();

const marks = StateField.define({
  create: () => ({ current: 0, error: null }),
  update: (value, tr) => {
    for (const e of tr.effects) if (e.is(setMarks)) return e.value;
    return value;
  },
});

/** The decorations of the marks: whole lines, and the error's column to the end of its word. */
function decorations(state) {
  const { current, error } = state.field(marks);
  const out = [];
  const line = (n) => (n >= 1 && n <= state.doc.lines ? state.doc.line(n) : null);
  const cur = line(current);
  if (cur) out.push(Decoration.line({ class: 'cm-current', attributes: { 'data-line': String(current) } }).range(cur.from));
  const bad = error && line(error.line);
  if (bad) {
    out.push(Decoration.line({ class: 'cm-bad-line', attributes: { 'data-line': String(error.line) } }).range(bad.from));
    if (error.column) {
      const from = Math.min(bad.to, bad.from + error.column - 1);
      const rest = state.doc.sliceString(from, bad.to);
      const word = /^[A-Za-z_0-9.]+|^./.exec(rest);
      const to = Math.min(bad.to, from + (word ? word[0].length : 0));
      if (to > from) out.push(Decoration.mark({ class: 'cm-error', attributes: { title: error.message } }).range(from, to));
    }
  }
  return Decoration.set(out, true);
}

const decorated = EditorView.decorations.compute([marks, 'doc'], decorations);

/** The error's message in a tooltip over its line. */
const errorTooltip = hoverTooltip((view, pos) => {
  const { error } = view.state.field(marks);
  if (!error) return null;
  const line = view.state.doc.lineAt(pos);
  if (line.number !== error.line) return null;
  return { pos: line.from, end: line.to, above: true, create: () => { const dom = document.createElement('div'); dom.className = 'cm-error-tip'; dom.textContent = error.message; return { dom }; } };
});

// Colours from the page's CSS variables, so the light and dark themes both apply.
const highlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.controlKeyword, tags.operatorKeyword, tags.definitionKeyword, tags.moduleKeyword], color: 'var(--hl-keyword)' },
  { tag: [tags.string, tags.special(tags.string)], color: 'var(--hl-string)' },
  { tag: [tags.number, tags.bool, tags.null], color: 'var(--hl-number)' },
  { tag: [tags.comment, tags.lineComment], color: 'var(--hl-comment)', fontStyle: 'italic' },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName)], color: 'var(--hl-call)' },
]);

const theme = EditorView.theme({
  '&': { height: '100%', backgroundColor: 'var(--panel)', color: 'var(--text)' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '18px' },
  '.cm-gutters': { backgroundColor: 'var(--soft)', color: 'var(--faint)', borderRight: '1px solid var(--line)' },
  '.cm-current': { backgroundColor: 'var(--sel-bg)' },
  '.cm-bad-line': { backgroundColor: 'var(--ov-bg)' },
  '.cm-error': { textDecoration: 'underline wavy var(--ov)', textUnderlineOffset: '3px' },
  '.cm-error-tip': { padding: '3px 6px', color: 'var(--ov-fg)', backgroundColor: 'var(--ov-bg)' },
  // Keyboard users see where focus is: Tab indents inside the editor, Esc then Tab leaves it.
  '&.cm-focused': { outline: '2px solid var(--accent)', outlineOffset: '-1px' },
  '.cm-cursor': { borderLeftColor: 'var(--text)' },
});

// Python highlighting up to this many lines. The parser runs in the background in slices of up
// to 100 ms; a 10,000-statement link would keep the main thread busy in such slices for seconds.
const MAX_HIGHLIGHTED = 2000;
const language = new Compartment();
/** Read-only while the page shows a recording's source: the steps ran in PyTorch, not here. */
const readOnly = new Compartment();
const py = python();
const highlightLimit = EditorState.transactionExtender.of((tr) => {
  if (!tr.docChanged) return null;
  const on = tr.newDoc.lines <= MAX_HIGHLIGHTED;
  if (on === (language.get(tr.startState) === py)) return null;
  return { effects: language.reconfigure(on ? py : []) };
});

/**
 * A CodeMirror editor in `parent`. `onChange(text)` runs after the user edits (not after the
 * page sets the text); the returned handle reads and sets the text and marks lines.
 */
export function createEditor(parent, { onChange, label }) {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: '',
      extensions: [
        lineNumbers(),
        history(),
        drawSelection(),
        indentUnit.of('    '),
        language.of(py),
        highlightLimit,
        syntaxHighlighting(highlight),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        readOnly.of(EditorState.readOnly.of(false)),
        marks,
        decorated,
        errorTooltip,
        theme,
        EditorView.contentAttributes.of({ 'aria-label': label, spellcheck: 'false', autocorrect: 'off', autocapitalize: 'off' }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !u.transactions.some((t) => t.annotation(fromPage))) onChange(u.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    /** Replaces the text; the change is one step of the undo history, so Ctrl+Z brings back
     *  what was there (a lesson opened over an edit, say). */
    setText(text) {
      if (text === view.state.doc.toString()) return;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, annotations: fromPage.of(true) });
    },
    /** Makes the text read-only (a recording's source) or editable again (a trace). */
    setReadOnly(on) {
      view.dispatch({ effects: readOnly.reconfigure(EditorState.readOnly.of(on)) });
      view.contentDOM.setAttribute('aria-readonly', String(on));
    },
    /** Marks the stepper's line and the error, and scrolls the current line into view. */
    mark(current, error) {
      const effects = [setMarks.of({ current, error })];
      if (current >= 1 && current <= view.state.doc.lines) effects.push(EditorView.scrollIntoView(view.state.doc.line(current).from, { y: 'nearest', yMargin: 36 }));
      view.dispatch({ effects });
    },
  };
}
