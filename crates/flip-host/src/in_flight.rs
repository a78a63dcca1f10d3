//! The plugin calls running in this process, so that a plugin that ends the process inside one
//! (`exit(0)` from a solve) does not pass for a run that finished: an exit hook sees the call
//! in flight, names plugin and call on stderr and ends the process with [`PLUGIN_EXIT_CODE`]
//! instead of the plugin's status. Frames already written stay: they are written atomically.
//! The host's own exits ([`host_exits`]) are left alone, whatever is still running.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// Exit status of a process that a plugin ended inside a call.
pub const PLUGIN_EXIT_CODE: i32 = 3;

/// A call in flight.
struct Call {
    ticket: u64,
    /// "plugin `p` algorithm `a`: `solve`".
    what: String,
    since: Instant,
}

/// The calls in flight, oldest first.
static CALLS: Mutex<Vec<Call>> = Mutex::new(Vec::new());
/// The typical duration of each call (`what`) that returned: a running mean of seconds.
static TYPICAL: Mutex<Option<HashMap<String, f64>>> = Mutex::new(None);
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
        let since = Instant::now();
        lock(&CALLS).push(Call {
            ticket,
            what,
            since,
        });
        Self(ticket)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut calls = lock(&CALLS);
        let Some(at) = calls.iter().position(|c| c.ticket == self.0) else {
            return;
        };
        let call = calls.remove(at);
        drop(calls);
        let seconds = call.since.elapsed().as_secs_f64();
        let mut typical = lock(&TYPICAL);
        let mean = typical.get_or_insert_with(HashMap::new).entry(call.what);
        mean.and_modify(|m| *m += 0.2 * (seconds - *m))
            .or_insert(seconds);
    }
}

fn lock<T>(m: &'static Mutex<T>) -> std::sync::MutexGuard<'static, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A plugin call running far longer than the same call usually takes.
#[derive(Clone, Debug, PartialEq)]
pub struct Overdue {
    /// Which call, once for its whole life ([`overdue_calls`] lists it again while it runs).
    pub ticket: u64,
    /// "plugin `p` algorithm `a`: `solve`".
    pub what: String,
    /// How long it has run.
    pub running: Duration,
    /// How long the call took on average before.
    pub typical: Duration,
}

/// The calls in flight that have run more than `factor` times their typical duration and
/// longer than `floor` (calls never seen to return have no typical duration yet).
pub fn overdue_calls(factor: f64, floor: Duration) -> Vec<Overdue> {
    let typical = lock(&TYPICAL).clone().unwrap_or_default();
    let calls = lock(&CALLS);
    calls
        .iter()
        .filter_map(|c| {
            let usual = *typical.get(&c.what)?;
            let running = c.since.elapsed();
            let late = running > floor && running.as_secs_f64() > factor * usual;
            late.then(|| Overdue {
                ticket: c.ticket,
                what: c.what.clone(),
                running,
                typical: Duration::from_secs_f64(usual),
            })
        })
        .collect()
}

/// Says that the host itself ends the process now (its exit status stands, even while a
/// plugin call it gave up on is still running).
pub fn host_exits() {
    HOST_EXITS.store(true, Ordering::SeqCst);
}

/// The plugin calls in flight, oldest first ("plugin `p` algorithm `a`: `solve`").
pub fn calls_in_flight() -> Vec<String> {
    lock(&CALLS).iter().map(|c| c.what.clone()).collect()
}

/// The oldest call in flight, unless the host is the one exiting.
fn culprit() -> Option<String> {
    if HOST_EXITS.load(Ordering::SeqCst) {
        return None;
    }
    // try_lock: the exiting thread may be the one holding the list
    let calls = CALLS.try_lock().ok()?;
    calls.first().map(|c| c.what.clone())
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
        // (other tests of this binary may have calls in flight too)
        let what = "plugin `p` algorithm `a`: `solve`".to_string();
        let guard = InFlight::enter(what.clone());
        assert!(calls_in_flight().contains(&what));
        assert!(culprit().is_some());
        drop(guard);
        assert!(!calls_in_flight().contains(&what));
    }

    #[test]
    fn a_call_far_past_its_typical_duration_is_overdue() {
        let what = || "plugin `q` algorithm `b`: `solve`".to_string();
        for _ in 0..3 {
            drop(InFlight::enter(what())); // returns at once: typical ~0 s
        }
        let slow = InFlight::enter(what());
        std::thread::sleep(Duration::from_millis(30));
        let late = overdue_calls(10.0, Duration::from_millis(10));
        assert!(late.iter().any(|o| o.ticket == slow.0 && o.what == what()));
        assert!(overdue_calls(10.0, Duration::from_secs(60)).is_empty());
        drop(slow);
    }
}
