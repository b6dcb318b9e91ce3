//! The `stridelab` command line: runs traces, prints what each tensor is in storage, and turns
//! traces into share links and back. A thin shell over `stridelab-core`: no tensor logic here.

mod error;
mod kernels;
mod memory;
mod model;
mod model_feed;
mod recording;
mod train;

use clap::{Parser, Subcommand};
use error::{read_file, read_limited, write_json_stdout, write_stdout, Error, Result};
use kernels::Backend;
use std::process::ExitCode;
use stridelab_core::limits::{Reclaim, StorageBudget};
use stridelab_core::share::{self, SharedTrace, Shown};
use stridelab_core::trace::interp::kernels::trace_kernels;
use stridelab_core::trace::interp::runner::Run;
use stridelab_core::trace::report::{self, ReportOptions};

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
    /// Run a trace (a file, `-` for standard input, or a share link) and report every tensor;
    /// a recording (`run.json` from `python -m stridelab_record`, or its `#r1...` link) is read
    /// and reported instead.
    Run {
        /// FILE, `-`, or a link / `#v1...` (`#r1...`: a recording) fragment made by `stridelab url`.
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
    /// Train the sample MNIST CNN on the CPU as PyTorch would (same initialisation, batch
    /// order, loss and optimizer), with a per-step JSON log and ONNX or capture export.
    Train(train::TrainArgs),
    /// List every op the trace language runs: its spellings, PyTorch's signature and its
    /// autograd node where the op table declares them.
    Ops {
        /// Print the list as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a share link that replays the trace exactly, or, for a recording (`run.json`), one
    /// that opens it in the page (`#r1...`; a recording travels whole, so at most 1 MiB of it).
    Url {
        /// FILE (a trace, or a recording's `.json`) or `-`.
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

/// Trace text is at most this long; [`read_input`] stops reading past it.
const MAX_TRACE_BYTES: usize = stridelab_core::trace::lang::parser::MAX_SOURCE_BYTES;

fn read_input(input: &str) -> Result<String> {
    let bytes = if input == "-" {
        read_limited("standard input", std::io::stdin().lock(), MAX_TRACE_BYTES)?
    } else if share::looks_like_link(input) && !std::path::Path::new(input).exists() {
        return Ok(share::decode(input)?.trace);
    } else {
        read_file(input, MAX_TRACE_BYTES)?
    };
    let what = if input == "-" { "standard input" } else { input };
    String::from_utf8(bytes).map_err(|_| Error::new("decode", format!("{what}: not UTF-8 text")))
}

fn main() -> ExitCode {
    memory::keep_freed_memory();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version are not errors; under `--json` a bad argument is the report's error
        // object like any other, so a tool reading the output never meets clap's text.
        Err(e) if !e.use_stderr() || !std::env::args().any(|a| a == "--json") => e.exit(),
        Err(e) => {
            let text = e.render().to_string();
            // clap's message up to its usage paragraph, on one line ("... not provided: --mnist <DIR>").
            let head = text.split("\n\n").next().unwrap_or("");
            let message =
                head.split_whitespace().collect::<Vec<_>>().join(" ").trim_start_matches("error: ").to_string();
            return Error::usage(message).report(true);
        }
    };
    match cli.command {
        Command::Model(cmd) => model::main(cmd),
        Command::Train(args) => match train::main(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => e.report(args.json()),
        },
        Command::Run { input, json, steps, graph, files, backend, repeats, trace_out } => {
            match run(
                &input,
                ReportOptions { steps, graph, ..ReportOptions::default() },
                &files,
                backend,
                repeats,
                trace_out,
                json,
            ) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => e.report(json),
            }
        }
        Command::Kernels { input, backend, repeats, trace_out } => {
            let result = read_input(&input).and_then(|src| {
                let (_, steps_k, ran) = scheduled(&src, backend, repeats)?;
                if let Some(path) = trace_out {
                    write_trace(&path, backend, &ran)?;
                }
                write_stdout(&kernels::table(&steps_k, &ran))
            });
            match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => e.report(false),
            }
        }
        Command::Ops { json } => {
            let ops = stridelab_core::trace::report::ops_json();
            let text = if json {
                format!("{ops:#}\n")
            } else {
                ops.as_array()
                    .into_iter()
                    .flatten()
                    .map(|e| {
                        let forms: Vec<&str> =
                            e["forms"].as_array().into_iter().flatten().filter_map(|f| f.as_str()).collect();
                        format!(
                            "{:<28} {}{}\n",
                            e["name"].as_str().unwrap_or(""),
                            forms.join(" "),
                            e["signature"].as_str().unwrap_or("")
                        )
                    })
                    .collect()
            };
            match write_stdout(&text) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => e.report(json),
            }
        }
        Command::Url { input, base, step, tensor } => {
            // A recording (a `.json` file the recorder wrote) travels whole in its own link form.
            let result = recording::link(&input, &base, step, tensor.clone()).and_then(|made| {
                let link = match made {
                    Some(link) => link,
                    None => {
                        let trace = read_input(&input)?;
                        share::checked_link(
                            &SharedTrace { trace, step, tensor, backend: None, view: None, shown: Shown::PyTorch },
                            &base,
                        )?
                    }
                };
                write_stdout(&format!("{link}\n"))
            });
            match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => e.report(false),
            }
        }
    }
}

