//! The `stridelab` command line: runs traces, prints what each tensor is in storage, and turns
//! traces into share links and back. A thin shell over `stridelab-core`: no tensor logic here.

mod model;

use clap::{Parser, Subcommand};
use std::io::Read;
use std::process::ExitCode;
use stridelab_core::share::{self, SharedTrace};
use stridelab_core::trace::report::{self, ReportOptions};
use stridelab_core::trace::runner::Run;

#[derive(Parser)]
#[command(name = "stridelab", version, about = "Tensor alias semantics: PyTorch layouts, tinygrad views, the bridge's view")]
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
        Command::Run { input, json, steps, graph, files } => {
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
            let mut run = Run::with_files(files).run_text(&src);
            let opts = ReportOptions { steps, graph };
            let rep = report::report(&mut run, opts);
            if json {
                println!("{rep}");
            } else {
                print!("{}", table(&rep));
            }
            // A trace that stops on an error still ran as asked: the error is part of the report.
            ExitCode::SUCCESS
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

/// The human-readable report: one block per tensor, then the error if the run stopped.
fn table(rep: &serde_json::Value) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let empty = serde_json::Map::new();
    let tensors = rep["tensors"].as_object().unwrap_or(&empty);
    let _ = writeln!(out, "{:<10} {:<14} {:<8} {:<14} {:>6} {:>7} {:<5} {:<6} {:<22}", "name", "shape", "dtype", "strides", "offset", "storage", "view", "views", "bridge");
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
        let _ = writeln!(out, "{:<10} index {}  valid {}", "", t["index"].as_str().unwrap_or(""), t["valid"].as_str().unwrap_or(""));
        let vals = t["values"].as_array().map(|v| v.iter().take(16).map(|x| x.to_string()).collect::<Vec<_>>().join(", ")).unwrap_or_default();
        let more = if t["values"].as_array().map_or(0, Vec::len) > 16 { ", ..." } else { "" };
        let _ = writeln!(out, "{:<10} values [{vals}{more}]", "");
    }
    if let Some(e) = rep["error"].as_object() {
        let col = e.get("column").and_then(|c| c.as_u64()).map(|c| format!(":{c}")).unwrap_or_default();
        let _ = writeln!(out, "error at line {}{col} ({}): {}", e["line"], e["kind"].as_str().unwrap_or(""), e["message"].as_str().unwrap_or(""));
    }
    out
}
