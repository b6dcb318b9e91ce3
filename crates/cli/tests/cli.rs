//! The `stridelab` binary end to end: files, standard input and share links give the same report.

// A binary that cannot be spawned or fed is a broken test setup: fail loudly.
#![allow(clippy::expect_used)]

mod common;

fn stridelab(args: &[&str], stdin: &str) -> (bool, String, String) {
    let (code, out, err) = common::stridelab(args, stdin);
    (code == Some(0), out, err)
}

const TRACE: &str = "# a comment\na = arange(12.).reshape(3, 4)\nb = a.t()[1:]\nb += 100\nc = a.flip(0)\n";

#[test]
fn a_link_replays_exactly_like_its_file() {
    let dir = std::env::temp_dir().join(format!("stridelab-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("t.trace");
    std::fs::write(&file, TRACE).expect("write trace");
    let file = file.to_string_lossy().into_owned();

    let (ok, from_file, _) = stridelab(&["run", "--json", "--steps", &file], "");
    assert!(ok);
    let (ok, from_stdin, _) = stridelab(&["run", "--json", "--steps", "-"], TRACE);
    assert!(ok);
    assert_eq!(from_file, from_stdin);

    let (ok, link, _) = stridelab(&["url", &file], "");
    assert!(ok);
    let link = link.trim();
    assert!(link.starts_with("http://127.0.0.1:8080/#v1."), "{link}");
    let fragment = &link[link.find('#').expect("a fragment") + 1..];
    for arg in [link, &format!("#{fragment}"), fragment] {
        let (ok, from_link, err) = stridelab(&["run", "--json", "--steps", arg], "");
        assert!(ok, "{err}");
        assert_eq!(from_link, from_file, "replaying {arg}");
    }
    let (ok, other, _) = stridelab(&["url", "--base", "https://example.org/play/", "-"], TRACE);
    assert!(ok);
    assert!(other.starts_with("https://example.org/play/#v1."));
}

#[test]
fn bad_links_and_missing_files_are_clear_errors() {
    for (arg, needle) in [("#v9.AAAA", "v9"), ("#v1.@@@@", "base64"), ("/no/such/file.trace", "no/such/file")] {
        let (ok, _, err) = stridelab(&["run", "--json", arg], "");
        assert!(!ok, "{arg} should fail");
        assert!(err.contains(needle), "{arg}: {err}");
    }
}

#[test]
fn the_table_names_every_tensor_and_the_error() {
    let (ok, out, _) = stridelab(&["run", "-"], "a = arange(6.)\nb = a[::2]\nc = a.view(4)\n");
    assert!(ok);
    for needle in ["a ", "b ", "[2]", "error at line 3", "(shape)"] {
        assert!(out.contains(needle), "{needle} missing from\n{out}");
    }
}
