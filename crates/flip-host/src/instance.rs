//! A live solver instance: creation, solves with limits and result checks, reset and state.

mod local;
mod remote;
mod state;
mod watchdog;

use super::isolation::ChildSolver;
use super::services::{CancelToken, LogLine, ServiceListener};
use super::{LoadedPlugin, PluginError};
use flip_abi::{self as abi, SolveStats};
use flip_comm::Distribution;
use flip_sdk::{check, CoupledProblem, CsrProblem, Problem, TallCellProblem, ViscosityProblem};
pub(crate) use local::{call_create, message, Buf};
use std::ffi::c_void;
use std::sync::Arc;
use std::time::Duration;
pub use watchdog::HANG_EXIT_CODE;

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
    /// This rank's slab in a distributed run: the solve is offered the distributed suite.
    pub distributed: Option<Arc<Distribution>>,
}

/// The residual a converged solve may leave, relative to `max |rhs|` (the divergence before
/// the solve), when the host does not know the algorithm's tolerance.
const CONVERGED_REL: f64 = 1e-2;
/// The absolute floor of the bounds (in the right-hand side's units, m/s).
const CONVERGED_ABS: f64 = 1e-6;
/// How far past a tolerance the host knows a converged residual may lie (the solver measures
/// it in its own arithmetic and conventions).
const SLACK: f64 = 10.0;
/// The most a converged solve may leave, relative to `max |rhs|`, whatever its tolerance.
const CONVERGED_CAP: f64 = 0.1;

/// A problem of either kind.
pub enum ProblemRef<'p, 'a> {
    /// The structured stencil.
    Structured(&'p mut Problem<'a>),
    /// A general sparse matrix.
    Csr(&'p mut CsrProblem<'a>),
    /// A sparse matrix with its tall-cell grid.
    TallCell(&'p mut TallCellProblem<'a>),
    /// The implicit viscosity system with its grid.
    Viscosity(&'p mut ViscosityProblem<'a>),
    /// The structured problem with rigid bodies' low-rank terms.
    Coupled(&'p mut CoupledProblem<'a>),
}

/// Where the plugin's instance lives.
enum Backend {
    /// In this process: the plugin's handle.
    Local(*mut c_void),
    /// In a child process ([`SolverInstance::create_isolated`]).
    Child(Box<ChildSolver>),
}

/// A live solver instance of a plugin algorithm, in this process or isolated in a child
/// process. Destroyed on drop.
pub struct SolverInstance {
    plugin: Arc<LoadedPlugin>,
    algorithm: String,
    capabilities: u32,
    backend: Backend,
    poisoned: bool,
    limits: SolveLimits,
    logs: Vec<LogLine>,
    progress: f64,
    listener: Option<ServiceListener>,
    /// Shared-memory transfer time of the last isolated solve.
    transfer: Option<Duration>,
    /// The parameter values it was created with.
    params: Vec<(String, f64)>,
}

