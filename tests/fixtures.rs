//! Golden traces recorded from real PyTorch and tinygrad, replayed through the core.
//!
//! Every case file under `tests/fixtures/` in the recorded-case format (and the shared
//! acceptance sample beside the checkout, when present) goes through one checker, which applies
//! the same rules as the acceptance script plus dtype and version counters when recorded.

// A malformed fixture file should stop the suite loudly, not be skipped.
#![allow(clippy::expect_used)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use stridelab_core::trace::report::{run_json, ReportOptions};

#[path = "json_values.rs"]
mod json_values;
use json_values::floats;

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= 1e-4 * y.abs().max(1.0))
}

/// torch.testing's rule, `|a - b| <= atol + rtol * |b|` (NaN equal to NaN), for cases that
/// record their tolerances (`rtol`, `atol`: the OpInfo fixtures).
fn close_tol(a: &[f64], b: &[f64], rtol: f64, atol: f64) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= atol + rtol * y.abs())
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array().map(|a| a.iter().filter_map(Value::as_i64).collect()).unwrap_or_default()
}

/// Checks one recorded PyTorch case; `None` when it passes.
fn check_torch(exp: &Value, got: &Value) -> Option<String> {
    let gerr = got["error"]["line"].as_u64();
    if exp["error_line"].as_u64() != gerr {
        return Some(format!(
            "error line: expected {} ({}), got {:?} ({})",
            exp["error_line"], exp["error"], gerr, got["error"]["message"]
        ));
    }
    if let (Some(kind), Some(_)) = (exp["error_kind"].as_str(), gerr) {
        if got["error"]["kind"].as_str() != Some(kind) {
            return Some(format!("error kind: expected {kind}, got {}", got["error"]["kind"]));
        }
    }
    // What the program printed, exactly (cases recorded with `output`).
    if let Some(out) = exp["output"].as_str() {
        let got_out = got["output"].as_str().unwrap_or("");
        if got_out != out {
            return Some(format!("output:\n{got_out}\n!= expected\n{out}"));
        }
    }
    // The first line after which a saved tensor of the live graph was modified in place
    // (cases recorded with `stale_line`; an absent report field reads as null).
    if let Some(want) = exp.get("stale_line") {
        let got_line = got.get("stale_line").unwrap_or(&Value::Null);
        if got_line.as_u64() != want.as_u64() {
            return Some(format!("stale_line: expected {want}, got {got_line}"));
        }
    }
    let mut classes_exp: Vec<(i64, Vec<String>)> = Vec::new();
    let mut classes_got: Vec<(i64, Vec<String>)> = Vec::new();
    let empty = serde_json::Map::new();
    for (name, e) in exp["tensors"].as_object().unwrap_or(&empty) {
        let g = &got["tensors"][name];
        if g.is_null() {
            return Some(format!("{name}: missing"));
        }
        if ints(&g["shape"]) != ints(&e["shape"]) {
            return Some(format!("{name}: shape {} != {}", g["shape"], e["shape"]));
        }
        if let Some(dt) = e["dtype"].as_str() {
            if g["dtype"].as_str() != Some(dt) {
                return Some(format!("{name}: dtype {} != {dt}", g["dtype"]));
            }
        }
        let (gv, ev) = (floats(&g["values"]), floats(&e["values"]));
        let same = match (exp["rtol"].as_f64(), exp["atol"].as_f64()) {
            (Some(rtol), Some(atol)) => close_tol(&gv, &ev, rtol, atol),
            _ => close(&gv, &ev),
        };
        if !same {
            return Some(format!("{name}: values {} != {}", g["values"], e["values"]));
        }
        let (gs, es) = (ints(&g["torch"]["strides"]), ints(&e["strides"]));
        let shape = ints(&e["shape"]);
        if gs.len() != es.len() || shape.iter().enumerate().any(|(d, &n)| n > 1 && gs[d] != es[d]) {
            return Some(format!("{name}: strides {gs:?} != {es:?}"));
        }
        if shape.iter().product::<i64>() > 0 && g["torch"]["storage_offset"] != e["storage_offset"] {
            return Some(format!("{name}: storage_offset {} != {}", g["torch"]["storage_offset"], e["storage_offset"]));
        }
        if let Some(why) = check_format(name, e, g) {
            return Some(why);
        }
        if let Some(why) = check_autograd(name, e, g) {
            return Some(why);
        }
        if let Some(v) = e["version"].as_u64() {
            if g["torch"]["version"].as_u64() != Some(v) {
                return Some(format!("{name}: version {} != {v}", g["torch"]["version"]));
            }
        }
        for (classes, key) in
            [(&mut classes_exp, e["storage_class"].as_i64()), (&mut classes_got, g["torch"]["storage"].as_i64())]
        {
            let key = key.unwrap_or(-1);
            match classes.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.push(name.clone()),
                None => classes.push((key, vec![name.clone()])),
            }
        }
    }
    let norm = |c: Vec<(i64, Vec<String>)>| {
        let mut v: Vec<Vec<String>> = c
            .into_iter()
            .map(|(_, mut n)| {
                n.sort();
                n
            })
            .collect();
        v.sort();
        v
    };
    let (ce, cg) = (norm(classes_exp), norm(classes_got));
    if ce != cg {
        return Some(format!("storage sharing {cg:?} != {ce:?}"));
    }
    None
}

