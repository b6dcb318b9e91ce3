//! PyTorch's memory formats (`c10/core/MemoryFormat.h`, `TensorImpl`'s contiguity flags): the
//! dim orders a dense tensor can have a name for, the strides each gives, and which one a
//! layout is in.
//!
//! - `is_contiguous(memory_format=f)`: the strides are exactly `f`'s dense strides, except that
//!   dims of size 1 may have any stride (an empty tensor is only row-major contiguous).
//! - [`Layout::suggest_memory_format`]: PyTorch's `suggest_memory_format()`, which also reads
//!   the strides of size-1 dims to break ties (`(2, 1, 4, 4)` with strides `(16, 1, 4, 1)` is
//!   channels-last, with `(16, 16, 4, 1)` contiguous).
//! - [`Layout::memory_format`]: what the report shows, the format the layout is contiguous in;
//!   when it is contiguous in two (an ambiguous shape), `suggest_memory_format` decides; `None`
//!   when it is contiguous in none.

use super::layout::Layout;
use crate::error::{bail, Result};
use crate::strided::to_i64;

/// `torch.contiguous_format`, `torch.channels_last`, `torch.channels_last_3d` and
/// `torch.preserve_format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryFormat {
    Contiguous,
    ChannelsLast,
    ChannelsLast3d,
    /// Keep the source's layout (`clone`, `*_like`, `to`): not a format a tensor can be in.
    Preserve,
}

/// Dims from innermost to outermost: N, H, W, C memory order for 4-D, N, D, H, W, C for 5-D.
const CL_2D: [usize; 4] = [1, 3, 2, 0];
const CL_3D: [usize; 5] = [1, 4, 3, 2, 0];

impl MemoryFormat {
    /// The name `torch.<name>` gives.
    pub fn name(self) -> &'static str {
        match self {
            MemoryFormat::Contiguous => "contiguous_format",
            MemoryFormat::ChannelsLast => "channels_last",
            MemoryFormat::ChannelsLast3d => "channels_last_3d",
            MemoryFormat::Preserve => "preserve_format",
        }
    }

    /// `torch.<name>` as a memory format.
    pub fn from_name(name: &str) -> Option<MemoryFormat> {
        [MemoryFormat::Contiguous, MemoryFormat::ChannelsLast, MemoryFormat::ChannelsLast3d, MemoryFormat::Preserve]
            .into_iter()
            .find(|f| f.name() == name)
    }

    /// What the report calls a tensor in this format.
    pub fn report_name(self) -> &'static str {
        match self {
            MemoryFormat::Contiguous => "contiguous",
            other => other.name(),
        }
    }

    /// The innermost-first dim order of a channels-last format for `ndim` dims, or PyTorch's
    /// rank error.
    fn order(self, ndim: usize) -> Result<Option<&'static [usize]>> {
        match self {
            MemoryFormat::ChannelsLast if ndim == 4 => Ok(Some(&CL_2D)),
            MemoryFormat::ChannelsLast => bail!(Shape, "required rank 4 tensor to use channels_last format"),
            MemoryFormat::ChannelsLast3d if ndim == 5 => Ok(Some(&CL_3D)),
            MemoryFormat::ChannelsLast3d => bail!(Shape, "required rank 5 tensor to use channels_last_3d format"),
            MemoryFormat::Contiguous | MemoryFormat::Preserve => Ok(None),
        }
    }

    /// A fresh dense layout of `sizes` in this format (`torch.empty(sizes, memory_format=f)`);
    /// `Preserve` means row-major here, as `empty` treats it. Channels-last strides multiply
    /// the raw sizes, as `get_channels_last_strides_2d` does: a zero-size dim zeroes every
    /// stride outside it (`(2, 0, 3, 4)` gives `(0, 1, 0, 0)`), unlike row-major strides.
    pub fn dense_layout(self, sizes: &[usize]) -> Result<Layout> {
        let Some(order) = self.order(sizes.len())? else { return Ok(Layout::contiguous(sizes)) };
        let mut strides = vec![0i64; sizes.len()];
        let mut cur = 1i64;
        for &d in order {
            strides[d] = cur;
            cur = cur.saturating_mul(to_i64(sizes[d]));
        }
        Ok(Layout::new(sizes, &strides, 0))
    }
}

impl Layout {
    /// `is_contiguous(memory_format=f)`: false for a channels-last format of the wrong rank
    /// (`Preserve` asks the row-major question, as `TensorImpl` does).
    pub fn is_contiguous_as(&self, format: MemoryFormat) -> bool {
        let order: &[usize] = match format {
            MemoryFormat::Contiguous | MemoryFormat::Preserve => return self.is_contiguous(),
            MemoryFormat::ChannelsLast if self.ndim() == 4 => &CL_2D,
            MemoryFormat::ChannelsLast3d if self.ndim() == 5 => &CL_3D,
            _ => return false,
        };
        let mut expected = 1i64;
        for &d in order {
            let size = self.sizes()[d];
            if size != 1 {
                if self.strides()[d] != expected {
                    return false;
                }
                expected = expected.saturating_mul(to_i64(size));
            }
        }
        true
    }

