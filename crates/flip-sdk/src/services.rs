//! The host's services as safe calls. The SDK installs the [`abi::HostServices`] of each call on
//! the calling thread for the duration of that call, so solver code anywhere below `solve` (inner
//! solvers included) reaches them with [`services()`] or [`cancelled`] without threading a context
//! through. Threads the solver spawns (rayon workers) see no services: poll from the driving
//! loop. Outside a call (unit tests calling a solver directly) there are none: never cancelled,
//! logs dropped.

use flip_abi::{self as abi, HostServices};
use std::cell::Cell;
use std::ffi::{c_void, CStr, CString};
use std::mem::{offset_of, size_of};

thread_local! {
    static CURRENT: Cell<*const HostServices> = const { Cell::new(std::ptr::null()) };
}

/// Log levels of [`Services::log`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogLevel {
    /// An error the user must see.
    Error,
    /// Something suspicious.
    Warning,
    /// Progress of interest.
    Info,
    /// Developer detail.
    Debug,
}

impl LogLevel {
    fn raw(self) -> u32 {
        match self {
            Self::Error => abi::LOG_ERROR,
            Self::Warning => abi::LOG_WARNING,
            Self::Info => abi::LOG_INFO,
            Self::Debug => abi::LOG_DEBUG,
        }
    }
}

/// The host services of the current call (a cheap copyable handle).
#[derive(Clone, Copy, Debug)]
pub struct Services {
    raw: *const HostServices,
}

/// The services of the call running on this thread (none outside a call).
pub fn services() -> Services {
    Services {
        raw: CURRENT.with(Cell::get),
    }
}

/// Whether the host asked the current solve to stop. Poll it once per iteration of long loops.
pub fn cancelled() -> bool {
    services().cancelled()
}

/// Runs `f` with `raw` installed as this thread's services, restoring the previous ones after
/// (also on unwinding). The SDK's shims use it; hosts and tests that call solvers in-process
/// can too.
///
/// # Safety
/// `raw` is null, or points to a [`HostServices`] table that stays valid and unmoved until `f`
/// returns, whose `size` covers the entries it fills in, and whose callbacks may be called
/// with its `context` (from this thread) until then: [`services`] reads and calls them.
pub unsafe fn with_services<R>(raw: *const HostServices, f: impl FnOnce() -> R) -> R {
    struct Restore(*const HostServices);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.replace(raw)));
    f()
}

impl Services {
    /// The table, when one is installed and at least as large as its header.
    fn table(&self) -> Option<&HostServices> {
        if self.raw.is_null() {
            return None;
        }
        // SAFETY: installed by `with_services` from a pointer the host keeps valid for the call;
        // only the two header words are read before `size` is known.
        let size = unsafe { (*self.raw).size } as usize;
        // SAFETY: as above; the fields read later are checked against `size` by `has`.
        (size >= offset_of!(HostServices, log)).then(|| unsafe { &*self.raw })
    }

    /// Whether the host's table is large enough to hold the entry at `offset`.
    fn has(table: &HostServices, offset: usize) -> bool {
        offset + size_of::<usize>() <= table.size as usize
    }

    /// Whether the host asked the solve to stop.
    pub fn cancelled(&self) -> bool {
        let Some(t) = self.table() else { return false };
        if !Self::has(t, offset_of!(HostServices, cancelled)) {
            return false;
        }
        // SAFETY: a host callback with its own context, valid during the call.
        t.cancelled.is_some_and(|f| unsafe { f(t.context) } != 0)
    }

    /// Sends a log line to the host (dropped when the host offers no logging).
    pub fn log(&self, level: LogLevel, message: &str) {
        let Some(t) = self.table() else { return };
        if !Self::has(t, offset_of!(HostServices, log)) {
            return;
        }
        if let Some(f) = t.log {
            let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
            // SAFETY: host callback; `text` outlives the call.
            unsafe { f(t.context, level.raw(), text.as_ptr()) };
        }
    }

    /// Reports the estimated fraction done, with a short message.
    pub fn progress(&self, fraction: f64, message: &str) {
        let Some(t) = self.table() else { return };
        if !Self::has(t, offset_of!(HostServices, progress)) {
            return;
        }
        if let Some(f) = t.progress {
            let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
            // SAFETY: host callback; `text` outlives the call.
            unsafe { f(t.context, fraction, text.as_ptr()) };
        }
    }

    /// A suite of the host by name and version, or `None` when not offered (today: always).
    pub fn suite(&self, name: &CStr, version: u32) -> Option<*const c_void> {
        let t = self.table()?;
        if !Self::has(t, offset_of!(HostServices, fetch_suite)) {
            return None;
        }
        // SAFETY: host callback; `name` outlives the call.
        let p = unsafe { t.fetch_suite?(t.context, name.as_ptr(), version) };
        (!p.is_null()).then_some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    unsafe extern "C" fn flag(context: *mut c_void) -> u32 {
        // SAFETY: the test passes a pointer to an AtomicU32.
        unsafe { &*context.cast::<AtomicU32>() }.load(Ordering::Relaxed)
    }

    fn table(flag_ptr: &AtomicU32, size: usize) -> HostServices {
        HostServices {
            size: size as u32,
            version: abi::HOST_SERVICES_VERSION,
            context: std::ptr::from_ref(flag_ptr).cast_mut().cast(),
            log: None,
            cancelled: Some(flag),
            progress: None,
            fetch_suite: None,
        }
    }

    #[test]
    fn cancel_is_seen_inside_the_scope_only_and_respects_the_size() {
        let f = AtomicU32::new(0);
        let t = table(&f, size_of::<HostServices>());
        assert!(!cancelled());
        // SAFETY: `t` outlives the call and its callback reads the flag it points to.
        unsafe {
            with_services(&t, || {
                assert!(!cancelled());
                f.store(1, Ordering::Relaxed);
                assert!(cancelled(), "polled through the host callback");
            });
        }
        assert!(!cancelled(), "restored after the call");
        // An older host whose table ends before `cancelled`: the entry is absent.
        let old = table(&f, offset_of!(HostServices, cancelled));
        // SAFETY: as above.
        unsafe { with_services(&old, || assert!(!cancelled())) };
        let none = services();
        assert!(none.suite(c"flipgraph.distributed", 1).is_none());
    }
}
