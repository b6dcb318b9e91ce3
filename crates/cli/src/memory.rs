//! The process's allocator settings. A run allocates and frees buffers of up to hundreds of
//! megabytes (a [512, 50257] float32 logits tensor, its softmax and their gradients). glibc
//! serves every allocation over 32 MiB with a fresh `mmap` and returns it on free, so each such
//! buffer is faulted in page by page again: a quarter of a nanoGPT step's time. Serving them
//! from the heap and keeping freed memory for the next buffer removes that; the peak resident
//! set is the run's own peak either way (memory is kept, not added).

/// Keeps freed memory in the process for reuse (glibc on Linux; elsewhere the default stays).
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets glibc allocator parameters; it is called first thing in
    // `main`, before any other thread exists. A refused setting leaves glibc's default.
    unsafe {
        // Every allocation from the heap (glibc still falls back to mmap if the heap cannot grow).
        libc::mallopt(libc::M_MMAP_MAX, 0);
        // Freed memory at the heap's top stays until 1 GiB of it is unused.
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
        // The heap grows 64 MiB at a time (untouched pages cost nothing).
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
    }
}
