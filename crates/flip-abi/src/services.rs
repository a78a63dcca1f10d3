//! Host services: what the host offers a plugin during a call (cf. OpenFX's host and suites).
//!
//! The table is size-prefixed and versioned. Rules for extending it without breaking plugins:
//! - New entries are only ever *appended*; `size` grows and [`HOST_SERVICES_VERSION`] is bumped.
//!   Existing entries never move or change meaning, so this does not change [`super::ABI_VERSION`].
//! - A plugin reads an entry only when the entry lies within `size` (the SDK checks this), so a
//!   plugin built against a newer table runs on an older host (the entry is absent), and an old
//!   plugin ignores entries it does not know.
//! - Every callback may be null (the service is not offered); the SDK then falls back (no
//!   logging, never cancelled, no progress).
//! - Larger facilities come as *suites*, fetched by name and version through `fetch_suite`
//!   (cf. OpenFX `fetchSuite`); a null result means "not offered". Reserved names:
//!   [`SUITE_DISTRIBUTED`] (offered by a host built with MPI, in a distributed run) and
//!   [`SUITE_DEVICE`] (reserved, not offered yet).

use std::ffi::{c_char, c_void};

/// Version of [`HostServices`] this crate was built with.
pub const HOST_SERVICES_VERSION: u32 = 1;

/// Log level: an error the user must see.
pub const LOG_ERROR: u32 = 0;
/// Log level: something suspicious (e.g. a fallback taken).
pub const LOG_WARNING: u32 = 1;
/// Log level: progress of interest to the user.
pub const LOG_INFO: u32 = 2;
/// Log level: detail for solver developers.
pub const LOG_DEBUG: u32 = 3;

/// Suite name: distributed memory (MPI), table [`super::DistributedSuite`] (version 1: `rank`,
/// `ranks`, the slab layout, `halo_exchange` of a cell field, global sums and maxima of `f64`
/// arrays, the gathered field, gathered variable-length blocks), so a solver runs distributed
/// without linking MPI itself.
/// Offered only in a distributed run; elsewhere `fetch_suite` returns null.
pub const SUITE_DISTRIBUTED: &[u8] = b"flipgraph.distributed\0";
/// Reserved suite name: accelerator devices (GPUs). Version 1 is to hold device enumeration,
/// device buffers of the problem's arrays and a stream to enqueue work on. Not offered yet.
pub const SUITE_DEVICE: &[u8] = b"flipgraph.device\0";

/// `log(context, level, message)`: a NUL-terminated UTF-8 message at a `LOG_*` level.
///
/// Pre (plugin): `context` is the table's; `message` is readable up to its NUL during the call.
/// Called during `create`/`solve`, from the calling thread or a thread the plugin spawned for
/// that call. Post (host): the message is copied; the host escapes control characters, caps the
/// length (1 KiB) and the number of messages per call.
pub type LogFn = unsafe extern "C" fn(context: *mut c_void, level: u32, message: *const c_char);
/// `cancelled(context)`: non-zero when the solve should stop as soon as possible (user stop,
/// SIGINT, or the node's time limit passed).
///
/// Pre (plugin): as for `log`. Post (host): returns at once (an atomic load), so the plugin
/// may poll it once per iteration.
pub type CancelledFn = unsafe extern "C" fn(context: *mut c_void) -> u32;
/// `progress(context, fraction, message)`: estimated fraction done in `[0, 1]` and an optional
/// (nullable) short message.
///
/// Pre (plugin): as for `log`; `message` is null or readable up to its NUL. Post (host): the
/// fraction is clamped to `[0, 1]` (a non-finite one reads as 0); the message may be ignored.
pub type ProgressFn =
    unsafe extern "C" fn(context: *mut c_void, fraction: f64, message: *const c_char);
/// `fetch_suite(context, name, version)`: a suite table of that name and version, or null.
///
/// Pre (plugin): as for `log`; `name` is readable up to its NUL. Post (host): null when the
/// suite is not offered in this call, else a table valid until the call into the plugin
/// returns (never keep it); its `size` says which of its entries are present.
pub type FetchSuiteFn =
    unsafe extern "C" fn(context: *mut c_void, name: *const c_char, version: u32) -> *const c_void;

/// Services the host passes to `create` and `solve`, valid for the duration of that call.
///
/// Pre (host): `size` and `version` are set; every non-null entry may be called with `context`
/// until the call into the plugin returns. The plugin reads an entry only when it lies within
/// `size`, and keeps no pointer to the table afterwards.
#[repr(C)]
pub struct HostServices {
    /// `size_of::<HostServices>()` in the host: entries beyond it are absent.
    pub size: u32,
    /// [`HOST_SERVICES_VERSION`] of the host.
    pub version: u32,
    /// Opaque value passed back to every callback (a handle the host looks up, not an address
    /// it follows: any other value, or one from an earlier call, is refused and fails the call).
    pub context: *mut c_void,
    /// Logging (nullable).
    pub log: Option<LogFn>,
    /// Cancellation flag (nullable: never cancelled).
    pub cancelled: Option<CancelledFn>,
    /// Progress reporting (nullable).
    pub progress: Option<ProgressFn>,
    /// Suite lookup by name and version (nullable: no suites).
    pub fetch_suite: Option<FetchSuiteFn>,
}
