//! Running the `stridelab` binary from the integration tests: one way to spawn it, feed it and
//! read what it printed.

use std::ffi::OsStr;
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs the binary with `args` and `stdin`; its exit code, stdout and stderr.
pub fn stridelab<S: AsRef<OsStr>>(args: &[S], stdin: &str) -> (Option<i32>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stridelab"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // A child that ends without reading its input (it reads a file instead) closes the pipe.
    match child.stdin.take().expect("stdin is piped").write_all(stdin.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.expect("stdin accepts the input"),
    }
    let out = child.wait_with_output().expect("the binary finishes");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
