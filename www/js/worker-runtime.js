// The runtime module as a worker imports it (worker.js, train-worker.js): a worker has no
// document to read the build stamp from, so it takes the stamp from its own address (`?v=`).

/** Imports and starts the runtime module of this worker's build; resolves to its bindings. */
export async function importRuntime() {
  const build = new URL(self.location.href).searchParams.get('v') || 'dev';
  const glue = await import(`/stridelab-web-runtime.js?v=${build}`);
  await glue.default({ module_or_path: `/stridelab-web-runtime_bg.wasm?v=${build}` });
  return glue;
}
