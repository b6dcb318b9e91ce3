//! The 16-bit floats PyTorch stores: IEEE half (`float16`) and bfloat16, as their bits. Values
//! convert through f32 with round-to-nearest-even, as PyTorch's CPU conversions do; arithmetic
//! on them computes in f32 and rounds once per op.

/// IEEE 754 binary16.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct F16(pub u16);

/// bfloat16: the top half of an f32.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BF16(pub u16);

impl F16 {
    pub fn from_f32(x: f32) -> F16 {
        let bits = x.to_bits();
        let sign = ((bits >> 16) & 0x8000) as u16;
        let exp = ((bits >> 23) & 0xff) as i32;
        let man = bits & 0x7f_ffff;
        if exp == 0xff {
            // Inf stays inf; NaN stays a quiet NaN.
            return F16(sign | 0x7c00 | if man != 0 { 0x200 } else { 0 });
        }
        let e = exp - 127 + 15;
        if e >= 0x1f {
            return F16(sign | 0x7c00);
        }
        if e <= 0 {
            // Subnormal (or zero): shift the full mantissa into place, rounding to even.
            if e < -10 {
                return F16(sign);
            }
            let m = man | 0x80_0000;
            let shift = (14 - e) as u32;
            let half = 1u32 << (shift - 1);
            let rest = m & ((1u32 << shift) - 1);
            let mut r = m >> shift;
            if rest > half || (rest == half && r & 1 == 1) {
                r += 1;
            }
            return F16(sign | r as u16);
        }
        let mut r = ((e as u32) << 10) | (man >> 13);
        let rest = man & 0x1fff;
        if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
            r += 1;
        }
        F16(sign | r as u16)
    }

    pub fn to_f32(self) -> f32 {
        let h = u32::from(self.0);
        let sign = (h & 0x8000) << 16;
        let exp = (h >> 10) & 0x1f;
        let man = h & 0x3ff;
        let bits = match (exp, man) {
            (0, 0) => sign,
            (0, m) => {
                // Subnormal: normalise.
                let mut e = 127 - 15 + 1;
                let mut m = m;
                while m & 0x400 == 0 {
                    m <<= 1;
                    e -= 1;
                }
                sign | ((e as u32) << 23) | ((m & 0x3ff) << 13)
            }
            (0x1f, m) => sign | 0x7f80_0000 | (m << 13),
            (e, m) => sign | ((e + 127 - 15) << 23) | (m << 13),
        };
        f32::from_bits(bits)
    }
}

impl BF16 {
    pub fn from_f32(x: f32) -> BF16 {
        let bits = x.to_bits();
        if x.is_nan() {
            return BF16(((bits >> 16) as u16) | 0x40);
        }
        let round = 0x7fff + ((bits >> 16) & 1);
        BF16((bits.wrapping_add(round) >> 16) as u16)
    }

    pub fn to_f32(self) -> f32 {
        f32::from_bits(u32::from(self.0) << 16)
    }
}

impl PartialOrd for F16 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        self.to_f32().partial_cmp(&other.to_f32())
    }
}

impl PartialOrd for BF16 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        self.to_f32().partial_cmp(&other.to_f32())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_to_nearest_even() {
        for (x, bits) in
            [(1.0f32, 0x3c00u16), (-2.0, 0xc000), (65504.0, 0x7bff), (1e6, 0x7c00), (0.1, 0x2e66), (6e-8, 0x0001)]
        {
            assert_eq!(F16::from_f32(x).0, bits, "{x}");
        }
        assert_eq!(F16(0x2e66).to_f32(), 0.099_975_586);
        assert_eq!(F16(0x0001).to_f32(), 5.960_464_5e-8);
        assert!(F16::from_f32(f32::NAN).to_f32().is_nan());
        assert_eq!(BF16::from_f32(1.0).0, 0x3f80);
        assert_eq!(BF16::from_f32(3.140_625).to_f32(), 3.140_625);
        assert_eq!(BF16::from_f32(1.003_906_3).to_f32(), 1.0);
    }
}
