//! The Data tab's data: dataset files decoded by the core's validating readers into what an image
//! grid draws, the trace line that makes a picked image a view of its file's storage, a drawn
//! digit turned into an MNIST-like model input, and class probabilities from a model's logits.
//!
//! The page stays a renderer: every byte it shows as a pixel and every number it shows as a
//! probability is computed here, so the arithmetic is tested natively and is the same on every
//! browser.

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde_json::{json, Value as Json};
use stridelab_core::data::{decode_dataset, read_cifar, read_idx, DatasetKind, CIFAR_RECORD_LEN};
use stridelab_core::error::{bail, Result};
use stridelab_core::Error;
use wasm_bindgen::prelude::*;

/// CIFAR-10's class names, in label order.
pub const CIFAR_NAMES: [&str; 10] =
    ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"];

/// The side of MNIST's images, and of the input a drawing becomes.
pub const DIGIT_SIDE: usize = 28;
/// MNIST's digits were scaled to fit this box (keeping their aspect) before being centred by
/// centre of mass in the 28x28 image; a drawing gets the same treatment so the model sees what it
/// was trained on.
pub const DIGIT_BOX: usize = 20;
/// Ink below this (out of 255) does not count towards the bounding box: anti-aliasing fringes
/// and stray specks would otherwise shrink the digit.
const INK_MIN: u8 = 16;
/// The largest drawing accepted, per side: a page canvas is a few hundred pixels.
pub const MAX_DRAWING_SIDE: usize = 4096;

/// What one registered file holds.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Content {
    /// IDX images (N, rows, cols) after a `header` of bytes, or a CIFAR-10 batch whose records
    /// are `record` bytes with the image `skip` bytes in (after the label).
    Images { header: usize, record: usize, skip: usize, channels: usize, rows: usize, cols: usize },
    /// An IDX label file.
    Labels,
}

/// A decoded dataset file as the grid needs it.
#[derive(Clone, Debug)]
struct Dataset {
    content: Content,
    count: usize,
    /// Every image, channel-first, `channels * rows * cols` bytes each.
    pixels: Vec<u8>,
    /// Labels the file itself holds (CIFAR records, IDX label files).
    labels: Option<Vec<u8>>,
}

impl Dataset {
    fn image_len(&self) -> usize {
        match self.content {
            Content::Images { channels, rows, cols, .. } => channels * rows * cols,
            Content::Labels => 0,
        }
    }

    fn is_cifar(&self) -> bool {
        matches!(self.content, Content::Images { skip: 1, .. })
    }
}

thread_local! {
    static DATASETS: RefCell<BTreeMap<String, Dataset>> = const { RefCell::new(BTreeMap::new()) };
}

/// A file name as a dataset name a trace can quote: letters, digits, `.`, `-` and `_` are kept,
/// anything else (quotes, backslashes, spaces) becomes `_`, so `dataset("...")` always parses.
pub fn dataset_name(file: &str) -> String {
    let name: String =
        file.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
    if name.is_empty() {
        "file".to_string()
    } else {
        name
    }
}

fn decode(name: &str, bytes: &[u8]) -> Result<Dataset> {
    let (kind, raw) = decode_dataset(name, bytes)?;
    match kind {
        DatasetKind::Cifar => {
            let c = read_cifar(name, &raw, None)?;
            let count = c.len();
            let (pixels, labels) = c.into_parts();
            Ok(Dataset {
                content: Content::Images {
                    header: 0,
                    record: CIFAR_RECORD_LEN,
                    skip: 1,
                    channels: 3,
                    rows: 32,
                    cols: 32,
                },
                count,
                pixels,
                labels: Some(labels),
            })
        }
        DatasetKind::Idx => {
            let idx = read_idx(name, &raw, None)?;
            let header = idx.header_len();
            match *idx.dims() {
                [count, rows, cols] => Ok(Dataset {
                    content: Content::Images { header, record: rows * cols, skip: 0, channels: 1, rows, cols },
                    count,
                    pixels: idx.into_data(),
                    labels: None,
                }),
                [count] => {
                    Ok(Dataset { content: Content::Labels, count, pixels: Vec::new(), labels: Some(idx.into_data()) })
                }
                ref dims => {
                    bail!(Shape, "{name}: IDX dimensions {dims:?} are neither images (N, rows, cols) nor labels (N)")
                }
            }
        }
    }
}

