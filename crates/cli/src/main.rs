//! The `stridelab` command line: runs traces, prints what each tensor is in storage, and turns
//! traces into share links and back. A thin shell over `stridelab-core`: no tensor logic here.

mod kernels;
mod model;

use clap::{Parser, Subcommand};
use kernels::Backend;
use std::io::{Read, Write};
use std::process::ExitCode;
use stridelab_core::share::{self, SharedTrace};
use stridelab_core::trace::kernels::trace_kernels;
use stridelab_core::trace::report::{self, ReportOptions};
use stridelab_core::trace::runner::Run;

#[derive(Parser)]
#[command(
    name = "stridelab",
    version,
    about = "Tensor alias semantics: PyTorch layouts, tinygrad views, the bridge's view"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a trace (a file, `-` for standard input, or a share link) and report every tensor.
    Run {
        /// FILE, `-`, or a link / `#v1...` fragment made by `stridelab url`.
        input: String,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Add the per-statement history (writes, who observed them).
        #[arg(long)]
        steps: bool,
        /// Add the UOp graph as a node table.
        #[arg(long)]
        graph: bool,
        /// Register a dataset file for `dataset(NAME)` (the samples are always registered).
        #[arg(long = "file", value_name = "NAME=PATH")]
        files: Vec<String>,
        /// Schedule the trace into kernels and run them on this backend (adds `kernels`).
        #[arg(long, value_enum)]
        backend: Option<Backend>,
        /// Run each kernel this many times, to time short kernels and show the spread.
        #[arg(long, default_value_t = 1)]
        repeats: u32,
        /// Write the kernel timings as Chrome trace-event JSON (Perfetto, chrome://tracing).
        #[arg(long)]
        trace_out: Option<String>,
    },
    /// Print the kernels a trace becomes: a table (with timings) and their WGSL.
    Kernels {
        /// FILE, `-`, or a share link.
        input: String,
        #[arg(long, value_enum, default_value = "cpu")]
        backend: Backend,
        #[arg(long, default_value_t = 1)]
        repeats: u32,
        #[arg(long)]
        trace_out: Option<String>,
    },
    /// Run ONNX models on dataset images and write captures.
    #[command(subcommand)]
    Model(model::ModelCommand),
    /// Print a share link that replays the trace exactly.
    Url {
        /// FILE or `-`.
        input: String,
        #[arg(long, default_value = share::DEFAULT_BASE)]
        base: String,
        /// Selected step to restore.
        #[arg(long)]
        step: Option<usize>,
        /// Selected tensor to restore.
        #[arg(long)]
        tensor: Option<String>,
    },
}

