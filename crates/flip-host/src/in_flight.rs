//! The plugin calls running in this process, so that a plugin that ends the process inside one
//! (`exit(0)` from a solve) does not pass for a run that finished: an exit hook sees the call
//! in flight, names plugin and call on stderr and ends the process with [`PLUGIN_EXIT_CODE`]
//! instead of the plugin's status. Frames already written stay: they are written atomically.
//! The host's own exits ([`host_exits`]) are left alone, whatever is still running.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
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
    /// The host's thread making the call.
    thread: std::thread::ThreadId,
    /// The plugin's library file.
    library: PathBuf,
}

/// The calls in flight, oldest first.
static CALLS: Mutex<Vec<Call>> = Mutex::new(Vec::new());
/// The typical duration of each call (`what`) that returned: a running mean of seconds.
static TYPICAL: Mutex<BTreeMap<String, f64>> = Mutex::new(BTreeMap::new());
static NEXT: AtomicU64 = AtomicU64::new(0);
static HOST_EXITS: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

/// A plugin call in flight; it leaves the list when dropped.
pub(crate) struct InFlight(u64);

impl InFlight {
    /// Lists the call `what` (plugin, algorithm and entry) until the guard is dropped.
    pub(crate) fn enter(what: String, library: &Path) -> Self {
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
            thread: std::thread::current().id(),
            library: library.canonicalize().unwrap_or_else(|_| library.into()),
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
        let mean = typical.entry(call.what);
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
    // (`InFlight::drop` never holds both locks at once)
    let typical = lock(&TYPICAL);
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

/// The calls that may have ended the process, unless the host is the one exiting: those of
/// the plugins whose code is on the exiting thread's stack, else the call the exiting thread
/// makes, else every call in flight.
fn culprits() -> Vec<String> {
    if HOST_EXITS.load(Ordering::SeqCst) {
        return Vec::new();
    }
    // try_lock: the exiting thread may be the one holding the list
    let Ok(calls) = CALLS.try_lock() else {
        return Vec::new();
    };
    let here = std::thread::current().id();
    let on_stack = libraries_on_stack();
    let named = |keep: &dyn Fn(&Call) -> bool| -> Vec<String> {
        calls
            .iter()
            .filter(|c| keep(c))
            .map(|c| c.what.clone())
            .collect()
    };
    [
        named(&|c| on_stack.contains(&c.library)),
        named(&|c| c.thread == here),
        named(&|_| true),
    ]
    .into_iter()
    .find(|found| !found.is_empty())
    .unwrap_or_default()
}

/// The library files whose code is on this thread's stack.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn libraries_on_stack() -> Vec<PathBuf> {
    let mut frames = [std::ptr::null_mut::<libc::c_void>(); 128];
    // SAFETY: writes at most `frames.len()` return addresses into `frames`.
    let n = unsafe { libc::backtrace(frames.as_mut_ptr(), frames.len() as libc::c_int) };
    let Some(maps) = crate::mapped::Mappings::of_this_process() else {
        return Vec::new();
    };
    let frames = &frames[..usize::try_from(n).unwrap_or(0)];
    frames
        .iter()
        .filter_map(|f| maps.file_at(f.addr()))
        .collect()
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn libraries_on_stack() -> Vec<PathBuf> {
    Vec::new()
}

extern "C" fn at_exit() {
    let calls = culprits();
    let who = match calls.as_slice() {
        [] => return,
        [one] => one.clone(),
        many => format!("one of the plugin calls in flight ({})", many.join("; ")),
    };
    eprintln!(
        "error: {who} ended the process while the host waited for it to return; \
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
        let guard = InFlight::enter(what.clone(), Path::new("libflipgraph_p.so"));
        assert!(calls_in_flight().contains(&what));
        assert_eq!(
            culprits(),
            std::slice::from_ref(&what),
            "the call this thread makes"
        );
        drop(guard);
        assert!(!calls_in_flight().contains(&what));
    }

    #[test]
    fn a_call_far_past_its_typical_duration_is_overdue() {
        let what = || "plugin `q` algorithm `b`: `solve`".to_string();
        for _ in 0..3 {
            drop(InFlight::enter(what(), Path::new("q.so"))); // returns at once: typical ~0 s
        }
        let slow = InFlight::enter(what(), Path::new("q.so"));
        // overdue once it has run 10 ms and 10 times the typical duration, which a loaded
        // machine can stretch from microseconds to milliseconds: wait for it, within reason
        let listed = |floor| {
            let late = overdue_calls(10.0, floor);
            late.iter().any(|o| o.ticket == slow.0 && o.what == what())
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while !listed(Duration::from_millis(10)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(listed(Duration::from_millis(10)), "not overdue after 30 s");
        assert!(!listed(Duration::from_secs(60)), "overdue before the floor");
        drop(slow);
    }
}
