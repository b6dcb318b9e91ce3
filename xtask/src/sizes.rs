//! File sizes: no hand-written Rust file of the workspace over [`MAX_LINES`] lines, so each
//! stays readable in one sitting. `cargo xtask sizes` prints the findings; the test below fails
//! on them.

use std::path::Path;

/// The most lines a hand-written `.rs` file may have.
pub const MAX_LINES: usize = 900;

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

/// One line per file over [`MAX_LINES`].
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
        if lines > MAX_LINES {
            out.push(format!("{rel}: {lines} lines, over {MAX_LINES}: cut it into files with one job each"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_hand_written_file_is_over_the_limit() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let found = check(&root).unwrap_or_else(|e| vec![e]);
        assert!(found.is_empty(), "\n{}", found.join("\n"));
    }
}
