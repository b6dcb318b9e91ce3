//! One value from a wgpu callback to an `await`, with no async runtime: the readbacks and the
//! queue's completion on the web go through it.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

/// The state a callback shares with the future awaiting it.
struct Slot<T> {
    value: Option<T>,
    closed: bool,
    waker: Option<Waker>,
}

/// One value from a wgpu callback to an `await`: a minimal oneshot channel, so the crate needs no
/// async runtime and works the same under the browser's executor and a native `block_on`.
pub(crate) fn oneshot<T>() -> (Sender<T>, Receiver<T>) {
    let slot = Arc::new(Mutex::new(Slot { value: None, closed: false, waker: None }));
    (Sender { slot: Arc::clone(&slot) }, Receiver { slot })
}

pub(crate) struct Sender<T> {
    slot: Arc<Mutex<Slot<T>>>,
}

impl<T> Sender<T> {
    pub(crate) fn send(self, value: T) {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner).value = Some(value);
        // Drop wakes the receiver.
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        slot.closed = true;
        if let Some(waker) = slot.waker.take() {
            waker.wake();
        }
    }
}

/// Resolves to the sent value, or `None` when the sender was dropped without sending.
pub(crate) struct Receiver<T> {
    slot: Arc<Mutex<Slot<T>>>,
}

impl<T> Future for Receiver<T> {
    type Output = Option<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(value) = slot.value.take() {
            return Poll::Ready(Some(value));
        }
        if slot.closed {
            return Poll::Ready(None);
        }
        slot.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}
