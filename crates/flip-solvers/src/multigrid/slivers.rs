//! Coarse slivers: a coarse cell whose children are slivers of fluid cut off by a solid (face
//! fractions down to 10⁻⁴ on a sphere) couples to its neighbours by almost nothing, so its
//! coarse value is barely determined and the interpolation spreads it into the well-coupled
//! cells around it. On coarse levels such a cell is made solid (its faces Neumann); the fine
//! level keeps the exact matrix, so only the convergence rate is affected.

use super::level::Level;
use flip_abi::{CELL_FLUID, CELL_SOLID};
use rayon::prelude::*;

/// A coarse fluid cell whose diagonal is below this fraction of a full interior cell's
/// (`2d (h/H)²`) is a sliver. Whole-cell boundaries never go below 1/24 (a 3D coarse cell
/// whose one fluid child has one open face), slivers of a cut sphere reach 10⁻⁴.
pub(crate) const SLIVER: f32 = 0.02;

/// Makes the slivers of coarse level `level` (index `depth`) solid: their couplings leave
/// their neighbours' diagonals, their Dirichlet terms go. Call before [`Level::compute_unk`].
pub(crate) fn drop_slivers(level: &mut Level, depth: usize) {
    let axes = if level.three_d() { 3 } else { 2 };
    let full = 2.0 * axes as f32 * 0.25f32.powi(depth as i32);
    let threshold = SLIVER * full;
    let lv = &*level;
    let slivers: Vec<usize> = (0..lv.len())
        .into_par_iter()
        .with_min_len(4096)
        .filter(|&c| lv.kind[c] == CELL_FLUID && lv.diag[c] > 0.0 && lv.diag[c] < threshold)
        .collect();
    for &c in &slivers {
        for a in 0..axes {
            let s = level.stride[a];
            let up = level.off[c][a].abs();
            level.diag[c + s] -= up;
            level.off[c][a] = 0.0;
            let down = level.off[c - s][a].abs();
            level.diag[c - s] -= down;
            level.off[c - s][a] = 0.0;
        }
        level.kind[c] = CELL_SOLID;
        level.diag[c] = 0.0;
        level.excess[c] = 0.0;
        level.dweight[c] = 0.0;
    }
    if !slivers.is_empty() {
        level.compute_unk();
    }
}
