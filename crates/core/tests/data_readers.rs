//! The dataset readers against the committed samples and against every way a file can be
//! broken: each case names the input bytes, the reader and the outcome it must have.

// A panic is how a test reports failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;

use stridelab_core::data::{
    gunzip, is_gzip, read_cifar, read_idx, sha256_hex, CIFAR_IMAGE_LEN, CIFAR_RECORD_LEN, MAX_DECODED_LEN,
};
use stridelab_core::DType;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data");

fn file(rel: &str) -> Vec<u8> {
    std::fs::read(format!("{DATA}/{rel}")).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The sha256 pins listed in tests/data/README.md, read from there so that the README and the
/// tests cannot drift apart.
fn pin(file_name: &str, column: usize) -> String {
    let readme = std::fs::read_to_string(format!("{DATA}/README.md")).expect("README");
    let row = readme
        .lines()
        .find(|l| l.starts_with('|') && l.contains(file_name))
        .unwrap_or_else(|| panic!("{file_name} is not in tests/data/README.md"));
    let cells: Vec<&str> = row.split('|').map(|c| c.trim().trim_matches('`')).collect();
    cells[column].to_string()
}

fn images_gz() -> Vec<u8> {
    file("mnist/t10k-images-1k-idx3-ubyte.gz")
}
fn labels_gz() -> Vec<u8> {
    file("mnist/t10k-labels-1k-idx1-ubyte.gz")
}
fn labels_raw() -> Vec<u8> {
    gunzip("labels", &labels_gz(), MAX_DECODED_LEN).expect("sample labels gunzip")
}
fn images_raw() -> Vec<u8> {
    gunzip("images", &images_gz(), MAX_DECODED_LEN).expect("sample images gunzip")
}
fn cifar() -> Vec<u8> {
    file("cifar/sample_batch.bin")
}
fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).expect("gzip write");
    e.finish().expect("gzip finish")
}
fn with(mut bytes: Vec<u8>, f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    f(&mut bytes);
    bytes
}

enum Reader {
    Idx,
    Cifar,
}

