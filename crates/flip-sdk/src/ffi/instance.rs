//! The solver table's `solve` entry: dispatch by problem kind, on the plugin's own pool.

use super::lifecycle::instance;
use super::{guarded, Instance};
use crate::services::{cancelled, with_services};
use crate::{CoupledProblem, CsrProblem, Problem, SolveError, TallCellProblem, ViscosityProblem};
use flip_abi::{self as abi, ErrorBuf, HostServices, SolveStats};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Dispatches a problem of `kind` to the solver, refusing kinds the algorithm does not list.
///
/// # Safety
/// `problem` points to a problem of `kind` whose arrays are valid for the call.
unsafe fn dispatch(
    inst: &mut Instance,
    kind: u32,
    problem: *const c_void,
) -> Result<SolveStats, SolveError> {
    if problem.is_null() {
        return Err(SolveError::BadValue("null problem".into()));
    }
    let caps = inst.algorithm.capabilities;
    let bad = |e: &dyn std::fmt::Display| SolveError::BadValue(e.to_string());
    match kind {
        abi::PROBLEM_STRUCTURED if caps & abi::CAP_STRUCTURED != 0 => {
            // SAFETY: the caller's contract.
            let raw = unsafe { &*problem.cast::<abi::PressureProblem>() };
            // SAFETY: as above: the arrays are valid for the call.
            let mut view = unsafe { Problem::from_abi(raw) }.map_err(|e| bad(&e))?;
            inst.solver.solve(&mut view)
        }
        abi::PROBLEM_CSR if caps & abi::CAP_CSR != 0 => {
            // SAFETY: the caller's contract.
            let raw = unsafe { &*problem.cast::<abi::CsrProblem>() };
            // SAFETY: as above.
            let mut view = unsafe { CsrProblem::from_abi(raw) }.map_err(|e| bad(&e))?;
            inst.solver.solve_csr(&mut view)
        }
        abi::PROBLEM_TALLCELL if caps & abi::CAP_TALLCELL != 0 => {
            // SAFETY: the caller's contract.
            let raw = unsafe { &*problem.cast::<abi::TallCellProblem>() };
            // SAFETY: as above.
            let mut view = unsafe { TallCellProblem::from_abi(raw) }.map_err(|e| bad(&e))?;
            inst.solver.solve_tallcell(&mut view)
        }
        abi::PROBLEM_VISCOSITY if caps & abi::CAP_VISCOSITY != 0 => {
            // SAFETY: the caller's contract.
            let raw = unsafe { &*problem.cast::<abi::ViscosityProblem>() };
            // SAFETY: as above.
            let mut view = unsafe { ViscosityProblem::from_abi(raw) }.map_err(|e| bad(&e))?;
            inst.solver.solve_viscosity(&mut view)
        }
        abi::PROBLEM_COUPLED if caps & abi::CAP_COUPLED != 0 => {
            // SAFETY: the caller's contract.
            let raw = unsafe { &*problem.cast::<abi::CoupledProblem>() };
            // SAFETY: as above.
            let mut view = unsafe { CoupledProblem::from_abi(raw) }.map_err(|e| bad(&e))?;
            inst.solver.solve_coupled(&mut view)
        }
        _ => Err(SolveError::Unsupported(format!(
            "algorithm `{}` does not accept problem kind {kind}",
            inst.algorithm.name
        ))),
    }
}

/// Body of `solve`.
///
/// # Safety
/// The ABI's `solve` contract.
pub unsafe extern "C" fn solve(
    instance_ptr: *mut c_void,
    kind: u32,
    problem: *const c_void,
    services: *const HostServices,
    stats: *mut SolveStats,
    error: *mut ErrorBuf,
) -> i32 {
    let call = SolveCall {
        instance: instance_ptr,
        problem,
        services,
        stats,
    };
    // SAFETY: the caller's contract: `services` is the host's table for this call.
    let distributed = unsafe { with_services(services, || crate::distributed().is_some()) };
    // Held until the call returns.
    let seat = distributed.then(PoolSeat::take);
    guarded(error, || match seat {
        None => {
            call.prepare(kind)?;
            on_pool(move || call.run(kind))
        }
        Some(Some(_seat)) => match distributed_pool() {
            Some(pool) => pool.install(move || call.run(kind)),
            None => call.run(kind),
        },
        // another distributed solve of this process holds the seat
        Some(None) => call.run(kind),
    })
}

