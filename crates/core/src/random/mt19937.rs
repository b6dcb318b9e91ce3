//! The Mersenne Twister behind PyTorch's CPU generator: 624 32-bit words seeded from the low 32
//! bits of the seed (Matsumoto and Nishimura's `init_genrand`), regenerated in one pass when the
//! words run out, each output tempered.

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER: u32 = 0x8000_0000;
const LOWER: u32 = 0x7fff_ffff;

#[derive(Clone, Debug)]
pub struct Mt19937 {
    state: Box<[u32; N]>,
    /// The next word to temper; `N` means the state is used up.
    next: usize,
}

impl Mt19937 {
    /// The engine seeded with `seed`; only its low 32 bits count, as in PyTorch.
    pub fn new(seed: u64) -> Mt19937 {
        let mut state = Box::new([0u32; N]);
        state[0] = seed as u32;
        for j in 1..N {
            let prev = state[j - 1];
            state[j] = 1_812_433_253u32.wrapping_mul(prev ^ (prev >> 30)).wrapping_add(j as u32);
        }
        Mt19937 { state, next: N }
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        if self.next >= N {
            self.regenerate();
        }
        let mut y = self.state[self.next];
        self.next += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    fn regenerate(&mut self) {
        let s = &mut self.state;
        for k in 0..N {
            let y = (s[k] & UPPER) | (s[(k + 1) % N] & LOWER);
            let mag = if s[(k + 1) % N] & 1 == 1 { MATRIX_A } else { 0 };
            s[k] = s[(k + M) % N] ^ (y >> 1) ^ mag;
        }
        self.next = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_outputs() {
        // The first outputs of init_genrand(5489), the reference implementation's default.
        let mut mt = Mt19937::new(5489);
        let first: Vec<u32> = (0..3).map(|_| mt.next_u32()).collect();
        assert_eq!(first, vec![3_499_211_612, 581_869_302, 3_890_346_734]);
        // The 10000th output, the C++ standard's check of std::mt19937.
        let mut mt = Mt19937::new(5489);
        let last = (0..10_000).map(|_| mt.next_u32()).last();
        assert_eq!(last, Some(4_123_659_995));
    }
}
