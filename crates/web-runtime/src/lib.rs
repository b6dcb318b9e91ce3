//! The playground's second wasm module, fetched the first time the page needs it (the Data tab, the
//! model panel, training, the Kernels tab, or a link that opens one of them), so the first load
//! is only the trace module (`stridelab-web`). Like the first module it is a thin adapter: strings
//! and byte arrays in, JSON out, every computation in the core and `stridelab-gpu`.

pub mod data;
// The registry of named files a trace reads with `dataset(name)`: the same source as the first
// module's, compiled into this one too (the two modules share no memory), so a statement's
// kernels read the files this module opened.
#[path = "../../web/src/files.rs"]
pub mod files;
pub mod kernels;
pub mod model;
pub mod train;

use wasm_bindgen::prelude::*;

/// Panics become readable console errors instead of "unreachable executed"; the page catches the
/// thrown error and keeps working.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// Registers a file for `dataset(name)` in the traces this module runs (a statement's kernels).
#[wasm_bindgen(js_name = registerFile)]
pub fn register_file(name: &str, bytes: Vec<u8>) {
    files::register_file(name, bytes);
}

// The page's WebGPU device, acquired once: `Ok` with the device, or `Err` with why there is none
// (the kernel panel then runs the CPU IR executor and says so).
#[cfg(target_arch = "wasm32")]
thread_local! {
    static GPU: std::cell::RefCell<Option<Result<std::rc::Rc<stridelab_gpu::Gpu>, String>>> =
        const { std::cell::RefCell::new(None) };
}

#[cfg(target_arch = "wasm32")]
async fn page_gpu() -> Result<std::rc::Rc<stridelab_gpu::Gpu>, String> {
    if let Some(got) = GPU.with(|g| g.borrow().clone()) {
        return got;
    }
    let got = stridelab_gpu::acquire(&stridelab_gpu::AcquireOptions::new())
        .await
        .map(std::rc::Rc::new)
        .map_err(|e| e.to_string());
    GPU.with(|g| *g.borrow_mut() = Some(got.clone()));
    got
}

/// The page's device for kernel runs, or `None` and why there is none (said beside CPU timings).
#[cfg(target_arch = "wasm32")]
async fn gpu_or_why() -> (Option<std::rc::Rc<stridelab_gpu::Gpu>>, String) {
    match page_gpu().await {
        Ok(g) => (Some(g), String::new()),
        Err(why) => (None, why),
    }
}

/// Runs the kernels of the statement the viewer stands after (`step` statements run) on WebGPU
/// when the browser has it, else on the CPU IR executor, checks them against the interpreter and
/// resolves to the panel's JSON (see [`kernels::step_kernels`]); rejects with the reason on failure.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = runKernels)]
pub async fn run_kernels(src: String, step: usize) -> Result<String, JsValue> {
    let (gpu, why) = gpu_or_why().await;
    kernels::step_kernels(&src, step, gpu.as_deref(), &why)
        .await
        .map(|j| j.to_string())
        .map_err(|e| JsValue::from_str(&e))
}

/// Runs every statement's kernels of `src`, in order, on WebGPU when the browser has it, else on
/// the CPU executor, each checked against the interpreter; resolves to the timeline's JSON (see
/// [`kernels::trace_kernels`]).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = runTraceKernels)]
pub async fn run_trace_kernels(src: String) -> Result<String, JsValue> {
    let (gpu, why) = gpu_or_why().await;
    kernels::trace_kernels(&src, gpu.as_deref(), &why).await.map(|j| j.to_string()).map_err(|e| JsValue::from_str(&e))
}

/// Asks the browser for a WebGPU adapter and device; resolves to the device's description
/// (adapter name, backend, timestamp-query support) or rejects with why there is none.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(js_name = gpuInfo)]
pub async fn gpu_info() -> Result<String, JsValue> {
    let gpu = page_gpu().await.map_err(|e| JsValue::from_str(&e))?;
    serde_json::to_string(&gpu.describe()).map_err(|e| JsValue::from_str(&e.to_string()))
}

#[cfg(test)]
mod tests;