/// Whether a distributed solve of this process runs on [`distributed_pool`]. A distributed
/// solve blocks in collectives; when ranks are threads of one process, a worker waiting in
/// one rank's parallel loop could pick up another rank's whole solve from its pool's queue and
/// then never get back to the loop that rank waits for. So at most one distributed solve at a
/// time runs on a pool (always, with one rank per process), a pool whose queue holds nothing
/// else; the others stay on their host threads, and the only jobs the plugin's global pool
/// takes from them are their loops' compute, which never blocks.
static DISTRIBUTED_ON_POOL: AtomicBool = AtomicBool::new(false);

/// The pool of the distributed solve holding [`DISTRIBUTED_ON_POOL`] (`None`: the threads
/// could not be started, and the solve runs on its host's thread).
fn distributed_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("flipgraph-distributed-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Holds [`DISTRIBUTED_ON_POOL`] for one solve.
struct PoolSeat;

impl PoolSeat {
    fn take() -> Option<Self> {
        DISTRIBUTED_ON_POOL
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .ok()
            .map(|_| Self)
    }
}

impl Drop for PoolSeat {
    fn drop(&mut self) {
        DISTRIBUTED_ON_POOL.store(false, Ordering::Release);
    }
}

/// The pointers of one `solve` call, moved to the worker that runs it. The ABI lets an
/// instance and the host services be used from threads the plugin uses for the call, and the
/// host's problem and stats stay valid and untouched by it until the call returns.
struct SolveCall {
    instance: *mut c_void,
    problem: *const c_void,
    services: *const HostServices,
    stats: *mut SolveStats,
}

// SAFETY: see the type's comment; the host thread is blocked in `solve` while a worker uses them.
unsafe impl Send for SolveCall {}

impl SolveCall {
    /// [`crate::PressureSolver::prepare`] of a structured problem (alone or the grid of a
    /// coupled one), on the calling thread.
    fn prepare(&self, kind: u32) -> Result<(), SolveError> {
        // SAFETY: the caller's contract.
        let inst = unsafe { instance::<Instance>(self.instance)? };
        let caps = inst.algorithm.capabilities;
        if self.problem.is_null() {
            return Ok(()); // the solve refuses it
        }
        let raw = match kind {
            // SAFETY: the caller's contract: a structured problem whose arrays are valid.
            abi::PROBLEM_STRUCTURED if caps & abi::CAP_STRUCTURED != 0 => unsafe {
                &*self.problem.cast::<abi::PressureProblem>()
            },
            // SAFETY: as above, a coupled problem, whose grid is a structured one.
            abi::PROBLEM_COUPLED if caps & abi::CAP_COUPLED != 0 => unsafe {
                &(*self.problem.cast::<abi::CoupledProblem>()).grid
            },
            _ => return Ok(()), // the solve refuses it
        };
        // SAFETY: as above; the view is dropped before the solve makes its own.
        let Ok(view) = (unsafe { Problem::from_abi(raw) }) else {
            return Ok(()); // the solve reports it
        };
        let body = || inst.solver.prepare(&view);
        // SAFETY: the host's table for this call, which outlives it.
        unsafe { with_services(self.services, body) };
        Ok(())
    }

    fn run(self, kind: u32) -> Result<(), SolveError> {
        let body = || {
            // SAFETY: the caller's contract.
            let inst = unsafe { instance::<Instance>(self.instance)? };
            // SAFETY: as above.
            let s = unsafe { dispatch(inst, kind, self.problem)? };
            if cancelled() {
                return Err(SolveError::Cancelled(format!(
                    "stopped after {} iterations at residual {:.3e}",
                    s.iterations, s.residual
                )));
            }
            if !self.stats.is_null() {
                // SAFETY: non-null, writable (the caller's contract).
                unsafe { self.stats.write(s) };
            }
            Ok(())
        };
        // SAFETY: built by `solve` from the host's table for this call, which outlives it.
        unsafe { with_services(self.services, body) }
    }
}

/// Runs `f` on a worker of the plugin's rayon pool while the host's thread waits, so that the
/// solver's parallel loops start inside the pool: called from the host's thread, every loop
/// (dozens per V-cycle) would be injected from outside, a futex wake and sleep each.
fn on_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    rayon::scope(|_| f())
}
