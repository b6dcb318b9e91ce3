// The trace session's answers, over the trace module's bindings: what the engine worker sends the
// page for `open` (or `openRecording`: a recording of a real PyTorch run, which answers the rest
// the same way), `goto`, `tensor` and `cell`. Shared by the worker (worker.js) and the build's
// recorder of the example (tools/web/record_example.mjs), so the recorded answers the first
// render draws are the ones the worker gives, made by the same code.
import { DOM_LIMIT, layoutMap } from './mapgrid.js';

/** The tensor the panels show: the one asked for if it exists, else at an error the one the failing
 *  statement wrote or called on, else the first this step defined,
 *  else the last one. */
export function pick(state, wanted) {
  const names = Object.keys(state.tensors);
  if (names.includes(wanted)) return wanted;
  // At a failing statement, the tensor it wrote or called on.
  if (state.error && names.includes(state.error_tensor)) return state.error_tensor;
  const defined = state.step && state.step.defines.filter((d) => names.includes(d));
  return (defined && defined[0]) || names[names.length - 1] || null;
}

/** A session over the trace module `wasm` (its glue, initialised); `memory()` reports the
 *  instance's memory in bytes. */
export function traceSession(wasm, memory) {
  let session = null;
  /** Whether `session` is a recording (a trace never stays open over one). */
  let recording = false;
  /** The state of the step the session stands on (a large map's layout reads its tensors). */
  let state = null;

  /** What the panels draw for one tensor: its cells, storage flags (a large storage's laid out
   *  as the map's pixels instead) and view chain. */
  function tensor(name) {
    const info = JSON.parse(session.cells(name));
    let flags = session.flags(name);
    if (flags.length > DOM_LIMIT && info && info.storage !== null) {
      info.map = layoutMap(state, info.storage, flags);
      flags = new Uint8Array();
    }
    return { name, info, flags, chain: JSON.parse(session.chain(name)) };
  }

  return {
    /** Runs `src`. With `keep`, a source that does not parse (a line half typed) leaves the
     *  open trace open: the answer is `{kept: error}` with the old trace's steps, and the page
     *  keeps its panels. */
    open({ src, keep }) {
      const parse = keep && session && !recording ? wasm.parseError(src) : undefined;
      if (parse !== undefined) {
        return { kept: JSON.parse(parse), steps: session.stepCount(), divergences: [...session.bridgeDivergences()], memory: memory() };
      }
      // The old run's storages go first, so a trace never holds two runs.
      if (session) session.free();
      session = null;
      state = null;
      session = new wasm.Session(src);
      recording = false;
      return { steps: session.stepCount(), divergences: [...session.bridgeDivergences()], memory: memory() };
    },
    /** Opens a recording of a real PyTorch run (its JSON text): the same answers follow. */
    openRecording({ json }) {
      if (session) session.free();
      session = null;
      state = null;
      session = new wasm.RecordingSession(json);
      recording = true;
      return { steps: session.stepCount(), divergences: [], memory: memory(), about: JSON.parse(session.about()) };
    },
    goto({ k, selected }) {
      state = JSON.parse(session.goto(k));
      const name = pick(state, selected);
      const t = state.tensors[name];
      return { state, selected: name, tensor: t ? tensor(name) : null };
    },
    tensor({ name }) {
      return tensor(name);
    },
    cell({ storage, index }) {
      return session.cell(storage, index);
    },
  };
}