/// Decodes and validates a dataset file, keeps it for the grid and registers its bytes for
/// `dataset(name)` in traces. Returns `{name, kind, count, channels, rows, cols, header, labels}`
/// where `name` is the (sanitized) name traces use, `kind` is `"images"`, `"labels"` or
/// `"cifar"`, and `labels` says whether the file carries its own labels.
pub fn open(file: &str, bytes: &[u8]) -> Result<Json> {
    let name = dataset_name(file);
    let d = decode(&name, bytes)?;
    let info = info_json(&name, &d);
    crate::files::register_file(&name, bytes.to_vec());
    DATASETS.with(|m| m.borrow_mut().insert(name, d));
    Ok(info)
}

fn info_json(name: &str, d: &Dataset) -> Json {
    let (kind, header, channels, rows, cols) = match d.content {
        Content::Images { header, channels, rows, cols, .. } => {
            (if d.is_cifar() { "cifar" } else { "images" }, header, channels, rows, cols)
        }
        Content::Labels => ("labels", 8, 0, 0, 0),
    };
    json!({"name": name, "kind": kind, "count": d.count, "channels": channels, "rows": rows, "cols": cols,
           "header": header, "labels": d.labels.is_some()})
}

fn with<T>(name: &str, f: impl FnOnce(&Dataset) -> Result<T>) -> Result<T> {
    DATASETS.with(|m| match m.borrow().get(name) {
        Some(d) => f(d),
        None => {
            let known = m.borrow().keys().cloned().collect::<Vec<_>>().join(", ");
            bail!(Name, "no dataset named {name:?} is open (open: {known})")
        }
    })
}

/// The label of every image of `name`: its own (CIFAR), or those of the IDX label file `labels`,
/// which must hold one per image.
fn labels_of(name: &str, d: &Dataset, labels: Option<&str>) -> Result<Option<Vec<u8>>> {
    if let Some(own) = &d.labels {
        return Ok(Some(own.clone()));
    }
    let Some(l) = labels else { return Ok(None) };
    with(l, |ld| match (&ld.content, &ld.labels) {
        (Content::Labels, Some(v)) if v.len() == d.count => Ok(Some(v.clone())),
        (Content::Labels, Some(v)) => {
            bail!(Shape, "{l} holds {} labels but {name} holds {} images", v.len(), d.count)
        }
        _ => bail!(Type, "{l} is not an IDX label file"),
    })
}

/// What the grid shows for images `start..start + count` (clamped to the file):
/// `{start, count, total, channels, rows, cols, labels: [..] | null, names: [..] | null}`, where
/// `names` are the class names of the labels (CIFAR-10's; MNIST's classes are their digits).
pub fn page(name: &str, labels: Option<&str>, start: usize, count: usize) -> Result<Json> {
    with(name, |d| {
        let Content::Images { channels, rows, cols, .. } = d.content else {
            bail!(Type, "{name} is a label file: open its images to see a grid")
        };
        let (start, end) = clamp(d.count, start, count);
        let labels = labels_of(name, d, labels)?.map(|l| l[start..end].to_vec());
        let names = labels
            .as_ref()
            .filter(|_| d.is_cifar())
            .map(|l| l.iter().map(|&c| CIFAR_NAMES.get(usize::from(c)).copied().unwrap_or("?")).collect::<Vec<_>>());
        Ok(json!({"start": start, "count": end - start, "total": d.count, "channels": channels, "rows": rows,
                  "cols": cols, "labels": labels, "names": names}))
    })
}

fn clamp(total: usize, start: usize, count: usize) -> (usize, usize) {
    let start = start.min(total);
    (start, start.saturating_add(count).min(total))
}

/// Images `start..start + count` (clamped like [`page`]) as RGBA bytes, `rows * cols * 4` per
/// image, ready for a canvas: gray images repeat their byte, colour ones interleave their planes.
pub fn rgba(name: &str, start: usize, count: usize) -> Result<Vec<u8>> {
    with(name, |d| {
        let Content::Images { channels, rows, cols, .. } = d.content else {
            bail!(Type, "{name} is a label file, it has no pixels")
        };
        let (start, end) = clamp(d.count, start, count);
        let len = d.image_len();
        let plane = rows * cols;
        let mut out = Vec::with_capacity((end - start) * plane * 4);
        for img in d.pixels[start * len..end * len].chunks_exact(len) {
            for p in 0..plane {
                let at = |c: usize| img[c.min(channels - 1) * plane + p];
                out.extend_from_slice(&[at(0), at(1), at(2), 255]);
            }
        }
        Ok(out)
    })
}

