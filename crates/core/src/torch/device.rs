//! PyTorch's devices by name (`cpu`, `cuda:1`): parsing and printing. The playground runs
//! everything on the CPU; the trace language's `device=` handling is `trace::binding::device`.

use crate::error::{bail, Result};

/// A device as PyTorch names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    Cpu,
    /// `cuda` or `cuda:N`; runs on the CPU.
    Cuda(Option<i64>),
}

impl Device {
    /// `"cpu"`, `"cuda"`, `"cuda:1"`.
    pub fn parse(s: &str) -> Result<Device> {
        let (kind, index) = match s.split_once(':') {
            Some((k, i)) => match i.parse::<i64>() {
                Ok(i) if i >= 0 => (k, Some(i)),
                _ => bail!(Type, "Invalid device string: '{s}'"),
            },
            None => (s, None),
        };
        match kind {
            "cpu" => Ok(Device::Cpu),
            "cuda" => Ok(Device::Cuda(index)),
            "mps" | "xpu" | "meta" | "hpu" | "mtia" | "xla" => {
                bail!(Unsupported, "device '{kind}' is not supported: the playground runs on the CPU")
            }
            _ => bail!(
                Type,
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {kind}"
            ),
        }
    }

    /// Python's repr: `device(type='cpu')`, `device(type='cuda', index=0)`.
    pub fn repr(self) -> String {
        match self {
            Device::Cpu => "device(type='cpu')".into(),
            Device::Cuda(None) => "device(type='cuda')".into(),
            Device::Cuda(Some(i)) => format!("device(type='cuda', index={i})"),
        }
    }

    /// Python's str: `cpu`, `cuda:0`.
    pub fn text(self) -> String {
        match self {
            Device::Cpu => "cpu".into(),
            Device::Cuda(None) => "cuda".into(),
            Device::Cuda(Some(i)) => format!("cuda:{i}"),
        }
    }

    pub fn kind(self) -> &'static str {
        match self {
            Device::Cpu => "cpu",
            Device::Cuda(_) => "cuda",
        }
    }
}