    /// PyTorch's `is_channels_last_strides_2d_s4` / `_3d_s5`: whether the strides order the dims
    /// as the format does (dense or not), with ties between size-1 dims going to row-major.
    pub fn strides_like(&self, format: MemoryFormat) -> bool {
        let order: &[usize] = match format {
            MemoryFormat::ChannelsLast if self.ndim() == 4 => &CL_2D,
            MemoryFormat::ChannelsLast3d if self.ndim() == 5 => &CL_3D,
            _ => return false,
        };
        let (sizes, strides) = (self.sizes(), self.strides());
        if strides[1] == 0 {
            return false;
        }
        let mut min = 0i64;
        for &d in order {
            if sizes[d] == 0 || strides[d] < min || (d == 0 && min == strides[1]) {
                return false;
            }
            min = strides[d];
            if sizes[d] > 1 {
                min = min.saturating_mul(to_i64(sizes[d]));
            }
        }
        true
    }

    /// PyTorch's `suggest_memory_format()`: channels-last (2-D or 3-D) when the strides are
    /// ordered like it, else contiguous.
    pub fn suggest_memory_format(&self) -> MemoryFormat {
        if self.strides_like(MemoryFormat::ChannelsLast) {
            MemoryFormat::ChannelsLast
        } else if self.strides_like(MemoryFormat::ChannelsLast3d) {
            MemoryFormat::ChannelsLast3d
        } else {
            MemoryFormat::Contiguous
        }
    }

    /// The format a kernel that follows `suggest_memory_format` gives its result: the
    /// suggested one, and row-major for a row-major input (whatever its size-1 dims suggest).
    pub fn result_format(&self) -> MemoryFormat {
        if self.is_contiguous() {
            MemoryFormat::Contiguous
        } else {
            self.suggest_memory_format()
        }
    }

    /// The format the report names: the one the layout is contiguous in, the suggested one when
    /// it is contiguous in several, `None` when it is contiguous in none.
    pub fn memory_format(&self) -> Option<MemoryFormat> {
        let formats: Vec<MemoryFormat> =
            [MemoryFormat::Contiguous, MemoryFormat::ChannelsLast, MemoryFormat::ChannelsLast3d]
                .into_iter()
                .filter(|&f| self.is_contiguous_as(f))
                .collect();
        match formats.as_slice() {
            [] => None,
            [one] => Some(*one),
            _ => Some(self.suggest_memory_format()).filter(|f| formats.contains(f)).or(Some(formats[0])),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_of_ambiguous_layouts() {
        let cl = MemoryFormat::ChannelsLast.dense_layout(&[2, 3, 2, 4]).unwrap();
        assert_eq!(cl.strides(), &[24, 1, 12, 3]);
        assert_eq!(cl.memory_format(), Some(MemoryFormat::ChannelsLast));
        let rows = Layout::new(&[2, 1, 4, 4], &[16, 16, 4, 1], 0);
        let cols = Layout::new(&[2, 1, 4, 4], &[16, 1, 4, 1], 0);
        assert!(rows.is_contiguous_as(MemoryFormat::ChannelsLast) && cols.is_contiguous());
        assert_eq!(rows.memory_format(), Some(MemoryFormat::Contiguous));
        assert_eq!(cols.memory_format(), Some(MemoryFormat::ChannelsLast));
        let strided = Layout::new(&[2, 3, 2, 2], &[24, 1, 12, 6], 0);
        assert_eq!(strided.memory_format(), None);
        assert_eq!(strided.suggest_memory_format(), MemoryFormat::ChannelsLast);
        let c3 = MemoryFormat::ChannelsLast3d.dense_layout(&[1, 3, 2, 2, 4]).unwrap();
        assert_eq!(c3.strides(), &[48, 1, 24, 12, 3]);
        assert_eq!(c3.memory_format(), Some(MemoryFormat::ChannelsLast3d));
        assert!(MemoryFormat::ChannelsLast.dense_layout(&[2, 3]).is_err());
        // Recorded from PyTorch 2.15: `torch.empty(s, memory_format=...).stride()`.
        let strides = |f: MemoryFormat, s: &[usize]| f.dense_layout(s).unwrap().strides().to_vec();
        assert_eq!(strides(MemoryFormat::ChannelsLast, &[2, 0, 3, 4]), [0, 1, 0, 0]);
        assert_eq!(strides(MemoryFormat::ChannelsLast, &[2, 3, 0, 4]), [0, 1, 12, 3]);
        assert_eq!(strides(MemoryFormat::ChannelsLast, &[0, 3, 2, 2]), [12, 1, 6, 3]);
        assert_eq!(strides(MemoryFormat::ChannelsLast3d, &[2, 3, 4, 0, 2]), [0, 1, 0, 6, 3]);
    }
}
