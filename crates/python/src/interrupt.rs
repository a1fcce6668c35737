//! Long calls (searches, solves, dataset making) run without the GIL and
//! stop on Ctrl-C: the work runs on a thread of its own while the calling
//! thread, which Python's signal handlers run on, checks for signals.

use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// How often the waiting thread looks for a signal: Ctrl-C is answered
/// within about this long (plus the time the work takes to see its flag).
const SIGNAL_POLL: Duration = Duration::from_millis(20);

/// Runs `work` on another thread with the GIL released, and returns what
/// it returns. A signal whose handler raises (Ctrl-C: `KeyboardInterrupt`)
/// raises the flag `work` is given, waits for `work` to give up, and
/// raises that exception; a panic in `work` becomes a `RuntimeError`, so
/// no Rust panic reaches Python.
pub fn interruptible<T, W>(py: Python<'_>, work: W) -> PyResult<T>
where
    T: Send,
    W: FnOnce(&AtomicBool) -> T + Send,
{
    let cancel = AtomicBool::new(false);
    let (result, signal) = py.detach(|| {
        std::thread::scope(|scope| {
            let (done_tx, done_rx) = mpsc::channel::<()>();
            let flag = &cancel;
            let worker = scope.spawn(move || {
                let out = work(flag);
                // The receiver may be gone only if the scope is unwinding.
                let _ = done_tx.send(());
                out
            });
            let mut signal = None;
            loop {
                match done_rx.recv_timeout(SIGNAL_POLL) {
                    Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                }
                if signal.is_none() {
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        cancel.store(true, Ordering::Relaxed);
                        signal = Some(e);
                    }
                }
            }
            (worker.join(), signal)
        })
    });
    if let Some(e) = signal {
        return Err(e);
    }
    result.map_err(|payload| PyRuntimeError::new_err(panic_message(payload.as_ref())))
}

/// Runs `work` on this thread, catching a panic as a `RuntimeError`: for
/// calls too short to be worth a thread (an agent that does not search).
pub fn guarded<T>(work: impl FnOnce() -> T) -> PyResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
        .map_err(|payload| PyRuntimeError::new_err(panic_message(payload.as_ref())))
}

/// What to tell the user of a panic: it is a bug, with its message.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string());
    format!("internal error in the mancala engine (please report it): {what}")
}