fn read_input(input: &str) -> Result<String, String> {
    if input == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).map_err(|e| format!("reading standard input: {e}"))?;
        return Ok(s);
    }
    if share::looks_like_link(input) && !std::path::Path::new(input).exists() {
        return share::decode(input).map(|s| s.trace).map_err(|e| e.to_string());
    }
    std::fs::read_to_string(input).map_err(|e| format!("{input}: {e}"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Model(cmd) => model::main(cmd),
        Command::Run { input, json, steps, graph, files, backend, repeats, trace_out } => {
            let src = match read_input(&input) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("stridelab: {e}");
                    return ExitCode::from(2);
                }
            };
            let files = match model::dataset_files(&files) {
                Ok(f) => f,
                Err(e) => {
                    eprintln!("stridelab: {e}");
                    return ExitCode::from(2);
                }
            };
            let opts = ReportOptions { steps, graph };
            let Some(backend) = backend else {
                let mut run = Run::with_files(files).run_text(&src);
                let rep = report::report(&mut run, opts);
                let mut out = std::io::BufWriter::new(std::io::stdout().lock());
                let written = if json {
                    serde_json::to_writer(&mut out, &rep).map_err(std::io::Error::from).and_then(|_| writeln!(out))
                } else {
                    let value = serde_json::to_value(&rep).unwrap_or_default();
                    write!(out, "{}", table(&value))
                };
                if let Err(e) = written.and_then(|_| out.flush()) {
                    eprintln!("stridelab: writing the report: {e}");
                    return ExitCode::from(2);
                }
                // A trace that stops on an error still ran as asked: the error is part of the report.
                return ExitCode::SUCCESS;
            };
            let (mut run, steps_k, ran) = match scheduled(&src, backend, repeats) {
                Ok(x) => x,
                Err(e) => {
                    eprintln!("stridelab: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let mut rep = serde_json::to_value(report::report(&mut run, opts)).unwrap_or_default();
            let per_step: Vec<Vec<serde_json::Value>> =
                ran.iter().map(|rs| rs.iter().map(kernels::kernel_json).collect()).collect();
            if let Some(arr) = rep["steps"].as_array_mut() {
                for ((s, ks), step) in arr.iter_mut().zip(&per_step).zip(&steps_k) {
                    s["kernels"] = serde_json::Value::Array(ks.clone());
                    if let Some(note) = &step.note {
                        s["kernel_note"] = serde_json::Value::String(note.clone());
                    }
                }
            }
            rep["kernels"] = serde_json::Value::Array(per_step.into_iter().flatten().collect());
            if let Some(path) = trace_out {
                if let Err(e) = write_trace(&path, backend, &ran) {
                    eprintln!("stridelab: {e}");
                    return ExitCode::FAILURE;
                }
            }
            if json {
                println!("{rep}");
            } else {
                print!("{}", table(&rep));
                print!("{}", kernels::table(&steps_k, &ran));
            }
            ExitCode::SUCCESS
        }
        Command::Kernels { input, backend, repeats, trace_out } => {
            let result = read_input(&input).and_then(|src| scheduled(&src, backend, repeats));
            match result {
                Ok((_, steps_k, ran)) => {
                    if let Some(path) = trace_out {
                        if let Err(e) = write_trace(&path, backend, &ran) {
                            eprintln!("stridelab: {e}");
                            return ExitCode::FAILURE;
                        }
                    }
                    print!("{}", kernels::table(&steps_k, &ran));
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("stridelab: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Url { input, base, step, tensor } => match read_input(&input) {
            Ok(trace) => {
                println!("{}", share::link(&SharedTrace { trace, step, tensor, backend: None }, &base));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("stridelab: {e}");
                ExitCode::from(2)
            }
        },
    }
}

type Scheduled = (Run, Vec<stridelab_core::schedule::StepKernels>, Vec<Vec<kernels::Ran>>);

/// Runs the trace statement by statement, schedules each statement and runs its kernels.
fn scheduled(src: &str, backend: Backend, repeats: u32) -> Result<Scheduled, String> {
    let gpu = kernels::device(backend)?;
    let (run, steps) = match trace_kernels(src, kernels::schedule_options(gpu.as_ref())) {
        Ok(x) => x,
        // A trace that does not parse has no kernels; its report carries the error.
        Err(stridelab_core::Error::Parse { .. }) => (Run::run_source(src), Vec::new()),
        Err(e) => return Err(e.to_string()),
    };
    let ran = kernels::run_steps(&steps, gpu.as_ref(), repeats)?;
    Ok((run, steps, ran))
}

fn write_trace(path: &str, backend: Backend, ran: &[Vec<kernels::Ran>]) -> Result<(), String> {
    let timings: Vec<stridelab_gpu::KernelTiming> = ran.iter().flatten().map(|r| r.timing.clone()).collect();
    let name = match backend {
        Backend::Cpu => "stridelab cpu",
        Backend::Wgpu => "stridelab wgpu",
    };
    let trace =
        serde_json::to_string(&stridelab_gpu::chrome_trace(name, &timings)).map_err(|e| format!("{path}: {e}"))?;
    std::fs::write(path, trace).map_err(|e| format!("{path}: {e}"))
}

/// The human-readable report: one block per tensor, then the error if the run stopped.
fn table(rep: &serde_json::Value) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    // What the trace printed comes first, as running it in Python would show it.
    if let Some(text) = rep["output"].as_str() {
        out.push_str(text);
        if !text.is_empty() && !text.ends_with('\n') {
            out.push('\n');
        }
    }
    let empty = serde_json::Map::new();
    let tensors = rep["tensors"].as_object().unwrap_or(&empty);
    let _ = writeln!(
        out,
        "{:<10} {:<14} {:<8} {:<14} {:>6} {:>7} {:<5} {:<6} {:<22}",
        "name", "shape", "dtype", "strides", "offset", "storage", "view", "views", "bridge"
    );
    for (name, t) in tensors {
        let torch = &t["torch"];
        let bridge = &t["bridge"];
        let flag = if bridge["matches_torch"].as_bool() == Some(true) { "" } else { "  <- differs" };
        let _ = writeln!(
            out,
            "{:<10} {:<14} {:<8} {:<14} {:>6} {:>7} {:<5} {:<6} {:<22}{}",
            name,
            t["shape"].to_string(),
            t["dtype"].as_str().unwrap_or(""),
            torch["strides"].to_string(),
            torch["storage_offset"].to_string(),
            torch["storage"].to_string(),
            if torch["is_view"].as_bool() == Some(true) { "view" } else { "copy" },
            t["views"].as_array().map_or(0, Vec::len),
            format!("{} +{}", bridge["strides"], bridge["storage_offset"]),
            flag
        );
        let _ = writeln!(
            out,
            "{:<10} index {}  valid {}",
            "",
            t["index"].as_str().unwrap_or(""),
            t["valid"].as_str().unwrap_or("")
        );
        let vals = t["values"]
            .as_array()
            .map(|v| v.iter().take(16).map(|x| x.to_string()).collect::<Vec<_>>().join(", "))
            .unwrap_or_default();
        let more = if t["values"].as_array().map_or(0, Vec::len) > 16 { ", ..." } else { "" };
        let _ = writeln!(out, "{:<10} values [{vals}{more}]", "");
    }
    if let Some(e) = rep["error"].as_object() {
        let col = e.get("column").and_then(|c| c.as_u64()).map(|c| format!(":{c}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "error at line {}{col} ({}): {}",
            e["line"],
            e["kind"].as_str().unwrap_or(""),
            e["message"].as_str().unwrap_or("")
        );
    }
    out
}
