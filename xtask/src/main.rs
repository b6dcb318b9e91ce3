//! Project automation: `cargo xtask serve` and `cargo xtask test`, the README's two commands.
//!
//! Each installs what it needs first (idempotently: a tool already present is left alone), so a
//! newcomer on a fresh machine and CI run exactly the same steps.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

type Result<T = ()> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test(),
        Some("serve") => serve(),
        Some("bench") => bench(),
        _ => Err("usage: cargo xtask <test|serve|bench>".to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs a command in the workspace root, failing with its command line if it fails.
fn run(program: &str, args: &[&str]) -> Result {
    eprintln!("+ {program} {}", args.join(" "));
    let status = Command::new(program).args(args).current_dir(root()).status().map_err(|e| format!("{program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program} {}` failed ({status})", args.join(" ")))
    }
}

fn have(program: &str, arg: &str) -> bool {
    Command::new(program).arg(arg).output().map(|o| o.status.success()).unwrap_or(false)
}

fn ensure_rust_components() -> Result {
    if !have("cargo-clippy", "--version") || !have("rustfmt", "--version") {
        run("rustup", &["component", "add", "clippy", "rustfmt"])?;
    }
    Ok(())
}

/// The GPU tests run on lavapipe (Mesa's Vulkan software driver) where no other driver is
/// installed; install it when its ICD file is missing.
fn ensure_vulkan_driver() -> Result {
    let icd_dir = Path::new("/usr/share/vulkan/icd.d");
    let present = std::fs::read_dir(icd_dir)
        .map(|d| d.flatten().any(|e| e.file_name().to_string_lossy().starts_with("lvp_icd")))
        .unwrap_or(false);
    if present || !cfg!(target_os = "linux") {
        return Ok(());
    }
    let root = Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0").unwrap_or(false);
    let apt = ["apt-get", "install", "-y", "mesa-vulkan-drivers"];
    if root {
        run(apt[0], &apt[1..])
    } else {
        run("sudo", &apt)
    }
}

fn test() -> Result {
    ensure_rust_components()?;
    ensure_vulkan_driver()?;
    run("cargo", &["fmt", "--all", "--check"])?;
    run("cargo", &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])?;
    run("cargo", &["test", "--workspace", "--release"])?;
    acceptance()
}

/// The shared acceptance sample, through the release CLI, when it sits beside the checkout.
fn acceptance() -> Result {
    let dir = root().join("../shared/acceptance");
    let script = dir.join("check_traces.py");
    if !script.exists() {
        eprintln!("acceptance: {} not found; skipped", script.display());
        return Ok(());
    }
    run("cargo", &["build", "--release", "-p", "stridelab-cli"])?;
    let files = ["torch_public.json", "tinygrad_public.json"].map(|f| dir.join(f).to_string_lossy().into_owned());
    let script = script.to_string_lossy().into_owned();
    run("python3", &[&script, "--show", "20", &files[0], &files[1]])
}

fn serve() -> Result {
    run("cargo", &["build", "--release", "-p", "stridelab-cli"])?;
    run("target/release/stridelab", &["run", "examples/views.trace"])
}

fn bench() -> Result {
    run("cargo", &["bench", "--workspace"])
}
