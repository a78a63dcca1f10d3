//! The rigid bodies in the pressure solve: the coupled system `(A + J C Jᵀ) p = rhs` of
//! [`flip_core::rigid::coupling`], solved by the Woodbury identity with the chosen plugin
//! algorithm on the structured problem: one solve of the pressure's right-hand side and one
//! per body degree of freedom (three per 2D body, six per 3D body), then a small dense solve. Any algorithm
//! that solves the structured kind solves it, and each solve passes the host's residual check.

use flip_abi::SolveStats;
use flip_core::pressure::PressureSystem;
use flip_core::rigid::Coupling;
use flip_graph::NodeError;

/// Solves the coupled system in `sys` (assembled, right-hand side set, warm start in its
/// pressure) with `solve`, leaving the coupled pressure in `sys.pressure` and the right-hand
/// side as it was. The statistics are the first solve's, with every solve's iterations.
pub(super) fn solve_coupled(
    sys: &mut PressureSystem,
    coupling: &Coupling,
    mut solve: impl FnMut(&mut PressureSystem) -> Result<SolveStats, NodeError>,
) -> Result<SolveStats, NodeError> {
    let mut stats = solve(sys)?;
    let mut x = std::mem::take(&mut sys.problem.pressure);
    let rhs = sys.problem.rhs.to_vec();
    let n = x.len();
    let mut y = Vec::with_capacity(coupling.dof());
    let mut column = vec![0.0; n];
    for i in 0..coupling.dof() {
        coupling.column_into(i, &mut column);
        sys.problem.rhs.assign(&column);
        sys.problem.pressure = vec![0.0; n];
        let s = solve(sys)?;
        stats.iterations += s.iterations;
        stats.outer_iterations += s.outer_iterations;
        y.push(std::mem::take(&mut sys.problem.pressure));
    }
    sys.problem.rhs.assign(&rhs);
    coupling.woodbury(&mut x, &y);
    sys.problem.pressure = x;
    Ok(stats)
}
