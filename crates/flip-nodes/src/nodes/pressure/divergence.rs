//! The host's check of a converged solve after projection: the divergence left must be what
//! the algorithm's tolerance allows. The right-hand side is the negated outflow of each
//! unknown (`project::fill_rhs`) and the divergence its outflow over `dx`, so a residual bound
//! `max(abs, rel·‖b‖∞)` allows a divergence of that bound over `dx`.

use flip_abi::SolveStats;
use flip_core::MacGrid;
use flip_host::{PluginError, SolverInstance};

/// How far past the tolerance's divergence a converged result may lie (the residual is
/// measured by the solver in its own arithmetic; the divergence in f32 velocities).
const SLACK: f64 = 10.0;
/// f32 rounding of the projected velocities, relative to the largest face speed over `dx`.
const ROUNDING: f64 = 1e-5;

/// The residual bound the algorithm claims to meet: `max(abs, rel·‖b‖∞)` from its
/// `rel_tolerance` and `abs_tolerance` (or `tolerance`) parameters; `None` when it declares
/// neither.
fn claimed_bound(solver: &SolverInstance, rhs_norm: f64) -> Option<f64> {
    let rel = solver.param("rel_tolerance");
    let abs = solver
        .param("abs_tolerance")
        .or_else(|| solver.param("tolerance"));
    if rel.is_none() && abs.is_none() {
        return None;
    }
    Some(abs.unwrap_or(0.0).max(rel.unwrap_or(0.0) * rhs_norm))
}

fn max_face_speed(vel: &MacGrid) -> f64 {
    [&vel.u, &vel.v, &vel.w]
        .iter()
        .flat_map(|g| g.data.iter())
        .fold(0.0f32, |m, &x| m.max(x.abs()))
        .into()
}

/// Refuses a solve that reports convergence (`rhs_norm`: the largest right-hand side) while the projected velocity `vel` keeps a
/// divergence (`max_div`, 1/s) above what its tolerance allows, naming plugin and algorithm.
pub(crate) fn check_projection(
    solver: &SolverInstance,
    stats: &SolveStats,
    rhs_norm: f64,
    dx: f32,
    vel: &MacGrid,
    max_div: f32,
) -> Result<(), PluginError> {
    if stats.converged == 0 {
        return Ok(());
    }
    let Some(bound) = claimed_bound(solver, rhs_norm) else {
        return Ok(());
    };
    let dx = f64::from(dx);
    let (left, before) = (f64::from(max_div), rhs_norm / dx);
    let allowed = SLACK * bound / dx;
    // The face speeds are read only when the divergence is suspicious.
    if left <= allowed || left <= allowed + ROUNDING * max_face_speed(vel) / dx {
        return Ok(());
    }
    Err(solver.wrong_result(format!(
        "it reports convergence, but the velocity it projected keeps max |div| {left:.3e} 1/s \
         (before the solve {before:.3e}; its tolerance allows {:.3e})",
        bound / dx
    )))
}