/// `stridelab run`: the report, with the kernels each statement became when a backend is given.
fn run(
    input: &str,
    opts: ReportOptions,
    files: &[String],
    backend: Option<Backend>,
    repeats: u32,
    trace_out: Option<String>,
    json: bool,
) -> Result<()> {
    let rec = match recording::read(input)? {
        Some(rec) => Some(rec),
        None => recording::from_link(input)?,
    };
    if let Some(rec) = rec {
        if backend.is_some() {
            return Err(Error::usage("--backend runs a trace's kernels; a recording has none"));
        }
        let rep = rec.report(opts);
        return if json {
            write_json_stdout(&rep)
        } else {
            let value = serde_json::to_value(&rep).map_err(|e| Error::new("io", e.to_string()).failed())?;
            write_stdout(&format!("{}{}", recording::header(&value), table(&value)))
        };
    }
    let src = read_input(input)?;
    let files = model::dataset_files(files)?;
    let Some(backend) = backend else {
        // Storages nothing reaches are freed as the run goes (the report is the same; only a
        // kernel replay, below, needs every storage to the end).
        let budget = StorageBudget { reclaim: Reclaim::Unreachable, ..StorageBudget::DEFAULT };
        let mut run = Run::with_files(files).limit_storages(budget).run_text(&src);
        let rep = report::report(&mut run, opts);
        // A trace that stops on an error still ran as asked: the error is part of the report.
        return if json { write_json_stdout(&rep) } else { write_stdout(&table(&report_value(&rep)?)) };
    };
    let (mut run, steps_k, ran) = scheduled(&src, backend, repeats)?;
    let mut rep = report::report(&mut run, opts);
    rep.add_kernels(
        ran.iter()
            .zip(&steps_k)
            .map(|(rs, step)| (rs.iter().map(kernels::kernel_json).collect(), step.note.clone()))
            .collect(),
    );
    if let Some(path) = trace_out {
        write_trace(&path, backend, &ran)?;
    }
    if json {
        // Written straight from the report: a JSON value of every tensor's values would take
        // many times their size.
        write_json_stdout(&rep)
    } else {
        write_stdout(&format!("{}{}", table(&report_value(&rep)?), kernels::table(&steps_k, &ran)))
    }
}

/// The report as a JSON value, its numbers as the report writes them: a float32 value keeps its
/// shortest float32 text (`0.01`), as in a plain `--json` run, rather than its float64 widening.
fn report_value(rep: &report::Report<'_>) -> Result<serde_json::Value> {
    let text = serde_json::to_string(rep).map_err(|e| Error::new("io", e.to_string()).failed())?;
    serde_json::from_str(&text).map_err(|e| Error::new("io", e.to_string()).failed())
}

type Scheduled = (Run, Vec<stridelab_core::schedule::StepKernels>, Vec<Vec<kernels::Ran>>);

/// Runs the trace statement by statement, schedules each statement and runs its kernels.
fn scheduled(src: &str, backend: Backend, repeats: u32) -> Result<Scheduled> {
    let gpu = kernels::device(backend)?;
    let (run, steps) = match trace_kernels(src, kernels::schedule_options(gpu.as_ref())) {
        Ok(x) => x,
        // A trace that does not parse has no kernels; its report carries the error.
        Err(stridelab_core::Error::Parse { .. }) => (Run::run_source(src), Vec::new()),
        Err(e) => return Err(Error::from(e).failed()),
    };
    let ran = kernels::run_steps(&steps, gpu.as_ref(), repeats)?;
    Ok((run, steps, ran))
}

fn write_trace(path: &str, backend: Backend, ran: &[Vec<kernels::Ran>]) -> Result<()> {
    let timings: Vec<stridelab_gpu::KernelTiming> = ran.iter().flatten().map(|r| r.timing.clone()).collect();
    let name = match backend {
        Backend::Cpu => "stridelab cpu",
        Backend::Wgpu => "stridelab wgpu",
    };
    let trace = serde_json::to_string(&stridelab_gpu::chrome_trace(name, &timings))
        .map_err(|e| Error::new("io", format!("{path}: {e}")).failed())?;
    std::fs::write(path, trace).map_err(|e| Error::io(path, &e).failed())
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
        // A recording has no bridge (only a run computes it) and predicts tinygrad's views.
        let flag = match bridge["matches_torch"].as_bool() {
            Some(false) => "  <- differs",
            _ if t["predicted"].as_bool() == Some(true) => "  (views predicted)",
            _ => "",
        };
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
            if bridge.is_null() {
                "-".to_string()
            } else {
                format!("{} +{}", bridge["strides"], bridge["storage_offset"])
            },
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
