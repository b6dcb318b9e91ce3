//! Captures: a capture of the sample model replays to the same outputs as running the model
//! (and as onnxruntime), the committed sample capture loads and replays, and every way a capture
//! can be broken is refused at load (or replay) with its own error.

// A panic is how a test reports failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use stridelab_core::capture::{capture_model, Capture, CpuKernels, Manifest};
use stridelab_core::data::sha256_hex;
use stridelab_core::model::{execute, idx_images, HostTensor};
use stridelab_core::onnx::read_model;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data");

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(format!("{DATA}/{rel}")).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn images(n: usize) -> HostTensor {
    idx_images("images", &read("mnist/t10k-images-1k-idx3-ubyte.gz"), Some(n)).unwrap()
}

/// A clock that ticks once per reading, so timings are deterministic and positive.
fn ticks() -> impl FnMut() -> f64 {
    let mut t = 0.0;
    move || {
        t += 1.0;
        t
    }
}

fn ort_rows(n: usize) -> Vec<f64> {
    let r: serde_json::Value = serde_json::from_slice(&read("models/mnist_cnn_ort64.json")).unwrap();
    r["output"]["values"].as_array().unwrap()[..n * 10].iter().map(|v| v.as_f64().unwrap()).collect()
}

fn assert_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert!((a - b).abs() <= tol * (1.0 + b.abs()), "{what}: element {i}: {a} vs {b}");
    }
}

#[test]
fn capture_replays_like_the_model() {
    let bytes = read("models/mnist_cnn.onnx");
    let model = read_model("mnist_cnn.onnx", &bytes).unwrap();
    let x = images(4);
    let (manifest, weights) = capture_model(&model, &sha256_hex(&bytes), &[("input", x.clone())]).unwrap();
    let text = serde_json::to_vec(&manifest).unwrap();
    let cap = Capture::load(&text, &weights).unwrap();
    assert_eq!(cap.manifest(), &manifest);
    let replay = cap.replay(&[("input", x.clone())], &mut ticks()).unwrap();
    let direct = execute(&model, &[("input", x)]).unwrap();
    assert_eq!(replay.outputs.len(), 1);
    assert_eq!(replay.outputs[0].0, direct[0].0);
    assert_eq!(replay.outputs[0].1.shape(), direct[0].1.shape());
    assert_close("replay vs execute", &replay.outputs[0].1.data().to_f64_vec(), &direct[0].1.data().to_f64_vec(), 1e-6);
    assert_close("replay vs onnxruntime", &replay.outputs[0].1.data().to_f64_vec(), &ort_rows(4), 1e-4);
    // One timing per scheduled kernel, in schedule order; Constants became weights, not kernels.
    let names: Vec<&str> = manifest.schedule.iter().map(|&k| manifest.kernels[k].name.as_str()).collect();
    assert_eq!(replay.timings.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), names);
    assert!(replay.timings.iter().all(|t| t.elapsed == 1.0));
    assert!(manifest.kernels.iter().all(|k| k.op != "Constant"));
    // Every op that computes became fused WGSL kernels writing its output buffer; Flatten is a
    // view and became none.
    for k in &manifest.kernels {
        if k.op == "Flatten" {
            assert!(k.gpu.is_empty(), "{}", k.name);
            continue;
        }
        assert!(!k.gpu.is_empty(), "{}", k.name);
        assert!(k.gpu.iter().all(|g| g.wgsl.contains("@compute") && g.wgsl.contains(&g.entry)), "{}", k.name);
        let last = k.gpu.last().unwrap();
        assert_eq!(last.bindings[0].buffer, k.writes[0], "{}", k.name);
        assert_eq!(last.bindings[0].access, "read_write");
    }
    let convs: Vec<_> = manifest.kernels.iter().filter(|k| k.op == "Conv").collect();
    assert_eq!(convs.len(), 2);
    // conv1: 4 x 8 x 28 x 28 outputs, each 2 x (1 x 3 x 3) flops.
    assert_eq!(convs[0].cost.flops, 4 * 8 * 28 * 28 * 2 * 9);
}

