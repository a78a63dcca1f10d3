//! A live solver instance: creation, solves with limits and result checks, reset and state.

mod state;
mod watchdog;

use super::services::{CallContext, CancelToken, LogLine};
use super::{LoadedPlugin, PluginError};
use crate::abi::{self, ErrorBuf, ParamValue, SolveStats};
use crate::sdk::{check, CsrProblem, Problem};
use std::ffi::{c_char, c_void, CString};
use std::sync::Arc;
use std::time::{Duration, Instant};
pub use watchdog::HANG_EXIT_CODE;

const ERROR_CAPACITY: usize = 1024;

/// Limits of every solve of an instance.
#[derive(Clone, Debug, Default)]
pub struct SolveLimits {
    /// Wall-clock limit per solve: past it the plugin is told to stop (through the cancel
    /// service) and the solve fails with [`PluginError::TimeLimit`]. A plugin that ignores the
    /// cancel service and is still running at twice the limit (plus a second) cannot be stopped
    /// inside this process: the host prints why on stderr and exits with [`HANG_EXIT_CODE`]
    /// (frames already written stay intact).
    pub time_limit: Option<Duration>,
    /// Cancellation by the user (SIGINT, the editor's Stop).
    pub cancel: Option<CancelToken>,
}

/// A problem of either kind.
pub enum ProblemRef<'p, 'a> {
    /// The structured stencil.
    Structured(&'p mut Problem<'a>),
    /// A general sparse matrix.
    Csr(&'p mut CsrProblem<'a>),
}

/// A live solver instance of a plugin algorithm. Destroyed on drop.
pub struct SolverInstance {
    plugin: Arc<LoadedPlugin>,
    algorithm: String,
    capabilities: u32,
    handle: *mut c_void,
    poisoned: bool,
    limits: SolveLimits,
    logs: Vec<LogLine>,
    progress: f64,
    /// The parameter values it was created with.
    params: Vec<(String, f64)>,
}

// SAFETY: an instance is used by one thread at a time (`&mut self` on every call); the ABI
// requires plugin instances to be movable between threads (see `abi`'s thread-safety section).
unsafe impl Send for SolverInstance {}

/// The sanitised message in an error buffer.
fn message(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let text = crate::sanitize(&String::from_utf8_lossy(&buf[..end])).into_owned();
    if text.is_empty() {
        "no message".into()
    } else {
        text
    }
}

/// A caller-owned error buffer and its C description.
struct Buf(Vec<u8>);
impl Buf {
    fn new() -> Self {
        Self(vec![0u8; ERROR_CAPACITY])
    }
    fn raw(&mut self) -> ErrorBuf {
        ErrorBuf {
            data: self.0.as_mut_ptr().cast::<c_char>(),
            capacity: self.0.len(),
        }
    }
}

impl SolverInstance {
    /// Creates an instance of `algorithm` with `params` (name, value) pairs.
    ///
    /// # Errors
    /// [`PluginError::UnknownAlgorithm`], or [`PluginError::Call`] with the plugin's message.
    pub fn create(
        plugin: Arc<LoadedPlugin>,
        algorithm: &str,
        params: &[(String, f64)],
    ) -> Result<Self, PluginError> {
        let info = plugin
            .algorithm(algorithm)
            .ok_or_else(|| PluginError::UnknownAlgorithm(format!("{}/{algorithm}", plugin.id)))?;
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
        let ctx = CallContext::new(None, None);
        let services = ctx.services();
        let create = plugin.table().create.expect("checked at load");
        // SAFETY: the table was checked at load; `values`, `names`, `services` outlive the call.
        let status = unsafe {
            create(
                info.index,
                values.as_ptr(),
                values.len() as u32,
                &services,
                &mut handle,
                &mut buf.raw(),
            )
        };
        if status != abi::STATUS_OK || handle.is_null() {
            return Err(PluginError::Call {
                plugin: plugin.id.clone(),
                algorithm: algorithm.into(),
                status,
                message: message(&buf.0),
            });
        }
        Ok(Self {
            capabilities: info.capabilities,
            plugin,
            algorithm: algorithm.into(),
            handle,
            poisoned: false,
            limits: SolveLimits::default(),
            logs: ctx.take_logs(),
            progress: 0.0,
            params: params.to_vec(),
        })
    }

    /// `plugin/algorithm`.
    pub fn qualified_name(&self) -> String {
        format!("{}/{}", self.plugin.id, self.algorithm)
    }

    /// The plugin's id.
    pub fn plugin_id(&self) -> &str {
        &self.plugin.id
    }

    /// The algorithm's name.
    pub fn algorithm(&self) -> &str {
        &self.algorithm
    }

    /// The value of parameter `name` given at creation, if it was given.
    pub fn param(&self, name: &str) -> Option<f64> {
        self.params.iter().find(|(n, _)| n == name).map(|&(_, v)| v)
    }

    /// A [`PluginError::WrongResult`] naming this instance's plugin and algorithm, for checks
    /// the caller makes on the result (e.g. the divergence after projection).
    pub fn wrong_result(&self, message: String) -> PluginError {
        self.wrong(message)
    }

    /// Sets the limits of the following solves.
    pub fn set_limits(&mut self, limits: SolveLimits) {
        self.limits = limits;
    }

    /// The fraction done the plugin last reported through the progress service.
    pub fn last_progress(&self) -> f64 {
        self.progress
    }

    /// What the plugin logged during the last call (sanitised).
    pub fn take_logs(&mut self) -> Vec<LogLine> {
        std::mem::take(&mut self.logs)
    }

