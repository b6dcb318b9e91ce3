//! The named files a trace can read with `dataset("name")`, shared by every run the page makes
//! (a session's steps, a view chain's prefixes, a statement's kernels).

// The page fetches the committed MNIST sample (served beside the wasm, so the module stays small) and registers it; native builds
// (the adapter's tests) start with the sample compiled in.
thread_local! {
    static FILES: std::cell::RefCell<std::collections::BTreeMap<String, Vec<u8>>> =
        std::cell::RefCell::new(initial_files());
}

#[cfg(not(target_arch = "wasm32"))]
fn initial_files() -> std::collections::BTreeMap<String, Vec<u8>> {
    [
        ("mnist-t10k-images-1k", &include_bytes!("../../../tests/data/mnist/t10k-images-1k-idx3-ubyte.gz")[..]),
        ("mnist-t10k-labels-1k", &include_bytes!("../../../tests/data/mnist/t10k-labels-1k-idx1-ubyte.gz")[..]),
    ]
    .into_iter()
    .map(|(name, bytes)| (name.to_string(), bytes.to_vec()))
    .collect()
}

#[cfg(target_arch = "wasm32")]
fn initial_files() -> std::collections::BTreeMap<String, Vec<u8>> {
    std::collections::BTreeMap::new()
}

/// Makes `bytes` readable as `dataset(name)` in every later run.
pub fn register_file(name: &str, bytes: Vec<u8>) {
    FILES.with(|f| f.borrow_mut().insert(name.to_string(), bytes));
}

/// The registered files, as a run takes them.
pub fn sample_files() -> std::collections::BTreeMap<String, Vec<u8>> {
    FILES.with(|f| f.borrow().clone())
}

/// A fresh run as the page makes them: the registered files, and the page's storage budget
/// (a trace's memory stays within a tab's).
pub fn page_run() -> stridelab_core::trace::interp::runner::Run {
    stridelab_core::trace::interp::runner::Run::with_files(sample_files())
        .limit_storages(stridelab_core::limits::StorageBudget::PAGE)
}