enum Expect {
    /// Decodes; the closure checks the shape and contents it must have.
    IsIdx(fn(&stridelab_core::data::Idx)),
    IsCifar(fn(&stridelab_core::data::Cifar)),
    /// Fails with a decode error whose message names the file and contains this text.
    Fails(&'static str),
}

struct Case {
    what: &'static str,
    bytes: Vec<u8>,
    reader: Reader,
    pin: Option<String>,
    expect: Expect,
}

fn check(case: Case) {
    let name = format!("{}.bin", case.what.replace(' ', "_"));
    let pin = case.pin.as_deref();
    let outcome = match case.reader {
        Reader::Idx => read_idx(&name, &case.bytes, pin).map(Ok),
        Reader::Cifar => read_cifar(&name, &case.bytes, pin).map(Err),
    };
    match (outcome, case.expect) {
        (Ok(Ok(idx)), Expect::IsIdx(f)) => f(&idx),
        (Ok(Err(cifar)), Expect::IsCifar(f)) => f(&cifar),
        (Err(e), Expect::Fails(text)) => {
            assert_eq!(e.kind(), "decode", "{}: {e}", case.what);
            assert!(e.message().starts_with(&format!("{name}: ")), "{}: {e}", case.what);
            assert!(e.message().contains(text), "{}: {e:?} lacks {text:?}", case.what);
        }
        (Err(e), _) => panic!("{}: unexpected error {e}", case.what),
        (Ok(_), _) => panic!("{}: decoded, expected another outcome", case.what),
    }
}

fn mnist_images(idx: &stridelab_core::data::Idx) {
    assert_eq!(idx.dtype(), DType::UInt8);
    assert_eq!(idx.dims(), &[1000, 28, 28]);
    assert_eq!(idx.header_len(), 16);
    assert_eq!(idx.len(), 1000);
    assert_eq!(idx.data().len(), 1000 * 28 * 28);
    assert_eq!(idx.item(999).map(<[u8]>::len), Some(784));
    assert_eq!(idx.item(1000), None);
    // Real digits: mostly background with some ink in every image.
    for i in 0..idx.len() {
        let img = idx.item(i).expect("in range");
        let ink = img.iter().filter(|&&p| p > 128).count();
        assert!((20..400).contains(&ink), "image {i} has {ink} inked pixels");
    }
}

fn mnist_labels(idx: &stridelab_core::data::Idx) {
    assert_eq!(idx.dims(), &[1000]);
    assert_eq!(idx.header_len(), 8);
    let mut seen = [0usize; 10];
    for &l in idx.data() {
        seen[usize::from(l)] += 1;
    }
    // MNIST's test set is roughly balanced: each digit is 7-13% of any large prefix.
    assert!(seen.iter().all(|&n| (70..=130).contains(&n)), "label counts {seen:?}");
}

fn cifar_sample(c: &stridelab_core::data::Cifar) {
    assert_eq!(c.len(), 100);
    assert_eq!(c.images().len(), 100 * CIFAR_IMAGE_LEN);
    let expected: Vec<u8> = (0..100u8).map(|i| i % 10).collect();
    assert_eq!(c.labels(), expected.as_slice(), "the sample cycles through the 10 classes");
    assert_eq!(c.image(99).map(<[u8]>::len), Some(CIFAR_IMAGE_LEN));
    assert_eq!(c.image(100), None);
    let raw = cifar();
    for i in 0..c.len() {
        let record = &raw[i * CIFAR_RECORD_LEN..(i + 1) * CIFAR_RECORD_LEN];
        assert_eq!(c.image(i), Some(&record[1..]), "record {i} pixels");
    }
}

#[test]
fn readers() {
    let idx_pin = |f: &str| Some(pin(f, 4));
    let images_pin = idx_pin("t10k-images-1k-idx3-ubyte.gz");
    let labels_pin = idx_pin("t10k-labels-1k-idx1-ubyte.gz");
    let cifar_pin = Some(pin("sample_batch.bin", 3));
    use Expect::*;
    use Reader::*;
    // One line a case reads best as a table, so rustfmt leaves it be.
    #[rustfmt::skip]
    let cases = vec![
        Case { what: "mnist images gz", bytes: images_gz(), reader: Idx, pin: images_pin.clone(), expect: IsIdx(mnist_images) },
        Case { what: "mnist images raw", bytes: images_raw(), reader: Idx, pin: images_pin.clone(), expect: IsIdx(mnist_images) },
        Case { what: "mnist labels gz", bytes: labels_gz(), reader: Idx, pin: labels_pin.clone(), expect: IsIdx(mnist_labels) },
        Case { what: "mnist labels raw", bytes: labels_raw(), reader: Idx, pin: None, expect: IsIdx(mnist_labels) },
        Case { what: "pin in upper case", bytes: labels_raw(), reader: Idx, pin: labels_pin.as_ref().map(|p| p.to_uppercase()), expect: IsIdx(mnist_labels) },
        Case { what: "cifar sample", bytes: cifar(), reader: Cifar, pin: cifar_pin.clone(), expect: IsCifar(cifar_sample) },
        Case { what: "cifar sample gz", bytes: gz(&cifar()), reader: Cifar, pin: cifar_pin.clone(), expect: IsCifar(cifar_sample) },
        // IDX header problems.
        Case { what: "empty idx", bytes: vec![], reader: Idx, pin: None, expect: Fails("truncated: 0 bytes") },
        Case { what: "idx magic only", bytes: labels_raw()[..3].to_vec(), reader: Idx, pin: None, expect: Fails("truncated: 3 bytes") },
        Case { what: "idx cut in dims", bytes: images_raw()[..10].to_vec(), reader: Idx, pin: None, expect: Fails("header for 3 dimensions needs 16") },
        Case { what: "wrong magic", bytes: with(labels_raw(), |b| b[0] = 0x1e), reader: Idx, pin: None, expect: Fails("bad IDX magic") },
        Case { what: "float idx", bytes: with(labels_raw(), |b| b[2] = 0x0d), reader: Idx, pin: None, expect: Fails("0x0d (float32) is not supported") },
        Case { what: "unknown idx type", bytes: with(labels_raw(), |b| b[2] = 0x42), reader: Idx, pin: None, expect: Fails("unknown IDX type code 0x42") },
        Case { what: "zero dims", bytes: with(labels_raw(), |b| b[3] = 0), reader: Idx, pin: None, expect: Fails("declares 0 dimensions") },
        Case { what: "overflowing dims", bytes: [0, 0, 8, 3, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255].to_vec(), reader: Idx, pin: None, expect: Fails("dimensions 4294967295 x 4294967295 x 4294967295 overflow") },
        // Counts that disagree with the bytes present.
        Case { what: "count too large", bytes: with(labels_raw(), |b| b[7] = 0xe9), reader: Idx, pin: None, expect: Fails("declare 1001 data bytes but only 1000") },
        Case { what: "truncated images", bytes: with(images_raw(), |b| b.truncate(b.len() - 1)), reader: Idx, pin: None, expect: Fails("declare 784000 data bytes but only 783999") },
        Case { what: "trailing bytes", bytes: with(labels_raw(), |b| b.push(0)), reader: Idx, pin: None, expect: Fails("1 trailing bytes") },
        Case { what: "truncated gz", bytes: with(images_gz(), |b| b.truncate(b.len() / 2)), reader: Idx, pin: None, expect: Fails("corrupt gzip stream") },
        Case { what: "corrupt gz", bytes: with(labels_gz(), |b| { let n = b.len() - 8; b[n] ^= 0xff }), reader: Idx, pin: None, expect: Fails("corrupt gzip stream") },
        // Pins.
        Case { what: "idx hash mismatch", bytes: labels_gz(), reader: Idx, pin: images_pin.clone(), expect: Fails("sha256 mismatch") },
        Case { what: "bad pin", bytes: labels_gz(), reader: Idx, pin: Some("abc".into()), expect: Fails("not a 64-digit sha256") },
        Case { what: "cifar hash mismatch", bytes: with(cifar(), |b| b[5] ^= 1), reader: Cifar, pin: cifar_pin.clone(), expect: Fails("sha256 mismatch") },
        // CIFAR structure.
        Case { what: "empty cifar", bytes: vec![], reader: Cifar, pin: None, expect: Fails("empty file") },
        Case { what: "cifar short record", bytes: with(cifar(), |b| b.truncate(b.len() - 1)), reader: Cifar, pin: None, expect: Fails("99 records and 3072 bytes over") },
        Case { what: "cifar extra byte", bytes: with(cifar(), |b| b.push(0)), reader: Cifar, pin: None, expect: Fails("100 records and 1 bytes over") },
        Case { what: "cifar label 10", bytes: with(cifar(), |b| b[3 * CIFAR_RECORD_LEN] = 10), reader: Cifar, pin: None, expect: Fails("record 3 has label 10") },
        Case { what: "cifar label 255", bytes: with(cifar(), |b| b[0] = 255), reader: Cifar, pin: None, expect: Fails("record 0 has label 255") },
        // A gzip that expands past the readers' cap is refused, not decoded.
        Case { what: "gzip bomb", bytes: gz(&vec![0u8; MAX_DECODED_LEN + 1]), reader: Idx, pin: None, expect: Fails("expands past the 67108864-byte limit") },
    ];
    for case in cases {
        check(case);
    }
}

#[test]
fn gzip_and_hash_helpers() {
    // (input, cap, expected outcome: Ok(decoded) or Err(message part))
    let text = b"stridelab".repeat(100);
    type GunzipCase = (Vec<u8>, usize, Result<Vec<u8>, &'static str>);
    #[rustfmt::skip]
    let cases: Vec<GunzipCase> = vec![
        (gz(&text), text.len(), Ok(text.clone())),
        (gz(&text), text.len() - 1, Err("expands past the 899-byte limit")),
        (gz(&[]), 0, Ok(vec![])),
        // Concatenated members decode as one stream, as `gzip -d` does.
        ([gz(b"ab"), gz(b"cd")].concat(), 4, Ok(b"abcd".to_vec())),
        (text.clone(), usize::MAX, Err("not a gzip stream")),
    ];
    for (input, cap, expect) in cases {
        assert_eq!(is_gzip(&input), input.starts_with(&[0x1f, 0x8b]));
        match (gunzip("f.gz", &input, cap), expect) {
            (Ok(out), Ok(want)) => assert_eq!(out, want),
            (Err(e), Err(part)) => {
                assert_eq!(e.kind(), "decode");
                assert!(e.message().starts_with("f.gz: ") && e.message().contains(part), "{e}");
            }
            (got, want) => panic!("cap {cap}: got {got:?}, want {want:?}"),
        }
    }
    // FIPS 180-2's own example, then the pins of the committed files (computed independently).
    assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    // The hex digest agrees with the pins of the committed files and has sha256's shape.
    for (rel, column) in [("cifar/sample_batch.bin", 3), ("mnist/t10k-labels-1k-idx1-ubyte.gz", 3)] {
        let name = rel.rsplit('/').next().expect("file name");
        let hex = sha256_hex(&file(rel));
        assert_eq!(hex, pin(name, column), "{rel}");
        assert!(hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    }
}
