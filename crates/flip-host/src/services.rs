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
    /// Service calls refused while this call was in flight.
    refused: AtomicUsize,
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

    /// The C table of this call's services, valid while the returned value lives: its
    /// context is a handle the host looks up, never an address it dereferences.
    pub fn services(&self) -> Services<'_> {
        let handle = live::register(self);
        let table = HostServices {
            size: std::mem::size_of::<HostServices>() as u32,
            version: abi::HOST_SERVICES_VERSION,
            context: std::ptr::without_provenance_mut(handle),
            log: Some(log),
            cancelled: Some(cancelled),
            progress: Some(progress),
            fetch_suite: Some(fetch_suite),
        };
        Services {
            table,
            handle,
            calling_before: live::enter(handle),
            _context: std::marker::PhantomData,
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

    /// What to blame the call for when service calls were refused while it was in flight.
    pub fn refusals(&self) -> Option<String> {
        let n = self.refused.load(Ordering::Relaxed);
        (n > 0).then(|| {
            format!(
                "while this call was in flight, {n} call(s) of the host's services passed a \
                 context the host did not hand out for a call in flight (forged, or kept from \
                 an earlier call); they were refused"
            )
        })
    }

    /// The last progress the plugin reported, in `[0, 1]`.
    pub fn progress(&self) -> f64 {
        f64::from_bits(self.progress.load(Ordering::Relaxed))
    }
}

/// The services table of one call; the context it names is withdrawn when this is dropped.
pub(super) struct Services<'c> {
    table: HostServices,
    handle: usize,
    calling_before: usize,
    _context: std::marker::PhantomData<&'c CallContext>,
}

impl Services<'_> {
    /// The table handed to the plugin.
    pub fn table(&self) -> &HostServices {
        &self.table
    }
}

impl Drop for Services<'_> {
    fn drop(&mut self) {
        live::leave(self.calling_before);
        live::withdraw(self.handle);
    }
}

/// The contexts of the calls in flight, by the handle their plugin was given.
mod live {
    use super::CallContext;
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{PoisonError, RwLock};

    /// Handle → address of the `CallContext`, alive while its handle is listed.
    static LIVE: RwLock<BTreeMap<usize, usize>> = RwLock::new(BTreeMap::new());
    /// Handles are never reused: one kept from an earlier call names no call.
    static NEXT: AtomicUsize = AtomicUsize::new(1);

    pub(super) fn register(ctx: &CallContext) -> usize {
        let handle = NEXT.fetch_add(1, Ordering::Relaxed);
        let mut live = LIVE.write().unwrap_or_else(PoisonError::into_inner);
        live.insert(handle, std::ptr::from_ref(ctx) as usize);
        handle
    }

    /// Waits for service calls using the context to return.
    pub(super) fn withdraw(handle: usize) {
        let mut live = LIVE.write().unwrap_or_else(PoisonError::into_inner);
        live.remove(&handle);
    }

    thread_local! {
        /// The handle of the call this host thread is making (0: none).
        static CALLING: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Marks `handle` as the call this thread makes until [`leave`] with what it returns.
    pub(super) fn enter(handle: usize) -> usize {
        CALLING.with(|c| c.replace(handle))
    }

    pub(super) fn leave(previous: usize) {
        CALLING.with(|c| c.set(previous));
    }

    /// Runs `f` with the context named by `handle` (the plugin's `context` argument, compared,
    /// never dereferenced), or refuses and returns `None`. A refusal counts against the call
    /// the refusing thread is making, or, on a thread of the plugin's own, against every call
    /// in flight (the host cannot tell which plugin made it).
    pub(super) fn with<R>(
        handle: *mut std::ffi::c_void,
        f: impl FnOnce(&CallContext) -> R,
    ) -> Option<R> {
        let map = LIVE.read().unwrap_or_else(PoisonError::into_inner);
        let Some(&address) = map.get(&handle.addr()) else {
            let calling = CALLING.with(std::cell::Cell::get);
            let blamed: Vec<usize> = match map.get(&calling) {
                Some(&address) => vec![address],
                None => map.values().copied().collect(),
            };
            for address in blamed {
                // SAFETY: as below.
                let ctx = unsafe { &*(address as *const CallContext) };
                ctx.refused.fetch_add(1, Ordering::Relaxed);
            }
            return None;
        };
        // SAFETY: a listed address is a `CallContext` borrowed by the `Services` that listed
        // it, which withdraws it (waiting for this read lock) before the borrow ends.
        let ctx = unsafe { &*(address as *const CallContext) };
        Some(f(ctx))
    }
}

unsafe extern "C" fn log(ctx: *mut c_void, level: u32, message: *const c_char) {
    // SAFETY: `message` is the plugin's NUL-terminated line (the ABI's contract).
    live::with(ctx, |ctx| unsafe { log_line(ctx, level, message) });
}

/// # Safety
/// `message` is null or a NUL-terminated string (read at most `MAX_LOG_LEN + 1` bytes).
unsafe fn log_line(ctx: &CallContext, level: u32, message: *const c_char) {
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
    // a refused context is told to stop: its caller is lost
    live::with(ctx, |c| u32::from(c.should_stop())).unwrap_or(1)
}

unsafe extern "C" fn progress(ctx: *mut c_void, fraction: f64, _message: *const c_char) {
    live::with(ctx, |c| {
        let f = if fraction.is_finite() {
            fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        c.progress.store(f.to_bits(), Ordering::Relaxed);
        c.tell(ServiceEvent::Progress(f));
    });
}

unsafe extern "C" fn fetch_suite(
    ctx: *mut c_void,
    name: *const c_char,
    version: u32,
) -> *const c_void {
    // SAFETY: `name` is the plugin's NUL-terminated suite name (the ABI's contract).
    live::with(ctx, |ctx| unsafe { suite(ctx, name, version) }).unwrap_or(std::ptr::null())
}

/// # Safety
/// `name` is null or a NUL-terminated string (read at most 64 bytes).
unsafe fn suite(ctx: &CallContext, name: *const c_char, version: u32) -> *const c_void {
    // SAFETY: the caller's contract.
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