/// The trace statement that picks image `i` of `name` as a view of the file's bytes, so its
/// storage_offset says where in the file the image starts (after the IDX header, or after the
/// CIFAR record's label byte), with the label as a comment when one is known.
pub fn pick_line(name: &str, labels: Option<&str>, i: usize) -> Result<String> {
    with(name, |d| {
        let Content::Images { header, record, skip, channels, rows, cols } = d.content else {
            bail!(Type, "{name} is a label file: pick from its images")
        };
        if i >= d.count {
            bail!(Index, "image {i} is out of range for {name}, which holds {}", d.count);
        }
        let n = d.count;
        let view = if skip == 0 {
            format!("dataset(\"{name}\")[{header}:].reshape({n}, {channels}, {rows}, {cols})[{i}:{}]", i + 1)
        } else {
            // A record is the label byte then the image: slicing the label off one row of the
            // (N, record) matrix keeps a contiguous run, so the reshape is still a view.
            format!(
                "dataset(\"{name}\")[{header}:].reshape({n}, {record})[{i}:{}, {skip}:].reshape(1, {channels}, {rows}, {cols})",
                i + 1
            )
        };
        let label = labels_of(name, d, labels)?.map(|l| l[i]);
        let comment = match label {
            Some(c) if d.is_cifar() => {
                format!("  # label {c} ({})", CIFAR_NAMES.get(usize::from(c)).copied().unwrap_or("?"))
            }
            Some(c) => format!("  # label {c}"),
            None => String::new(),
        };
        Ok(format!("img{i} = {view}{comment}"))
    })
}

/// Image `i` of `name` as a model input: its pixels / 255, channel-first (the layout of the
/// core's `idx_images` and `cifar_images`).
pub fn image_input(name: &str, i: usize) -> Result<Vec<f32>> {
    with(name, |d| {
        if d.content == Content::Labels {
            bail!(Type, "{name} is a label file, it has no images");
        }
        if i >= d.count {
            bail!(Index, "image {i} is out of range for {name}, which holds {}", d.count);
        }
        let len = d.image_len();
        Ok(d.pixels[i * len..(i + 1) * len].iter().map(|&b| f32::from(b) / 255.0).collect())
    })
}

/// How much of each source pixel `[i, i + 1)` of a run of `src` pixels falls in each of `dst`
/// equal output cells, normalized so each cell's weights sum to 1: area averaging, which is what
/// shrinking a drawing needs (every stroke pixel counts) and still correct when enlarging.
fn area_weights(src: usize, dst: usize) -> Vec<Vec<(usize, f32)>> {
    let r = src as f64 / dst as f64;
    (0..dst)
        .map(|o| {
            let (lo, hi) = (o as f64 * r, (o + 1) as f64 * r);
            let first = lo.floor() as usize;
            let last = (hi.ceil() as usize).min(src);
            (first..last)
                .filter_map(|i| {
                    let overlap = hi.min(i as f64 + 1.0) - lo.max(i as f64);
                    (overlap > 0.0).then_some((i, (overlap / r) as f32))
                })
                .collect()
        })
        .collect()
}

/// Resamples the `w x h` region at (`x0`, `y0`) of a `stride`-wide plane to `ow x oh`.
fn resample(
    plane: &[f32],
    stride: usize,
    (x0, y0, w, h): (usize, usize, usize, usize),
    ow: usize,
    oh: usize,
) -> Vec<f32> {
    let (wx, wy) = (area_weights(w, ow), area_weights(h, oh));
    // Rows first (h x ow), then columns: separable, so each pass touches each pixel once.
    let mut rows = vec![0f32; h * ow];
    for y in 0..h {
        let line = &plane[(y0 + y) * stride + x0..][..w];
        for (o, ws) in wx.iter().enumerate() {
            rows[y * ow + o] = ws.iter().map(|&(i, k)| line[i] * k).sum();
        }
    }
    let mut out = vec![0f32; oh * ow];
    for (o, ws) in wy.iter().enumerate() {
        for x in 0..ow {
            out[o * ow + x] = ws.iter().map(|&(i, k)| rows[i * ow + x] * k).sum();
        }
    }
    out
}