/// The layout flags a case recorded (`is_contiguous`, and `channels_last` for 4-D tensors):
/// a recorded flag must be in the report (a missing one reads as null), and agree.
fn check_format(name: &str, e: &Value, g: &Value) -> Option<String> {
    if let Some(want) = e.get("is_contiguous").filter(|v| !v.is_null()) {
        let got = &g["torch"]["is_contiguous"];
        if got != want {
            return Some(format!("{name}: is_contiguous {got} != {want}"));
        }
    }
    if let Some(want) = e.get("channels_last").filter(|v| !v.is_null()) {
        let got = &g["torch"]["channels_last"];
        if got != want {
            return Some(format!("{name}: channels_last {got} != {want}"));
        }
    }
    None
}

/// The autograd state a case recorded (`autograd`: `requires_grad`, `is_leaf`, `grad_fn`,
/// `grad`, `grad_shape`) against the report's `tensors[name].autograd`; a missing field reads as
/// null. When reading the tensor's node raised (`grad_fn_error`: a multi-output or no_grad view
/// after an in-place write), the report must carry an error there too, and `is_leaf` / `grad_fn`
/// are not compared.
fn check_autograd(name: &str, e: &Value, g: &Value) -> Option<String> {
    let want = e.get("autograd").filter(|v| v.is_object())?;
    let have = &g["autograd"];
    if have.is_null() {
        return Some(format!("{name}: no autograd record"));
    }
    let field = |v: &Value, key: &str| v.get(key).cloned().unwrap_or(Value::Null);
    let mut keys = vec!["requires_grad"];
    if want["grad_fn_error"].is_string() {
        if !have["grad_fn_error"].is_string() {
            return Some(format!("{name}: autograd.grad_fn_error: expected {}, got none", want["grad_fn_error"]));
        }
    } else {
        keys.extend(["is_leaf", "grad_fn"]);
    }
    for key in keys {
        if field(have, key) != field(want, key) {
            return Some(format!("{name}: autograd.{key} {} != {}", field(have, key), field(want, key)));
        }
    }
    match (want["grad"].is_null(), have["grad"].is_null()) {
        (true, true) => {}
        (false, false) => {
            if !close(&floats(&have["grad"]), &floats(&want["grad"])) {
                return Some(format!("{name}: autograd.grad {} != {}", have["grad"], want["grad"]));
            }
        }
        _ => return Some(format!("{name}: autograd.grad {} != {}", have["grad"], want["grad"])),
    }
    if !want["grad_shape"].is_null() && ints(&have["grad_shape"]) != ints(&want["grad_shape"]) {
        return Some(format!("{name}: autograd.grad_shape {} != {}", have["grad_shape"], want["grad_shape"]));
    }
    None
}