#[test]
fn committed_sample_capture() {
    let manifest = read("models/mnist_cnn.capture/manifest.json");
    let weights = read("models/mnist_cnn.capture/weights.safetensors");
    let cap = Capture::load(&manifest, &weights).unwrap();
    assert_eq!(cap.manifest().model.sha256, sha256_hex(&read("models/mnist_cnn.onnx")));
    let r = cap.replay(&[("input", images(1))], &mut ticks()).unwrap();
    assert_close("sample capture vs onnxruntime", &r.outputs[0].1.data().to_f64_vec(), &ort_rows(1), 1e-4);
}

type Break = fn(&mut Manifest, &mut Vec<u8>);

/// Re-pins the weights file after a change, so that only the deeper check can catch it.
fn repin(m: &mut Manifest, w: &[u8]) {
    m.weights.sha256 = sha256_hex(w);
}

#[test]
fn broken_captures() {
    let bytes = read("models/mnist_cnn.onnx");
    let model = read_model("mnist_cnn.onnx", &bytes).unwrap();
    let (good, weights) = capture_model(&model, &sha256_hex(&bytes), &[("input", images(1))]).unwrap();
    #[rustfmt::skip]
    let cases: Vec<(&str, Break, &str, &str)> = vec![
        ("weight bytes changed", |m, w| { let n = w.len(); w[n - 1] ^= 1; repin(m, w) }, "decode", "sha256 mismatch: manifest pins"),
        ("weights file changed, not repinned", |_, w| { let n = w.len(); w[n - 1] ^= 1 }, "decode", "weights.safetensors: sha256 mismatch"),
        ("weights file cut in half", |m, w| { w.truncate(w.len() / 2); repin(m, w) }, "decode", "not safetensors"),
        ("format version 2", |m, _| m.version = 2, "unsupported", "capture format version 2 is not supported; this build reads version 1"),
        ("another format", |m, _| m.format = "other".into(), "decode", "format is \"other\""),
        ("webgpu target", |m, _| m.target.backend = "webgpu".into(), "unsupported", "this build replays only cpu captures"),
        ("unknown backend", |m, _| m.target.backend = "tpu".into(), "unsupported", "known backends are cpu, webgpu"),
        ("needs a feature", |m, _| m.target.features.push("shader-f16".into()), "unsupported", "device feature \"shader-f16\""),
        ("unknown op", |m, _| m.kernels[0].op = "Col2Im".into(), "unsupported", "computes op \"Col2Im\", which this build cannot run"),
        ("schedule reversed", |m, _| m.schedule.reverse(), "decode", "before anything writes it"),
        ("schedule names a missing kernel", |m, _| m.schedule.push(99), "decode", "kernel 99, which does not exist"),
        ("missing weight tensor", |m, _| { let b = m.buffers.iter_mut().find(|b| b.weight.is_some()).unwrap(); b.weight.as_mut().unwrap().tensor = "nope".into() }, "decode", "tensor \"nope\" (buffer"),
        ("weight pin changed", |m, _| { let b = m.buffers.iter_mut().find(|b| b.weight.is_some()).unwrap(); b.weight.as_mut().unwrap().sha256 = "0".repeat(64) }, "decode", "sha256 mismatch: manifest pins 0000"),
        ("weight shape changed", |m, _| { let b = m.buffers.iter_mut().find(|b| b.weight.is_some()).unwrap(); b.shape.push(1) }, "decode", "the manifest says"),
        ("GPU binding to nowhere", |m, _| m.kernels[0].gpu[0].bindings[0].buffer = 999, "decode", "binds buffer 999, which does not exist"),
        ("buffer size wrong", |m, _| m.buffers[0].size += 1, "decode", "does not match"),
        ("bad attribute", |m, _| { let k = m.kernels.iter_mut().find(|k| !k.attributes.is_empty()).unwrap(); let v = k.attributes.values_mut().next().unwrap(); *v = serde_json::json!({"bytes": 1}) }, "decode", "is not one of float, int"),
    ];
    for (what, brk, kind, part) in cases {
        let (mut m, mut w) = (good.clone(), weights.clone());
        brk(&mut m, &mut w);
        let err = Capture::load(&serde_json::to_vec(&m).unwrap(), &w).err().unwrap_or_else(|| panic!("{what}: loaded"));
        assert_eq!(err.kind(), kind, "{what}: {err}");
        assert!(err.message().contains(part), "{what}: {err}");
    }
    // Not JSON at all, and the right capture fed the wrong batch.
    let err = Capture::load(b"{ not json", &weights).err().unwrap();
    assert!(err.message().contains("not JSON"), "{err}");
    let cap = Capture::load(&serde_json::to_vec(&good).unwrap(), &weights).unwrap();
    let err = cap.replay(&[("input", images(2))], &mut ticks()).err().unwrap();
    assert_eq!(err.kind(), "shape");
    assert!(err.message().contains("captured as float32 [1, 1, 28, 28]"), "{err}");
}

