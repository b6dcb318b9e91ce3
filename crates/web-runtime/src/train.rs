//! The Train panel's runtime: the core's training plan (`stridelab_core::train`) on the CPU in
//! wasm, or the GPU trainer (`stridelab_gpu::train`) on WebGPU, run in time slices so the page
//! stays responsive between them. The page hands it the MNIST files as fetched (gzip or raw
//! IDX) and a small JSON config; each slice answers with the steps it ran (loss, batch
//! accuracy, time) and the last step's kernels. Evaluation and export run on the CPU trainer,
//! which a GPU run hands its parameters back to first.

use std::rc::Rc;

use serde::Deserialize;
use serde_json::{json, Value as Json};
use stridelab_core::train::{Architecture, LabelledImages, Optimizer, StepReport, TrainConfig, Trainer};
use stridelab_gpu::train::GpuTrainer;
use stridelab_gpu::Gpu;

use crate::model::now_ms;

/// What the page's form gives.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PageConfig {
    /// `adam`, `adamw` or `sgd`.
    optimizer: String,
    lr: f64,
    #[serde(default)]
    momentum: f64,
    #[serde(default)]
    weight_decay: Option<f64>,
    batch: usize,
    seed: u64,
}

impl PageConfig {
    fn optimizer(&self) -> Result<Optimizer, String> {
        let betas = (0.9, 0.999);
        let optimizer = match self.optimizer.as_str() {
            "adam" => Optimizer::Adam {
                lr: self.lr,
                betas,
                eps: 1e-8,
                weight_decay: self.weight_decay.unwrap_or(0.0),
                amsgrad: false,
            },
            "adamw" => Optimizer::AdamW {
                lr: self.lr,
                betas,
                eps: 1e-8,
                weight_decay: self.weight_decay.unwrap_or(1e-2),
                amsgrad: false,
            },
            "sgd" => Optimizer::Sgd {
                lr: self.lr,
                momentum: self.momentum,
                dampening: 0.0,
                nesterov: false,
                weight_decay: self.weight_decay.unwrap_or(0.0),
            },
            other => return Err(format!("unknown optimizer {other:?}: adam, adamw or sgd")),
        };
        // PyTorch's constructor checks, as the command line's `train` makes them.
        optimizer.check().map_err(|e| e.message().to_string())?;
        Ok(optimizer)
    }
}

/// Where the steps run.
enum Engine {
    Cpu(Box<Trainer>),
    Gpu { trainer: Box<GpuTrainer>, gpu: Rc<Gpu> },
}

/// A training run: the model and optimizer, the training set, and the test set once given.
pub struct Training {
    engine: Engine,
    train: LabelledImages,
    test: Option<LabelledImages>,
}

fn step_json(r: &StepReport) -> Json {
    json!({
        "step": r.step,
        "epoch": r.epoch,
        "loss": r.loss,
        "correct": r.correct,
        "size": r.size,
        "ms": r.kernels.iter().map(|k| k.ms).sum::<f64>(),
    })
}

impl Training {
    /// A fresh model from `config` (JSON: optimizer, lr, momentum, weight_decay, batch, seed)
    /// and the training images and labels (IDX, gzip or raw), trained on the CPU, or on `gpu`
    /// when one is given.
    pub async fn new(config: &str, images: &[u8], labels: &[u8], gpu: Option<Rc<Gpu>>) -> Result<Training, String> {
        let page: PageConfig = serde_json::from_str(config).map_err(|e| format!("training config: {e}"))?;
        let config = TrainConfig {
            architecture: Architecture::mnist_cnn(),
            seed: page.seed,
            batch: page.batch,
            optimizer: page.optimizer()?,
        };
        let train = LabelledImages::read_idx(("train-images", images), ("train-labels", labels))
            .map_err(|e| e.message().to_string())?;
        let engine = match gpu {
            None => Engine::Cpu(Box::new(Trainer::new(config).map_err(|e| e.message().to_string())?)),
            Some(gpu) => {
                let trainer = GpuTrainer::new(&gpu, config).await.map_err(|e| e.to_string())?;
                Engine::Gpu { trainer: Box::new(trainer), gpu }
            }
        };
        Ok(Training { engine, train, test: None })
    }

