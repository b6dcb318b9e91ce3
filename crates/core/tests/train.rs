//! The training plan: its initialisation equals the trace language's `nn` modules (which the
//! recorded fixtures hold to PyTorch's), its exported ONNX model computes what it computes,
//! and its losses and parameters follow a run recorded from real PyTorch
//! (`tests/fixtures/train_mnist.json`, made by `tools/bench/train_torch.py --record`).

// A panic is how a test reports failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stridelab_core::capture::{capture_model, Capture, CpuKernels};
use stridelab_core::data::{gunzip, read_idx, MAX_DECODED_LEN};
use stridelab_core::model::{execute, HostTensor};
use stridelab_core::onnx::read_model;
use stridelab_core::trace::interp::runner::Run;
use stridelab_core::train::{Architecture, Dataset, Optimizer, TrainConfig, Trainer};
use stridelab_core::uop::buffer::Data;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn idx(rel: &str) -> Vec<u8> {
    let bytes = std::fs::read(format!("{ROOT}/{rel}")).unwrap_or_else(|e| panic!("{rel}: {e}"));
    read_idx(rel, &gunzip(rel, &bytes, MAX_DECODED_LEN).unwrap(), None).unwrap().into_data()
}

/// The committed 1,000 MNIST test images and labels.
fn sample() -> (Vec<u8>, Vec<u8>) {
    (idx("tests/data/mnist/t10k-images-1k-idx3-ubyte.gz"), idx("tests/data/mnist/t10k-labels-1k-idx1-ubyte.gz"))
}

fn config(seed: u64, batch: usize, optimizer: Optimizer) -> TrainConfig {
    TrainConfig { architecture: Architecture::mnist_cnn(), seed, batch, optimizer }
}

#[test]
fn initial_parameters_equal_the_trace_languages_modules() {
    for seed in [0u64, 7] {
        let trace = format!(
            "torch.manual_seed({seed})\nconv1 = nn.Conv2d(1, 8, 3, padding=1)\nconv2 = nn.Conv2d(8, 16, 3, padding=1)\n\
             fc = nn.Linear(784, 10)\nc1w = conv1.weight\nc1b = conv1.bias\nc2w = conv2.weight\nc2b = conv2.bias\n\
             fw = fc.weight\nfb = fc.bias\n"
        );
        let mut run = Run::new().run_text(&trace);
        assert!(run.error.is_none(), "{:?}", run.error);
        let trainer = Trainer::new(config(seed, 64, Optimizer::adam(1e-3))).unwrap();
        let names = ["c1w", "c1b", "c2w", "c2b", "fw", "fb"];
        assert_eq!(trainer.params().len(), names.len());
        for (p, name) in trainer.params().iter().zip(names) {
            let t = run.tensors().into_iter().find(|(n, _)| n == name).unwrap().1;
            assert_eq!(t.shape(), p.shape.as_slice(), "{}", p.name);
            let Data::F32(want) = run.engine.values(&t).unwrap() else { panic!("{name} is not float32") };
            let same = want.iter().zip(&p.data).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "seed {seed}: {} differs from the trace's nn module", p.name);
        }
    }
}

#[test]
fn exported_onnx_computes_what_the_trainer_computes() {
    let (images, labels) = sample();
    let data = Dataset { images: &images, labels: &labels };
    let mut trainer = Trainer::new(config(3, 16, Optimizer::sgd(0.05, 0.9))).unwrap();
    for _ in 0..5 {
        trainer.step(&data, &mut || 0.0).unwrap();
    }
    let few = Dataset { images: &images[..8 * 784], labels: &labels[..8] };
    let want = trainer.predict(&few).unwrap();
    let model = read_model("trained.onnx", &trainer.to_onnx()).unwrap();
    let x: Vec<f32> = few.images.iter().map(|&p| f32::from(p) / 255.0).collect();
    let x = HostTensor::new(vec![8, 1, 28, 28], Data::F32(x)).unwrap();
    let out = execute(&model, &[("input", x.clone())]).unwrap();
    let close = |what: &str, got: &[f64]| {
        for (g, w) in got.iter().zip(&want) {
            assert!((g - f64::from(*w)).abs() <= 1e-4 * (1.0 + w.abs() as f64), "{what}: {g} vs {w}");
        }
    };
    assert_eq!(out[0].1.shape(), [8, 10]);
    close("interpreter", &out[0].1.data().to_f64_vec());
    let (manifest, weights) = capture_model(&model, "", &[("input", x.clone())]).unwrap();
    let cap = Capture::load(&serde_json::to_vec(&manifest).unwrap(), &weights).unwrap();
    let mut plan = cap.cpu_plan(CpuKernels::Fast).unwrap();
    let fast = plan.run(&[("input", x)], &mut || 0.0).unwrap().outputs;
    close("capture on the CPU plan", &fast[0].1.data().to_f64_vec());
}

