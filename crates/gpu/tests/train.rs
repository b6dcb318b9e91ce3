//! The GPU trainer against the CPU trainer (which the recorded PyTorch run holds to PyTorch):
//! the same losses step by step and the same parameters after them, up to float32 sums in
//! another order, for each optimizer.

// A panic is how a test reports failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use pollster::block_on;
use stridelab_core::data::{gunzip, read_idx, MAX_DECODED_LEN};
use stridelab_core::train::{Architecture, Dataset, Optimizer, TrainConfig, Trainer};
use stridelab_gpu::train::GpuTrainer;

fn idx(rel: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/data/{rel}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    read_idx(rel, &gunzip(rel, &bytes, MAX_DECODED_LEN).unwrap(), None).unwrap().into_data()
}

#[test]
fn gpu_training_follows_the_cpu_trainer() {
    let Some(gpu) = common::device() else { return };
    let (images, labels) = (idx("mnist/t10k-images-1k-idx3-ubyte.gz"), idx("mnist/t10k-labels-1k-idx1-ubyte.gz"));
    let data = Dataset { images: &images, labels: &labels };
    let optimizers = [
        Optimizer::adam(2e-3),
        Optimizer::AdamW { lr: 2e-3, betas: (0.9, 0.999), eps: 1e-8, weight_decay: 0.05, amsgrad: true },
        Optimizer::Sgd { lr: 0.05, momentum: 0.9, dampening: 0.0, nesterov: true, weight_decay: 1e-4 },
    ];
    for opt in optimizers {
        let name = opt.name();
        // Batch 48 over 1,000 images: the 21st batch is the epoch's short one (40 images).
        let config = TrainConfig { architecture: Architecture::mnist_cnn(), seed: 1, batch: 48, optimizer: opt };
        let mut cpu = Trainer::new(config.clone()).unwrap();
        let mut gpu_trainer = block_on(GpuTrainer::new(&gpu, config)).unwrap();
        let mut worst = 0.0f64;
        for step in 1..=24 {
            let want = cpu.step(&data, &mut || 0.0).unwrap();
            let got = block_on(gpu_trainer.step(&gpu, &data)).unwrap();
            assert_eq!((got.step, got.epoch, got.size), (want.step, want.epoch, want.size), "{name} step {step}");
            let rel = (f64::from(got.loss) - f64::from(want.loss)).abs() / f64::from(want.loss);
            worst = worst.max(rel);
            assert!(rel < 1e-4, "{name} step {step}: GPU loss {} vs CPU {} ({rel:e})", got.loss, want.loss);
            assert!(
                got.correct.abs_diff(want.correct) <= 1,
                "{name} step {step}: {} vs {} right",
                got.correct,
                want.correct
            );
        }
        block_on(gpu_trainer.sync(&gpu)).unwrap();
        let mut worst_param = 0.0f32;
        for (g, c) in gpu_trainer.trainer().params().iter().zip(cpu.params()) {
            for (a, b) in g.data.iter().zip(&c.data) {
                worst_param = worst_param.max((a - b).abs());
            }
        }
        assert!(worst_param < 1e-4, "{name}: a parameter is {worst_param:e} from the CPU trainer's");
        eprintln!("{name}: worst loss {worst:.1e} relative, worst parameter {worst_param:.1e}");
        assert!(gpu_trainer.kernels().len() > 20);
    }
}
