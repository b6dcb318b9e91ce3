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
    run_in(&root(), program, args)
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
    apt_install(&["mesa-vulkan-drivers"])
}

/// Installs Debian packages (refreshing the package lists first: a fresh machine may have none),
/// through sudo unless already root.
fn apt_install(packages: &[&str]) -> Result {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false);
    let apt = |args: &[&str]| if root { run("apt-get", args) } else { run("sudo", &[&["apt-get"], args].concat()) };
    apt(&["update"])?;
    apt(&[&["install", "-y"], packages].concat())
}

fn test() -> Result {
    ensure_rust_components()?;
    ensure_vulkan_driver()?;
    run("cargo", &["fmt", "--all", "--check"])?;
    run("cargo", &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])?;
    run("cargo", &["test", "--workspace", "--release"])?;
    acceptance()?;
    browser_tests()
}

/// The shared acceptance sample, through the release CLI, when it sits beside the checkout.
fn acceptance() -> Result {
    let dir = root().join("../shared/acceptance");
    let script = dir.join("check_traces.py");
    if !script.exists() {
        eprintln!("acceptance: {} not found; skipped", script.display());
        return Ok(());
    }
    // The workspace's feature set, as `cargo test --workspace` built it: nothing is rebuilt.
    run("cargo", &["build", "--release", "--workspace", "--bins"])?;
    let files = ["torch_public.json", "tinygrad_public.json"].map(|f| dir.join(f).to_string_lossy().into_owned());
    let script = script.to_string_lossy().into_owned();
    run("python3", &[&script, "--show", "20", &files[0], &files[1]])
}

/// Builds the playground and serves it on http://127.0.0.1:8080 (Trunk.toml), rebuilding on
/// change. With no link in the address the page opens on its first built-in lesson.
fn serve() -> Result {
    ensure_web_tools()?;
    eprintln!("serving the playground on http://127.0.0.1:8080/");
    run("trunk", &["serve", "--release"])
}

/// trunk 0.21 is the newest that builds with this toolchain; wasm-bindgen-cli must be exactly
/// the version of the wasm-bindgen crate in Cargo.lock or its output does not load.
const TRUNK_VERSION: &str = "0.21";

fn ensure_web_tools() -> Result {
    let targets =
        Command::new("rustup").args(["target", "list", "--installed"]).output().map_err(|e| format!("rustup: {e}"))?;
    if !String::from_utf8_lossy(&targets.stdout).lines().any(|l| l.trim() == "wasm32-unknown-unknown") {
        run("rustup", &["target", "add", "wasm32-unknown-unknown"])?;
    }
    if !version_of("trunk").is_some_and(|v| v.starts_with(&format!("{TRUNK_VERSION}."))) {
        run("cargo", &["install", "trunk", "--version", &format!("~{TRUNK_VERSION}"), "--locked"])?;
    }
    let bindgen = locked_version("wasm-bindgen")?;
    if version_of("wasm-bindgen").as_deref() != Some(bindgen.as_str()) {
        // Not --locked: the CLI's own lock file pins crates this toolchain may not build.
        run("cargo", &["install", "wasm-bindgen-cli", "--version", &format!("={bindgen}")])?;
    }
    Ok(())
}

/// The second word of `program --version` (`trunk 0.21.14` -> `0.21.14`).
fn version_of(program: &str) -> Option<String> {
    let out = Command::new(program).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    out.status.success().then(|| text.split_whitespace().nth(1).map(str::to_string)).flatten()
}

/// A package's version as Cargo.lock pins it.
fn locked_version(package: &str) -> Result<String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).map_err(|e| format!("Cargo.lock: {e}"))?;
    let needle = format!("name = \"{package}\"\nversion = \"");
    let start = lock.find(&needle).ok_or_else(|| format!("{package} is not in Cargo.lock"))? + needle.len();
    let len = lock[start..].find('"').ok_or("malformed Cargo.lock")?;
    Ok(lock[start..start + len].to_string())
}

/// Builds dist/ and runs the end-to-end tests in Debian's Chromium (installed when missing),
/// driven by playwright-core from the committed lock file.
fn browser_tests() -> Result {
    ensure_web_tools()?;
    run("trunk", &["build", "--release"])?;
    if !Path::new("/usr/bin/chromium").exists() {
        apt_install(&["chromium"])?;
    }
    if !have("node", "--version") || !have("npm", "--version") {
        apt_install(&["nodejs", "npm"])?;
    }
    let dir = root().join("tests/browser");
    // A package the lock file gained since the last install is missing too: reinstall then.
    let installed = ["playwright-core", "onnxruntime-web"]
        .iter()
        .all(|p| dir.join("node_modules").join(p).join("package.json").exists());
    if !installed {
        run_in(&dir, "npm", &["ci", "--no-audit", "--no-fund"])?;
    }
    run_in(&dir, "npm", &["test"])
}

fn run_in(dir: &Path, program: &str, args: &[&str]) -> Result {
    eprintln!("+ (cd {}) {program} {}", dir.display(), args.join(" "));
    let status = Command::new(program).args(args).current_dir(dir).status().map_err(|e| format!("{program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program} {}` failed ({status})", args.join(" ")))
    }
}

fn bench() -> Result {
    run("cargo", &["bench", "--workspace"])
}
