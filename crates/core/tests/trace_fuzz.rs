//! Random traces of real ops with random arguments never panic: every statement either runs or
//! stops the trace with a structured error at its line.

use proptest::prelude::*;
use stridelab_core::trace::report::{run_json, ReportOptions};

/// Statement templates; `{}` is filled with small, often invalid, integer arguments.
const TEMPLATES: &[&str] = &[
    "b = a.view({}, -1)",
    "b = a.reshape({}, {})",
    "b = a.permute({}, {})",
    "b = a.transpose({}, {})",
    "b = a.expand({}, {}, {})",
    "b = a[{}:{}:{}]",
    "b = a[{}, ..., None]",
    "b = a.narrow({}, {}, {})",
    "b = a.select({}, {})",
    "b = a.diagonal({}, {}, {})",
    "b = a.unfold({}, {}, {})",
    "b = a.as_strided(({}, {}), ({}, {}), {})",
    "b = a.flip({})",
    "b = a.squeeze({}).unsqueeze({})",
    "b = a.shrink((({}, {}), None))",
    "b = a.pad((({}, {}), ({}, {})))",
    "b = a.sum({}, keepdim=True)",
    "b = a.logsumexp(({}, {}))",
    "b = a.max({})",
    "a[{}:{}] = {}",
    "a[{}] += b",
    "b.add_({})",
    "a.clamp_({}, {})",
    "b.copy_(a[{}])",
    "add(a, {}, out=b)",
    "b = a @ a.t()",
    "b = softmax(a, {})",
    "b = conv2d(a.reshape(1, 1, 4, -1), ones(1, 1, {}, {}))",
    "b = max_pool2d(a.reshape(1, 1, 4, -1), {})",
    "c = b.contiguous().view({})",
    "a = arange({}.).reshape(4, -1)",
];

fn statement() -> impl Strategy<Value = String> {
    (0..TEMPLATES.len(), proptest::collection::vec(-3i64..9, 6)).prop_map(|(t, args)| {
        let mut out = String::new();
        let mut args = args.into_iter();
        for (i, part) in TEMPLATES[t].split("{}").enumerate() {
            if i > 0 {
                out.push_str(&args.next().unwrap_or(1).to_string());
            }
            out.push_str(part);
        }
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]
    #[test]
    fn random_traces_never_panic(stmts in proptest::collection::vec(statement(), 1..8)) {
        let src = format!("a = arange(24.).reshape(4, 6)\nb = a[1:]\n{}", stmts.join("\n"));
        let got = run_json(&src, ReportOptions { steps: true, graph: true, ..ReportOptions::default() });
        prop_assert_eq!(&got["version"], &serde_json::json!(1));
        if let Some(line) = got["error"]["line"].as_u64() {
            prop_assert!(line >= 1 && line as usize <= stmts.len() + 2, "error line {} in\n{}", line, src);
            prop_assert!(got["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
        }
    }
}
