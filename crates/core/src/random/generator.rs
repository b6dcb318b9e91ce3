//! One `torch.Generator`: PyTorch's `CPUGeneratorImpl`, the engine and seed it draws from (the
//! distributions in `dist` draw through it, the table of a run's generators is the parent's).

use super::mt19937::Mt19937;

/// One `torch.Generator` (the default one included).
#[derive(Clone, Debug)]
pub struct Generator {
    engine: Mt19937,
    seed: u64,
    /// The second value of the last Box–Muller pair drawn by the per-element `normal` path.
    next_double_normal: Option<f64>,
}

impl Generator {
    pub fn new(seed: u64) -> Generator {
        Generator { engine: Mt19937::new(seed), seed, next_double_normal: None }
    }

    /// `manual_seed`: a fresh engine, and no cached normal value.
    pub fn manual_seed(&mut self, seed: u64) {
        *self = Generator::new(seed);
    }

    /// `initial_seed()`.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// 32 random bits (`CPUGeneratorImpl::random`).
    pub fn random(&mut self) -> u32 {
        self.engine.next_u32()
    }

    /// 64 random bits: two draws, the first the high half (`random64`).
    pub fn random64(&mut self) -> u64 {
        let hi = u64::from(self.engine.next_u32());
        let lo = u64::from(self.engine.next_u32());
        (hi << 32) | lo
    }

    pub(crate) fn take_double_normal(&mut self) -> Option<f64> {
        self.next_double_normal.take()
    }

    pub(crate) fn set_double_normal(&mut self, v: f64) {
        self.next_double_normal = Some(v);
    }
}