/// Checks a recorded tinygrad view case: same values, no more views than tinygrad needs.
fn check_views(case: &Value, got: &Value) -> Option<String> {
    if !got["error"].is_null() {
        return Some(format!("error {}", got["error"]));
    }
    let exp = &case["expect"];
    let g = &got["tensors"][case["result"].as_str().unwrap_or("")];
    if ints(&g["shape"]) != ints(&exp["shape"]) {
        return Some(format!("shape {} != {}", g["shape"], exp["shape"]));
    }
    if !close(&floats(&g["values"]), &floats(&exp["values"])) {
        return Some(format!("values {} != {}", g["values"], exp["values"]));
    }
    let n = g["views"].as_array().map_or(0, Vec::len) as u64;
    let want = exp["views"].as_u64().unwrap_or(0);
    if n == 0 || n > want {
        return Some(format!("views: {n} where tinygrad needs {want}"));
    }
    None
}

/// The one helper every case goes through: runs the files' cases (those whose names start with
/// one of `families`, or all of them when it is empty) and lists the failures.
fn run_cases(files: &[PathBuf], families: &[&str]) -> (usize, Vec<String>) {
    let mut passed = 0;
    let mut failures = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let data: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for case in data["cases"].as_array().expect("cases") {
            let name = case["name"].as_str().unwrap_or("");
            if !families.is_empty() && !families.iter().any(|f| name.starts_with(f)) {
                continue;
            }
            let src = case["source"].as_str().expect("source");
            let got = run_json(src, ReportOptions::default());
            let verdict = if case["expect"].get("error_line").is_some() {
                check_torch(&case["expect"], &got)
            } else {
                check_views(case, &got)
            };
            match verdict {
                None => passed += 1,
                Some(why) => failures.push(format!(
                    "{}: {}: {why}\n    {}",
                    f.display(),
                    case["name"],
                    src.replace('\n', "\n    ")
                )),
            }
        }
    }
    (passed, failures)
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture_files(prefix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/fixtures"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        name.starts_with(prefix) && name.ends_with(".json")
    });
    files.sort();
    files
}

fn assert_all(files: Vec<PathBuf>) {
    assert_families(files, &[]);
}

