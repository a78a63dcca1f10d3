//! The host's side of [`abi::HostServices`]: one [`CallContext`] per plugin call, holding the
//! cancel token, the deadline of the node's time limit, and what the plugin logged.

use super::validate::read_text;
use flip_abi::{self as abi, HostServices};
use flip_comm::Distribution;
use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Most log lines kept per call; later ones are counted and dropped.
const MAX_LOG_LINES: usize = 64;
/// Longest log line kept, in bytes.
const MAX_LOG_LEN: usize = 1024;

/// Another source of "stop" besides the flag: an isolated solver's child reads the flag the
/// host raises in their shared memory.
type Watched = Arc<dyn Fn() -> bool + Send + Sync>;

/// A cancel flag shared by whoever may stop a run (SIGINT handler, the editor's Stop) and the
/// solves that poll it through the host services.
#[derive(Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>, Option<Watched>);

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("CancelToken")
            .field(&self.is_cancelled())
            .finish()
    }
}

impl From<Arc<AtomicBool>> for CancelToken {
    /// A token over an existing flag (e.g. `flip_graph::Simulation::cancel_flag`).
    fn from(flag: Arc<AtomicBool>) -> Self {
        Self(flag, None)
    }
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }
    /// Asks everything watching this token to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    /// A token that is also cancelled whenever `source` says so.
    pub(crate) fn watching(source: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::default(), Some(Arc::new(source)))
    }
    /// Whether [`CancelToken::cancel`] was called since the last [`CancelToken::clear`] (or
    /// the watched source says stop).
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed) || self.1.as_ref().is_some_and(|w| w())
    }
    /// Back to "not cancelled" (the editor after a Stop, before the next Play).
    pub fn clear(&self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// What a plugin reports through the services while a call runs, as it happens.
#[derive(Clone, Debug, PartialEq)]
pub enum ServiceEvent {
    /// A line it logged (sanitised, within the per-call cap).
    Log(LogLine),
    /// The fraction done it reported, in `[0, 1]`.
    Progress(f64),
}

/// Receives [`ServiceEvent`]s live, on the thread of the call (or, for an isolated solver, on
/// the host's thread that waits for the child).
pub type ServiceListener = Arc<dyn Fn(&ServiceEvent) + Send + Sync>;

/// A line a plugin logged during a call (sanitised).
#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    /// `abi::LOG_*`.
    pub level: u32,
    /// The text.
    pub text: String,
}

/// What the services of one call refer to. Boxed by the caller so its address is stable.
#[derive(Default)]
pub(super) struct CallContext {
    cancel: Option<CancelToken>,
    deadline: Option<Instant>,
    pub timed_out: AtomicBool,
    logs: Mutex<Vec<LogLine>>,
    dropped: AtomicUsize,
    progress: AtomicU64,
    distributed: Option<SuiteSlot>,
    listener: Option<ServiceListener>,
}

/// The distributed suite of a call and the context it points at.
struct SuiteSlot(abi::DistributedSuite, Arc<Distribution>);

impl std::fmt::Debug for SuiteSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.1.fmt(f)
    }
}

// SAFETY: the table only points at the `Distribution` the slot keeps alive, which is
// `Send + Sync` (its communicator is).
unsafe impl Send for SuiteSlot {}
// SAFETY: as above.
unsafe impl Sync for SuiteSlot {}

impl CallContext {
    /// A context for one call.
    pub fn new(cancel: Option<CancelToken>, deadline: Option<Instant>) -> Self {
        Self {
            cancel,
            deadline,
            ..Self::default()
        }
    }

    /// Offers the distributed suite over `dist` during this call.
    pub fn with_distribution(mut self, dist: Option<Arc<Distribution>>) -> Self {
        self.distributed = dist.map(|d| SuiteSlot(super::distributed::suite_of(&d), d));
        self
    }

    /// Also tells `listener` each log line and progress report as it comes.
    pub fn with_listener(mut self, listener: Option<ServiceListener>) -> Self {
        self.listener = listener;
        self
    }

    fn tell(&self, event: ServiceEvent) {
        if let Some(l) = &self.listener {
            l(&event);
        }
    }

