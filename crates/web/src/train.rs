//! The Train panel's runtime: the core's training plan (`stridelab_core::train`) on the CPU in
//! wasm, run in time slices so the page stays responsive between them. The page hands it the
//! MNIST files as fetched (gzip or raw IDX) and a small JSON config; each slice answers with
//! the steps it ran (loss, batch accuracy, time) and the last step's kernels.

use serde::Deserialize;
use serde_json::{json, Value as Json};
use stridelab_core::train::{Architecture, LabelledImages, Optimizer, StepReport, TrainConfig, Trainer};

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
        if !(self.lr.is_finite() && self.lr > 0.0) {
            return Err(format!("Invalid learning rate: {}", self.lr));
        }
        if !(self.momentum.is_finite() && self.momentum >= 0.0) {
            return Err(format!("Invalid momentum value: {}", self.momentum));
        }
        let betas = (0.9, 0.999);
        Ok(match self.optimizer.as_str() {
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
        })
    }
}

/// A training run: the model and optimizer, the training set, and the test set once given.
pub struct Training {
    trainer: Trainer,
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
    /// and the training images and labels (IDX, gzip or raw).
    pub fn new(config: &str, images: &[u8], labels: &[u8]) -> Result<Training, String> {
        let page: PageConfig = serde_json::from_str(config).map_err(|e| format!("training config: {e}"))?;
        let config = TrainConfig {
            architecture: Architecture::mnist_cnn(),
            seed: page.seed,
            batch: page.batch,
            optimizer: page.optimizer()?,
        };
        let train = LabelledImages::read_idx(("train-images", images), ("train-labels", labels))
            .map_err(|e| e.message().to_string())?;
        let trainer = Trainer::new(config).map_err(|e| e.message().to_string())?;
        Ok(Training { trainer, train, test: None })
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
    pub fn run(&mut self, budget_ms: f64, max_steps: u32) -> Result<Json, String> {
        let start = now_ms();
        let (mut steps, mut last) = (Vec::new(), None);
        while steps.len() < max_steps.max(1) as usize && (steps.is_empty() || now_ms() - start < budget_ms) {
            let r = self.trainer.step(&self.train.dataset(), &mut now_ms).map_err(|e| e.message().to_string())?;
            steps.push(step_json(&r));
            last = Some(r);
        }
        let kernels: Vec<Json> = last
            .iter()
            .flat_map(|r| &r.kernels)
            .map(|k| json!({ "phase": k.phase, "name": k.name, "ms": k.ms }))
            .collect();
        Ok(json!({ "steps": steps, "kernels": kernels, "epoch": self.trainer.epoch(), "total": self.trainer.steps() }))
    }

    /// Accuracy and loss on the test images `start..start + count` (clamped to the set), so
    /// the page evaluates 10,000 images in parts between frames and adds them up.
    pub fn evaluate(&mut self, start: usize, count: usize) -> Result<Json, String> {
        let test = self.test.as_ref().ok_or("no test images are loaded")?;
        let t0 = now_ms();
        let e = self
            .trainer
            .evaluate(&test.dataset(), start..start.saturating_add(count))
            .map_err(|e| e.message().to_string())?;
        Ok(json!({
            "correct": e.correct,
            "total": e.total,
            "loss": e.loss,
            "images": test.labels.len(),
            "step": self.trainer.steps(),
            "ms": now_ms() - t0,
        }))
    }

    /// The architecture, parameters, configuration and epoch size.
    pub fn info(&self) -> Json {
        let c = self.trainer.config();
        json!({
            "architecture": c.architecture.describe(),
            "params": self.trainer.params().iter().map(|p| json!({ "name": p.name, "shape": p.shape })).collect::<Vec<_>>(),
            "parameters": self.trainer.params().iter().map(|p| p.data.len()).sum::<usize>(),
            "optimizer": c.optimizer,
            "optimizer_name": c.optimizer.name(),
            "batch": c.batch,
            "seed": c.seed,
            "train_images": self.train.labels.len(),
            "steps_per_epoch": self.train.labels.len().div_ceil(c.batch),
        })
    }

    /// The trained model as ONNX, which the model panel loads like any other.
    pub fn onnx(&self) -> Vec<u8> {
        self.trainer.to_onnx()
    }

    /// The trained model as a capture at batch 1: the manifest's JSON and the safetensors
    /// weights, as `stridelab model replay` and the model panel load them.
    pub fn capture(&self) -> Result<(Vec<u8>, Vec<u8>), String> {
        let (manifest, weights) =
            stridelab_gpu::model::capture_onnx("trained.onnx", &self.onnx(), 1).map_err(|e| e.message().to_string())?;
        let json = serde_json::to_vec_pretty(&manifest).map_err(|e| e.to_string())?;
        Ok((json, weights))
    }
}

#[cfg(target_arch = "wasm32")]
mod bindings {
    use wasm_bindgen::prelude::*;