/// [`assert_all`] over the cases of the given families only (`"surface/views/"`): a fixture
/// file recorded ahead of the product is checked family by family as each one lands.
fn assert_families(files: Vec<PathBuf>, families: &[&str]) {
    assert!(!files.is_empty(), "no fixture files found");
    let (passed, failures) = run_cases(&files, families);
    assert!(passed > 0 || !failures.is_empty(), "no cases of {families:?} found");
    let shown: Vec<&String> = failures.iter().take(60).collect();
    assert!(
        failures.is_empty(),
        "{} passed, {} failed:\n{}",
        passed,
        failures.len(),
        shown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
    println!("{passed} cases passed");
}

#[test]
fn torch_views() {
    assert_all(fixture_files("torch_views"));
}

#[test]
fn torch_inplace() {
    assert_all(fixture_files("torch_inplace"));
}

#[test]
fn torch_ops() {
    assert_all(fixture_files("torch_ops"));
}

#[test]
fn shared_acceptance_sample() {
    let dir = root().join("../shared/acceptance");
    let files: Vec<PathBuf> =
        ["torch_public.json", "tinygrad_public.json"].iter().map(|f| dir.join(f)).filter(|p| p.exists()).collect();
    if files.is_empty() {
        println!("skipped: ../shared/acceptance is not beside this checkout");
        return;
    }
    assert_all(files);
}

#[test]
fn torch_nn() {
    assert_all(fixture_files("torch_nn"));
}

#[test]
fn torch_elementwise() {
    assert_all(fixture_files("torch_elementwise"));
}

#[test]
fn torch_surface_views() {
    assert_families(fixture_files("torch_surface"), &["surface/views/"]);
}

#[test]
fn torch_surface_scatter() {
    assert_families(fixture_files("torch_surface"), &["surface/scatter/"]);
}

/// The copies that look like views.
#[test]
fn torch_surface_copies() {
    assert_families(fixture_files("torch_surface"), &["surface/copies/"]);
}

#[test]
fn torch_surface_format() {
    assert_families(fixture_files("torch_surface"), &["surface/format/"]);
}

#[test]
fn torch_surface_meta() {
    assert_families(fixture_files("torch_surface"), &["surface/meta/"]);
}

/// PyTorch's dtypes, promotion and dtype views.
#[test]
fn torch_surface_dtype() {
    assert_families(fixture_files("torch_surface"), &["surface/dtype/"]);
}

/// The Python snippets are written in: blocks, functions, comprehensions, f-strings and what
/// `print` writes (tensors as PyTorch prints them).
#[test]
fn torch_python() {
    assert_families(fixture_files("torch_python"), &["python/"]);
}

/// Advanced indexing and the index ops (`gather`, `scatter*`, `index_*`, `masked_*`, `sort`, ...).
#[test]
fn torch_indexing() {
    assert_families(fixture_files("torch_indexing"), &["indexing/"]);
}

/// NaN, infinity, overflow and negative indices: extremes and their indices, unique, float to
/// integer casts, fills that overflow their dtype, `arange` bounds, the refusals of negative
/// positions, losses whose every target is ignored.
#[test]
fn torch_nonfinite() {
    assert_families(fixture_files("torch_nonfinite"), &["nonfinite/"]);
}

/// `torch.nn` modules (initialisation, forward, train/eval and running statistics, classes a
/// trace defines, `state_dict`, printed forms) and `torch.optim` steps, against PyTorch.
#[test]
fn torch_train() {
    assert_all(fixture_files("torch_train"));
}

/// PyTorch's CPU random numbers: seeds, generators, every random factory and in-place draw.
#[test]
fn torch_random() {
    assert_all(fixture_files("torch_random"));
}

/// The autograd fields of the recorded format are compared (the core does not report them
/// yet, so no fixture file replays them here).
#[test]
fn autograd_fields_checked() {
    let exp: Value = serde_json::from_str(
        r#"{"error_line": null, "error": null, "error_kind": null, "stale_line": 3, "tensors": {"x": {
            "shape": [2], "values": [1.0, 2.0], "strides": [1], "storage_offset": 0, "storage_class": 0,
            "autograd": {"requires_grad": true, "is_leaf": true, "grad_fn": null, "grad": [2.0, 4.0], "grad_shape": [2]}}}}"#,
    )
    .unwrap_or_default();
    assert!(exp.is_object());
    let got = |autograd: &str, stale: &str| -> Value {
        serde_json::from_str(&format!(
            r#"{{"error": null, "stale_line": {stale}, "tensors": {{"x": {{"shape": [2], "values": [1.0, 2.0],
                "torch": {{"strides": [1], "storage_offset": 0, "storage": 0}}, "autograd": {autograd}}}}}}}"#
        ))
        .unwrap_or_default()
    };
    let good =
        r#"{"requires_grad": true, "is_leaf": true, "grad_fn": null, "grad": [2.0, 4.00001], "grad_shape": [2]}"#;
    assert_eq!(check_torch(&exp, &got(good, "3")), None);
    assert!(check_torch(&exp, &got(good, "null")).is_some_and(|w| w.contains("stale_line")));
    for bad in [
        r#"{"requires_grad": false, "is_leaf": true, "grad_fn": null, "grad": [2.0, 4.0], "grad_shape": [2]}"#,
        r#"{"requires_grad": true, "is_leaf": true, "grad_fn": "MulBackward0", "grad": [2.0, 4.0], "grad_shape": [2]}"#,
        r#"{"requires_grad": true, "is_leaf": true, "grad_fn": null, "grad": [2.0, 5.0], "grad_shape": [2]}"#,
        r#"{"requires_grad": true, "is_leaf": true, "grad_fn": null, "grad": null, "grad_shape": null}"#,
        "null",
    ] {
        assert!(check_torch(&exp, &got(bad, "3")).is_some_and(|w| w.contains("autograd")), "{bad}");
    }
}