/// A drawing (a `width x height` canvas as RGBA bytes, whose alpha is the ink, or as one gray
/// byte per pixel) as a 1x1x28x28 input preprocessed like MNIST: the ink's bounding box is scaled
/// to fit 20x20 keeping its aspect (area averaging), and placed in the 28x28 image so that its
/// centre of mass (rounded to a whole pixel) is the centre. Values are ink / 255.
pub fn drawing_input(bytes: &[u8], width: usize, height: usize) -> Result<Vec<f32>> {
    if width == 0 || height == 0 || width > MAX_DRAWING_SIDE || height > MAX_DRAWING_SIDE {
        bail!(Shape, "a drawing is 1..={MAX_DRAWING_SIDE} pixels a side, this one is {width}x{height}");
    }
    let n = width * height;
    let ink: Vec<u8> = if bytes.len() == 4 * n {
        bytes.chunks_exact(4).map(|p| p[3]).collect()
    } else if bytes.len() == n {
        bytes.to_vec()
    } else {
        bail!(Shape, "a {width}x{height} drawing is {n} gray or {} RGBA bytes, got {}", 4 * n, bytes.len());
    };
    let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
    for (p, _) in ink.iter().enumerate().filter(|(_, &v)| v >= INK_MIN) {
        let (x, y) = (p % width, p / width);
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    if x0 == usize::MAX {
        bail!(Shape, "the drawing is empty: draw a digit first");
    }
    let (w, h) = (x1 + 1 - x0, y1 + 1 - y0);
    let side = w.max(h) as f64;
    let fit = |len: usize| ((len as f64 * DIGIT_BOX as f64 / side).round() as usize).clamp(1, DIGIT_BOX);
    let (ow, oh) = (fit(w), fit(h));
    let plane: Vec<f32> = ink.iter().map(|&v| f32::from(v) / 255.0).collect();
    // Weights sum to 1 only up to rounding: keep the values a valid intensity.
    let digit: Vec<f32> =
        resample(&plane, width, (x0, y0, w, h), ow, oh).into_iter().map(|v| v.clamp(0.0, 1.0)).collect();
    let (mut mass, mut mx, mut my) = (0f64, 0f64, 0f64);
    for (p, &v) in digit.iter().enumerate() {
        let v = f64::from(v);
        mass += v;
        mx += v * ((p % ow) as f64 + 0.5);
        my += v * ((p / ow) as f64 + 0.5);
    }
    // The bounding box holds ink of at least INK_MIN, so the resampled digit has mass.
    assert!(mass > 0.0, "a non-empty bounding box resamples to a digit with ink");
    let centre = DIGIT_SIDE as f64 / 2.0;
    // Clamped so the whole box stays inside the image: at most 8 pixels of slack either way.
    let place = |com: f64, len: usize| ((centre - com).round().max(0.0) as usize).min(DIGIT_SIDE - len);
    let (left, top) = (place(mx / mass, ow), place(my / mass, oh));
    let mut out = vec![0f32; DIGIT_SIDE * DIGIT_SIDE];
    for y in 0..oh {
        out[(top + y) * DIGIT_SIDE + left..][..ow].copy_from_slice(&digit[y * ow..][..ow]);
    }
    Ok(out)
}

/// A model input (values in [0, 1], channel-first, 1 or 3 channels of `rows x cols`) as RGBA
/// bytes, to show what the model is given.
pub fn input_rgba(values: &[f32], rows: usize, cols: usize) -> Result<Vec<u8>> {
    let plane = rows * cols;
    let channels = values.len().checked_div(plane).unwrap_or(0);
    if plane == 0 || !(channels == 1 || channels == 3) || channels * plane != values.len() {
        bail!(Shape, "{} values are not 1 or 3 channels of {rows}x{cols}", values.len());
    }
    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let mut out = Vec::with_capacity(plane * 4);
    for p in 0..plane {
        let at = |c: usize| byte(values[c.min(channels - 1) * plane + p]);
        out.extend_from_slice(&[at(0), at(1), at(2), 255]);
    }
    Ok(out)
}

/// Softmax of one row of logits, in f64 with the maximum subtracted so large logits cannot
/// overflow.
pub fn softmax(logits: &[f64]) -> Vec<f64> {
    let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exp: Vec<f64> = logits.iter().map(|&x| (x - max).exp()).collect();
    let sum: f64 = exp.iter().sum();
    exp.into_iter().map(|e| e / sum).collect()
}

/// Class probabilities from a model run's JSON (`{"outputs": {name: {shape, values}}}`): the
/// first row of the output `output` (default: the only or first output), whose shape must be
/// (classes) or (batch, classes). Returns `{output, logits, probabilities, predicted}`.
pub fn classify(run: &str, output: Option<&str>) -> Result<Json> {
    let run: Json = serde_json::from_str(run).map_err(|e| Error::Decode(format!("model run: not JSON: {e}")))?;
    let Some(outputs) = run.get("outputs").and_then(Json::as_object) else {
        bail!(Decode, "model run: no \"outputs\" object");
    };
    let (name, out) = match output {
        Some(n) => match outputs.get(n) {
            Some(o) => (n.to_string(), o),
            None => bail!(Name, "model run has no output {n:?}"),
        },
        None => match outputs.iter().next() {
            Some((n, o)) => (n.clone(), o),
            None => bail!(Decode, "model run: no outputs"),
        },
    };
    let shape: Vec<u64> = out
        .get("shape")
        .and_then(Json::as_array)
        .map(|s| s.iter().filter_map(Json::as_u64).collect())
        .unwrap_or_default();
    let classes = match shape[..] {
        [c] | [_, c] if c > 0 => c as usize,
        _ => bail!(Shape, "output {name:?} has shape {shape:?}; class scores are (classes) or (batch, classes)"),
    };
    let values = out.get("values").and_then(Json::as_array).map(Vec::as_slice).unwrap_or_default();
    if values.len() < classes {
        bail!(Shape, "output {name:?} holds {} values, fewer than its {classes} classes", values.len());
    }
    let logits = values[..classes]
        .iter()
        .map(|v| v.as_f64().ok_or_else(|| Error::Decode(format!("output {name:?}: {v} is not a number"))))
        .collect::<Result<Vec<f64>>>()?;
    let probabilities = softmax(&logits);
    let predicted =
        probabilities.iter().enumerate().fold(0, |best, (i, &p)| if p > probabilities[best] { i } else { best });
    Ok(json!({"output": name, "logits": logits, "probabilities": probabilities, "predicted": predicted}))
}

// The page's entry points: each rejects with the core's error text.

fn js<T>(r: Result<T>) -> std::result::Result<T, String> {
    r.map_err(|e| e.to_string())
}

/// See [`open`].
#[wasm_bindgen(js_name = openDataset)]
pub fn open_dataset(file: &str, bytes: &[u8]) -> std::result::Result<String, String> {
    js(open(file, bytes)).map(|j| j.to_string())
}

/// See [`page`].
#[wasm_bindgen(js_name = datasetPage)]
pub fn dataset_page(
    name: &str,
    labels: Option<String>,
    start: usize,
    count: usize,
) -> std::result::Result<String, String> {
    js(page(name, labels.as_deref(), start, count)).map(|j| j.to_string())
}

/// See [`rgba`].
#[wasm_bindgen(js_name = datasetRgba)]
pub fn dataset_rgba(name: &str, start: usize, count: usize) -> std::result::Result<Vec<u8>, String> {
    js(rgba(name, start, count))
}

/// See [`pick_line`].
#[wasm_bindgen(js_name = pickLine)]
pub fn pick_line_js(name: &str, labels: Option<String>, i: usize) -> std::result::Result<String, String> {
    js(pick_line(name, labels.as_deref(), i))
}

/// See [`image_input`].
#[wasm_bindgen(js_name = imageInput)]
pub fn image_input_js(name: &str, i: usize) -> std::result::Result<Vec<f32>, String> {
    js(image_input(name, i))
}

/// See [`drawing_input`].
#[wasm_bindgen(js_name = drawingInput)]
pub fn drawing_input_js(bytes: &[u8], width: usize, height: usize) -> std::result::Result<Vec<f32>, String> {
    js(drawing_input(bytes, width, height))
}

/// See [`input_rgba`].
#[wasm_bindgen(js_name = inputRgba)]
pub fn input_rgba_js(values: &[f32], rows: usize, cols: usize) -> std::result::Result<Vec<u8>, String> {
    js(input_rgba(values, rows, cols))
}

/// See [`classify`].
#[wasm_bindgen(js_name = classifyRun)]
pub fn classify_run(run: &str, output: Option<String>) -> std::result::Result<String, String> {
    js(classify(run, output.as_deref())).map(|j| j.to_string())
}

#[cfg(test)]
mod tests;
