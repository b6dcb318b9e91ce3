//! Freeing unreachable storages (the page's runs, `Reclaim::Unreachable`) never changes what a
//! run reports: every recorded trace of the fixtures, PyTorch's and the bridge's, run with and
//! without it, gives the same report, step by step.

mod fixture_common;

use fixture_common::fixture_sources as sources;

use serde_json::Value;
use stridelab_core::limits::{Reclaim, StorageBudget};
use stridelab_core::trace::interp::runner::Run;
use stridelab_core::trace::report::{report_value, BridgeValues, ReportOptions, ValueList};

fn report(run: Run, src: &str) -> (Value, usize) {
    let mut run = run.run_text(src);
    let opts = ReportOptions { steps: true, graph: false, bridge_values: BridgeValues::All, values: ValueList::Whole };
    let freed = (0..run.engine.storage_count()).filter(|&s| run.engine.is_freed(s)).count();
    (report_value(&mut run, opts), freed)
}

#[test]
fn freeing_unreachable_storages_changes_no_report() {
    let reclaiming = StorageBudget { reclaim: Reclaim::Unreachable, ..StorageBudget::DEFAULT };
    let files = [
        "torch_views.json",
        "torch_inplace.json",
        "torch_ops.json",
        "torch_autograd.json",
        "torch_nn.json",
        "torch_nn_extra.json",
        "torch_train.json",
        "torch_python.json",
        "torch_random.json",
        "torch_indexing.json",
        "torch_elementwise.json",
        "torch_surface.json",
        "bridge.json",
    ];
    let (mut total, mut freed_any, mut failures) = (0, 0, Vec::new());
    for file in files {
        for (name, src) in sources(file) {
            total += 1;
            let (kept, _) = report(Run::new(), &src);
            let (reclaimed, freed) = report(Run::new().limit_storages(reclaiming), &src);
            freed_any += usize::from(freed > 0);
            if kept != reclaimed {
                failures.push(format!("{file} {name}"));
            }
        }
    }
    eprintln!("{total} traces, {freed_any} freed a storage");
    assert!(total > 2000, "the fixtures hold the recorded cases ({total})");
    assert!(freed_any > 100, "many traces drop a storage ({freed_any} of {total})");
    assert!(
        failures.is_empty(),
        "{} of {total} reports changed: {:?}",
        failures.len(),
        &failures[..failures.len().min(20)]
    );
}

/// A name rebound to a value computed from its old one (`x = x + 1` in a loop) holds one
/// storage at a time in both runs: the bridge's lazy tensor over a storage nothing can change
/// any more is final, so the old storage goes (it kept the whole chain: 4 MiB a step).
#[test]
fn rebinding_a_name_from_itself_holds_one_storage() {
    let budget = StorageBudget { reclaim: Reclaim::Unreachable, bytes: 32 << 20, ..StorageBudget::DEFAULT };
    let src = "x = torch.zeros(2**20)\nfor i in range(200):\n    x = x + 1\nv = x[:4]\nv += 1\nprint(x[0].item(), x[4].item())\n";
    let run = Run::new().limit_storages(budget).run_text(src);
    assert!(run.error.is_none(), "{:?}", run.error.map(|e| (e.line, e.error.to_string())));
    let bridge = run.bridge.as_ref().expect("the bridge ran");
    assert!(bridge.error.is_none(), "{:?}", bridge.error.as_ref().map(|e| e.error.to_string()));
    assert_eq!(run.steps.last().map(|s| s.output.as_str()), Some("201.0 200.0\n"));
    let bridge_out = bridge.steps.last().map(|s| s.output.as_str());
    assert_eq!(bridge_out, Some("201.0 200.0\n"));
}