    /// The C table pointing at `self` (valid while `self` is alive and unmoved).
    pub fn services(&self) -> HostServices {
        HostServices {
            size: std::mem::size_of::<HostServices>() as u32,
            version: abi::HOST_SERVICES_VERSION,
            context: std::ptr::from_ref(self).cast_mut().cast(),
            log: Some(log),
            cancelled: Some(cancelled),
            progress: Some(progress),
            fetch_suite: Some(fetch_suite),
        }
    }

    /// Whether the call was asked to stop by the token (not by the deadline).
    pub fn user_cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(CancelToken::is_cancelled)
    }

    /// Whether the call should stop now; remembers a passed deadline.
    fn should_stop(&self) -> bool {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.timed_out.store(true, Ordering::Relaxed);
            return true;
        }
        self.user_cancelled()
    }

    /// The lines logged so far, plus a note of dropped ones.
    pub fn take_logs(&self) -> Vec<LogLine> {
        let mut lines = self
            .logs
            .lock()
            .map(|mut l| std::mem::take(&mut *l))
            .unwrap_or_default();
        let dropped = self.dropped.swap(0, Ordering::Relaxed);
        if dropped > 0 {
            lines.push(LogLine {
                level: abi::LOG_WARNING,
                text: format!("({dropped} more log lines dropped)"),
            });
        }
        lines
    }

    /// The last progress the plugin reported, in `[0, 1]`.
    pub fn progress(&self) -> f64 {
        f64::from_bits(self.progress.load(Ordering::Relaxed))
    }
}

/// # Safety
/// `context` is the `CallContext` of a live call (the host passes it in every table).
unsafe fn context<'a>(context: *mut c_void) -> Option<&'a CallContext> {
    // SAFETY: the caller's contract; null is tolerated.
    (!context.is_null()).then(|| unsafe { &*context.cast::<CallContext>() })
}

unsafe extern "C" fn log(ctx: *mut c_void, level: u32, message: *const c_char) {
    // SAFETY: the plugin passes back the context it was given.
    let Some(ctx) = (unsafe { context(ctx) }) else {
        return;
    };
    let Ok(mut lines) = ctx.logs.lock() else {
        return;
    };
    if lines.len() >= MAX_LOG_LINES {
        ctx.dropped.fetch_add(1, Ordering::Relaxed);
        return;
    }
    // SAFETY: a NUL-terminated string of the plugin's, read at most MAX_LOG_LEN + 1 bytes.
    let text = unsafe { read_text(message, MAX_LOG_LEN) }
        .unwrap_or_else(|e| format!("(unreadable log line: {e})"));
    let line = LogLine {
        level: level.min(abi::LOG_DEBUG),
        text,
    };
    lines.push(line.clone());
    drop(lines);
    ctx.tell(ServiceEvent::Log(line));
}

unsafe extern "C" fn cancelled(ctx: *mut c_void) -> u32 {
    // SAFETY: the plugin passes back the context it was given.
    unsafe { context(ctx) }.map_or(0, |c| u32::from(c.should_stop()))
}

unsafe extern "C" fn progress(ctx: *mut c_void, fraction: f64, _message: *const c_char) {
    // SAFETY: the plugin passes back the context it was given.
    if let Some(c) = unsafe { context(ctx) } {
        let f = if fraction.is_finite() {
            fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        c.progress.store(f.to_bits(), Ordering::Relaxed);
        c.tell(ServiceEvent::Progress(f));
    }
}

unsafe extern "C" fn fetch_suite(
    ctx: *mut c_void,
    name: *const c_char,
    version: u32,
) -> *const c_void {
    // SAFETY: the plugin passes back the context it was given.
    let Some(ctx) = (unsafe { context(ctx) }) else {
        return std::ptr::null();
    };
    // SAFETY: a NUL-terminated name of the plugin's, read at most 64 bytes.
    let Ok(name) = (unsafe { read_text(name, 64) }) else {
        return std::ptr::null();
    };
    let distributed = &abi::SUITE_DISTRIBUTED[..abi::SUITE_DISTRIBUTED.len() - 1];
    match &ctx.distributed {
        Some(slot)
            if name.as_bytes() == distributed && version == abi::DISTRIBUTED_SUITE_VERSION =>
        {
            std::ptr::from_ref(&slot.0).cast()
        }
        // `abi::SUITE_DEVICE` is reserved, not offered yet.
        _ => std::ptr::null(),
    }
}