#[test]
fn loss_falls_and_every_optimizer_learns_the_sample() {
    let (images, labels) = sample();
    let data = Dataset { images: &images, labels: &labels };
    for opt in [Optimizer::adam(2e-3), Optimizer::adamw(2e-3), Optimizer::sgd(0.05, 0.9)] {
        let name = opt.name();
        let mut trainer = Trainer::new(config(0, 32, opt)).unwrap();
        let before = trainer.evaluate(&data, 0..data.len()).unwrap();
        let mut losses = Vec::new();
        for _ in 0..64 {
            let r = trainer.step(&data, &mut || 0.0).unwrap();
            assert_eq!(r.size, if r.step.is_multiple_of(32) { 1000 % 32 } else { 32 }, "{name}: batch {}", r.step);
            losses.push(r.loss);
        }
        assert_eq!(trainer.epoch(), 2, "{name}: 64 batches of 32 are two epochs of 1,000 images");
        let after = trainer.evaluate(&data, 0..data.len()).unwrap();
        let early: f32 = losses[..8].iter().sum::<f32>() / 8.0;
        let late: f32 = losses[56..].iter().sum::<f32>() / 8.0;
        assert!(late < early * 0.6, "{name}: loss {early} → {late}");
        assert!(after.loss < before.loss && after.accuracy() > 0.8, "{name}: {before:?} → {after:?}");
    }
}

#[test]
fn refuses_what_does_not_fit() {
    let mut arch = Architecture::mnist_cnn();
    arch.layers.swap(1, 4);
    let e = Trainer::new(TrainConfig { architecture: arch, seed: 0, batch: 8, optimizer: Optimizer::adam(1e-3) });
    assert_eq!(e.unwrap_err().kind(), "shape");
    assert_eq!(Trainer::new(config(0, 0, Optimizer::adam(1e-3))).unwrap_err().kind(), "value");
    let mut t = Trainer::new(config(0, 8, Optimizer::adam(1e-3))).unwrap();
    let bad = Dataset { images: &[0; 784], labels: &[10] };
    assert_eq!(t.step(&bad, &mut || 0.0).unwrap_err().kind(), "index");
    let short = Dataset { images: &[0; 700], labels: &[1] };
    assert_eq!(t.step(&short, &mut || 0.0).unwrap_err().kind(), "shape");
}

/// The optimizer a recorded run names (`tools/bench/train_torch.py`'s `OPTIMIZERS`).
fn recorded_optimizer(name: &str) -> Optimizer {
    match name {
        "adam" => Optimizer::adam(1e-3),
        "adamw-amsgrad" => {
            Optimizer::AdamW { lr: 2e-3, betas: (0.9, 0.999), eps: 1e-8, weight_decay: 0.05, amsgrad: true }
        }
        "sgd-nesterov" => {
            Optimizer::Sgd { lr: 0.05, momentum: 0.9, dampening: 0.0, nesterov: true, weight_decay: 1e-4 }
        }
        other => panic!("unknown recorded optimizer {other}"),
    }
}

/// Every step's loss within 1e-5 relative of PyTorch's and every parameter after 50 steps
/// within 1e-5 of PyTorch's (measured: at most 3e-6 and 7e-7; the goal was 1e-4 and 1e-3).
/// They are not bit for bit because PyTorch's convolution (oneDNN) and matrix products sum
/// in their own blocked order, so float32 rounding differs in the last bits and grows a
/// little over the steps; the initial parameters and the batch order are bit for bit.
#[test]
fn losses_and_parameters_follow_pytorch() {
    use base64::Engine as _;
    let text = std::fs::read_to_string(format!("{ROOT}/tests/fixtures/train_mnist.json")).unwrap();
    let fixture: serde_json::Value = serde_json::from_str(&text).unwrap();
    let (images, labels) = sample();
    let data = Dataset { images: &images, labels: &labels };
    for run in fixture["runs"].as_array().unwrap() {
        let name = run["optimizer"].as_str().unwrap();
        let cfg =
            config(run["seed"].as_u64().unwrap(), run["batch"].as_u64().unwrap() as usize, recorded_optimizer(name));
        let mut trainer = Trainer::new(cfg).unwrap();
        let mut worst_loss = 0.0f64;
        for (i, want) in run["losses"].as_array().unwrap().iter().enumerate() {
            let want = want.as_f64().unwrap();
            let got = f64::from(trainer.step(&data, &mut || 0.0).unwrap().loss);
            let rel = (got - want).abs() / want.abs();
            worst_loss = worst_loss.max(rel);
            assert!(rel <= 1e-5, "{name} step {}: loss {got} vs PyTorch {want} ({rel:e} relative)", i + 1);
        }
        let mut worst_param = 0.0f32;
        for p in trainer.params() {
            let b64 = run["params"][&p.name].as_str().unwrap_or_else(|| panic!("{name}: no {}", p.name));
            let bytes = base64::engine::general_purpose::STANDARD.decode(b64).unwrap();
            let want: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
            assert_eq!(want.len(), p.data.len(), "{name}: {}", p.name);
            for (g, w) in p.data.iter().zip(&want) {
                worst_param = worst_param.max((g - w).abs());
            }
        }
        assert!(worst_param <= 1e-5, "{name}: a parameter is {worst_param:e} from PyTorch's after 50 steps");
        eprintln!("{name}: worst loss {worst_loss:.2e} relative, worst parameter {worst_param:.2e}");
    }
}
