//! The device the GPU integration tests run on: the machine's adapter (lavapipe in the test
//! command), or `None` with the printed reason only where no adapter exists at all.

use pollster::block_on;
use stridelab_gpu::{acquire, AcquireOptions, Error, Gpu};

pub fn device() -> Option<Gpu> {
    match block_on(acquire(&AcquireOptions::new())) {
        Ok(gpu) => Some(gpu),
        Err(Error::NoAdapter(why)) => {
            eprintln!("skipped: no GPU adapter on this machine ({why})");
            None
        }
        Err(e) => panic!("acquiring a device failed: {e}"),
    }
}
