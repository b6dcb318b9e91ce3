//! The Data tab's arithmetic checked against the core's own readers and the sample model: what the
//! grid draws, the picked image's view, the drawing pipeline and the probabilities.

use super::*;
use stridelab_core::data::{read_idx, Idx};
use stridelab_core::model::{execute, HostTensor};
use stridelab_core::onnx::read_model;
use stridelab_core::uop::buffer::Data;
use stridelab_web::session::Session;

const IMAGES: &[u8] = include_bytes!("../../../../tests/data/mnist/t10k-images-1k-idx3-ubyte.gz");
const LABELS: &[u8] = include_bytes!("../../../../tests/data/mnist/t10k-labels-1k-idx1-ubyte.gz");
const CIFAR: &[u8] = include_bytes!("../../../../tests/data/cifar/sample_batch.bin");
const MODEL: &[u8] = include_bytes!("../../../../tests/data/models/mnist_cnn.onnx");

fn mnist() -> (Idx, Idx) {
    (
        read_idx("images", IMAGES, None).expect("committed images decode"),
        read_idx("labels", LABELS, None).expect("committed labels decode"),
    )
}

/// Opens the samples here and registers them with the trace module too, as the page does (the two
/// modules keep their own files).
fn open_samples() {
    for (name, bytes) in [("mnist-images", IMAGES), ("mnist-labels", LABELS), ("cifar-sample", CIFAR)] {
        let info = open(name, bytes).expect(name);
        let registered = info["name"].as_str().expect("a name").to_string();
        stridelab_web::files::register_file(&registered, bytes.to_vec());
    }
}

fn gunzipped(bytes: &[u8]) -> Vec<u8> {
    stridelab_core::data::gunzip("t", bytes, 1 << 24).expect("gzip")
}

/// One file to open: its name, bytes, and either the info fields expected or an error fragment.
fn check_open(file: &str, bytes: &[u8], want: std::result::Result<Json, &str>) {
    match (open(file, bytes), want) {
        (Ok(info), Ok(want)) => {
            for (k, v) in want.as_object().into_iter().flatten() {
                assert_eq!(&info[k], v, "{file}: {k} in {info}");
            }
            // Registered for traces under the name the info gives.
            let name = info["name"].as_str().unwrap_or_default();
            assert!(crate::files::sample_files().contains_key(name), "{file} registered as {name}");
        }
        (Err(e), Err(fragment)) => assert!(e.to_string().contains(fragment), "{file}: {e}"),
        (got, want) => panic!("{file}: got {got:?}, wanted {want:?}"),
    }
}

#[test]
fn opens_and_refuses_files() {
    let raw_images = gunzipped(IMAGES);
    let mut bad_magic = raw_images.clone();
    bad_magic[2] = 0x0d;
    let cases: Vec<(&str, Vec<u8>, std::result::Result<Json, &str>)> = vec![
        (
            "t10k-images.gz",
            IMAGES.to_vec(),
            Ok(
                json!({"name": "t10k-images.gz", "kind": "images", "count": 1000, "rows": 28, "cols": 28, "channels": 1, "header": 16, "labels": false}),
            ),
        ),
        ("raw-images", raw_images.clone(), Ok(json!({"kind": "images", "count": 1000, "header": 16}))),
        ("labels.gz", LABELS.to_vec(), Ok(json!({"kind": "labels", "count": 1000, "labels": true}))),
        (
            "batch.bin",
            CIFAR.to_vec(),
            Ok(json!({"kind": "cifar", "count": 100, "rows": 32, "cols": 32, "channels": 3, "labels": true})),
        ),
        // A name a trace could not quote is made quotable.
        ("my \"data\"\\x.gz", LABELS.to_vec(), Ok(json!({"name": "my__data__x.gz"}))),
        ("short", raw_images[..raw_images.len() - 5].to_vec(), Err("short: truncated: dimensions 1000 x 28 x 28")),
        ("float", bad_magic, Err("IDX type code 0x0d (float32) is not supported")),
        ("cut.gz", IMAGES[..IMAGES.len() / 2].to_vec(), Err("cut.gz: corrupt gzip stream")),
        ("odd.bin", CIFAR[..5000].to_vec(), Err("not a whole number of 3073-byte records")),
        ("empty", Vec::new(), Err("empty file")),
    ];
    for (file, bytes, want) in cases {
        check_open(file, &bytes, want);
    }
}

/// (dataset, labels file, start, count, expected start, expected count).
type PageCase = (&'static str, Option<&'static str>, usize, usize, usize, usize);