// SAFETY: an instance is used by one thread at a time (`&mut self` on every call); the ABI
// requires plugin instances to be movable between threads (see `abi`'s thread-safety section);
// a child backend is plain process handles and a mapping.
unsafe impl Send for SolverInstance {}

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
        let (index, caps) = (info.index, info.capabilities);
        let (handle, logs) = local::create(&plugin, index, algorithm, params)?;
        let backend = Backend::Local(handle);
        Ok(Self::new(plugin, caps, algorithm, backend, logs, params))
    }

    fn new(
        plugin: Arc<LoadedPlugin>,
        capabilities: u32,
        algorithm: &str,
        backend: Backend,
        logs: Vec<LogLine>,
        params: &[(String, f64)],
    ) -> Self {
        Self {
            capabilities,
            plugin,
            algorithm: algorithm.into(),
            backend,
            poisoned: false,
            limits: SolveLimits::default(),
            logs,
            progress: 0.0,
            listener: None,
            transfer: None,
            params: params.to_vec(),
        }
    }

    /// Whether the instance runs in a child process.
    pub fn is_isolated(&self) -> bool {
        matches!(self.backend, Backend::Child(_))
    }

    /// Whether the algorithm solves one rank's slab of a distributed problem
    /// ([`abi::CAP_DISTRIBUTED`]; an isolated instance never does).
    pub fn supports_distributed(&self) -> bool {
        self.capabilities & abi::CAP_DISTRIBUTED != 0
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

    /// The value parameter `name` has in this instance: given at creation, else the
    /// algorithm's default (`None`: the algorithm has no such parameter).
    fn param_in_effect(&self, name: &str) -> Option<f64> {
        let given = self.params.iter().find(|(n, _)| n == name);
        given.map(|&(_, v)| v).or_else(|| {
            let info = self.plugin.algorithm(&self.algorithm)?;
            let param = info.params.iter().find(|p| p.name == name);
            param.map(|p| p.default)
        })
    }

    /// Sets the limits of the following solves.
    pub fn set_limits(&mut self, limits: SolveLimits) {
        self.limits = limits;
    }

    /// Tells `listener` what the plugin logs and reports as progress during the following
    /// solves, as it happens: in this process from the plugin's call, and for an isolated
    /// instance as the child forwards it over the channel (so lines logged before a crash or a
    /// hang arrive too).
    pub fn set_listener(&mut self, listener: Option<ServiceListener>) {
        self.listener = listener;
    }

    /// For an isolated instance, the time its last solve spent bringing the problem into the
    /// shared memory and the solution out (part of the solve's wall time); `None` in-process.
    pub fn last_transfer(&self) -> Option<Duration> {
        self.transfer
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
            ProblemRef::TallCell(_) => (abi::CAP_TALLCELL, "tall-cell"),
            ProblemRef::Viscosity(_) => (abi::CAP_VISCOSITY, "viscosity"),
            ProblemRef::Coupled(_) => (abi::CAP_COUPLED, "coupled (rigid bodies)"),
        };
        if self.capabilities & cap == 0 {
            return Err(PluginError::UnsupportedKind {
                plugin: self.plugin.id.clone(),
                algorithm: self.algorithm.clone(),
                kind: kind_name,
            });
        }
        let bad = |e: String| self.fail(abi::STATUS_BAD_VALUE, e);
        if let Some(dist) = self.limits.distributed.clone() {
            return self.solve_distributed(problem, &dist);
        }
        match problem {
            ProblemRef::Structured(p) => {
                p.validate().map_err(|e| bad(e.to_string()))?;
                let stats = self.run_solve(ProblemRef::Structured(p))?;
                zero_outside_unknowns(p);
                // The one-pass residual settles almost every solve; the projected one decides
                // only when that pass alone would refuse the result.
                if self.check(check::structured_raw(p), &stats).is_err() {
                    self.check(check::structured(p), &stats)?;
                }
                Ok(stats)
            }
            ProblemRef::Csr(p) => {
                p.validate().map_err(|e| bad(e.to_string()))?;
                let stats = self.run_solve(ProblemRef::Csr(p))?;
                self.check(check::csr(p), &stats)?;
                Ok(stats)
            }
            ProblemRef::TallCell(p) => {
                p.validate().map_err(|e| bad(e.to_string()))?;
                let stats = self.run_solve(ProblemRef::TallCell(p))?;
                self.check(check::csr(&p.csr), &stats)?;
                Ok(stats)
            }
            ProblemRef::Viscosity(p) => {
                p.validate().map_err(|e| bad(e.to_string()))?;
                let stats = self.run_solve(ProblemRef::Viscosity(p))?;
                // Positive definite: the plain residual of the returned velocity.
                self.check(check::csr_definite(&p.csr), &stats)?;
                Ok(stats)
            }
            ProblemRef::Coupled(p) => {
                p.validate().map_err(|e| bad(e.to_string()))?;
                let stats = self.run_solve(ProblemRef::Coupled(p))?;
                zero_outside_unknowns(&mut p.grid);
                // The one-pass residual first, the projected one only when it would refuse.
                if self.check(check::coupled_raw(p), &stats).is_err() {
                    self.check(check::coupled(p), &stats)?;
                }
                Ok(stats)
            }
        }
    }

    /// One rank's part of a distributed solve: only structured problems, only algorithms with
    /// [`abi::CAP_DISTRIBUTED`], in this process; the check covers the owned rows.
    fn solve_distributed(
        &mut self,
        problem: ProblemRef<'_, '_>,
        dist: &Distribution,
    ) -> Result<SolveStats, PluginError> {
        let refuse = |kind| PluginError::UnsupportedKind {
            plugin: self.plugin.id.clone(),
            algorithm: self.algorithm.clone(),
            kind,
        };
        if self.capabilities & abi::CAP_DISTRIBUTED == 0 {
            return Err(refuse("distributed (MPI slab)"));
        }
        if matches!(self.backend, Backend::Child(_)) {
            return Err(refuse("distributed in an isolated child process"));
        }
        let ProblemRef::Structured(p) = problem else {
            return Err(refuse("distributed CSR (sparse)"));
        };
        p.validate()
            .map_err(|e| self.fail(abi::STATUS_BAD_VALUE, e.to_string()))?;
        let stats = self.run_solve(ProblemRef::Structured(p))?;
        zero_outside_unknowns(p);
        let owned = check::structured_raw_rows(p, dist.layout().owned_range());
        self.check(whole_domain(owned, dist), &stats)?;
        Ok(stats)
    }

    /// Solves without the result checks (the isolated solver's child: the host checks).
    ///
    /// # Errors
    /// As [`SolverInstance::solve`], except [`PluginError::WrongResult`].
    pub(crate) fn solve_unchecked(
        &mut self,
        problem: ProblemRef<'_, '_>,
    ) -> Result<SolveStats, PluginError> {
        self.usable()?;
        match problem {
            ProblemRef::Structured(p) => self.run_solve(ProblemRef::Structured(p)),
            ProblemRef::Csr(p) => self.run_solve(ProblemRef::Csr(p)),
            ProblemRef::TallCell(p) => self.run_solve(ProblemRef::TallCell(p)),
            ProblemRef::Viscosity(p) => self.run_solve(ProblemRef::Viscosity(p)),
            ProblemRef::Coupled(p) => self.run_solve(ProblemRef::Coupled(p)),
        }
    }

    /// Hands a validated problem to the backend.
    fn run_solve(&mut self, mut problem: ProblemRef<'_, '_>) -> Result<SolveStats, PluginError> {
        if let Backend::Child(_) = self.backend {
            return self.remote_solve(&mut problem);
        }
        match problem {
            ProblemRef::Structured(p) => {
                let raw = p.to_abi();
                self.call_solve(abi::PROBLEM_STRUCTURED, std::ptr::from_ref(&raw).cast())
            }
            ProblemRef::Csr(p) => {
                let raw = p.to_abi();
                self.call_solve(abi::PROBLEM_CSR, std::ptr::from_ref(&raw).cast())
            }
            ProblemRef::TallCell(p) => {
                let raw = p.to_abi();
                self.call_solve(abi::PROBLEM_TALLCELL, std::ptr::from_ref(&raw).cast())
            }
            ProblemRef::Viscosity(p) => {
                let raw = p.to_abi();
                self.call_solve(abi::PROBLEM_VISCOSITY, std::ptr::from_ref(&raw).cast())
            }
            ProblemRef::Coupled(p) => {
                let raw = p.to_abi();
                self.call_solve(abi::PROBLEM_COUPLED, std::ptr::from_ref(&raw).cast())
            }
        }
    }

    /// The largest residual the host accepts from a solve that reports convergence, and why:
    /// [`CONVERGED_REL`] of `max |rhs|` plus [`CONVERGED_ABS`], whatever the algorithm calls
    /// its tolerances; where the host knows their names (`rel_tolerance`, `abs_tolerance`,
    /// `tolerance`), [`SLACK`] times the tolerance in effect (given, else the default), never
    /// above [`CONVERGED_CAP`] of `max |rhs|` plus the larger of [`CONVERGED_ABS`] and twice
    /// the absolute tolerance.
    fn converged_bound(&self, r: &check::Residual) -> (f64, &'static str) {
        let in_effect = |name| {
            let value = self.param_in_effect(name);
            value.filter(|v| v.is_finite()).unwrap_or(0.0)
        };
        let absolute = in_effect("abs_tolerance").max(in_effect("tolerance"));
        let declared = absolute.max(in_effect("rel_tolerance") * r.rhs_norm);
        let rounding = 1e-10 * r.scale;
        if declared > 0.0 {
            let cap = CONVERGED_CAP * r.rhs_norm + CONVERGED_ABS.max(2.0 * absolute);
            if SLACK * declared <= cap {
                (SLACK * declared + rounding, "10 times its tolerance")
            } else {
                (
                    cap + rounding,
                    "a tenth of max |rhs|, below 10 times its tolerance",
                )
            }
        } else {
            let bound = CONVERGED_REL * r.rhs_norm + CONVERGED_ABS;
            (bound + rounding, "a hundredth of max |rhs|")
        }
    }

    /// Refuses a result that is not finite, contradicts the reported residual, claims a
    /// convergence the host's bound denies, or diverged.
    fn check(&self, r: check::Residual, s: &SolveStats) -> Result<(), PluginError> {
        if !r.finite {
            return Err(self.wrong("non-finite pressure (NaN or infinity) in the solution".into()));
        }
        if !(s.residual.is_finite() && s.initial_residual.is_finite()) {
            return Err(self.wrong(format!(
                "it reports a non-finite residual ({:e}, initially {:e})",
                s.residual, s.initial_residual
            )));
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
        if s.converged != 0 {
            let (bound, why) = self.converged_bound(&r);
            if r.max > bound {
                return Err(self.wrong(format!(
                    "it reports convergence, but the residual of the pressure it returned is \
                     {:.3e}, above {bound:.3e}, the most the host accepts from a converged \
                     solve ({why}; max |rhs| {:.3e})",
                    r.max, r.rhs_norm
                )));
            }
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

/// The residual of the whole domain from every rank's owned rows (collective), so that every
/// rank judges the result alike.
fn whole_domain(owned: check::Residual, dist: &Distribution) -> check::Residual {
    let bad = f64::from(u8::from(!owned.finite));
    let mut v = [owned.max, owned.rhs_norm, owned.scale, bad];
    if v[0].is_nan() {
        v[0] = f64::INFINITY; // a NaN would vanish in the reduction
    }
    dist.comm().max(&mut v);
    check::Residual {
        max: v[0],
        rhs_norm: v[1],
        scale: v[2],
        finite: v[3] == 0.0,
    }
}

/// Overwrites what the plugin left in the cells that are not unknowns with the host's 0 (the
/// value they had as the initial guess): the host reads and exports the whole pressure array,
/// and checking those cells would cost the same pass.
fn zero_outside_unknowns(p: &mut Problem<'_>) {
    use rayon::prelude::*;
    p.pressure
        .par_iter_mut()
        .zip(p.cell_kind.par_iter())
        .filter(|(_, &kind)| kind != abi::CELL_FLUID)
        .for_each(|(v, _)| *v = 0.0);
}

impl Drop for SolverInstance {
    /// Destroys a local instance (not after a panic); a child backend ends its process.
    fn drop(&mut self) {
        if let (Backend::Local(handle), false) = (&self.backend, self.poisoned) {
            let destroy = self.plugin.table().destroy.expect("checked at load");
            let _in_flight = self.in_flight("destroy");
            // SAFETY: `handle` came from this plugin's `create` and is destroyed once.
            unsafe { destroy(*handle) };
        }
    }
}
