//! PyTorch's CPU random numbers, bit for bit: the generator (a Mersenne Twister plus the
//! Box–Muller value it keeps for the next `normal` draw, `generator`), the table of generators a
//! trace has made, and the distributions drawn from them ([`dist`]).
//!
//! Numbers are drawn here, on the host, in the order PyTorch's CPU kernels draw them; the
//! engine puts them into the graph as constant buffers, so every backend gets the same values
//! as buffers and none runs a random number generator of its own.

pub mod cephes;
pub mod dist;
mod generator;
pub mod mt19937;

pub use dist::{randperm, sample, sample_bernoulli, Distribution};
pub use generator::Generator;

/// The seed of PyTorch's default CPU generator before any `manual_seed`
/// (`default_rng_seed_val`); a trace without `manual_seed` starts from it, so a share link
/// replays the same numbers. (The PyTorch process itself seeds its default generator from the
/// clock at startup; `torch.manual_seed(67280421310721)` gives these numbers there.)
pub const DEFAULT_SEED: u64 = 67_280_421_310_721;

/// PyTorch's `reset_parameters()` bounds for `nn.Linear` and `nn.Conv2d` with `fan_in` inputs
/// per output: the weight's `kaiming_uniform_(a=√5)` bound and the bias's `1/√fan_in`,
/// computed with PyTorch's own sequence of float64 operations.
pub fn default_init_bounds(fan_in: usize) -> (f64, f64) {
    if fan_in == 0 {
        return (0.0, 0.0);
    }
    let a = 5f64.sqrt();
    let gain = (2.0 / (1.0 + a * a)).sqrt();
    let std = gain / (fan_in as f64).sqrt();
    (3f64.sqrt() * std, 1.0 / (fan_in as f64).sqrt())
}

/// Which generator: an index into a run's [`Generators`]. A trace's generator value holds
/// one, so `g2 = g` names the same generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeneratorId(usize);

/// The generators of one run: the default one first, then each `torch.Generator()`.
#[derive(Clone, Debug)]
pub struct Generators {
    slots: Vec<Generator>,
}

impl Default for Generators {
    fn default() -> Self {
        Generators { slots: vec![Generator::new(DEFAULT_SEED)] }
    }
}

impl Generators {
    /// PyTorch's default CPU generator.
    pub const DEFAULT: GeneratorId = GeneratorId(0);

    /// `torch.Generator()`: a new generator with PyTorch's default seed.
    pub fn create(&mut self) -> GeneratorId {
        self.slots.push(Generator::new(DEFAULT_SEED));
        GeneratorId(self.slots.len() - 1)
    }

    pub fn get(&self, id: GeneratorId) -> &Generator {
        &self.slots[id.0]
    }

    pub fn get_mut(&mut self, id: GeneratorId) -> &mut Generator {
        &mut self.slots[id.0]
    }
}