/// Autograd cases where the product knowingly differs from PyTorch, and why. A listed case
/// that starts to pass must leave the list.
const AUTOGRAD_DIVERGES: &[(&str, &str)] = &[(
    "autograd/higher/transpose_matmul",
    "the second-order gradient's values match but its layout does not: PyTorch's input buffers add \
         in place into whichever incoming gradient they hold the last reference to, which depends on \
         its memory bookkeeping; here the sum takes the first arrival's transposed layout",
)];

/// Autograd recorded from PyTorch: gradients, grad_fn names, versions, autograd's errors and
/// the first statement after which a saved tensor is stale. Every case matches PyTorch, is a
/// listed divergence, or is refused with "not supported" (an op the engine cannot
/// differentiate yet says so rather than giving a tensor without history).
#[test]
fn torch_autograd() {
    let (passed, failures) = run_cases(&fixture_files("torch_autograd"), &["autograd/"]);
    let listed = |f: &str| AUTOGRAD_DIVERGES.iter().any(|(n, _)| f.contains(&format!("\"{n}\"")));
    let refused = |f: &str| f.contains("got Some(") && f.contains("not supported");
    let unexpected: Vec<&String> = failures.iter().filter(|f| !listed(f) && !refused(f)).collect();
    let fixed: Vec<&str> = AUTOGRAD_DIVERGES
        .iter()
        .filter(|(n, _)| !failures.iter().any(|f| f.contains(&format!("\"{n}\""))))
        .map(|(n, _)| *n)
        .collect();
    let refusals = failures.iter().filter(|f| refused(f)).count();
    for f in failures.iter().filter(|f| refused(f)) {
        eprintln!("refused: {}", f.lines().next().unwrap_or_default());
    }
    eprintln!(
        "autograd: {passed} match PyTorch, {refusals} refused as not supported, {} listed",
        AUTOGRAD_DIVERGES.len()
    );
    assert!(
        unexpected.is_empty(),
        "{} autograd cases differ from PyTorch:\n{}",
        unexpected.len(),
        unexpected.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
    assert!(fixed.is_empty(), "now matching PyTorch, remove from AUTOGRAD_DIVERGES: {fixed:?}");
    assert!(passed >= 516, "only {passed} autograd cases match PyTorch");
}

/// How the product answered one recorded OpInfo case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    /// As PyTorch did.
    Matches,
    /// "Not supported" (where PyTorch runs or raises another error): a refusal, never an answer.
    Refused,
    /// Another answer: a value, layout or error PyTorch does not give.
    Wrong,
}

fn answer(case: &Value) -> (Answer, String, Value) {
    let src = case["source"].as_str().expect("source");
    let run = std::panic::catch_unwind(|| run_json(src, ReportOptions::default()));
    let Ok(got) = run else { return (Answer::Wrong, "the run panicked".to_string(), Value::Null) };
    match check_torch(&case["expect"], &got) {
        None => (Answer::Matches, String::new(), got),
        Some(why) => {
            let refused = got["error"]["kind"] == "unsupported";
            (if refused { Answer::Refused } else { Answer::Wrong }, why, got)
        }
    }
}

