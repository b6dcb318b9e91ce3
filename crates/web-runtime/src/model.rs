//! The page's model runner (`WebModel`): an ONNX file or a capture, prepared once on the page's
//! WebGPU device (buffers, weights, pipelines) or, without one, replayed on the CPU interpreter,
//! then run on pixel batches. Everything crosses to JavaScript as JSON strings and every failure
//! as a rejection carrying the exact reason, so the page shows it as is.
//!
//! Which backend is faster depends on the device (a software WebGPU such as SwiftShader can be
//! slower than the interpreter in wasm), so the caller may pick one or ask for `auto`: both are
//! prepared, one warm run of each is timed, and the faster one is kept, with the figures in
//! `info()`.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::{json, Map, Value as Json};
use stridelab_core::capture::{Capture, CpuKernels, CpuPlan, Role};
use stridelab_core::model::HostTensor;
use stridelab_core::uop::buffer::Data;
use stridelab_gpu::model::capture_onnx;
use stridelab_gpu::{Gpu, GpuModel, KernelTiming, TimingSource};

/// Where the model runs.
enum Backend {
    Gpu {
        gpu: Rc<Gpu>,
        model: GpuModel,
    },
    /// The capture on the CPU plan (direct f32 kernels in wasm); `why` says why not on a GPU.
    Cpu {
        why: String,
        plan: RefCell<CpuPlan>,
    },
}

/// What the caller asked for: a backend, or the faster of the two on this device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preference {
    Auto,
    WebGpu,
    Cpu,
}

impl Preference {
    /// Reads the page's spelling (`auto`, `webgpu`, `cpu`; absent means `auto`).
    pub fn parse(s: Option<&str>) -> Result<Preference, String> {
        match s.map(str::to_ascii_lowercase).as_deref() {
            None | Some("auto") | Some("") => Ok(Preference::Auto),
            Some("webgpu") => Ok(Preference::WebGpu),
            Some("cpu") => Ok(Preference::Cpu),
            Some(other) => Err(format!("backend {other:?} is not one of auto, webgpu, cpu")),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Preference::Auto => "auto",
            Preference::WebGpu => "webgpu",
            Preference::Cpu => "cpu",
        }
    }
}

/// A model ready to run: its capture (the single source of its signature and kernels) and the
/// backend it was prepared on.
pub struct Model {
    cap: Capture,
    backend: Backend,
    preference: Preference,
    /// Why this backend runs the model, in words.
    choice: String,
    /// One warm run's wall time on each backend, when `auto` timed them.
    probe_ms: Option<(f64, f64)>,
}

/// Milliseconds on a monotonic clock: `performance.now()` in the browser.
pub(crate) fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::JsCast;
        let perf = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok();
        let now = perf.as_ref().and_then(|p| js_sys::Reflect::get(p, &"now".into()).ok());
        match (perf, now.and_then(|f| f.dyn_into::<js_sys::Function>().ok())) {
            (Some(p), Some(f)) => f.call0(&p).ok().and_then(|v| v.as_f64()).unwrap_or_else(js_sys::Date::now),
            _ => js_sys::Date::now(),
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::OnceLock;
        static ORIGIN: OnceLock<std::time::Instant> = OnceLock::new();
        ORIGIN.get_or_init(std::time::Instant::now).elapsed().as_secs_f64() * 1e3
    }
}

impl Model {
    /// Captures `onnx` at `batch` in memory, then prepares it as [`Model::from_capture`] does.
    pub async fn from_onnx(
        onnx: &[u8],
        batch: usize,
        gpu: Result<Rc<Gpu>, String>,
        preference: Preference,
    ) -> Result<Model, String> {
        let (manifest, weights) =
            capture_onnx("model.onnx", onnx, &Default::default(), batch).map_err(|e| e.to_string())?;
        let text = serde_json::to_vec(&manifest).map_err(|e| e.to_string())?;
        let cap = Capture::load(&text, &weights).map_err(|e| e.to_string())?;
        Model::prepare(cap, gpu, preference).await
    }

    /// Loads and checks a capture, then prepares it on the backend `preference` names; `auto`
    /// falls back to the CPU when there is no device (`gpu`'s `Err` says why) or the device
    /// cannot run it, while `webgpu` refuses then.
    pub async fn from_capture(
        manifest: &[u8],
        weights: &[u8],
        gpu: Result<Rc<Gpu>, String>,
        preference: Preference,
    ) -> Result<Model, String> {
        let cap = Capture::load(manifest, weights).map_err(|e| e.to_string())?;
        Model::prepare(cap, gpu, preference).await
    }