#[test]
fn pages_match_the_readers() {
    open_samples();
    let (images, labels) = mnist();
    let cases: &[PageCase] = &[
        ("mnist-images", Some("mnist-labels"), 0, 48, 0, 48),
        ("mnist-images", Some("mnist-labels"), 990, 48, 990, 10),
        ("mnist-images", None, 2000, 5, 1000, 0),
        ("cifar-sample", None, 96, 8, 96, 4),
    ];
    for &(name, lab, start, count, s, n) in cases {
        let p = page(name, lab, start, count).expect(name);
        assert_eq!((p["start"].as_u64(), p["count"].as_u64()), (Some(s as u64), Some(n as u64)), "{name} {p}");
        let px = rgba(name, start, count).expect(name);
        let (c, r, w) = (p["channels"].as_u64(), p["rows"].as_u64(), p["cols"].as_u64());
        let plane = (r.unwrap_or(0) * w.unwrap_or(0)) as usize;
        assert_eq!(px.len(), n * plane * 4, "{name}");
        if name == "cifar-sample" {
            let cifar = read_cifar("c", CIFAR, None).expect("cifar");
            assert_eq!(c, Some(3));
            let want: Vec<u8> = cifar.labels()[s..s + n].to_vec();
            assert_eq!(p["labels"], json!(want));
            assert_eq!(p["names"][0], json!(CIFAR_NAMES[usize::from(want[0])]));
            for k in 0..n {
                let img = cifar.image(s + k).expect("image");
                for pix in [0, 500, 1023] {
                    let got = &px[(k * plane + pix) * 4..][..4];
                    assert_eq!(got, &[img[pix], img[1024 + pix], img[2048 + pix], 255], "cifar {} pixel {pix}", s + k);
                }
            }
        } else {
            assert_eq!(c, Some(1));
            let want = lab.map(|_| json!(labels.data()[s..s + n].to_vec())).unwrap_or(Json::Null);
            assert_eq!(p["labels"], want, "{name}");
            for k in 0..n {
                let img = images.item(s + k).expect("image");
                let gray: Vec<u8> = px[k * plane * 4..][..plane * 4].chunks_exact(4).map(|q| q[1]).collect();
                assert_eq!(gray, img, "mnist image {}", s + k);
            }
        }
    }
    // Refusals carry the reason.
    let refusals: &[(&str, Option<&str>, &str)] = &[
        ("nope", None, "no dataset named \"nope\""),
        ("mnist-labels", None, "is a label file"),
        ("mnist-images", Some("cifar-sample"), "not an IDX label file"),
    ];
    for &(name, lab, msg) in refusals {
        let e = page(name, lab, 0, 4).expect_err(name).to_string();
        assert!(e.contains(msg), "{name}: {e}");
    }
}

