//! Dataset files as tensors in the trace language: each case is a trace run with the committed
//! samples registered by name, and what the named tensors must be (shape, dtype, storage
//! offset, view or copy, the first values), or the error the run must stop with.

// A panic is how a test reports failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use stridelab_core::data::{gunzip, read_cifar, read_idx, MAX_DECODED_LEN};
use stridelab_core::trace::interp::runner::Run;
use stridelab_core::DType;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data");

fn file(rel: &str) -> Vec<u8> {
    std::fs::read(format!("{DATA}/{rel}")).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn files() -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    m.insert("mnist-t10k-images-1k".to_string(), file("mnist/t10k-images-1k-idx3-ubyte.gz"));
    m.insert("mnist-t10k-labels-1k".to_string(), file("mnist/t10k-labels-1k-idx1-ubyte.gz"));
    m.insert("cifar-sample".to_string(), file("cifar/sample_batch.bin"));
    let mut cut = gunzip("x", &file("mnist/t10k-images-1k-idx3-ubyte.gz"), MAX_DECODED_LEN).unwrap();
    cut.truncate(cut.len() / 2);
    m.insert("truncated".to_string(), cut);
    let mut bad = file("cifar/sample_batch.bin");
    bad.push(0);
    m.insert("bad-cifar".to_string(), bad);
    m
}

/// What a named tensor must look like after the trace.
struct Want {
    name: &'static str,
    shape: Vec<usize>,
    dtype: DType,
    offset: i64,
    is_view: bool,
    /// Values at the start of the tensor (row-major), from the structured readers.
    head: Vec<f64>,
}

enum Outcome {
    Tensors(Vec<Want>),
    /// The error's kind and a part of its message.
    Error(&'static str, &'static str),
}

fn check(trace: &str, outcome: Outcome) {
    let mut run = Run::with_files(files()).run_text(trace);
    match outcome {
        Outcome::Error(kind, part) => {
            let e = run.error.as_ref().unwrap_or_else(|| panic!("{trace}: expected an error"));
            assert_eq!(e.error.kind(), kind, "{trace}: {:?}", e.error);
            assert!(e.error.message().contains(part), "{trace}: {:?}", e.error);
        }
        Outcome::Tensors(wants) => {
            assert!(run.error.is_none(), "{trace}: {:?}", run.error);
            for w in wants {
                let t = run.tensors().into_iter().find(|(n, _)| *n == w.name).map(|(_, t)| t.clone()).unwrap();
                assert_eq!(t.shape(), w.shape.as_slice(), "{}", w.name);
                assert_eq!(t.dtype(), w.dtype, "{}", w.name);
                assert_eq!(t.layout().offset(), w.offset, "{}", w.name);
                assert_eq!(t.is_view(), w.is_view, "{}", w.name);
                let vals = run.engine.values(&t).unwrap().to_f64_vec();
                assert_eq!(&vals[..w.head.len()], w.head.as_slice(), "{}", w.name);
            }
        }
    }
}

#[test]
fn datasets_in_traces() {
    let images = read_idx("i", &file("mnist/t10k-images-1k-idx3-ubyte.gz"), None).unwrap();
    let labels = read_idx("l", &file("mnist/t10k-labels-1k-idx1-ubyte.gz"), None).unwrap();
    let cifar = read_cifar("c", &file("cifar/sample_batch.bin"), None).unwrap();
    let img = |i: usize| images.item(i).unwrap().iter().map(|&b| f64::from(b)).collect::<Vec<_>>();
    let raw_len = 16 + images.data().len();
    let cases: Vec<(&str, Outcome)> = vec![
        (
            "raw = dataset(\"mnist-t10k-images-1k\")\nimages = raw[0x10:].reshape(-1, 1, 28, 28)",
            Outcome::Tensors(vec![
                Want { name: "raw", shape: vec![raw_len], dtype: DType::UInt8, offset: 0, is_view: false, head: vec![0.0, 0.0, 8.0, 3.0, 0.0, 0.0, 3.0, 232.0] },
                Want { name: "images", shape: vec![1000, 1, 28, 28], dtype: DType::UInt8, offset: 16, is_view: true, head: [img(0), img(1)].concat() },
            ]),
        ),
        (
            "labels = dataset(\"mnist-t10k-labels-1k\")[8:]",
            Outcome::Tensors(vec![Want {
                name: "labels",
                shape: vec![1000],
                dtype: DType::UInt8,
                offset: 8,
                is_view: true,
                head: labels.data()[..20].iter().map(|&b| f64::from(b)).collect(),
            }]),
        ),
        (
            "raw = dataset(\"mnist-t10k-images-1k\")\nx = raw[16:16 + 784 * 2].reshape(2, 1, 28, 28).float() / 255",
            Outcome::Tensors(vec![Want {
                name: "x",
                shape: vec![2, 1, 28, 28],
                dtype: DType::Float32,
                offset: 0,
                is_view: false,
                head: [img(0), img(1)].concat().iter().map(|&v| f64::from((v as f32) / 255.0)).collect(),
            }]),
        ),
        (
            "c = dataset(\"cifar-sample\").reshape(-1, 3073)\nlabels = c[:, 0]\nimages = c[:, 1:].reshape(-1, 3, 32, 32)",
            Outcome::Tensors(vec![
                Want { name: "labels", shape: vec![100], dtype: DType::UInt8, offset: 0, is_view: true, head: cifar.labels().iter().map(|&b| f64::from(b)).collect() },
                Want { name: "images", shape: vec![100, 3, 32, 32], dtype: DType::UInt8, offset: 1, is_view: true, head: cifar.image(0).unwrap().iter().map(|&b| f64::from(b)).collect() },
            ]),
        ),
        ("x = dataset(\"nope\")", Outcome::Error("name", "no dataset named \"nope\"")),
        ("x = dataset(3)", Outcome::Error("type", "must be str")),
        ("x = dataset(\"truncated\")", Outcome::Error("decode", "truncated: dimensions 1000 x 28 x 28")),
        ("x = dataset(\"bad-cifar\")", Outcome::Error("decode", "not a whole number of 3073-byte records")),
    ];
    for (trace, outcome) in cases {
        check(trace, outcome);
    }
}
