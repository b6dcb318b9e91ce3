//! The declaration table's guarantees, and the wrong answers it replaced: `F.pad`'s
//! non-constant modes, `argmax` of a 0-d tensor and of NaN, `device=`, binding errors from
//! signatures, the op reference. Expected values are PyTorch 2.15's.

use serde_json::Value;
use stridelab_core::trace::report::{ops_json, run_json, ReportOptions};

fn run(src: &str) -> Value {
    run_json(src, ReportOptions::default())
}

fn values(out: &Value, name: &str) -> Vec<f64> {
    out["tensors"][name]["values"]
        .as_array()
        .unwrap_or_else(|| panic!("{name} missing: {out}"))
        .iter()
        .map(|v| match v {
            Value::String(s) if s == "nan" => f64::NAN,
            v => v.as_f64().unwrap_or(f64::NAN),
        })
        .collect()
}

fn ok(src: &str) -> Value {
    let out = run(src);
    assert!(out["error"].is_null(), "{src}: {}", out["error"]);
    out
}

#[test]
fn pad_modes_follow_pytorch() {
    let out = ok("import torch.nn.functional as F\nx = torch.arange(12.).reshape(1, 3, 4)\n\
                  r = F.pad(x, (2, 1), mode='reflect')\np = F.pad(x, (2, 1, 1, 0), mode='replicate')\n\
                  c = F.pad(x, (2, 1), mode='circular')\nn = F.pad(x, (-1, 2), value=-1)\nv = F.pad(x, (1, 1), value=7.5)\n");
    assert_eq!(values(&out, "r")[..16], [2., 1., 0., 1., 2., 3., 2., 6., 5., 4., 5., 6., 7., 6., 10., 9.]);
    assert_eq!(values(&out, "p")[..16], [0., 0., 0., 1., 2., 3., 3., 0., 0., 0., 1., 2., 3., 3., 4., 4.]);
    assert_eq!(values(&out, "c")[..16], [2., 3., 0., 1., 2., 3., 0., 6., 7., 4., 5., 6., 7., 4., 10., 11.]);
    assert_eq!(values(&out, "n"), [1., 2., 3., -1., -1., 5., 6., 7., -1., -1., 9., 10., 11., -1., -1.]);
    assert_eq!(values(&out, "v")[..6], [7.5, 0., 1., 2., 3., 7.5]);
    // Reflection needs each pad shorter than its dim, as PyTorch checks.
    let bad = run(
        "import torch.nn.functional as F\nx = torch.arange(3.).reshape(1, 3)\ny = F.pad(x, (3, 0), mode='reflect')\n",
    );
    assert_eq!(bad["error"]["line"], 3, "{}", bad["error"]);
    // The gradient's node is PyTorch's.
    let g = ok("import torch.nn.functional as F\nx = torch.arange(4., requires_grad=True).reshape(1, 4)\n\
                y = F.pad(x, (1, 1), mode='reflect')\nname = y.grad_fn.name()\nprint(name)\n");
    assert_eq!(g["output"].as_str(), Some("ReflectionPad1DBackward0\n"));
}

#[test]
fn argmax_of_zero_dim_and_nan() {
    let out = ok("a = torch.tensor([1., float('nan'), 3.])\ni = a.argmax()\nj = torch.tensor(5.).argmax(dim=0)\n\
                  k = torch.tensor(5.).argmin(dim=-1, keepdim=True)\n");
    assert_eq!(values(&out, "i"), [1.0]);
    assert_eq!(values(&out, "j"), [0.0]);
    assert_eq!(values(&out, "k"), [0.0]);
    let empty = run("a = torch.zeros(0)\ni = a.argmax()\n");
    assert_eq!(empty["error"]["line"], 2);
}

#[test]
fn devices_run_on_the_cpu() {
    let out = ok("dev = 'cuda' if torch.cuda.is_available() else 'cpu'\nz = torch.zeros(3, device=dev)\n\
                  w = torch.ones(2, device=torch.device('cuda:0'))\ny = w.cuda()\nprint(z.device, y.is_cuda)\n");
    // A device prints as its str (`cpu`), as PyTorch's does.
    assert_eq!(out["output"].as_str(), Some("cpu False\n"));
    let bad = run("z = torch.zeros(3, device='tpu')\n");
    assert_eq!(bad["error"]["kind"], "type", "{}", bad["error"]);
    // A device is a factory's keyword only, as in PyTorch.
    let not_here = run("x = torch.ones(2)\ny = torch.exp(x, device='cpu')\n");
    assert_eq!(not_here["error"]["kind"], "type", "{}", not_here["error"]);
}

#[test]
fn signatures_bind_and_refuse_as_pytorch() {
    let out = ok("import torch.nn.functional as F\nx = torch.arange(6.).reshape(2, 3)\n\
                  a = F.layer_norm(x, (3,), eps=1e-3)\nb = F.layer_norm(x, normalized_shape=[3])\n\
                  s = torch.narrow(x, 1, torch.tensor(1), 2)\n");
    assert_eq!(values(&out, "s"), [1., 2., 4., 5.]);
    for (src, want) in [
        ("x = torch.ones(2, 3)\ny = torch.outer(x[0], x[1], 3)\n", "takes 2 positional arguments"),
        ("x = torch.ones(3)\ny = torch.outer(x, vec3=x)\n", "unexpected keyword argument 'vec3'"),
        ("x = torch.ones(3)\ny = torch.outer(x)\n", "missing 1 required positional argument"),
        ("x = torch.ones(3)\ny = torch.isclose(x, x, rtol='a')\n", "must be float, not str"),
    ] {
        let out = run(src);
        let msg = out["error"]["message"].as_str().unwrap_or("");
        assert!(out["error"]["kind"] == "type" && msg.contains(want), "{src}: {}", out["error"]);
    }
}

#[test]
fn the_reference_lists_what_runs_with_signatures() {
    let ops = ops_json();
    let entries = ops.as_array().expect("a list");
    let find = |name: &str| entries.iter().find(|e| e["name"] == name).unwrap_or_else(|| panic!("{name} not listed"));
    for (name, form) in [
        ("nn.Linear", "torch.nn.Linear"),
        ("layer_norm", "F.layer_norm"),
        ("optim.Adam", "torch.optim.Adam"),
        ("no_grad", "torch.no_grad"),
        ("eye", "torch.eye"),
        ("backward", "Tensor.backward"),
    ] {
        let e = find(name);
        assert!(e["forms"].as_array().is_some_and(|f| f.iter().any(|x| x == form)), "{name}: {e}");
    }
    assert!(find("layer_norm")["signature"].as_str().is_some_and(|s| s.contains("normalized_shape")));
    // Every declared op runs under each spelling it lists (a refusal by name would mean the
    // reference lists something that does not run).
    for e in entries.iter().filter(|e| e["signature"].as_str().is_some_and(|s| s.starts_with("(Tensor input"))) {
        for form in e["forms"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            let call = match form.split_once('.') {
                Some(("Tensor", m)) => format!("y = x.{m}()"),
                Some(("F", f)) => format!("y = F.{f}(x)"),
                _ => format!("y = {form}(x)"),
            };
            let src = format!("import torch.nn.functional as F\nx = torch.arange(6.).reshape(2, 3)\n{call}\n");
            let out = run(&src);
            let msg = out["error"]["message"].as_str().unwrap_or("");
            assert!(
                !(msg.contains(" is not supported") && msg.starts_with(form)),
                "{form} is listed but not run: {msg}"
            );
        }
    }
}
