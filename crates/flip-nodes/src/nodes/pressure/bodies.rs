//! The rigid bodies in the pressure solve: the coupled system `(A + J C Jᵀ) p = rhs` of
//! [`flip_core::rigid::coupling`] handed to the chosen plugin algorithm as the coupled problem
//! kind (`flip_abi::PROBLEM_COUPLED`): the assembled structured problem plus the bodies' columns
//! of `J` and blocks of `C`. Algorithms that do not take the kind are refused by name.

use super::solvers::Solvers;
use flip_abi::SolveStats;
use flip_core::pressure::PressureSystem;
use flip_core::rigid::Coupling;
use flip_graph::NodeError;
use flip_host::{ProblemRef, SolveLimits};
use flip_sdk::CoupledProblem;

/// Solves the coupled system in `sys` (assembled, right-hand side set, warm start in its
/// pressure) with the node's solvers, leaving the coupled pressure in `sys.pressure`.
pub(super) fn solve_coupled(
    sys: &mut PressureSystem,
    coupling: &Coupling,
    solvers: &mut Solvers,
    limits: SolveLimits,
) -> Result<SolveStats, NodeError> {
    let terms = coupling.terms();
    solvers.solve_with(limits, |s| {
        let mut problem = CoupledProblem {
            grid: sys.problem.view(),
            bodies: terms.view(),
        };
        s.solve_any(ProblemRef::Coupled(&mut problem))
    })
}
