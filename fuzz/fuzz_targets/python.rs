//! Fuzz target: `stridelab_core::fuzzing::python` (see that module).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| stridelab_core::fuzzing::python(data));
