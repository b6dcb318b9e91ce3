//! Runs a trace as the page's engine worker does (`session::Session::new`: PyTorch's run and
//! the bridge's, the page's report) natively, so its peak memory can be measured with
//! `/usr/bin/time -v` without a browser:
//!
//!   cargo build --release -p stridelab-web --example page_memory
//!   /usr/bin/time -f "%M KB" target/release/examples/page_memory TRACE.py
//!
//! The wasm module's linear memory follows the same allocations (it never shrinks, so its size
//! is the peak).

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: page_memory TRACE.py");
        std::process::exit(2);
    };
    let src = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let session = stridelab_web::session::Session::new(&src);
    let error = &session.outline()["error"];
    println!("{} steps; error: {error}", session.step_count());
}
