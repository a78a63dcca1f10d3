//! Calls into an instance that lives in this process: creation and the solve call under the
//! limits (cancel service, deadline, watchdog).

use super::watchdog;
use super::{Backend, SolverInstance};
use crate::in_flight::InFlight;
use crate::services::{CallContext, LogLine};
use crate::{LoadedPlugin, PluginError};
use flip_abi::{self as abi, ErrorBuf, ParamValue, SolveStats};
use std::ffi::{c_char, c_void, CString};
use std::path::Path;
use std::time::Instant;

const ERROR_CAPACITY: usize = 1024;

/// The sanitised message in an error buffer.
pub(crate) fn message(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let text = flip_abi::sanitize(&String::from_utf8_lossy(&buf[..end])).into_owned();
    if text.is_empty() {
        "no message".into()
    } else {
        text
    }
}

/// A caller-owned error buffer and its C description.
pub(crate) struct Buf(pub(crate) Vec<u8>);
impl Buf {
    pub(crate) fn new() -> Self {
        Self(vec![0u8; ERROR_CAPACITY])
    }
    pub(crate) fn raw(&mut self) -> ErrorBuf {
        ErrorBuf {
            data: self.0.as_mut_ptr().cast::<c_char>(),
            capacity: self.0.len(),
        }
    }
}

/// Calls a plugin's `create` (solver or node: the same C signature) with `params` by name,
/// under the in-flight record `what` and the host services of `ctx`: the handle, or the status
/// and the plugin's sanitised message.
pub(crate) fn call_create(
    create: abi::CreateFn,
    index: u32,
    params: &[(String, f64)],
    what: String,
    library: &Path,
    ctx: &CallContext,
) -> Result<*mut c_void, (i32, String)> {
    let names: Vec<CString> = params
        .iter()
        .map(|(n, _)| CString::new(n.as_str()).unwrap_or_default())
        .collect();
    let values: Vec<ParamValue> = names
        .iter()
        .zip(params)
        .map(|(n, (_, v))| ParamValue {
            name: n.as_ptr(),
            value: *v,
        })
        .collect();
    let (mut handle, mut buf) = (std::ptr::null_mut(), Buf::new());
    let services = ctx.services();
    let _in_flight = InFlight::enter(what, library);
    // SAFETY: `create` comes from a table checked at load; `values`, `names` and `services`
    // outlive the call.
    let status = unsafe {
        create(
            index,
            values.as_ptr(),
            values.len() as u32,
            services.table(),
            &mut handle,
            &mut buf.raw(),
        )
    };
    match (status, handle.is_null()) {
        (abi::STATUS_OK, false) => Ok(handle),
        (abi::STATUS_OK, true) => Err((
            status,
            "`create` returned OK but wrote a null instance handle".into(),
        )),
        _ => Err((status, message(&buf.0))),
    }
}

/// Calls the plugin's `create`: the handle and what it logged.
pub(super) fn create(
    plugin: &LoadedPlugin,
    index: u32,
    algorithm: &str,
    params: &[(String, f64)],
) -> Result<(*mut c_void, Vec<LogLine>), PluginError> {
    let ctx = CallContext::new(None, None);
    let create = plugin.table().create.expect("checked at load");
    let what = format!("plugin `{}` algorithm `{algorithm}`: `create`", plugin.id);
    let call_error = |(status, message)| PluginError::Call {
        plugin: plugin.id.clone(),
        algorithm: algorithm.into(),
        status,
        message,
    };
    let handle =
        call_create(create, index, params, what, &plugin.path, &ctx).map_err(call_error)?;
    if let Some(message) = ctx.refusals() {
        let destroy = plugin.table().destroy.expect("checked at load");
        // SAFETY: a live handle from this plugin's `create`, destroyed once.
        unsafe { destroy(handle) };
        return Err(call_error((abi::STATUS_BAD_VALUE, message)));
    }
    Ok((handle, ctx.take_logs()))
}

impl SolverInstance {
    /// The local handle (the child backend never calls the table itself).
    pub(super) fn handle(&self) -> *mut c_void {
        match self.backend {
            Backend::Local(h) => h,
            Backend::Child(_) => std::ptr::null_mut(),
        }
    }

    /// Lists a call of the plugin's `entry` as in flight until the guard drops.
    pub(super) fn in_flight(&self, entry: &str) -> InFlight {
        let what = format!(
            "plugin `{}` algorithm `{}`: `{entry}`",
            self.plugin.id, self.algorithm
        );
        InFlight::enter(what, &self.plugin.path)
    }

    /// Calls the plugin's `solve` under the limits.
    pub(super) fn call_solve(
        &mut self,
        kind: u32,
        problem: *const c_void,
    ) -> Result<SolveStats, PluginError> {
        let start = Instant::now();
        let limit = self.limits.time_limit;
        let ctx = CallContext::new(self.limits.cancel.clone(), limit.map(|l| start + l))
            .with_distribution(self.limits.distributed.clone())
            .with_listener(self.listener.clone());
        let services = ctx.services();
        let (mut stats, mut buf) = (SolveStats::default(), Buf::new());
        let solve = self.plugin.table().solve.expect("checked at load");
        let guard = limit.map(|l| watchdog::Watchdog::start(self.qualified_name(), l));
        let in_flight = self.in_flight("solve");
        // SAFETY: `problem` borrows validated arrays for the duration of the call; `services`
        // points at `ctx`, alive until after the call.
        let status = unsafe {
            solve(
                self.handle(),
                kind,
                problem,
                services.table(),
                &mut stats,
                &mut buf.raw(),
            )
        };
        drop((guard, in_flight));
        drop(services);
        self.logs = ctx.take_logs();
        self.progress = ctx.progress();
        if status == abi::STATUS_PANIC {
            self.poisoned = true;
        }
        let timed_out = ctx.timed_out.load(std::sync::atomic::Ordering::Relaxed);
        if let (Some(message), abi::STATUS_OK) = (ctx.refusals(), status) {
            return Err(self.fail(abi::STATUS_BAD_VALUE, message));
        }
        match (status, timed_out, ctx.user_cancelled()) {
            (abi::STATUS_OK, _, _) => Ok(stats),
            (abi::STATUS_CANCELLED, true, _) => Err(PluginError::TimeLimit {
                plugin: self.plugin.id.clone(),
                algorithm: self.algorithm.clone(),
                limit: limit.unwrap_or_default(),
            }),
            (abi::STATUS_CANCELLED, _, true) => Err(PluginError::Cancelled {
                plugin: self.plugin.id.clone(),
                algorithm: self.algorithm.clone(),
            }),
            (s, _, _) => Err(self.fail(s, message(&buf.0))),
        }
    }
}
