//! The page's model runner (`WebModel`): an ONNX file or a capture, prepared once on the page's
//! WebGPU device (buffers, weights, pipelines) or, without one, replayed on the CPU interpreter,
//! then run on pixel batches. Everything crosses to JavaScript as JSON strings and every failure
//! as a rejection carrying the exact reason, so the page shows it as is.

use std::rc::Rc;

use serde_json::{json, Map, Value as Json};
use stridelab_core::capture::{Capture, Role};
use stridelab_core::model::HostTensor;
use stridelab_core::uop::data::Data;
use stridelab_gpu::model::capture_onnx;
use stridelab_gpu::{Gpu, GpuModel, KernelTiming, TimingSource};

/// Where the model runs.
enum Backend {
    Gpu {
        gpu: Rc<Gpu>,
        model: GpuModel,
    },
    /// The capture replayed on the interpreter; `why` says why not on a GPU.
    Cpu {
        why: String,
    },
}

/// A model ready to run: its capture (the single source of its signature and kernels) and the
/// backend it was prepared on.
pub struct Model {
    cap: Capture,
    backend: Backend,
}

/// Milliseconds on a monotonic clock: `performance.now()` in the browser.
fn now_ms() -> f64 {
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
    pub async fn from_onnx(onnx: &[u8], batch: usize, gpu: Result<Rc<Gpu>, String>) -> Result<Model, String> {
        let (manifest, weights) = capture_onnx("model.onnx", onnx, batch).map_err(|e| e.to_string())?;
        let text = serde_json::to_vec(&manifest).map_err(|e| e.to_string())?;
        let cap = Capture::load(&text, &weights).map_err(|e| e.to_string())?;
        Ok(Model::prepare(cap, gpu).await)
    }

    /// Loads and checks a capture, then prepares it on `gpu`, or on the CPU when there is no
    /// device (`Err` says why) or the device cannot run it.
    pub async fn from_capture(manifest: &[u8], weights: &[u8], gpu: Result<Rc<Gpu>, String>) -> Result<Model, String> {
        let cap = Capture::load(manifest, weights).map_err(|e| e.to_string())?;
        Ok(Model::prepare(cap, gpu).await)
    }

    async fn prepare(cap: Capture, gpu: Result<Rc<Gpu>, String>) -> Model {
        let backend = match gpu {
            Ok(gpu) => match GpuModel::prepare(&gpu, &cap).await {
                Ok(model) => Backend::Gpu { gpu, model },
                Err(e) => Backend::Cpu { why: format!("the WebGPU device cannot run this capture: {e}") },
            },
            Err(why) => Backend::Cpu { why },
        };
        Model { cap, backend }
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
            Backend::Gpu { gpu, .. } => (gpu.describe(), Json::Null),
            Backend::Cpu { why } => (Json::Null, json!(why)),
        };
        json!({
            "name": m.model.name,
            "backend": self.backend_name(),
            "adapter": adapter,
            "no_gpu": why,
            "batch": m.inputs.first().and_then(|&i| m.buffers[i].shape.first()).copied().unwrap_or(1),
            "inputs": m.inputs.iter().map(port).collect::<Vec<_>>(),
            "outputs": m.outputs.iter().map(port).collect::<Vec<_>>(),
            "weights_bytes": m.buffers.iter().filter(|b| b.role == Role::Weight).map(|b| b.size).sum::<usize>(),
            "kernels": kernels,
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
            Backend::Cpu { .. } => {
                let x = HostTensor::new(b.shape.clone(), Data::F32(input)).map_err(|e| e.to_string())?;
                let mut clock = now_ms;
                let r = self.cap.replay(&[(&b.name, x)], &mut clock).map_err(|e| e.to_string())?;
                let kernels = r
                    .timings
                    .iter()
                    .map(|t| json!({"name": t.name, "ms": t.elapsed, "below_resolution": false, "source": "wallclock"}))
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

    use super::Model;

    /// A model prepared for the page: see the module documentation.
    #[wasm_bindgen]
    pub struct WebModel {
        inner: Rc<Model>,
    }

    #[wasm_bindgen]
    impl WebModel {
        /// Validates and imports an ONNX file and captures it at `batch`.
        #[wasm_bindgen(js_name = fromOnnx)]
        pub async fn from_onnx(bytes: Vec<u8>, batch: usize) -> Result<WebModel, JsValue> {
            let gpu = crate::page_gpu().await;
            let inner = Model::from_onnx(&bytes, batch, gpu).await.map_err(|e| JsValue::from_str(&e))?;
            Ok(WebModel { inner: Rc::new(inner) })
        }

        /// Loads a capture (manifest JSON and safetensors weights).
        #[wasm_bindgen(js_name = fromCapture)]
        pub async fn from_capture(manifest: Vec<u8>, weights: Vec<u8>) -> Result<WebModel, JsValue> {
            let gpu = crate::page_gpu().await;
            let inner = Model::from_capture(&manifest, &weights, gpu).await.map_err(|e| JsValue::from_str(&e))?;
            Ok(WebModel { inner: Rc::new(inner) })
        }

        pub fn info(&self) -> String {
            self.inner.info().to_string()
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
        /// Prepare on the machine's GPU (the case is skipped, saying so, without an adapter).
        gpu: bool,
        /// Values fed to `run` (`None`: the first `batch` MNIST images).
        input_len: Option<usize>,
        /// `Ok(batch)`: the run matches onnxruntime's first `batch` rows within 1e-4;
        /// `Err(fragment)`: loading or running fails with a message containing it.
        expect: Result<usize, &'static str>,
    }

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
                Err("tests run the CPU backend".to_string())
            };
            let loaded = pollster::block_on(async {
                match c.source {
                    Source::Onnx(batch) => Model::from_onnx(&data("models/mnist_cnn.onnx"), batch, no_gpu).await,
                    Source::Capture { corrupt_weights } => {
                        let mut w = data("models/mnist_cnn.capture/weights.safetensors");
                        if corrupt_weights {
                            let last = w.len() - 1;
                            w[last] ^= 1;
                        }
                        Model::from_capture(&data("models/mnist_cnn.capture/manifest.json"), &w, no_gpu).await
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
            if c.gpu {
                assert_eq!(info["backend"], "WebGPU", "{}: {}", c.name, info["no_gpu"]);
                assert!(info["adapter"]["name"].is_string(), "{}: {}", c.name, info["adapter"]);
            } else {
                assert_eq!(info["backend"], "CPU", "{}", c.name);
                assert_eq!(info["no_gpu"], "tests run the CPU backend", "{}", c.name);
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
                    if c.gpu {
                        // One timing per dispatch; the flatten is a view and dispatches nothing.
                        assert_eq!(kernels.len(), 9, "{}", c.name);
                        let timed = kernels.iter().all(|k| k["source"] == "timestamp");
                        assert!(timed || kernels.iter().all(|k| k["source"] == "wallclock" && k["ms"].is_null()));
                        assert_eq!(r["gpu_ms"].is_number(), timed && kernels.iter().all(|k| k["ms"].is_number()));
                    } else {
                        assert_eq!(kernels.len(), 10, "{}: one timing per op", c.name);
                        assert!(r["gpu_ms"].is_null(), "{}", c.name);
                    }
                }
                (Err(e), Err(frag)) => assert!(e.contains(frag), "{}: {e:?} lacks {frag:?}", c.name),
                (r, want) => panic!("{}: got {r:?}, expected {want:?}", c.name),
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
                input_len: None,
                expect: Ok(4),
            },
            Case {
                name: "short input on the GPU",
                source: Source::Onnx(1),
                gpu: true,
                input_len: Some(783),
                expect: Err("784 values, got 783"),
            },
        ]);
    }

    #[test]
    fn models_on_the_cpu_backend() {
        check(&[
            Case { name: "onnx at batch 3", gpu: false, source: Source::Onnx(3), input_len: None, expect: Ok(3) },
            Case {
                name: "committed capture",
                gpu: false,
                source: Source::Capture { corrupt_weights: false },
                input_len: None,
                expect: Ok(1),
            },
            Case {
                name: "corrupt weights",
                gpu: false,
                source: Source::Capture { corrupt_weights: true },
                input_len: None,
                expect: Err("sha256 mismatch"),
            },
            Case {
                name: "short input",
                gpu: false,
                source: Source::Onnx(2),
                input_len: Some(784),
                expect: Err("1568 values, got 784"),
            },
            Case {
                name: "batch 0",
                gpu: false,
                source: Source::Onnx(0),
                input_len: None,
                expect: Err("batch size must be at least 1"),
            },
        ]);
    }
}
