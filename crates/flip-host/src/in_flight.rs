//! The plugin calls running in this process, so that a plugin that ends the process inside one
//! (`exit(0)` from a solve) does not pass for a run that finished: an exit hook sees the call
//! in flight, names plugin and call on stderr and ends the process with [`PLUGIN_EXIT_CODE`]
//! instead of the plugin's status. Frames already written stay: they are written atomically.
//! The host's own exits ([`host_exits`]) are left alone, whatever is still running.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Once};

/// Exit status of a process that a plugin ended inside a call.
pub const PLUGIN_EXIT_CODE: i32 = 3;

/// The calls in flight: (ticket, "plugin `p` algorithm `a`: `solve`").
static CALLS: Mutex<Vec<(u64, String)>> = Mutex::new(Vec::new());
static NEXT: AtomicU64 = AtomicU64::new(0);
static HOST_EXITS: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

/// A plugin call in flight; it leaves the list when dropped.
pub(crate) struct InFlight(u64);

impl InFlight {
    /// Lists the call `what` (plugin, algorithm and entry) until the guard is dropped.
    pub(crate) fn enter(what: String) -> Self {
        HOOK.call_once(|| {
            // SAFETY: registers a function that takes no arguments and never unwinds.
            unsafe { libc::atexit(at_exit) };
        });
        let ticket = NEXT.fetch_add(1, Ordering::Relaxed);
        lock().push((ticket, what));
        Self(ticket)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        lock().retain(|(t, _)| *t != self.0);
    }
}

fn lock() -> std::sync::MutexGuard<'static, Vec<(u64, String)>> {
    CALLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Says that the host itself ends the process now (its exit status stands, even while a
/// plugin call it gave up on is still running).
pub fn host_exits() {
    HOST_EXITS.store(true, Ordering::SeqCst);
}

/// The plugin calls in flight, oldest first ("plugin `p` algorithm `a`: `solve`").
pub fn calls_in_flight() -> Vec<String> {
    lock().iter().map(|(_, what)| what.clone()).collect()
}

/// The oldest call in flight, unless the host is the one exiting.
fn culprit() -> Option<String> {
    if HOST_EXITS.load(Ordering::SeqCst) {
        return None;
    }
    // try_lock: the exiting thread may be the one holding the list
    let calls = CALLS.try_lock().ok()?;
    calls.first().map(|(_, what)| what.clone())
}

extern "C" fn at_exit() {
    let Some(what) = culprit() else { return };
    eprintln!(
        "error: {what} ended the process while the host waited for it to return; \
         flipgraph stops here (frames written so far are kept)"
    );
    // SAFETY: ends the process at once, without running the remaining exit handlers.
    unsafe { libc::_exit(PLUGIN_EXIT_CODE) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_listed_until_its_guard_drops() {
        let guard = InFlight::enter("plugin `p` algorithm `a`: `solve`".into());
        assert_eq!(
            culprit().as_deref(),
            Some("plugin `p` algorithm `a`: `solve`")
        );
        drop(guard);
        assert!(lock().is_empty());
    }
}
