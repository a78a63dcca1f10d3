//! The last resort against a plugin that ignores the cancel service: a thread that waits for
//! the solve to return and, if it has not returned by twice its time limit plus a second, says
//! so on stderr and ends the process. An in-process thread cannot be killed safely; exiting
//! keeps the frames already written (they are written atomically) and ends with a clear reason
//! instead of hanging forever.

use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::time::Duration;

/// Exit status of a process ended because a plugin hung past its time limit.
pub const HANG_EXIT_CODE: i32 = 124;

/// Running while a solve with a time limit is in progress; dropping it disarms it.
pub(super) struct Watchdog {
    _done: Sender<()>,
}

impl Watchdog {
    /// Arms a watchdog for a solve of `name` with time limit `limit`.
    pub fn start(name: String, limit: Duration) -> Self {
        let (done, rx) = channel::<()>();
        let grace = limit + limit + Duration::from_secs(1);
        std::thread::spawn(move || {
            if rx.recv_timeout(grace) == Err(RecvTimeoutError::Timeout) {
                eprintln!(
                    "error: solver `{name}` ignored its time limit of {:.3} s and cancellation, and is still running after {:.3} s; a plugin thread cannot be stopped safely, so flipgraph exits now (frames written so far are kept)",
                    limit.as_secs_f64(),
                    grace.as_secs_f64()
                );
                crate::host_exits();
                std::process::exit(HANG_EXIT_CODE);
            }
        });
        Self { _done: done }
    }
}