    use super::Training;

    /// A training run in the page: see the module documentation.
    #[wasm_bindgen]
    pub struct WebTrainer {
        inner: Training,
    }

    #[wasm_bindgen]
    impl WebTrainer {
        #[wasm_bindgen(constructor)]
        pub fn new(config: &str, images: &[u8], labels: &[u8]) -> Result<WebTrainer, JsValue> {
            Training::new(config, images, labels).map(|inner| WebTrainer { inner }).map_err(|e| JsValue::from_str(&e))
        }

        #[wasm_bindgen(js_name = setTest)]
        pub fn set_test(&mut self, images: &[u8], labels: &[u8]) -> Result<(), JsValue> {
            self.inner.set_test(images, labels).map_err(|e| JsValue::from_str(&e))
        }

        pub fn run(&mut self, budget_ms: f64, max_steps: u32) -> Result<String, JsValue> {
            self.inner.run(budget_ms, max_steps).map(|j| j.to_string()).map_err(|e| JsValue::from_str(&e))
        }

        pub fn evaluate(&mut self, start: usize, count: usize) -> Result<String, JsValue> {
            self.inner.evaluate(start, count).map(|j| j.to_string()).map_err(|e| JsValue::from_str(&e))
        }

        pub fn info(&self) -> String {
            self.inner.info().to_string()
        }

        pub fn onnx(&self) -> Vec<u8> {
            self.inner.onnx()
        }

        /// The capture's manifest JSON bytes.
        #[wasm_bindgen(js_name = captureManifest)]
        pub fn capture_manifest(&self) -> Result<Vec<u8>, JsValue> {
            self.inner.capture().map(|c| c.0).map_err(|e| JsValue::from_str(&e))
        }

        /// The capture's safetensors weights.
        #[wasm_bindgen(js_name = captureWeights)]
        pub fn capture_weights(&self) -> Result<Vec<u8>, JsValue> {
            self.inner.capture().map(|c| c.1).map_err(|e| JsValue::from_str(&e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(rel: &str) -> Vec<u8> {
        let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    #[test]
    fn trains_in_slices_and_evaluates() {
        let (x, y) = (data("mnist/t10k-images-1k-idx3-ubyte.gz"), data("mnist/t10k-labels-1k-idx1-ubyte.gz"));
        let cfg = r#"{"optimizer": "adam", "lr": 0.002, "batch": 32, "seed": 0}"#;
        let mut t = Training::new(cfg, &x, &y).unwrap();
        assert!(t.evaluate(0, 10).unwrap_err().contains("no test images"));
        t.set_test(&x, &y).unwrap();
        let before = t.evaluate(0, 200).unwrap();
        assert_eq!((before["total"].as_u64(), before["images"].as_u64()), (Some(200), Some(1000)));
        assert_eq!(t.evaluate(990, 200).unwrap()["total"], 10, "a part past the end is clamped");
        let mut ran = 0;
        while ran < 40 {
            let r = t.run(1e9, 10).unwrap();
            let n = r["steps"].as_array().unwrap().len();
            assert_eq!(n, 10, "a slice stops at max_steps when the budget allows more");
            assert!(!r["kernels"].as_array().unwrap().is_empty());
            ran += n;
        }
        assert_eq!(t.run(0.0, 100).unwrap()["steps"].as_array().unwrap().len(), 1, "a slice runs at least one step");
        let after = t.evaluate(0, 200).unwrap();
        assert!(after["loss"].as_f64().unwrap() < before["loss"].as_f64().unwrap());
        assert_eq!(t.info()["steps_per_epoch"], 32);
        assert!(stridelab_core::onnx::read_model("trained", &t.onnx()).is_ok());
        let (manifest, weights) = t.capture().unwrap();
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
            let e = Training::new(cfg, &x, &y).err().unwrap();
            assert!(e.contains(want), "{cfg}: {e}");
        }
        let cfg = r#"{"optimizer": "sgd", "lr": 0.1, "batch": 8, "seed": 0}"#;
        let e = Training::new(cfg, &x, &data("mnist/t10k-images-1k-idx3-ubyte.gz")).err().unwrap();
        assert!(e.contains("N labels"), "{e}");
    }
}
