//! File sizes: no hand-written Rust file of the workspace over [`MAX_LINES`] lines, so each
//! stays readable in one sitting. The files that were over it when the rule came are listed in
//! [`OVER`] with the length they had then: they may shrink (and leave the list once under the
//! limit), never grow. `cargo xtask sizes` prints the findings; the test below fails on them.

use std::path::Path;

/// The most lines a hand-written `.rs` file may have.
pub const MAX_LINES: usize = 900;

/// Files over the limit when the rule came, each with the most lines it may have (its length
/// then). Cutting one below [`MAX_LINES`] takes it off this list.
pub const OVER: &[(&str, usize)] = &[
    ("crates/core/src/trace/lexer.rs", 935),
    ("crates/core/src/trace/runner.rs", 991),
    ("crates/core/src/trace/library.rs", 1064),
    ("crates/core/src/trace/python/mod.rs", 1085),
    ("crates/core/src/trace/modules.rs", 1119),
];

/// The folders whose `.rs` files are checked (generated and vendored code lives elsewhere).
const ROOTS: &[&str] = &["crates", "xtask", "tests", "fuzz/fuzz_targets"];

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "target" || n == "node_modules") {
                continue;
            }
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// One line per file over its limit, and per listed file now under the general limit.
pub fn check(root: &Path) -> Result<Vec<String>, String> {
    let mut files = Vec::new();
    for r in ROOTS {
        walk(&root.join(r), &mut files);
    }
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let rel = f.strip_prefix(root).unwrap_or(&f).to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{rel}: {e}"))?;
        let lines = text.lines().count();
        let listed = OVER.iter().find(|(p, _)| *p == rel).map(|&(_, n)| n);
        match listed {
            Some(most) if lines > most => {
                out.push(format!("{rel}: {lines} lines, more than the {most} it had when the size rule came"))
            }
            Some(_) if lines <= MAX_LINES => {
                out.push(format!("{rel}: {lines} lines, now under {MAX_LINES}: take it off sizes::OVER"))
            }
            None if lines > MAX_LINES => {
                out.push(format!("{rel}: {lines} lines, over {MAX_LINES}: cut it into files with one job each"))
            }
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_hand_written_file_grows_past_its_limit() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let found = check(&root).unwrap_or_else(|e| vec![e]);
        assert!(found.is_empty(), "\n{}", found.join("\n"));
    }
}