    /// The CPU trainer: the one that trains, or the one a GPU run keeps for its batch order
    /// and hands its parameters back to ([`Training::sync`]).
    fn cpu(&self) -> &Trainer {
        match &self.engine {
            Engine::Cpu(t) => t,
            Engine::Gpu { trainer, .. } => trainer.trainer(),
        }
    }

    /// Brings a GPU run's parameters back to its CPU trainer (nothing to do on the CPU).
    async fn sync(&mut self) -> Result<(), String> {
        match &mut self.engine {
            Engine::Cpu(_) => Ok(()),
            Engine::Gpu { trainer, gpu } => trainer.sync(gpu).await.map_err(|e| e.to_string()),
        }
    }

    /// The images the model is evaluated on (the 10,000 test images, or any labelled set).
    pub fn set_test(&mut self, images: &[u8], labels: &[u8]) -> Result<(), String> {
        self.test = Some(
            LabelledImages::read_idx(("test-images", images), ("test-labels", labels))
                .map_err(|e| e.message().to_string())?,
        );
        Ok(())
    }

    /// Steps until `budget_ms` has passed (at least one step, at most `max_steps`): each
    /// step's summary and the last step's kernels with their times.
    pub async fn run(&mut self, budget_ms: f64, max_steps: u32) -> Result<Json, String> {
        let start = now_ms();
        let (mut steps, mut last) = (Vec::new(), None);
        while steps.len() < max_steps.max(1) as usize && (steps.is_empty() || now_ms() - start < budget_ms) {
            let data = self.train.dataset();
            let r = match &mut self.engine {
                Engine::Cpu(t) => t.step(&data, &mut now_ms).map_err(|e| e.message().to_string())?,
                Engine::Gpu { trainer, gpu } => trainer.step(gpu, &data).await.map_err(|e| e.to_string())?,
            };
            steps.push(step_json(&r));
            last = Some(r);
        }
        let kernels: Vec<Json> = last
            .iter()
            .flat_map(|r| &r.kernels)
            .map(|k| json!({ "phase": k.phase, "name": k.name, "ms": k.ms }))
            .collect();
        let (epoch, total) = match &self.engine {
            Engine::Cpu(t) => (t.epoch(), t.steps()),
            Engine::Gpu { trainer, .. } => (trainer.trainer().epoch(), trainer.steps()),
        };
        Ok(json!({ "steps": steps, "kernels": kernels, "epoch": epoch, "total": total }))
    }

    /// Accuracy and loss on the test images `start..start + count` (clamped to the set), so
    /// the page evaluates 10,000 images in parts between frames and adds them up. A GPU run's
    /// parameters are read back at the first part; evaluation runs on the CPU.
    pub async fn evaluate(&mut self, start: usize, count: usize) -> Result<Json, String> {
        if self.test.is_none() {
            return Err("no test images are loaded".into());
        }
        if start == 0 {
            self.sync().await?;
        }
        let t0 = now_ms();
        let Training { engine, test: Some(test), .. } = self else { return Err("no test images are loaded".into()) };
        let trainer = match engine {
            Engine::Cpu(t) => t.as_mut(),
            Engine::Gpu { trainer, .. } => trainer.trainer_mut(),
        };
        let e = trainer
            .evaluate(&test.dataset(), start..start.saturating_add(count))
            .map_err(|e| e.message().to_string())?;
        Ok(json!({
            "correct": e.correct,
            "total": e.total,
            "loss": e.loss,
            "images": test.labels.len(),
            "ms": now_ms() - t0,
        }))
    }

    /// The architecture, parameters, configuration and epoch size.
    pub fn info(&self) -> Json {
        let trainer = self.cpu();
        let c = trainer.config();
        let backend = match &self.engine {
            Engine::Cpu(_) => "CPU (wasm)".to_string(),
            Engine::Gpu { gpu, .. } => format!("WebGPU ({})", gpu.adapter_info().name),
        };
        json!({
            "backend": backend,
            "architecture": c.architecture.describe(),
            "params": trainer.params().iter().map(|p| json!({ "name": p.name, "shape": p.shape })).collect::<Vec<_>>(),
            "parameters": trainer.params().iter().map(|p| p.data.len()).sum::<usize>(),
            "optimizer": c.optimizer,
            "optimizer_name": c.optimizer.name(),
            "batch": c.batch,
            "seed": c.seed,
            "train_images": self.train.labels.len(),
            "steps_per_epoch": self.train.labels.len().div_ceil(c.batch),
        })
    }

