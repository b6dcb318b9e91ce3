//! Project automation: `cargo xtask serve` and `cargo xtask test`, the README's two commands,
//! `cargo xtask build` (the page's release dist/ alone), `cargo xtask bench`,
//! `cargo xtask fuzz [SECONDS] [TARGET]` (coverage-guided fuzzing of every target in fuzz/) and
//! `cargo xtask imports` (the library crates' import circles and layering, also a unit test) and
//! `cargo xtask sizes` (no hand-written file over 900 lines but the listed older ones, which may
//! not grow; also a unit test) and `cargo xtask mixed [SEED] [COUNT]` (random programs drawn at
//! a new seed, recorded from PyTorch and checked against the product; needs a Python with torch,
//! `STRIDELAB_PYTHON` or `python3`).
//!
//! Each installs what it needs first (idempotently: a tool already present is left alone), so a
//! newcomer on a fresh machine and CI run exactly the same steps.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod imports;
mod sizes;

type Result<T = ()> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test(),
        Some("serve") => serve(),
        Some("build") => build_page(),
        Some("bench") => bench(),
        Some("imports") => check_imports(),
        Some("sizes") => check_sizes(),
        Some("mixed") => mixed(args.get(1).map(String::as_str), args.get(2).map(String::as_str)),
        Some("fuzz") => {
            let seconds = match args.get(1).map(|s| s.parse::<u32>()) {
                None => Ok(60),
                Some(Ok(0)) => Err("fuzz SECONDS must be at least 1 (libFuzzer takes 0 as no limit)".to_string()),
                Some(Ok(n)) => Ok(n),
                Some(Err(e)) => Err(format!("fuzz SECONDS: {e}")),
            };
            seconds.and_then(|s| fuzz(FuzzBudget::Seconds(s), args.get(2).map(String::as_str)))
        }
        _ => Err("usage: cargo xtask <test|serve|build|bench|fuzz|imports|sizes|mixed>".to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Prints every import circle and forbidden edge of the library crates; fails if there is one.
fn check_imports() -> Result {
    let found = imports::check(&root())?;
    for finding in &found {
        println!("{finding}");
    }
    if found.is_empty() {
        Ok(())
    } else {
        Err(format!("{} import finding(s)", found.len()))
    }
}

/// Draws `count` random programs at `seed` (a new one from the clock when absent), records
/// them with PyTorch (`tools/fixtures/gen_mixed.py`) and checks the product against them (the
/// fixtures test `torch_mixed`, which prints each wrong answer with its program).
fn mixed(seed: Option<&str>, count: Option<&str>) -> Result {
    let seed = match seed {
        Some(s) => s.parse::<u64>().map_err(|e| format!("mixed SEED: {e}"))?,
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_err(|e| format!("clock: {e}"))?
            .as_secs(),
    };
    let count = count.unwrap_or("300");
    count.parse::<u32>().map_err(|e| format!("mixed COUNT: {e}"))?;
    let out = root().join(format!("target/mixed-{seed}.json"));
    let python = std::env::var("STRIDELAB_PYTHON").unwrap_or_else(|_| "python3".into());
    let seed_text = seed.to_string();
    let out_text = out.to_string_lossy().into_owned();
    eprintln!("mixed: seed {seed}, {count} programs -> {out_text}");
    run(&python, &["tools/fixtures/gen_mixed.py", "--seed", &seed_text, "--count", count, "--out", &out_text])?;
    let status = Command::new("cargo")
        .args(["test", "--release", "-p", "stridelab-cli", "--test", "fixtures", "torch_mixed", "--", "--nocapture"])
        .env("STRIDELAB_MIXED", &out)
        .current_dir(root())
        .status()
        .map_err(|e| format!("cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("wrong answers at seed {seed} (programs in {out_text})"))
    }
}

/// Prints every file over its size limit; fails if there is one.
fn check_sizes() -> Result {
    let found = sizes::check(&root())?;
    for finding in &found {
        println!("{finding}");
    }
    if found.is_empty() {
        Ok(())
    } else {
        Err(format!("{} file(s) over their size limit", found.len()))
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
    let root = is_root();
    let apt = |args: &[&str]| if root { run("apt-get", args) } else { run("sudo", &[&["apt-get"], args].concat()) };
    apt(&["update"])?;
    apt(&[&["install", "-y"], packages].concat())
}

fn test() -> Result {
    ensure_rust_components()?;
    ensure_vulkan_driver()?;
    run("cargo", &["fmt", "--all", "--check"])?;
    run("cargo", &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])?;
    // The page's crates have wasm-only code (their JavaScript bindings) that a native check skips.
    ensure_web_tools()?;
    run(
        "cargo",
        &[
            "clippy",
            "-p",
            "stridelab-web",
            "-p",
            "stridelab-web-runtime",
            "--target",
            "wasm32-unknown-unknown",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    run("cargo", &["test", "--workspace", "--release"])?;
    fuzz(FuzzBudget::Runs(FUZZ_TEST_RUNS), None)?;
    acceptance()?;
    browser_tests()
}

/// How many inputs the test command tries per target, from a fixed seed: a bounded, repeatable
/// check that the committed seeds and their near mutants still end cleanly (`cargo xtask fuzz`
/// explores for real: a minute per target by default, from a random seed).
const FUZZ_TEST_RUNS: u64 = 100_000;

/// How long a fuzz run lasts.
#[derive(Clone, Copy)]
enum FuzzBudget {
    /// Exploration: this long per target, from a random seed.
    Seconds(u32),
    /// The test command's check: this many inputs per target, from seed 1.
    Runs(u64),
}

/// cargo-fuzz runs on stable Rust with `--sanitizer none` (libFuzzer's coverage guidance
/// without ASan, which needs nightly).
fn ensure_cargo_fuzz() -> Result {
    if !have("cargo-fuzz", "--version") {
        run("cargo", &["install", "cargo-fuzz", "--version", "~0.13", "--locked"])?;
    }
    Ok(())
}

/// Fuzzes every target of fuzz/fuzz_targets (or only `only`) within `budget` each, from the
/// committed seeds (fuzz/corpus/TARGET, read only) and a working corpus under target/. A
/// crash, a timeout (30 s) or an allocation past 4 GiB fails the run and leaves its input in
/// fuzz/artifacts/TARGET, to be committed once fixed: the regression test replays it.
fn fuzz(budget: FuzzBudget, only: Option<&str>) -> Result {
    ensure_cargo_fuzz()?;
    let dir = root().join("fuzz");
    let mut targets: Vec<String> = std::fs::read_dir(dir.join("fuzz_targets"))
        .map_err(|e| format!("fuzz/fuzz_targets: {e}"))?
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().strip_suffix(".rs").map(str::to_string))
        .collect();
    targets.sort();
    if let Some(t) = only {
        if !targets.iter().any(|x| x == t) {
            return Err(format!("no fuzz target {t:?} (targets: {})", targets.join(", ")));
        }
        targets.retain(|x| x == t);
    }
    for t in &targets {
        let work = root().join("target/fuzz-corpus").join(t);
        let artifacts = dir.join("artifacts").join(t);
        for d in [&work, &artifacts] {
            std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        let seeds = dir.join("corpus").join(t);
        let (work, seeds) = (work.to_string_lossy().into_owned(), seeds.to_string_lossy().into_owned());
        let limit = match budget {
            FuzzBudget::Seconds(s) => vec![format!("-max_total_time={s}")],
            // The grammar target's inputs are whole programs run to their end (about 2.5 ms
            // each against well under 1 ms for the others): a fifth as many keep it near a minute.
            FuzzBudget::Runs(n) => {
                let n = if t == "python" { n / 5 } else { n };
                vec![format!("-runs={n}"), "-seed=1".to_string()]
            }
        };
        let prefix = format!("-artifact_prefix={}/", artifacts.to_string_lossy());
        let mut args: Vec<&str> = vec!["fuzz", "run", "--sanitizer", "none", "--release", t, &work, &seeds, "--"];
        args.extend(limit.iter().map(String::as_str));
        args.extend(["-timeout=30", "-rss_limit_mb=4096", "-max_len=65536", "-print_final_stats=1", &prefix]);
        run_in(&dir, "cargo", &args)?;
    }
    Ok(())
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
    run("python3", &[&script, "--show", "20", &files[0], &files[1]])?;
    // The catalogue of real PyTorch snippets, family by family as each one passes.
    let catalogue = dir.join("check_catalogue.py");
    if catalogue.exists() {
        let cases = dir.join("catalogue_public.json").to_string_lossy().into_owned();
        let script = catalogue.to_string_lossy().into_owned();
        run("python3", &[&script, "--show", "20", "--families", CATALOGUE_FAMILIES, &cases])?;
        // Real snippets from bug reports and questions, and random programs mixing views,
        // dtypes, formats, index writes, autograd and loops: every case must pass.
        for sample in ["wild_public.json", "mixed_public.json"] {
            let cases = dir.join(sample);
            if cases.exists() {
                run("python3", &[&script, "--show", "20", &cases.to_string_lossy()])?;
            }
        }
    }
    // tinygrad's real PyTorch bridge, recorded: the bridge's own run (failing line, strides,
    // offsets, values) of every case. The script prints its counts and exits 0 either way.
    let bridge = dir.join("check_bridge.py");
    if bridge.exists() {
        let records = dir.join("bridge_public.json").to_string_lossy().into_owned();
        let script = bridge.to_string_lossy().into_owned();
        let args = [script.as_str(), "--show", "20", "--values", &records];
        eprintln!("+ python3 {}", args.join(" "));
        let out =
            Command::new("python3").args(args).current_dir(root()).output().map_err(|e| format!("python3: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout);
        print!("{text}");
        bridge_passed(&text).map_err(|e| format!("check_bridge.py: {e}"))?;
    }
    Ok(())
}

/// Whether check_bridge.py's summary (`cases K/N`, then `P passed, F failed`) says every case
/// and every tensor matched.
fn bridge_passed(text: &str) -> Result {
    let cases = text.lines().find_map(|l| l.strip_prefix("cases ")).ok_or("no `cases` line")?;
    let (ok, all) = cases.split_once('/').ok_or("a `cases` line without K/N")?;
    let failed = text
        .lines()
        .find_map(|l| l.strip_suffix(" failed").and_then(|l| l.rsplit_once(", ")).map(|(_, f)| f))
        .ok_or("no `failed` count")?;
    if ok.trim() != all.trim() || all.trim() == "0" || failed.trim() != "0" {
        return Err(format!("cases {cases}, {failed} tensors failed"));
    }
    Ok(())
}

/// The families of the shared catalogue the product passes, checked by the test command.
const CATALOGUE_FAMILIES: &str =
    "unary,views,dtype,format,meta,scatter,copies,errors,real,index,random,python,autograd,train";

/// Builds the playground and serves it on http://127.0.0.1:8080 (Trunk.toml), rebuilding on
/// change. With no link in the address the page opens on its first built-in lesson.
fn serve() -> Result {
    let wasm_opt = ensure_web_tools()?;
    bundle_editor()?;
    eprintln!("serving the playground on http://127.0.0.1:8080/");
    trunk(&wasm_opt, &["serve", "--release"])
}

/// Builds the page's release dist/ (what the browser tests load and what the page ships).
fn build_page() -> Result {
    let wasm_opt = ensure_web_tools()?;
    bundle_editor()?;
    trunk(&wasm_opt, &["build", "--release"])
}

/// The page's code editor: CodeMirror 6 bundled by esbuild (both pinned in tools/editor's lock
/// file) into one ES module, www/js/vendor/editor.js (ignored by git), which trunk copies with
/// the page's other modules. Build-time only: no node_modules ship.
fn bundle_editor() -> Result {
    ensure_node()?;
    let dir = root().join("tools/editor");
    let packages = [
        "esbuild",
        "@codemirror/state",
        "@codemirror/view",
        "@codemirror/commands",
        "@codemirror/language",
        "@codemirror/lang-python",
    ];
    npm_ci_unless_present(&dir, &packages)?;
    let esbuild = dir.join("node_modules/.bin/esbuild");
    let out = root().join("www/js/vendor/editor.js");
    let outfile = format!("--outfile={}", out.display());
    let args = ["editor.js", "--bundle", "--format=esm", "--minify", "--target=es2020", outfile.as_str()];
    run_in(&dir, &esbuild.to_string_lossy(), &args)
}

/// Runs trunk with the pinned wasm-opt first on PATH: trunk looks the tool up there, and
/// Trunk.toml's `[tools] wasm_opt` makes it refuse any other version (offline, it never downloads
/// one), so a system binaryen that breaks the module is never picked up instead.
fn trunk(wasm_opt_bin: &Path, args: &[&str]) -> Result {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(std::iter::once(wasm_opt_bin.to_path_buf()).chain(std::env::split_paths(&path)))
        .map_err(|e| format!("PATH: {e}"))?;
    eprintln!("+ PATH={}:$PATH trunk {}", wasm_opt_bin.display(), args.join(" "));
    status(Command::new("trunk").args(args).env("PATH", path).current_dir(root()))
}

/// trunk 0.21 is the newest that builds with this toolchain; wasm-bindgen-cli must be exactly
/// the version of the wasm-bindgen crate in Cargo.lock or its output does not load.
const TRUNK_VERSION: &str = "0.21";

/// Installs what the page's build needs and returns the directory holding the pinned wasm-opt.
fn ensure_web_tools() -> Result<PathBuf> {
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
    ensure_wasm_opt()
}

/// binaryen's wasm-opt from npm (tools/wasm-opt's lock file pins it), run under node: a current
/// release optimises the module safely where Debian's binaryen breaks it at load. Build-time only.
fn ensure_wasm_opt() -> Result<PathBuf> {
    ensure_node()?;
    let dir = root().join("tools/wasm-opt");
    npm_ci_unless_present(&dir, &["binaryen"])?;
    Ok(dir.join("node_modules/.bin"))
}

fn ensure_node() -> Result {
    if !have("node", "--version") || !have("npm", "--version") {
        apt_install(&["nodejs", "npm"])?;
    }
    Ok(())
}

/// `npm ci` from the committed lock file in `dir`, unless every named package is installed at the
/// version the lock file pins. A package the lock file gained or moved since the last install
/// reads as missing: it reinstalls then.
fn npm_ci_unless_present(dir: &Path, packages: &[&str]) -> Result {
    let lock = dir.join("package-lock.json");
    let lock = std::fs::read_to_string(&lock).map_err(|e| format!("{}: {e}", lock.display()))?;
    let installed = packages.iter().all(|p| {
        let manifest = std::fs::read_to_string(dir.join("node_modules").join(p).join("package.json")).ok();
        let (pinned, have) = (json_version_after(&lock, &format!("\"node_modules/{p}\"")), manifest.as_deref());
        pinned.zip(have.and_then(|m| json_version_after(m, "{"))).is_some_and(|(want, got)| want == got)
    });
    if installed {
        return Ok(());
    }
    run_in(dir, "npm", &["ci", "--no-audit", "--no-fund"])
}

/// The first `"version": "..."` value after `anchor` in an npm JSON file (npm writes one key per
/// line, so a text search is enough here and keeps xtask free of a JSON parser).
fn json_version_after<'a>(text: &'a str, anchor: &str) -> Option<&'a str> {
    let rest = &text[text.find(anchor)? + anchor.len()..];
    let needle = "\"version\": \"";
    let rest = &rest[rest.find(needle)? + needle.len()..];
    Some(&rest[..rest.find('"')?])
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
    build_page()?;
    if !Path::new("/usr/bin/chromium").exists() {
        apt_install(&["chromium"])?;
    }
    let dir = root().join("tests/browser");
    npm_ci_unless_present(&dir, &["playwright-core", "onnxruntime-web", "axe-core"])?;
    run_in(&dir, "npm", &["test"])
}

fn run_in(dir: &Path, program: &str, args: &[&str]) -> Result {
    eprintln!("+ (cd {}) {program} {}", dir.display(), args.join(" "));
    status(Command::new(program).args(args).current_dir(dir))
}

/// Runs a prepared command, failing with its command line if it fails.
fn status(cmd: &mut Command) -> Result {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let line = cmd.get_args().fold(program.clone(), |line, a| format!("{line} {}", a.to_string_lossy()));
    let status = cmd.status().map_err(|e| format!("{program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{line}` failed ({status})"))
    }
}

/// The GPU kernel bench on a pinned current lavapipe, then the core benches. Debian bookworm's
/// own Mesa 22 loads storage buffers one lane at a time, so its figures say nothing about the
/// kernels; the tests still run on the system driver (`cargo xtask test`).
fn bench() -> Result {
    let icd = ensure_bench_driver()?;
    let lib = icd.parent().ok_or("driver dir")?.join("root/usr/lib/x86_64-linux-gnu");
    eprintln!("bench driver: Mesa {MESA_VERSION} lavapipe ({})", icd.display());
    let python = numpy_python();
    let mut cmd = Command::new("cargo");
    cmd.args(["bench", "-p", "stridelab-gpu", "--bench", "kernels"]).current_dir(root());
    cmd.env("VK_ICD_FILENAMES", &icd).env("LD_LIBRARY_PATH", &lib);
    match &python {
        Some(p) => cmd.env("STRIDELAB_BENCH_PYTHON", p),
        None => cmd.env_remove("STRIDELAB_BENCH_PYTHON"),
    };
    eprintln!("+ VK_ICD_FILENAMES={} cargo bench -p stridelab-gpu --bench kernels", icd.display());
    let status = cmd.status().map_err(|e| format!("cargo: {e}"))?;
    if !status.success() {
        return Err(format!("the GPU kernel bench failed ({status})"));
    }
    run("cargo", &["bench", "-p", "stridelab-core"])
}

/// Mesa's Vulkan drivers from bookworm-backports and the libdrm they link against, each pinned by
/// its sha256 (package, file name, digest).
const MESA_VERSION: &str = "25.0.7-2~bpo12+1";
const BENCH_DEBS: [(&str, &str, &str); 3] = [
    (
        "mesa-vulkan-drivers=25.0.7-2~bpo12+1",
        "mesa-vulkan-drivers_25.0.7-2~bpo12+1_amd64.deb",
        "3899f1800424c60a05df5d6913076a526ca8fdbabec43672cd397563d1ca3263",
    ),
    (
        "libdrm2=2.4.123-1~bpo12+1",
        "libdrm2_2.4.123-1~bpo12+1_amd64.deb",
        "9cc2f341964286295124a32d3625edb76730500625e54a1e682761f883064d7b",
    ),
    (
        "libdrm-amdgpu1=2.4.123-1~bpo12+1",
        "libdrm-amdgpu1_2.4.123-1~bpo12+1_amd64.deb",
        "334e2ae389af0e9cb607c2ccfbbf7ae9feb34131ff998550baeffeeae6cda296",
    ),
];

/// Unpacks the pinned driver under target/lavapipe-25 (once) and returns its ICD file. The
/// packages are fetched with private apt lists and unpacked with `dpkg -x`: nothing on the
/// system changes.
fn ensure_bench_driver() -> Result<PathBuf> {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return Err("the bench driver is a Debian amd64 package: bench on x86_64 Linux".into());
    }
    let dir = root().join("target/lavapipe-25");
    let icd = dir.join("lvp.json");
    let lib = dir.join("root/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so");
    if icd.exists() && lib.exists() {
        return Ok(icd);
    }
    let debs = dir.join("debs");
    let lists = dir.join("apt/lists");
    std::fs::create_dir_all(lists.join("partial")).map_err(|e| format!("{}: {e}", lists.display()))?;
    std::fs::create_dir_all(&debs).map_err(|e| format!("{}: {e}", debs.display()))?;
    let sources = dir.join("apt/sources.list");
    std::fs::write(&sources, "deb http://deb.debian.org/debian bookworm-backports main\n")
        .map_err(|e| format!("{}: {e}", sources.display()))?;
    let opts = [
        format!("-o=Dir::Etc::sourcelist={}", sources.display()),
        "-o=Dir::Etc::sourceparts=/dev/null".to_string(),
        format!("-o=Dir::State::Lists={}", lists.display()),
    ];
    let missing: Vec<&str> = BENCH_DEBS.iter().filter(|d| !debs.join(d.1).exists()).map(|d| d.0).collect();
    if !missing.is_empty() {
        let unreachable = |what: &str| {
            format!(
                "{what}: could not fetch Mesa {MESA_VERSION} from deb.debian.org (bookworm-backports); \
                 is the package registry reachable? (or put {} into {})",
                BENCH_DEBS.map(|d| d.1).join(", "),
                debs.display()
            )
        };
        let opts: Vec<&str> = opts.iter().map(String::as_str).collect();
        apt_get(&dir, &[&opts[..], &["update"]].concat()).map_err(|e| unreachable(&e))?;
        apt_get(&debs, &[&opts[..], &["download"], &missing[..]].concat()).map_err(|e| unreachable(&e))?;
    }
    let unpacked = dir.join("root");
    for (_, file, sha) in BENCH_DEBS {
        let deb = debs.join(file);
        let got = sha256(&deb)?;
        if got != sha {
            return Err(format!("{}: sha256 {got}, expected {sha}; delete it and retry", deb.display()));
        }
        let (deb, out) = (deb.to_string_lossy().into_owned(), unpacked.to_string_lossy().into_owned());
        run("dpkg", &["-x", &deb, &out])?;
    }
    if !lib.exists() {
        return Err(format!("{} is missing after unpacking", lib.display()));
    }
    let json = format!(
        "{{\n  \"file_format_version\": \"1.0.0\",\n  \"ICD\": {{\n    \"library_path\": \"{}\",\n    \"api_version\": \"1.4.305\"\n  }}\n}}\n",
        lib.display()
    );
    std::fs::write(&icd, json).map_err(|e| format!("{}: {e}", icd.display()))?;
    Ok(icd)
}

/// apt-get in `dir`, through sudo unless already root (its private lists need no more).
fn apt_get(dir: &Path, args: &[&str]) -> Result {
    if is_root() {
        run_in(dir, "apt-get", args)
    } else {
        run_in(dir, "sudo", &[&["apt-get"], args].concat())
    }
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0").unwrap_or(false)
}

fn sha256(file: &Path) -> Result<String> {
    let out = Command::new("sha256sum").arg(file).output().map_err(|e| format!("sha256sum: {e}"))?;
    if !out.status.success() {
        return Err(format!("sha256sum {} failed", file.display()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).split_whitespace().next().unwrap_or_default().to_string())
}

/// A python that imports numpy, for the bench's numpy side: the system one, else
/// target/bench-venv (created with numpy on first use). numpy is only ever a bench companion.
fn numpy_python() -> Option<PathBuf> {
    let imports =
        |p: &Path| Command::new(p).args(["-c", "import numpy"]).output().map(|o| o.status.success()).unwrap_or(false);
    let system = PathBuf::from("python3");
    if imports(&system) {
        return Some(system);
    }
    let venv = root().join("target/bench-venv");
    let python = venv.join("bin/python");
    if !python.exists() {
        let venv = venv.to_string_lossy().into_owned();
        if let Err(e) = run("python3", &["-m", "venv", &venv]) {
            eprintln!("numpy baseline skipped: {e}");
            return None;
        }
    }
    if !imports(&python) {
        let py = python.to_string_lossy().into_owned();
        if let Err(e) = run(&py, &["-m", "pip", "install", "--quiet", "numpy"]) {
            eprintln!("numpy baseline skipped: {e}");
            return None;
        }
    }
    Some(python)
}

#[cfg(test)]
mod tests {
    use super::bridge_passed;

    #[test]
    fn the_bridge_summary_passes_only_when_every_case_and_tensor_matched() {
        assert!(bridge_passed("cases 173/173\n546 passed, 0 failed\n").is_ok());
        assert!(bridge_passed("FAIL x a: ...\ncases 172/173\n545 passed, 1 failed\n").is_err());
        assert!(bridge_passed("cases 173/173\n545 passed, 1 failed\n").is_err());
        assert!(bridge_passed("cases 0/0\n0 passed, 0 failed\n").is_err(), "no case checked");
        assert!(bridge_passed("Traceback (most recent call last):\n").is_err());
    }
}