fn listed(file: &str) -> Vec<String> {
    std::fs::read_to_string(root().join("tests/fixtures").join(file))
        .unwrap_or_default()
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Random programs mixing views, dtypes, formats, index writes, autograd, loops, nn and optim
/// (`tools/fixtures/gen_mixed.py`, recorded from PyTorch): every case matches, except the
/// known wrong answers listed in `mixed_wrong.txt` (a listed case that starts to pass must
/// leave the list). `STRIDELAB_MIXED=FILE` checks another recording instead (`cargo xtask
/// mixed --seed N` draws and checks a new seed this way).
#[test]
fn torch_mixed() {
    let file = std::env::var_os("STRIDELAB_MIXED")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("tests/fixtures/torch_mixed.json"));
    let known_wrong = listed("mixed_wrong.txt");
    let (passed, failures) = run_cases(std::slice::from_ref(&file), &[]);
    let name_of = |f: &String| f.split(": ").nth(1).unwrap_or("").trim_matches('"').to_string();
    let fixed: Vec<&String> = known_wrong.iter().filter(|n| !failures.iter().any(|f| name_of(f) == **n)).collect();
    let new: Vec<&String> = failures.iter().filter(|f| !known_wrong.contains(&name_of(f))).collect();
    println!("{passed} cases passed, {} failed ({} listed)", failures.len(), failures.len() - new.len());
    assert!(
        new.is_empty(),
        "{} wrong answers not listed:\n{}",
        new.len(),
        new.iter().take(40).map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
    if std::env::var_os("STRIDELAB_MIXED").is_none() {
        assert!(fixed.is_empty(), "listed as wrong but now match PyTorch (remove from mixed_wrong.txt): {fixed:?}");
    }
}

/// PyTorch's own operator inventory (`tools/fixtures/gen_opinfo.py`: every OpInfo's samples
/// in float32 and int64, as functions, methods, in place and non-contiguous). Every case
/// matches PyTorch or is refused as not supported, except the wrong answers listed in
/// `opinfo_wrong.txt` (each a known defect; a listed case that starts to pass must leave the
/// list); every op in `opinfo_passing.txt` passes all of its cases (the coverage only grows).
#[test]
fn opinfo() {
    let path = root().join("tests/fixtures/opinfo.json.gz");
    let file = std::fs::File::open(&path).expect("tests/fixtures/opinfo.json.gz");
    let data: Value = serde_json::from_reader(flate2::read::GzDecoder::new(file)).expect("opinfo.json.gz parses");
    let known_wrong = listed("opinfo_wrong.txt");
    let must_pass = listed("opinfo_passing.txt");
    let mut per_op: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    let (mut matched, mut refused) = (0, 0);
    let mut wrong = Vec::new();
    let mut fixed = Vec::new();
    for case in data["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().unwrap_or("").to_string();
        let op = case["expect"]["op"].as_str().unwrap_or("").to_string();
        let (a, why, _) = answer(case);
        let entry = per_op.entry(op).or_default();
        entry.1 += 1;
        match a {
            Answer::Matches => {
                matched += 1;
                entry.0 += 1;
                if known_wrong.contains(&name) {
                    fixed.push(name);
                }
            }
            Answer::Refused => {
                refused += 1;
                if std::env::var_os("STRIDELAB_OPINFO_LIST").is_some() {
                    println!("REFUSED {name}: {}", why.lines().next().unwrap_or(""));
                }
            }
            Answer::Wrong if known_wrong.contains(&name) => {}
            Answer::Wrong => wrong
                .push(format!("{name}: {why}\n    {}", case["source"].as_str().unwrap_or("").replace('\n', "\n    "))),
        }
    }
    let passing: Vec<&String> = per_op.iter().filter(|(_, (ok, n))| ok == n).map(|(op, _)| op).collect();
    let regressed: Vec<&String> = must_pass.iter().filter(|op| !passing.contains(op)).collect();
    eprintln!(
        "opinfo: {} of {} ops pass every case; cases: {matched} match, {refused} refused, {} wrong ({} listed)",
        passing.len(),
        per_op.len(),
        wrong.len() + known_wrong.len() - fixed.len(),
        known_wrong.len() - fixed.len()
    );
    if std::env::var_os("STRIDELAB_OPINFO_LIST").is_some() {
        for op in &passing {
            println!("PASSING {op}");
        }
        for w in &wrong {
            println!("WRONG {}", w.lines().next().unwrap_or(""));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong answers not listed:\n{}",
        wrong.len(),
        wrong.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
    assert!(fixed.is_empty(), "listed as wrong but now match PyTorch (remove from opinfo_wrong.txt): {fixed:?}");
    assert!(regressed.is_empty(), "ops that passed every case no longer do: {regressed:?}");
}