    /// The trained model as ONNX, which the model panel loads like any other.
    pub async fn onnx(&mut self) -> Result<Vec<u8>, String> {
        self.sync().await?;
        Ok(self.cpu().to_onnx())
    }

    /// The trained model as a capture at batch 1: the manifest's JSON and the safetensors
    /// weights, as `stridelab model replay` and the model panel load them.
    pub async fn capture(&mut self) -> Result<(Vec<u8>, Vec<u8>), String> {
        let onnx = self.onnx().await?;
        let (manifest, weights) = stridelab_gpu::model::capture_onnx("trained.onnx", &onnx, &Default::default(), 1)
            .map_err(|e| e.message().to_string())?;
        let json = serde_json::to_vec_pretty(&manifest).map_err(|e| e.to_string())?;
        Ok((json, weights))
    }
}

// The borrow held across each await is the lock: a second call while one is in flight gets
// `try_borrow_mut`'s refusal (BUSY), never a panic and never two steps interleaved.
#[cfg(target_arch = "wasm32")]
#[allow(clippy::await_holding_refcell_ref)]
mod bindings {
    use std::cell::RefCell;
    use std::rc::Rc;

    use wasm_bindgen::prelude::*;
    use wasm_bindgen_futures::future_to_promise;

    use super::Training;

    /// A training run in the page: see the module documentation. Its methods that run work
    /// return promises; one runs at a time (a second call while one is in flight is refused).
    #[wasm_bindgen]
    pub struct WebTrainer {
        inner: Rc<RefCell<Training>>,
    }

    const BUSY: &str = "the trainer is busy with another call";

    /// Runs `f` on the training run inside a promise, refusing a call while another is in flight.
    fn promise<F, Fut>(inner: &Rc<RefCell<Training>>, f: F) -> js_sys::Promise
    where
        F: FnOnce(Rc<RefCell<Training>>) -> Fut + 'static,
        Fut: std::future::Future<Output = Result<JsValue, String>> + 'static,
    {
        let inner = Rc::clone(inner);
        future_to_promise(async move { f(inner).await.map_err(|e| JsValue::from_str(&e)) })
    }

    #[wasm_bindgen]
    impl WebTrainer {
        /// A fresh run; `backend` is `cpu` (the default) or `webgpu`.
        pub async fn create(
            config: String,
            images: Vec<u8>,
            labels: Vec<u8>,
            backend: Option<String>,
        ) -> Result<WebTrainer, JsValue> {
            let gpu = match backend.as_deref() {
                None | Some("cpu") => None,
                Some("webgpu") => Some(
                    crate::page_gpu().await.map_err(|e| JsValue::from_str(&format!("WebGPU is not available: {e}")))?,
                ),
                Some(other) => return Err(JsValue::from_str(&format!("unknown backend {other:?}: cpu or webgpu"))),
            };
            let t = Training::new(&config, &images, &labels, gpu).await.map_err(|e| JsValue::from_str(&e))?;
            Ok(WebTrainer { inner: Rc::new(RefCell::new(t)) })
        }

        #[wasm_bindgen(js_name = setTest)]
        pub fn set_test(&self, images: &[u8], labels: &[u8]) -> Result<(), JsValue> {
            let mut t = self.inner.try_borrow_mut().map_err(|_| JsValue::from_str(BUSY))?;
            t.set_test(images, labels).map_err(|e| JsValue::from_str(&e))
        }

        /// Resolves to the slice's JSON.
        pub fn run(&self, budget_ms: f64, max_steps: u32) -> js_sys::Promise {
            promise(&self.inner, move |inner| async move {
                let mut t = inner.try_borrow_mut().map_err(|_| BUSY.to_string())?;
                t.run(budget_ms, max_steps).await.map(|j| JsValue::from_str(&j.to_string()))
            })
        }

        /// Resolves to the part's JSON.
        pub fn evaluate(&self, start: usize, count: usize) -> js_sys::Promise {
            promise(&self.inner, move |inner| async move {
                let mut t = inner.try_borrow_mut().map_err(|_| BUSY.to_string())?;
                t.evaluate(start, count).await.map(|j| JsValue::from_str(&j.to_string()))
            })
        }