    async fn prepare(cap: Capture, gpu: Result<Rc<Gpu>, String>, preference: Preference) -> Result<Model, String> {
        let cpu = |why: String| -> Result<Model, String> {
            let plan = cap.cpu_plan(CpuKernels::Fast).map_err(|e| e.to_string())?;
            Ok(Model {
                cap: cap.clone(),
                backend: Backend::Cpu { why: why.clone(), plan: RefCell::new(plan) },
                preference,
                choice: why,
                probe_ms: None,
            })
        };
        if preference == Preference::Cpu {
            return cpu("the CPU backend was asked for".to_string());
        }
        let gpu = match gpu {
            Ok(gpu) => gpu,
            Err(why) if preference == Preference::Auto => return cpu(why),
            Err(why) => return Err(format!("the WebGPU backend was asked for, but there is no device: {why}")),
        };
        let model = match GpuModel::prepare(&gpu, &cap).await {
            Ok(model) => model,
            Err(e) if preference == Preference::Auto => {
                return cpu(format!("the WebGPU device cannot run this capture: {e}"));
            }
            Err(e) => return Err(format!("the WebGPU device cannot run this capture: {e}")),
        };
        let on_gpu = Model {
            cap: cap.clone(),
            backend: Backend::Gpu { gpu, model },
            preference,
            choice: "the WebGPU backend was asked for".to_string(),
            probe_ms: None,
        };
        if preference == Preference::WebGpu {
            return Ok(on_gpu);
        }
        // Auto: one warm-up and one timed run of each on a zero input; the first run of either
        // pays for one-off work (pipeline creation, allocation) that says nothing of the rest.
        let on_cpu = cpu(String::new())?;
        let gpu_ms = on_gpu.probe().await?;
        let cpu_ms = on_cpu.probe().await?;
        let figures = format!("one warm run took {cpu_ms:.2} ms on the CPU, {gpu_ms:.2} ms on WebGPU");
        let mut chosen = if cpu_ms < gpu_ms {
            let why = format!("auto: the CPU was faster here ({figures})");
            let backend = match on_cpu.backend {
                Backend::Cpu { plan, .. } => Backend::Cpu { why: why.clone(), plan },
                gpu => gpu,
            };
            Model { backend, choice: why, ..on_cpu }
        } else {
            Model { choice: format!("auto: WebGPU was at least as fast here ({figures})"), ..on_gpu }
        };
        chosen.probe_ms = Some((cpu_ms, gpu_ms));
        Ok(chosen)
    }

    /// Wall milliseconds of one run on a zero input, after one untimed run.
    async fn probe(&self) -> Result<f64, String> {
        let m = self.cap.manifest();
        let n = m.inputs.first().map_or(0, |&i| m.buffers[i].shape.iter().product());
        self.run(vec![0.0; n]).await?;
        let start = now_ms();
        self.run(vec![0.0; n]).await?;
        Ok(now_ms() - start)
    }