    fn fail(&self, status: i32, message: String) -> PluginError {
        PluginError::Call {
            plugin: self.plugin.id.clone(),
            algorithm: self.algorithm.clone(),
            status,
            message,
        }
    }

    fn wrong(&self, message: String) -> PluginError {
        PluginError::WrongResult {
            plugin: self.plugin.id.clone(),
            algorithm: self.algorithm.clone(),
            message,
        }
    }

    fn usable(&self) -> Result<(), PluginError> {
        if self.poisoned {
            return Err(self.fail(
                abi::STATUS_PANIC,
                "instance unusable after an earlier panic".into(),
            ));
        }
        Ok(())
    }

    /// Solves a structured problem in place, then checks the result.
    ///
    /// # Errors
    /// [`PluginError::UnsupportedKind`], [`PluginError::Call`] with the plugin's message,
    /// [`PluginError::TimeLimit`], [`PluginError::Cancelled`] or [`PluginError::WrongResult`].
    /// After a panic inside the plugin the instance refuses further calls.
    pub fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, PluginError> {
        self.solve_any(ProblemRef::Structured(problem))
    }

    /// Solves a sparse problem in place, then checks the result.
    ///
    /// # Errors
    /// As [`SolverInstance::solve`].
    pub fn solve_csr(&mut self, problem: &mut CsrProblem<'_>) -> Result<SolveStats, PluginError> {
        self.solve_any(ProblemRef::Csr(problem))
    }

    /// Solves a problem of either kind in place, then checks the result.
    ///
    /// # Errors
    /// As [`SolverInstance::solve`].
    pub fn solve_any(&mut self, problem: ProblemRef<'_, '_>) -> Result<SolveStats, PluginError> {
        self.usable()?;
        let (cap, kind_name) = match &problem {
            ProblemRef::Structured(_) => (abi::CAP_STRUCTURED, "structured"),
            ProblemRef::Csr(_) => (abi::CAP_CSR, "CSR (sparse)"),
        };
        if self.capabilities & cap == 0 {
            return Err(PluginError::UnsupportedKind {
                plugin: self.plugin.id.clone(),
                algorithm: self.algorithm.clone(),
                kind: kind_name,
            });
        }
        let bad = |e: String| self.fail(abi::STATUS_BAD_VALUE, e);
        match problem {
            ProblemRef::Structured(p) => {
                p.validate().map_err(|e| bad(e.to_string()))?;
                let raw = p.to_abi();
                let stats =
                    self.call_solve(abi::PROBLEM_STRUCTURED, std::ptr::from_ref(&raw).cast())?;
                // The one-pass residual settles almost every solve; the projected one decides
                // only when that pass alone would refuse the result.
                if self.check(check::structured_raw(p), &stats).is_err() {
                    self.check(check::structured(p), &stats)?;
                }
                Ok(stats)
            }
            ProblemRef::Csr(p) => {
                p.validate().map_err(|e| bad(e.to_string()))?;
                let raw = p.to_abi();
                let stats = self.call_solve(abi::PROBLEM_CSR, std::ptr::from_ref(&raw).cast())?;
                self.check(check::csr(p), &stats)?;
                Ok(stats)
            }
        }
    }

    /// Calls the plugin's `solve` under the limits.
    fn call_solve(&mut self, kind: u32, problem: *const c_void) -> Result<SolveStats, PluginError> {
        let start = Instant::now();
        let limit = self.limits.time_limit;
        let ctx = CallContext::new(self.limits.cancel.clone(), limit.map(|l| start + l));
        let services = ctx.services();
        let (mut stats, mut buf) = (SolveStats::default(), Buf::new());
        let solve = self.plugin.table().solve.expect("checked at load");
        let guard = limit.map(|l| watchdog::Watchdog::start(self.qualified_name(), l));
        // SAFETY: `problem` borrows validated arrays for the duration of the call; `services`
        // points at `ctx`, alive until after the call.
        let status = unsafe {
            solve(
                self.handle,
                kind,
                problem,
                &services,
                &mut stats,
                &mut buf.raw(),
            )
        };
        drop(guard);
        self.logs = ctx.take_logs();
        self.progress = ctx.progress();
        if status == abi::STATUS_PANIC {
            self.poisoned = true;
        }
        let timed_out = ctx.timed_out.load(std::sync::atomic::Ordering::Relaxed);
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

    /// Refuses a result that is not finite, contradicts the reported residual, or diverged.
    fn check(&self, r: check::Residual, s: &SolveStats) -> Result<(), PluginError> {
        if !r.finite {
            return Err(self.wrong("non-finite pressure (NaN or infinity) in the solution".into()));
        }
        let claimed = s.residual;
        let allowed = 2.0 * claimed + 1e-10 * r.scale + f64::MIN_POSITIVE;
        if r.max.is_nan() || r.max > allowed {
            let conv = if s.converged != 0 {
                " and convergence"
            } else {
                ""
            };
            return Err(self.wrong(format!(
                "it reports residual {claimed:.3e}{conv}, but the residual of the pressure it returned is {:.3e}",
                r.max
            )));
        }
        let reference = r.rhs_norm.max(s.initial_residual);
        if r.max > 1e-6 && r.max > 1e6 * reference {
            return Err(self.wrong(format!(
                "the solve diverged: residual {:.3e} against a right-hand side of max-norm {:.3e}",
                r.max, r.rhs_norm
            )));
        }
        Ok(())
    }
}

impl Drop for SolverInstance {
    fn drop(&mut self) {
        if !self.poisoned {
            let destroy = self.plugin.table().destroy.expect("checked at load");
            // SAFETY: `handle` came from this plugin's `create` and is destroyed once.
            unsafe { destroy(self.handle) };
        }
    }
}