/// Every way of editing the committed sample capture that keeps it well-formed JSON: each
/// kernel's op swapped for every other supported op, each attribute changed, each GPU kernel's
/// WGSL, entry, workgroup size and count and bindings edited, each buffer's shape changed
/// (and made enormous), the schedule reordered, repeated and made a million entries long. Each
/// is refused at load with a clean error (a limit error for the sizes), never a panic; the CPU
/// plan and the GPU model are both made from a loaded capture only, so both refuse it alike.
/// A mutant that happened to compile to the same kernels would have to replay to the same
/// logits.
#[test]
fn capture_mutants_are_refused_cleanly() {
    use stridelab_core::onnx::SUPPORTED_OPS;
    let manifest: Manifest = serde_json::from_slice(&read("models/mnist_cnn.capture/manifest.json")).unwrap();
    let weights = read("models/mnist_cnn.capture/weights.safetensors");
    let want = Capture::load(&serde_json::to_vec(&manifest).unwrap(), &weights)
        .unwrap()
        .replay(&[("input", images(1))], &mut ticks())
        .unwrap()
        .outputs[0]
        .1
        .data()
        .to_f64_vec();
    let mut mutants: Vec<(String, Manifest)> = Vec::new();
    let mut add = |what: String, edit: &dyn Fn(&mut Manifest)| {
        let mut m = manifest.clone();
        edit(&mut m);
        if m != manifest {
            mutants.push((what, m));
        }
    };
    for k in 0..manifest.kernels.len() {
        for op in SUPPORTED_OPS {
            add(format!("kernel {k} op -> {op}"), &|m| m.kernels[k].op = op.to_string());
        }
        for name in manifest.kernels[k].attributes.keys() {
            add(format!("kernel {k} attribute {name} removed"), &|m| {
                m.kernels[k].attributes.remove(name);
            });
            add(format!("kernel {k} attribute {name} changed"), &|m| {
                let v = m.kernels[k].attributes.get_mut(name).unwrap();
                *v = match v.as_object().and_then(|o| o.keys().next()).map(String::as_str) {
                    Some("int") => serde_json::json!({"int": v["int"].as_i64().unwrap() + 1}),
                    Some("ints") => serde_json::json!({"ints": [2, 2, 2, 2]}),
                    _ => serde_json::json!({"float": 0.5}),
                };
            });
        }
        add(format!("kernel {k} attribute added"), &|m| {
            m.kernels[k].attributes.insert("stride".into(), serde_json::json!({"int": 2}));
        });
        add(format!("kernel {k} dispatch"), &|m| m.kernels[k].dispatch[0] += 1);
        add(format!("kernel {k} reads reversed"), &|m| m.kernels[k].reads.reverse());
        add(format!("kernel {k} GPU kernels dropped"), &|m| m.kernels[k].gpu.clear());
        for g in 0..manifest.kernels[k].gpu.len() {
            add(format!("kernel {k}.{g} WGSL writes 12345.0"), &|m| {
                let w = &mut m.kernels[k].gpu[g].wgsl;
                let at = w.rfind(" = ").unwrap();
                let end = at + w[at..].find(';').unwrap();
                w.replace_range(at + 3..end, "12345.0");
            });
            add(format!("kernel {k}.{g} WGSL comment"), &|m| m.kernels[k].gpu[g].wgsl.push_str("// edited\n"));
            add(format!("kernel {k}.{g} entry"), &|m| m.kernels[k].gpu[g].entry = "other".into());
            add(format!("kernel {k}.{g} zero workgroups"), &|m| m.kernels[k].gpu[g].workgroups = [0, 1, 1]);
            add(format!("kernel {k}.{g} more workgroups"), &|m| m.kernels[k].gpu[g].workgroups[0] *= 2);
            add(format!("kernel {k}.{g} workgroup size"), &|m| m.kernels[k].gpu[g].workgroup_size = [1, 1, 1]);
            add(format!("kernel {k}.{g} bindings swapped"), &|m| m.kernels[k].gpu[g].bindings.swap(0, 1));
            add(format!("kernel {k}.{g} binding access"), &|m| {
                m.kernels[k].gpu[g].bindings.last_mut().unwrap().access = "read_write".into()
            });
            add(format!("kernel {k}.{g} duplicated"), &|m| {
                let g2 = m.kernels[k].gpu[g].clone();
                m.kernels[k].gpu.push(g2);
            });
        }
    }
    for b in 0..manifest.buffers.len() {
        let resize = |m: &mut Manifest, shape: Vec<usize>| {
            let buf = &mut m.buffers[b];
            buf.size = shape.iter().product::<usize>() * 4;
            buf.shape = shape;
        };
        add(format!("buffer {b} shape halved"), &|m| {
            let mut s = m.buffers[b].shape.clone();
            if let Some(d) = s.iter_mut().find(|d| **d > 1) {
                *d /= 2;
            }
            resize(m, s);
        });
        add(format!("buffer {b} rank"), &|m| {
            let mut s = m.buffers[b].shape.clone();
            s.insert(0, 1);
            resize(m, s);
        });
        add(format!("buffer {b} enormous"), &|m| resize(m, vec![1048576, 1048576]));
    }
    add("schedule reversed".into(), &|m| m.schedule.reverse());
    add("schedule repeated".into(), &|m| m.schedule.extend(0..m.kernels.len()));
    add("schedule of a million".into(), &|m| m.schedule = (0..1_000_000).map(|i| i % m.kernels.len()).collect());
    add("a kernel dropped".into(), &|m| {
        m.kernels.pop();
        m.schedule.pop();
    });
    add("limits".into(), &|m| {
        m.target.limits.insert("maxComputeWorkgroupsPerDimension".into(), 1);
    });
    assert!(mutants.len() > 400, "{}", mutants.len());
    let mut refused = 0;
    for (what, m) in &mutants {
        match Capture::load(&serde_json::to_vec(m).unwrap(), &weights) {
            Err(e) => {
                refused += 1;
                if what.contains("enormous") || what.contains("million") {
                    assert_eq!(e.kind(), "limit", "{what}: {e}");
                }
                assert!(!e.message().is_empty(), "{what}");
            }
            Ok(cap) => {
                // Only an attribute left out (ONNX's default then applies) or set to a value
                // that computes the same kernels (a ceil mode that rounds nothing, a nonzero
                // transB) loads: the same kernels, the same logits on both CPU plans.
                assert!(what.contains("removed") || what.contains("changed"), "{what}: loaded");
                let got = cap.replay(&[("input", images(1))], &mut ticks()).unwrap().outputs[0].1.data().to_f64_vec();
                assert_eq!(got, want, "{what}: loaded and replays differently");
                let fast = cap.cpu_plan(CpuKernels::Fast).unwrap().run(&[("input", images(1))], &mut ticks()).unwrap();
                assert_close(what, &fast.outputs[0].1.data().to_f64_vec(), &want, 1e-5);
            }
        }
    }
    assert!(refused > mutants.len() * 9 / 10, "{refused} of {} refused", mutants.len());
}