    pub fn backend_name(&self) -> &'static str {
        match self.backend {
            Backend::Gpu { .. } => "WebGPU",
            Backend::Cpu { .. } => "CPU",
        }
    }

    /// The model's signature, device and kernels (the contract's `info()`).
    pub fn info(&self) -> Json {
        let m = self.cap.manifest();
        let port = |&id: &usize| {
            let b = &m.buffers[id];
            json!({"name": b.name, "shape": b.shape, "dtype": b.dtype.to_string()})
        };
        let kernels: Vec<Json> = m
            .schedule
            .iter()
            .flat_map(|&k| {
                let kernel = &m.kernels[k];
                let last = kernel.gpu.len().saturating_sub(1);
                kernel.gpu.iter().enumerate().map(move |(i, g)| {
                    let (mut read, mut written) = (0, 0);
                    for b in &g.bindings {
                        let size = m.buffers.get(b.buffer).map_or(0, |x| x.size);
                        if b.access == "read" {
                            read += size;
                        } else {
                            written += size;
                        }
                    }
                    json!({
                        "name": format!("{}.{}", kernel.name, g.name),
                        "op": kernel.op,
                        "wgsl": g.wgsl,
                        "dispatch": g.workgroups,
                        "workgroup": g.workgroup_size,
                        "bytes_read": read,
                        "bytes_written": written,
                        "flops": if i == last { kernel.cost.flops } else { 0 },
                    })
                })
            })
            .collect();
        let (adapter, why) = match &self.backend {
            Backend::Gpu { gpu, .. } => (json!(gpu.describe()), Json::Null),
            Backend::Cpu { why, .. } => (Json::Null, json!(why)),
        };
        json!({
            "name": m.model.name,
            "backend": self.backend_name(),
            "preference": self.preference.name(),
            "choice": self.choice,
            "probe_ms": self.probe_ms.map(|(cpu, gpu)| json!({"cpu": cpu, "webgpu": gpu})),
            "adapter": adapter,
            "no_gpu": why,
            "batch": m.inputs.first().and_then(|&i| m.buffers[i].shape.first()).copied().unwrap_or(1),
            "inputs": m.inputs.iter().map(port).collect::<Vec<_>>(),
            "outputs": m.outputs.iter().map(port).collect::<Vec<_>>(),
            "weights_bytes": m.buffers.iter().filter(|b| b.role == Role::Weight).map(|b| b.size).sum::<usize>(),
            "kernels": kernels,
        })
    }

    /// The model as a graph (what Netron shows, from the capture): its ops in execution order,
    /// each with its ONNX name, op type and attributes, the values it reads and writes (name,
    /// shape, dtype, role: input, weight, intermediate, output), the ops that produced its inputs,
    /// and the names of the GPU kernels it became (as `info().kernels` names them).
    pub fn graph(&self) -> Json {
        let m = self.cap.manifest();
        // Which op wrote each buffer, found once (a lookup per value would be quadratic in a
        // large model).
        let mut writer: Vec<Option<usize>> = vec![None; m.buffers.len()];
        for (k, op) in m.kernels.iter().enumerate() {
            for &w in &op.writes {
                if let Some(slot) = writer.get_mut(w) {
                    slot.get_or_insert(k);
                }
            }
        }
        let producer = |id: usize| writer.get(id).copied().flatten();
        let value = |id: usize| {
            let b = &m.buffers[id];
            json!({"buffer": id, "name": b.name, "shape": b.shape, "dtype": b.dtype.to_string(),
                   "role": format!("{:?}", b.role).to_lowercase(), "from": producer(id)})
        };
        let nodes: Vec<Json> = m
            .schedule
            .iter()
            .map(|&k| {
                let op = &m.kernels[k];
                json!({
                    "id": k,
                    "name": op.name,
                    "op": op.op,
                    "attributes": op.attributes,
                    "inputs": op.reads.iter().map(|r| r.map_or(Json::Null, value)).collect::<Vec<_>>(),
                    "outputs": op.writes.iter().map(|&w| value(w)).collect::<Vec<_>>(),
                    "kernels": op.gpu.iter().map(|g| format!("{}.{}", op.name, g.name)).collect::<Vec<_>>(),
                })
            })
            .collect();
        json!({
            "name": m.model.name,
            "inputs": m.inputs.iter().map(|&i| value(i)).collect::<Vec<_>>(),
            "outputs": m.outputs.iter().map(|&i| value(i)).collect::<Vec<_>>(),
            "nodes": nodes,
        })
    }

    /// Runs the model on `input` (the single float32 input, all of it, in its layout) and
    /// returns the contract's run JSON.
    pub async fn run(&self, input: Vec<f32>) -> Result<Json, String> {
        let start = now_ms();
        let m = self.cap.manifest();
        let [id] = m.inputs.as_slice() else {
            return Err(format!("the model takes {} inputs; the page feeds exactly one", m.inputs.len()));
        };
        let b = &m.buffers[*id];
        let want: usize = b.shape.iter().product();
        if input.len() != want {
            return Err(format!("input {:?} is {} {:?}: {want} values, got {}", b.name, b.dtype, b.shape, input.len()));
        }
        let (outputs, kernels, gpu_ms) = match &self.backend {
            Backend::Gpu { gpu, model } => {
                let r = model.run(gpu, &[Data::F32(input)]).await.map_err(|e| e.to_string())?;
                (r.outputs, r.timings.iter().map(timing_json).collect::<Vec<_>>(), r.gpu_ns.map(|ns| ns / 1e6))
            }
            Backend::Cpu { plan, .. } => {
                let x = HostTensor::new(b.shape.clone(), Data::F32(input)).map_err(|e| e.to_string())?;
                let mut clock = now_ms;
                // Runs never overlap: `run` holds the plan only while it computes, with no await.
                let mut plan = plan.try_borrow_mut().map_err(|_| "the model is already running".to_string())?;
                let r = plan.run(&[(&b.name, x)], &mut clock).map_err(|e| e.to_string())?;
                // A kernel shorter than one step of the host clock reads as 0 or one step: say so
                // rather than show that as its time.
                let step_ms = clock_step_ms();
                // Each step says whether a direct f32 kernel ran it or the interpreter did.
                let kernels = r
                    .timings
                    .iter()
                    .zip(plan.steps())
                    .map(|(t, (_, direct))| {
                        json!({"name": t.name, "ms": t.elapsed, "below_resolution": t.elapsed <= step_ms,
                               "resolution_ms": step_ms, "source": "wallclock", "direct": direct})
                    })
                    .collect();
                (r.outputs, kernels, None)
            }
        };
        let wall_ms = now_ms() - start;
        let mut map = Map::new();
        for (name, t) in &outputs {
            map.insert(name.clone(), json!({"shape": t.shape(), "values": t.data().to_f64_vec()}));
        }
        Ok(json!({"outputs": map, "kernels": kernels, "gpu_ms": gpu_ms, "wall_ms": wall_ms}))
    }
}

