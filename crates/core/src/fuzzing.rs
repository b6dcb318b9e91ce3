//! The entry points the fuzz targets drive (`fuzz/fuzz_targets/`), one per input a hostile user
//! controls: trace text, share links, IDX and CIFAR files, ONNX models and captures. Each takes
//! arbitrary bytes and must return (an error is an answer); a panic, an abort or an allocation
//! past the limits is a defect. The regression test replays every committed corpus and crash
//! input through the same functions, so what the fuzzer once found stays fixed without it.

use crate::capture::{Capture, CpuKernels};
use crate::model::HostTensor;
use crate::uop::buffer::Data;

/// A fuzz target's entry point: any bytes in, nothing out (a panic is the failure).
pub type Target = fn(&[u8]);

mod python;

/// The fuzz targets, by the name of their corpus directory.
pub const TARGETS: &[(&str, Target)] = &[
    ("trace", trace),
    ("python", python),
    ("link", link),
    ("datasets", datasets),
    ("onnx", onnx),
    ("capture", capture),
];

/// A trace run to its end or its first error (the runner's statement, element and text limits
/// bound the work).
pub fn trace(bytes: &[u8]) {
    let src = String::from_utf8_lossy(bytes);
    let mut run = crate::trace::interp::runner::Run::run_source(&src);
    let _ = crate::trace::report::report_value(&mut run, crate::trace::report::ReportOptions::default());
}

/// A program of the Python grammar the bytes pick ([`python::program`]) run to its end or
/// its first error, with its report: blocks, functions, classes, exceptions, shared lists and
/// dicts, big ints and tensors reach the runner as a user types them, not as random text.
pub fn python(bytes: &[u8]) {
    trace(python::program(bytes).as_bytes());
}

/// The program a `python` fuzz input stands for (to reproduce an artifact by hand).
pub fn python_program(bytes: &[u8]) -> String {
    python::program(bytes)
}

/// A share link or fragment decoded, and its trace run when it decodes.
pub fn link(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    if let Ok(shared) = crate::share::decode(&text) {
        let _ = crate::trace::interp::runner::Run::run_source(&shared.trace);
    }
}

/// IDX and CIFAR-10 files (raw or gzip) read, and the page's dataset detection.
pub fn datasets(bytes: &[u8]) {
    let _ = crate::data::read_idx("fuzz.idx", bytes, None);
    let _ = crate::data::read_cifar("fuzz.bin", bytes, None);
    let _ = crate::data::decode_dataset("fuzz", bytes);
}

/// An ONNX model read and, when it reads, run on zeros for each declared input whose shape is
/// fixed and small.
pub fn onnx(bytes: &[u8]) {
    let Ok(m) = crate::onnx::read_model("fuzz.onnx", bytes) else { return };
    let mut inputs = Vec::new();
    for decl in m.inputs() {
        let Some(dims) = decl.shape() else { return };
        let mut shape = Vec::with_capacity(dims.len());
        for d in dims {
            match d {
                crate::onnx::Dim::Fixed(n) if *n <= 4096 => shape.push(*n),
                _ => return,
            }
        }
        let n: usize = shape.iter().product();
        if n > 1 << 16 {
            return;
        }
        let dtype = decl.elem_type().engine_dtype();
        let Ok(t) = HostTensor::new(shape, Data::zeros(dtype, n)) else { return };
        inputs.push((decl.name().to_string(), t));
    }
    let named: Vec<(&str, HostTensor)> = inputs.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
    let _ = crate::model::execute(&m, &named);
}

/// A capture manifest (the input) with the sample capture's weights, loaded and, when it
/// loads, replayed on zeros through the CPU plan.
pub fn capture(bytes: &[u8]) {
    capture_with(bytes, SAMPLE_WEIGHTS);
}

/// The weights of the sample capture (`tests/data/models/mnist_cnn.capture`): mutants of its
/// manifest are the capture target's seeds.
pub const SAMPLE_WEIGHTS: &[u8] = include_bytes!("../../../tests/data/models/mnist_cnn.capture/weights.safetensors");

fn capture_with(manifest: &[u8], weights: &[u8]) {
    let Ok(cap) = Capture::load(manifest, weights) else { return };
    let m = cap.manifest();
    let mut inputs = Vec::new();
    for &id in &m.inputs {
        let Some(b) = m.buffers.iter().find(|b| b.id == id) else { return };
        let n: usize = b.shape.iter().product();
        let Ok(t) = HostTensor::new(b.shape.clone(), Data::zeros(b.dtype, n)) else { return };
        inputs.push((b.name.clone(), t));
    }
    let named: Vec<(&str, HostTensor)> = inputs.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
    let mut clock = || 0.0;
    for kernels in [CpuKernels::Fast, CpuKernels::Reference] {
        if let Ok(mut plan) = cap.cpu_plan(kernels) {
            let _ = plan.run(&named, &mut clock);
        }
    }
}
