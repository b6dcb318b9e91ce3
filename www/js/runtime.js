// The second wasm module (datasets, models, training, a statement's kernels), fetched and
// started the first time something needs it: the Data tab, the Kernels tab's run button, a link
// or trace that reads a dataset. The first load is the trace module alone. Every dataset file the
// runtime opens is registered with the trace engine too (the two modules share no memory).

import { built } from './engine.js';

let loading = null;

/** The runtime's bindings, loading them on first use; every caller shares the one load. */
export function runtime() {
  if (!loading) {
    loading = (async () => {
      const glue = await import(built('stridelab-web-runtime.js'));
      await glue.default({ module_or_path: built('stridelab-web-runtime_bg.wasm') });
      return glue;
    })();
    // A failed load can be tried again by the next caller.
    loading.catch(() => { loading = null; });
  }
  return loading;
}

/** Whether the runtime has been asked for (the first-load test checks it is not). */
export const runtimeRequested = () => loading !== null;