/// (dataset, labels file, image, storage_offset, shape).
type PickCase = (&'static str, Option<&'static str>, usize, usize, &'static [usize]);

/// (dataset, labels, image): the line's tensor is a view of the file at the image's byte offset,
/// and holds the image's bytes.
#[test]
fn picked_images_are_views_of_the_file() {
    open_samples();
    let (images, labels) = mnist();
    let cifar = read_cifar("c", CIFAR, None).expect("cifar");
    let cases: &[PickCase] = &[
        ("mnist-images", Some("mnist-labels"), 17, 16 + 17 * 784, &[1, 1, 28, 28]),
        ("mnist-images", None, 0, 16, &[1, 1, 28, 28]),
        ("mnist-images", Some("mnist-labels"), 999, 16 + 999 * 784, &[1, 1, 28, 28]),
        ("cifar-sample", None, 7, 7 * 3073 + 1, &[1, 3, 32, 32]),
    ];
    for &(name, lab, i, offset, shape) in cases {
        let line = pick_line(name, lab, i).expect(name);
        let var = format!("img{i}");
        assert!(line.starts_with(&format!("{var} = dataset(\"{name}\")")), "{line}");
        let (pixels, label) = if name == "cifar-sample" {
            (cifar.image(i).expect("image").to_vec(), Some(cifar.labels()[i]))
        } else {
            (images.item(i).expect("image").to_vec(), lab.map(|_| labels.data()[i]))
        };
        match label {
            Some(l) => assert!(line.contains(&format!("# label {l}")), "{line}"),
            None => assert!(!line.contains('#'), "{line}"),
        }
        // Appended to another trace, as the page does.
        let mut s = Session::new(&format!("a = arange(3.)\n{line}\n"));
        let state = s.state();
        assert!(state["error"].is_null(), "{line}: {}", state["error"]);
        let t = &state["tensors"][&var]["torch"];
        assert_eq!(t["storage_offset"], json!(offset), "{line}: {t}");
        assert_eq!(t["is_view"], json!(true), "{line}: {t}");
        assert_eq!(state["tensors"][&var]["shape"], json!(shape), "{line}");
        let cells = s.tensor_cells(&var);
        let first: Vec<i64> = cells["cells"].as_array().into_iter().flatten().filter_map(Json::as_i64).collect();
        assert_eq!(first.len(), pixels.len(), "{line}");
        assert_eq!(first[0], offset as i64);
        assert!(first.windows(2).all(|w| w[1] == w[0] + 1), "{line}: contiguous cells");
        // The view chain ends on the picked image at the same offset, starting from the file.
        let chain = s.chain(&var);
        let rows = chain.as_array().map(Vec::as_slice).unwrap_or_default();
        assert!(rows.len() >= 3, "{line}: {chain}");
        assert_eq!(rows[0]["tensor"]["torch"]["storage_offset"], json!(0), "{line}");
        assert_eq!(rows[rows.len() - 1]["tensor"]["torch"]["storage_offset"], json!(offset), "{line}");
        let input = image_input(name, i).expect(name);
        let scaled: Vec<f32> = pixels.iter().map(|&b| f32::from(b) / 255.0).collect();
        assert_eq!(input, scaled, "{name} {i}");
    }
    let e = pick_line("mnist-images", None, 1000).expect_err("past the end").to_string();
    assert!(e.contains("image 1000 is out of range"), "{e}");
}

/// An MNIST digit re-rendered into a 280x280 canvas at `scale` pixels per MNIST pixel with its
/// top-left at (`x`, `y`), as alpha (`rgba`) or gray bytes.
struct Drawing {
    image: usize,
    scale: usize,
    x: usize,
    y: usize,
    rgba: bool,
}

const CANVAS: usize = 280;

fn render(digit: &[u8], d: &Drawing) -> Vec<u8> {
    let mut out = vec![0u8; CANVAS * CANVAS * if d.rgba { 4 } else { 1 }];
    for (p, &v) in digit.iter().enumerate() {
        let (col, row) = (p % 28, p / 28);
        for dy in 0..d.scale {
            for dx in 0..d.scale {
                let (x, y) = (d.x + col * d.scale + dx, d.y + row * d.scale + dy);
                if x < CANVAS && y < CANVAS {
                    let at = y * CANVAS + x;
                    if d.rgba {
                        // Ink as alpha over an arbitrary pen colour, as a canvas stroke leaves it.
                        out[at * 4..][..4].copy_from_slice(&[30, 30, 30, v]);
                    } else {
                        out[at] = v;
                    }
                }
            }
        }
    }
    out
}

fn argmax(xs: &[f32]) -> usize {
    xs.iter().enumerate().fold(0, |b, (i, &x)| if x > xs[b] { i } else { b })
}

#[test]
fn drawn_digits_are_classified_as_their_label() {
    let (images, labels) = mnist();
    let cases = [
        Drawing { image: 0, scale: 10, x: 0, y: 0, rgba: true },
        Drawing { image: 1, scale: 6, x: 5, y: 100, rgba: true },
        Drawing { image: 2, scale: 4, x: 150, y: 150, rgba: false },
        Drawing { image: 3, scale: 9, x: 20, y: 30, rgba: true },
        Drawing { image: 4, scale: 3, x: 190, y: 10, rgba: false },
        Drawing { image: 5, scale: 8, x: 40, y: 10, rgba: true },
        Drawing { image: 6, scale: 7, x: 60, y: 70, rgba: true },
        Drawing { image: 7, scale: 5, x: 0, y: 140, rgba: false },
    ];
    let mut batch = Vec::new();
    for d in &cases {
        let digit = images.item(d.image).expect("image");
        let input = drawing_input(&render(digit, d), CANVAS, CANVAS).expect("drawing");
        assert_eq!(input.len(), 28 * 28);
        assert!(input.iter().all(|v| (0.0..=1.0).contains(v)));
        // Ink fits the 20x20 box: rows and columns with ink span at most 20 pixels.
        let rows: Vec<usize> = (0..28).filter(|r| input[r * 28..][..28].iter().any(|&v| v > 0.0)).collect();
        let cols: Vec<usize> = (0..28).filter(|&c| (0..28).any(|r| input[r * 28 + c] > 0.0)).collect();
        let span = |v: &[usize]| v.last().map_or(0, |l| l + 1 - v[0]);
        assert!(span(&rows) <= 20 && span(&cols) <= 20, "image {}: {rows:?} {cols:?}", d.image);
        assert_eq!(span(&rows).max(span(&cols)), 20, "image {}: the long side fills the box", d.image);
        batch.extend(input);
    }
    let model = read_model("mnist_cnn.onnx", MODEL).expect("sample model");
    let n = cases.len();
    let x = HostTensor::new(vec![n, 1, 28, 28], Data::F32(batch)).expect("batch");
    let out = execute(&model, &[("input", x)]).expect("model runs");
    let Data::F32(logits) = out[0].1.data() else { panic!("float logits") };
    for (d, row) in cases.iter().zip(logits.chunks_exact(10)) {
        assert_eq!(argmax(row), usize::from(labels.data()[d.image]), "image {} drawn at scale {}", d.image, d.scale);
    }
}

#[test]
fn drawings_that_are_refused() {
    let cases: &[(Vec<u8>, usize, usize, &str)] = &[
        (vec![0; 280 * 280 * 4], 280, 280, "the drawing is empty"),
        (vec![8; 100], 10, 10, "the drawing is empty"),
        (vec![255; 99], 10, 10, "a 10x10 drawing is 100 gray or 400 RGBA bytes, got 99"),
        (Vec::new(), 0, 5, "1..=4096 pixels a side"),
    ];
    for (bytes, w, h, msg) in cases {
        let e = drawing_input(bytes, *w, *h).expect_err(msg).to_string();
        assert!(e.contains(msg), "{e}");
    }
    // A single dot becomes the 20x20 box's worth of ink, centred.
    let mut dot = vec![0u8; 9];
    dot[4] = 255;
    let input = drawing_input(&dot, 3, 3).expect("dot");
    let lit: Vec<usize> = (0..784).filter(|&p| input[p] > 0.0).collect();
    assert_eq!(lit.len(), 400);
    assert_eq!((lit[0] / 28, lit[0] % 28), (4, 4));
}

#[test]
fn probabilities_from_logits() {
    // (run JSON, output, predicted, probabilities) — the reference values are softmax worked
    // out by hand: e^0 / (e^0 + e^ln3) = 1/4.
    let ln3 = 3f64.ln();
    let cases: Vec<(String, Option<&str>, usize, Vec<f64>)> = vec![
        (
            json!({"outputs": {"logits": {"shape": [1, 2], "values": [0.0, ln3]}}}).to_string(),
            None,
            1,
            vec![0.25, 0.75],
        ),
        // Large logits do not overflow.
        (
            json!({"outputs": {"y": {"shape": [3], "values": [1000.0, 1000.0, 1000.0 + 2f64.ln()]}}}).to_string(),
            Some("y"),
            2,
            vec![0.25, 0.25, 0.5],
        ),
        // The first row of a batch.
        (
            json!({"outputs": {"logits": {"shape": [2, 2], "values": [ln3, 0.0, 0.0, 9.0]}}}).to_string(),
            None,
            0,
            vec![0.75, 0.25],
        ),
    ];
    for (run, output, predicted, probs) in &cases {
        let got = classify(run, *output).expect(run);
        assert_eq!(got["predicted"], json!(predicted), "{run}");
        let p: Vec<f64> = got["probabilities"].as_array().into_iter().flatten().filter_map(Json::as_f64).collect();
        assert_eq!(p.len(), probs.len());
        for (a, b) in p.iter().zip(probs) {
            assert!((a - b).abs() < 1e-12, "{run}: {p:?}");
        }
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
    let refusals: &[(&str, Option<&str>, &str)] = &[
        ("nope", None, "model run: not JSON"),
        (r#"{"outputs": {}}"#, None, "no outputs"),
        (r#"{"outputs": {"a": {"shape": [1, 2, 3], "values": []}}}"#, None, "class scores are"),
        (r#"{"outputs": {"a": {"shape": [1, 4], "values": [1, 2]}}}"#, None, "holds 2 values"),
        (r#"{"outputs": {"a": {"shape": [2], "values": [1, 2]}}}"#, Some("b"), "no output \"b\""),
    ];
    for &(run, output, msg) in refusals {
        let e = classify(run, output).expect_err(run).to_string();
        assert!(e.contains(msg), "{run}: {e}");
    }
}

/// (values, rows, cols, RGBA bytes or an error fragment).
type PreviewCase = (Vec<f32>, usize, usize, std::result::Result<Vec<u8>, &'static str>);

#[test]
fn input_previews() {
    let cases: &[PreviewCase] = &[
        (vec![0.0, 1.0], 1, 2, Ok(vec![0, 0, 0, 255, 255, 255, 255, 255])),
        (vec![1.0, 0.0, 0.5], 1, 1, Ok(vec![255, 0, 128, 255])),
        (vec![2.0], 1, 1, Ok(vec![255, 255, 255, 255])),
        (vec![0.0; 5], 1, 2, Err("5 values are not 1 or 3 channels of 1x2")),
    ];
    for (values, rows, cols, want) in cases {
        match (input_rgba(values, *rows, *cols), want) {
            (Ok(got), Ok(want)) => assert_eq!(&got, want),
            (Err(e), Err(msg)) => assert!(e.to_string().contains(msg), "{e}"),
            (got, want) => panic!("{values:?}: {got:?} vs {want:?}"),
        }
    }
}
