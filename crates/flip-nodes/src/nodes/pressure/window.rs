//! The pressure solve in a rank's window of a decomposed run: the window's system is cut to
//! the owned layers plus the solve's ghost layers (the distributed suite's layout), solved by a
//! distributed algorithm, and the solution's ghost layers are refreshed across the whole
//! window, so the gradient is the single-domain one on every face an owned particle reads.

use flip_abi::SolveStats;
use flip_core::pressure::{OwnedProblem, PressureSystem};
use flip_core::project::violation;
use flip_core::Grid3;
use flip_graph::{NodeError, Window};
use flip_host::SolveLimits;
use flip_sdk::Problem;

/// Solves the window's `problem` with the other ranks through `solve(slab, limits)` (the
/// limits carry the distribution); its `pressure` holds the solution on every window cell
/// afterwards.
pub(crate) fn solve(
    w: &Window,
    problem: &mut OwnedProblem,
    mut limits: SolveLimits,
    solve: impl FnOnce(&mut Problem<'_>, SolveLimits) -> Result<SolveStats, NodeError>,
) -> Result<SolveStats, NodeError> {
    let layout = *w.solve.layout();
    let mut in_window = layout;
    in_window.first = layout.first - w.offset as u32;
    in_window.global_dims = w.local.dims().map(|d| d as u32);
    let mut slab = problem.slab(&in_window);
    limits.distributed = Some(w.solve.clone());
    let stats = solve(&mut slab.view(), limits)?;
    let start = (in_window.first - in_window.ghost_lo) as usize * layout.layer_len();
    problem.pressure[start..start + slab.pressure.len()].copy_from_slice(&slab.pressure);
    let (lo, hi) = w.ghost_layers();
    w.dist.halo_exchange(&mut problem.pressure, lo.max(hi));
    Ok(stats)
}

/// The divergence left on the owned cells only (the window's outer layers hold the walls of
/// the window, not the domain's), and its largest value over all ranks.
pub(super) fn owned_divergence(w: &Window, div: &mut Grid3<f32>, sys: &PressureSystem) -> f32 {
    let owned = w.dist.layout().owned_range();
    div.data[..owned.start].fill(0.0);
    div.data[owned.end..].fill(0.0);
    let mut v = [f64::from(violation(div, sys))];
    w.comm().max(&mut v);
    v[0] as f32
}
