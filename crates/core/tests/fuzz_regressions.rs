//! Every committed fuzz input (the seeds of `fuzz/corpus/` and any crash the fuzzer found, kept
//! in `fuzz/artifacts/`) replayed through its target without the fuzzer: each must end in a
//! result or an error, never a panic.

use std::path::Path;

#[test]
fn every_committed_fuzz_input_ends_cleanly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut count = 0;
    for (name, target) in stridelab_core::fuzzing::TARGETS {
        for dir in ["corpus", "artifacts"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir).join(name)) else { continue };
            let mut files: Vec<_> = entries.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect();
            files.sort();
            for f in files {
                let bytes = std::fs::read(&f).expect("reads a committed input");
                let outcome = std::panic::catch_unwind(|| target(&bytes));
                assert!(outcome.is_ok(), "{name}: {} panicked", f.display());
                count += 1;
            }
        }
    }
    assert!(count >= 40, "only {count} committed fuzz inputs found");
}
