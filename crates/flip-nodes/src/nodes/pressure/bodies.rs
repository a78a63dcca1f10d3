//! The rigid bodies in the pressure solve: the coupled system `(A + J C Jᵀ) p = rhs` of
//! [`flip_core::rigid::coupling`] handed to the chosen plugin algorithm as the coupled problem
//! kind (`flip_abi::PROBLEM_COUPLED`): the assembled structured problem plus the bodies' columns
//! of `J` and blocks of `C`. Algorithms that do not take the kind are refused by name.
//! A body the solve pushes into a static solid it rests on is pinned along those contacts
//! and the system solved again ([`flip_core::rigid::resting`]).

use super::solvers::Solvers;
use flip_abi::SolveStats;
use flip_core::pressure::PressureSystem;
use flip_core::rigid::{resting, Bodies, Coupling, Twist};
use flip_graph::NodeError;
use flip_host::{ProblemRef, SolveLimits};
use flip_sdk::CoupledProblem;

/// Solves the coupled system in `sys` (assembled, right-hand side set, warm start in its
/// pressure) with the node's solvers, leaving the coupled pressure in `sys.pressure`.
pub(super) fn solve_coupled(
    sys: &mut PressureSystem,
    coupling: &Coupling,
    solvers: &mut Solvers,
    limits: &SolveLimits,
) -> Result<SolveStats, NodeError> {
    let terms = coupling.terms();
    solvers.solve_with(limits.clone(), |s| {
        let mut problem = CoupledProblem {
            grid: sys.problem.view(),
            bodies: terms.view(),
        };
        s.solve_any(ProblemRef::Coupled(&mut problem))
    })
}

/// Solves the coupled system with the bodies that rested in the previous solve pinned along
/// their contacts with static solids, then checks that guess of the active set: a body is
/// pinned where the unpinned response to the solved pressure, `C Jᵀ p`, drives it into a solid
/// it touches. Where the guess was wrong the system is solved again from that pressure with the
/// checked set (one active-set step). Returns the stats (iterations of every solve), the pinned
/// coupling solved last (none when no body was pinned) and each body's resting flag for the
/// next solve.
pub(super) fn solve_resting(
    sys: &mut PressureSystem,
    coupling: &Coupling,
    bodies: &Bodies,
    solvers: &mut Solvers,
    limits: &SolveLimits,
) -> Result<(SolveStats, Option<Coupling>, Vec<bool>), NodeError> {
    let guess: Vec<Vec<Twist>> = (bodies.contacts.iter().enumerate())
        .map(|(b, rows)| match bodies.resting.get(b) {
            Some(true) => rows.clone(),
            _ => vec![],
        })
        .collect();
    let pinned = |pins: &[Vec<Twist>]| {
        (pins.iter().any(|rows| !rows.is_empty())).then(|| coupling.pinned(pins))
    };
    let mut solved = pinned(&guess);
    let mut stats = solve_coupled(sys, solved.as_ref().unwrap_or(coupling), solvers, limits)?;
    let free = coupling.velocity_change(&sys.pressure);
    let checked: Vec<Vec<Twist>> = (bodies.contacts.iter().zip(&bodies.end).zip(&free))
        .map(|((rows, end), dv)| resting::pushed_in(rows, end, dv))
        .collect();
    let resting: Vec<bool> = checked.iter().map(|rows| !rows.is_empty()).collect();
    let guessed = guess.iter().map(|rows| !rows.is_empty());
    if guessed.ne(resting.iter().copied()) {
        solved = pinned(&checked);
        let first = stats;
        stats = solve_coupled(sys, solved.as_ref().unwrap_or(coupling), solvers, limits)?;
        stats.iterations += first.iterations;
        stats.outer_iterations += first.outer_iterations;
        stats.initial_residual = first.initial_residual;
    }
    Ok((stats, solved, resting))
}