/// The host clock's step, measured once per page (measuring spins for up to a few steps).
fn clock_step_ms() -> f64 {
    static STEP: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *STEP.get_or_init(|| stridelab_gpu::run::clock_step_ns() / 1e6)
}

fn timing_json(t: &KernelTiming) -> Json {
    let source = match t.source() {
        TimingSource::Timestamp => "timestamp",
        _ => "wallclock",
    };
    json!({
        "name": t.name(),
        "ms": t.time_ns().map(|ns| ns / 1e6),
        // Only a clock that measured can be below its resolution; untimed runs say `ms: null`.
        "below_resolution": t.source() == TimingSource::Timestamp && t.below_resolution(),
        "source": source,
    })
}

#[cfg(target_arch = "wasm32")]
mod bindings {
    use std::rc::Rc;

    use wasm_bindgen::prelude::*;

    use super::{Model, Preference};

    /// A model prepared for the page: see the module documentation.
    #[wasm_bindgen]
    pub struct WebModel {
        inner: Rc<Model>,
    }

    #[wasm_bindgen]
    impl WebModel {
        /// Validates and imports an ONNX file and captures it at `batch`; `backend` is `auto`
        /// (the default), `webgpu` or `cpu`.
        #[wasm_bindgen(js_name = fromOnnx)]
        pub async fn from_onnx(bytes: Vec<u8>, batch: usize, backend: Option<String>) -> Result<WebModel, JsValue> {
            let pref = Preference::parse(backend.as_deref()).map_err(|e| JsValue::from_str(&e))?;
            let gpu = crate::page_gpu().await;
            let inner = Model::from_onnx(&bytes, batch, gpu, pref).await.map_err(|e| JsValue::from_str(&e))?;
            Ok(WebModel { inner: Rc::new(inner) })
        }

        /// Loads a capture (manifest JSON and safetensors weights); `backend` as for `fromOnnx`.
        #[wasm_bindgen(js_name = fromCapture)]
        pub async fn from_capture(
            manifest: Vec<u8>,
            weights: Vec<u8>,
            backend: Option<String>,
        ) -> Result<WebModel, JsValue> {
            let pref = Preference::parse(backend.as_deref()).map_err(|e| JsValue::from_str(&e))?;
            let gpu = crate::page_gpu().await;
            let inner = Model::from_capture(&manifest, &weights, gpu, pref).await.map_err(|e| JsValue::from_str(&e))?;
            Ok(WebModel { inner: Rc::new(inner) })
        }

        pub fn info(&self) -> String {
            self.inner.info().to_string()
        }

        /// The model's graph: see `Model::graph`.
        pub fn graph(&self) -> String {
            self.inner.graph().to_string()
        }