        pub fn info(&self) -> Result<String, JsValue> {
            let t = self.inner.try_borrow().map_err(|_| JsValue::from_str(BUSY))?;
            Ok(t.info().to_string())
        }

        /// Resolves to the trained model's ONNX bytes.
        pub fn onnx(&self) -> js_sys::Promise {
            promise(&self.inner, |inner| async move {
                let mut t = inner.try_borrow_mut().map_err(|_| BUSY.to_string())?;
                t.onnx().await.map(|b| js_sys::Uint8Array::from(b.as_slice()).into())
            })
        }

        /// Resolves to `[manifest JSON bytes, safetensors weights]`.
        pub fn capture(&self) -> js_sys::Promise {
            promise(&self.inner, |inner| async move {
                let mut t = inner.try_borrow_mut().map_err(|_| BUSY.to_string())?;
                let (m, w) = t.capture().await?;
                let pair = js_sys::Array::new();
                pair.push(&js_sys::Uint8Array::from(m.as_slice()));
                pair.push(&js_sys::Uint8Array::from(w.as_slice()));
                Ok(pair.into())
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pollster::block_on;

    fn data(rel: &str) -> Vec<u8> {
        let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    #[test]
    fn trains_in_slices_and_evaluates() {
        let (x, y) = (data("mnist/t10k-images-1k-idx3-ubyte.gz"), data("mnist/t10k-labels-1k-idx1-ubyte.gz"));
        let cfg = r#"{"optimizer": "adam", "lr": 0.002, "batch": 32, "seed": 0}"#;
        let mut t = block_on(Training::new(cfg, &x, &y, None)).unwrap();
        assert!(block_on(t.evaluate(0, 10)).unwrap_err().contains("no test images"));
        t.set_test(&x, &y).unwrap();
        let before = block_on(t.evaluate(0, 200)).unwrap();
        assert_eq!((before["total"].as_u64(), before["images"].as_u64()), (Some(200), Some(1000)));
        assert_eq!(block_on(t.evaluate(990, 200)).unwrap()["total"], 10, "a part past the end is clamped");
        let mut ran = 0;
        while ran < 40 {
            let r = block_on(t.run(1e9, 10)).unwrap();
            let n = r["steps"].as_array().unwrap().len();
            assert_eq!(n, 10, "a slice stops at max_steps when the budget allows more");
            assert!(!r["kernels"].as_array().unwrap().is_empty());
            ran += n;
        }
        assert_eq!(
            block_on(t.run(0.0, 100)).unwrap()["steps"].as_array().unwrap().len(),
            1,
            "a slice runs at least one step"
        );
        let after = block_on(t.evaluate(0, 200)).unwrap();
        assert!(after["loss"].as_f64().unwrap() < before["loss"].as_f64().unwrap());
        assert_eq!(t.info()["steps_per_epoch"], 32);
        assert!(stridelab_core::onnx::read_model("trained", &block_on(t.onnx()).unwrap()).is_ok());
        let (manifest, weights) = block_on(t.capture()).unwrap();
        assert!(stridelab_core::capture::Capture::load(&manifest, &weights).is_ok());
    }

    #[test]
    fn refuses_bad_configs_and_files() {
        let (x, y) = (data("mnist/t10k-images-1k-idx3-ubyte.gz"), data("mnist/t10k-labels-1k-idx1-ubyte.gz"));
        for (cfg, want) in [
            (r#"{"optimizer": "rmsprop", "lr": 0.1, "batch": 8, "seed": 0}"#, "unknown optimizer"),
            (r#"{"optimizer": "sgd", "lr": -1, "batch": 8, "seed": 0}"#, "Invalid learning rate"),
            (r#"{"optimizer": "sgd", "lr": 0.1, "batch": 0, "seed": 0}"#, "batch size"),
            (r#"{"optimizer": "sgd", "lr": 0.1, "batch": 8}"#, "seed"),
        ] {
            let e = block_on(Training::new(cfg, &x, &y, None)).err().unwrap();
            assert!(e.contains(want), "{cfg}: {e}");
        }
        let cfg = r#"{"optimizer": "sgd", "lr": 0.1, "batch": 8, "seed": 0}"#;
        let e = block_on(Training::new(cfg, &x, &data("mnist/t10k-images-1k-idx3-ubyte.gz"), None)).err().unwrap();
        assert!(e.contains("N labels"), "{e}");
    }
}