        /// Resolves to the run's JSON; the model stays usable while a run is in flight.
        pub fn run(&self, input: Vec<f32>) -> js_sys::Promise {
            let inner = Rc::clone(&self.inner);
            wasm_bindgen_futures::future_to_promise(async move {
                inner.run(input).await.map(|j| JsValue::from_str(&j.to_string())).map_err(|e| JsValue::from_str(&e))
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stridelab_core::model::idx_images;

    fn data(rel: &str) -> Vec<u8> {
        let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    enum Source {
        Onnx(usize),
        Capture { corrupt_weights: bool },
    }

    struct Case {
        name: &'static str,
        source: Source,
        /// Prepare with the machine's GPU (the case is skipped, saying so, without an adapter).
        gpu: bool,
        pref: Preference,
        /// Values fed to `run` (`None`: the first `batch` MNIST images).
        input_len: Option<usize>,
        /// `Ok(batch)`: the run matches onnxruntime's first `batch` rows within 1e-4;
        /// `Err(fragment)`: loading or running fails with a message containing it.
        expect: Result<usize, &'static str>,
    }

    /// Why the CPU-only cases have no GPU.
    const NO_GPU: &str = "tests run the CPU backend";

    fn check(cases: &[Case]) {
        let ort: serde_json::Value = serde_json::from_slice(&data("models/mnist_cnn_ort64.json")).unwrap();
        let ort: Vec<f64> = ort["output"]["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        for c in cases {
            let no_gpu = if c.gpu {
                match pollster::block_on(stridelab_gpu::acquire(&Default::default())) {
                    Ok(g) => Ok(Rc::new(g)),
                    Err(e) => {
                        eprintln!("{}: skipped: no GPU adapter on this machine ({e})", c.name);
                        continue;
                    }
                }
            } else {
                Err(NO_GPU.to_string())
            };
            let loaded = pollster::block_on(async {
                match c.source {
                    Source::Onnx(batch) => {
                        Model::from_onnx(&data("models/mnist_cnn.onnx"), batch, no_gpu, c.pref).await
                    }
                    Source::Capture { corrupt_weights } => {
                        let mut w = data("models/mnist_cnn.capture/weights.safetensors");
                        if corrupt_weights {
                            let last = w.len() - 1;
                            w[last] ^= 1;
                        }
                        Model::from_capture(&data("models/mnist_cnn.capture/manifest.json"), &w, no_gpu, c.pref).await
                    }
                }
            });
            let model = match (loaded, c.expect) {
                (Err(e), Err(frag)) => {
                    assert!(e.contains(frag), "{}: {e:?} lacks {frag:?}", c.name);
                    continue;
                }
                (Err(e), Ok(_)) => panic!("{}: {e}", c.name),
                (Ok(m), _) => m,
            };
            let info = model.info();
            assert_eq!(info["preference"], c.pref.name(), "{}", c.name);
            // Auto with a device times both and keeps the faster; otherwise nothing is timed.
            let probed = c.gpu && c.pref == Preference::Auto;
            assert_eq!(info["probe_ms"].is_object(), probed, "{}: {}", c.name, info["probe_ms"]);
            let on_gpu = if probed {
                let (cpu, gpu) =
                    (info["probe_ms"]["cpu"].as_f64().unwrap(), info["probe_ms"]["webgpu"].as_f64().unwrap());
                assert!(cpu > 0.0 && gpu > 0.0, "{}: {}", c.name, info["probe_ms"]);
                assert!(info["choice"].as_str().unwrap().starts_with("auto: "), "{}: {}", c.name, info["choice"]);
                gpu <= cpu
            } else {
                c.gpu && c.pref == Preference::WebGpu
            };
            if on_gpu {
                assert_eq!(info["backend"], "WebGPU", "{}: {}", c.name, info["no_gpu"]);
                assert!(info["adapter"]["name"].is_string(), "{}: {}", c.name, info["adapter"]);
                assert!(info["no_gpu"].is_null(), "{}", c.name);
            } else {
                assert_eq!(info["backend"], "CPU", "{}", c.name);
                let why = match c.pref {
                    _ if probed => info["choice"].as_str().unwrap().to_string(),
                    Preference::Cpu => "the CPU backend was asked for".to_string(),
                    _ => NO_GPU.to_string(),
                };
                assert_eq!(info["no_gpu"], why.as_str(), "{}", c.name);
                assert_eq!(info["choice"], why.as_str(), "{}", c.name);
            }
            let batch = info["batch"].as_u64().unwrap() as usize;
            assert_eq!(info["inputs"][0], json!({"name": "input", "shape": [batch, 1, 28, 28], "dtype": "float32"}));
            assert_eq!(info["outputs"][0], json!({"name": "logits", "shape": [batch, 10], "dtype": "float32"}));
            assert_eq!(
                info["weights_bytes"].as_u64(),
                Some(4 * 9098 + 8),
                "{}: parameters plus the two constants",
                c.name
            );
            assert_eq!(info["kernels"].as_array().unwrap().len(), 9, "{}", c.name);
            let x = match c.input_len {
                Some(n) => vec![0.5; n],
                None => idx_images("t10k", &data("mnist/t10k-images-1k-idx3-ubyte.gz"), Some(batch))
                    .unwrap()
                    .into_data()
                    .to_f64_vec()
                    .into_iter()
                    .map(|v| v as f32)
                    .collect(),
            };
            match (pollster::block_on(model.run(x)), c.expect) {
                (Ok(r), Ok(n)) => {
                    assert_eq!(r["outputs"]["logits"]["shape"], json!([n, 10]), "{}", c.name);
                    let got = r["outputs"]["logits"]["values"].as_array().unwrap();
                    for (i, (g, w)) in got.iter().zip(&ort[..n * 10]).enumerate() {
                        let g = g.as_f64().unwrap();
                        assert!((g - w).abs() <= 1e-4, "{}: value {i} is {g}, onnxruntime {w}", c.name);
                    }
                    let kernels = r["kernels"].as_array().unwrap();
                    assert!(r["wall_ms"].as_f64().unwrap() > 0.0, "{}", c.name);
                    if on_gpu {
                        // One timing per dispatch; the flatten is a view and dispatches nothing.
                        assert_eq!(kernels.len(), 9, "{}", c.name);
                        let timed = kernels.iter().all(|k| k["source"] == "timestamp");
                        assert!(timed || kernels.iter().all(|k| k["source"] == "wallclock" && k["ms"].is_null()));
                        assert_eq!(r["gpu_ms"].is_number(), timed && kernels.iter().all(|k| k["ms"].is_number()));
                    } else {
                        // One timing per plan step: each op, except each Relu and MaxPool,
                        // which run inside the convolution before them.
                        let names: Vec<&str> = kernels.iter().map(|k| k["name"].as_str().unwrap()).collect();
                        assert_eq!(names.len(), 6, "{}: {names:?}", c.name);
                        assert_eq!(
                            (names[2], names[3]),
                            ("k4_conv+k5_relu+k6_maxpool", "k7_conv+k8_relu+k9_maxpool"),
                            "{}",
                            c.name
                        );
                        assert!(kernels.iter().all(|k| k["direct"] == true), "{}", c.name);
                        assert!(r["gpu_ms"].is_null(), "{}", c.name);
                        for k in kernels {
                            let (ms, step) = (k["ms"].as_f64().unwrap(), k["resolution_ms"].as_f64().unwrap());
                            assert!(step > 0.0, "{}: the host clock's step is measured", c.name);
                            assert_eq!(k["below_resolution"], json!(ms <= step), "{}: {k}", c.name);
                        }
                    }
                }
                (Err(e), Err(frag)) => assert!(e.contains(frag), "{}: {e:?} lacks {frag:?}", c.name),
                (r, want) => panic!("{}: got {r:?}, expected {want:?}", c.name),
            }
        }
    }

    #[test]
    fn backend_preferences() {
        let cases: [(Option<&str>, Result<Preference, &str>); 6] = [
            (None, Ok(Preference::Auto)),
            (Some("auto"), Ok(Preference::Auto)),
            (Some("WebGPU"), Ok(Preference::WebGpu)),
            (Some("cpu"), Ok(Preference::Cpu)),
            (Some(""), Ok(Preference::Auto)),
            (Some("wasm"), Err("backend \"wasm\" is not one of auto, webgpu, cpu")),
        ];
        for (text, want) in cases {
            assert_eq!(Preference::parse(text), want.map_err(str::to_string), "{text:?}");
            if let Ok(p) = want {
                assert_eq!(Preference::parse(Some(p.name())), Ok(p), "{text:?} round-trips");
            }
        }
    }

    #[test]
    fn models_on_a_native_gpu() {
        check(&[
            Case {
                name: "onnx at batch 4 on the GPU",
                source: Source::Onnx(4),
                gpu: true,
                pref: Preference::WebGpu,
                input_len: None,
                expect: Ok(4),
            },
            Case {
                name: "auto at batch 2 keeps the faster backend",
                source: Source::Onnx(2),
                gpu: true,
                pref: Preference::Auto,
                input_len: None,
                expect: Ok(2),
            },
            Case {
                name: "short input on the GPU",
                source: Source::Onnx(1),
                gpu: true,
                pref: Preference::WebGpu,
                input_len: Some(783),
                expect: Err("784 values, got 783"),
            },
        ]);
    }

    #[test]
    fn models_on_the_cpu_backend() {
        check(&[
            Case {
                name: "onnx at batch 3",
                gpu: false,
                pref: Preference::Auto,
                source: Source::Onnx(3),
                input_len: None,
                expect: Ok(3),
            },
            Case {
                name: "committed capture",
                gpu: false,
                pref: Preference::Auto,
                source: Source::Capture { corrupt_weights: false },
                input_len: None,
                expect: Ok(1),
            },
            Case {
                name: "cpu asked for",
                gpu: false,
                pref: Preference::Cpu,
                source: Source::Onnx(2),
                input_len: None,
                expect: Ok(2),
            },
            Case {
                name: "webgpu asked for without a device",
                gpu: false,
                pref: Preference::WebGpu,
                source: Source::Onnx(1),
                input_len: None,
                expect: Err("the WebGPU backend was asked for, but there is no device: tests run the CPU backend"),
            },
            Case {
                name: "corrupt weights",
                gpu: false,
                pref: Preference::Auto,
                source: Source::Capture { corrupt_weights: true },
                input_len: None,
                expect: Err("sha256 mismatch"),
            },
            Case {
                name: "short input",
                gpu: false,
                pref: Preference::Auto,
                source: Source::Onnx(2),
                input_len: Some(784),
                expect: Err("1568 values, got 784"),
            },
            Case {
                name: "batch 0",
                gpu: false,
                pref: Preference::Auto,
                source: Source::Onnx(0),
                input_len: None,
                expect: Err("batch size must be at least 1"),
            },
        ]);
    }
}

/// The sample CNN's graph: its ops in order, joined by the values between them, each with the
/// kernels it became.
#[cfg(test)]
mod graph_tests {
    use super::*;

    #[test]
    fn the_sample_models_graph() {
        let bytes = std::fs::read(
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/models/mnist_cnn.onnx"),
        )
        .expect("the sample model");
        let no_gpu = Err("no GPU in this test".to_string());
        let model = pollster::block_on(Model::from_onnx(&bytes, 1, no_gpu, Preference::Cpu)).expect("the sample loads");
        let g = model.graph();
        let nodes = g["nodes"].as_array().expect("nodes");
        let ops: Vec<&str> = nodes.iter().filter_map(|n| n["op"].as_str()).collect();
        assert!(["Conv", "Gemm", "MaxPool", "Relu"].iter().all(|op| ops.contains(op)), "{ops:?}");
        let conv = nodes.iter().find(|n| n["op"] == "Conv").expect("a Conv");
        assert!(conv["attributes"].get("kernel_shape").is_some(), "{conv}");
        // The first op reads the model's input; the Conv reads the normalized image, a weight and a
        // bias, and became at least one kernel.
        assert_eq!(nodes[0]["inputs"][0]["role"], "input", "{}", nodes[0]);
        let roles: Vec<&str> =
            conv["inputs"].as_array().into_iter().flatten().filter_map(|v| v["role"].as_str()).collect();
        assert_eq!(roles, ["intermediate", "weight", "weight"], "{conv}");
        assert!(conv["kernels"].as_array().is_some_and(|k| !k.is_empty()), "{conv}");
        // Every later op reads at least one value an earlier op wrote, and names that op.
        for n in &nodes[1..] {
            let from: Vec<u64> =
                n["inputs"].as_array().into_iter().flatten().filter_map(|v| v["from"].as_u64()).collect();
            assert!(!from.is_empty(), "{n}");
        }
        assert_eq!(g["outputs"][0]["role"], "output");
        assert_eq!(g["outputs"][0]["shape"], json!([1, 10]));
    }
}
