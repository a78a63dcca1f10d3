//! Level-set reinitialisation on the tall-cell grid: the rows that hold regular cells and
//! tall-cell tops are rasterised with the paper's rule onto a regular window, redistanced by
//! the project's fast sweeping (`levelset::redistance`) and read back; a tall cell's bottom
//! below the window keeps its distance to the top (`φ_top − (h − 1)·Δx`: the surface lies
//! above it).

use super::grid::Stagger;
use super::sample::{at, Outside};
use super::state::TallLiquid;
use crate::grid::GridSpec;

/// Fast-sweeping passes per reinitialisation.
const SWEEPS: usize = 2;

/// Reinitialises φ to a signed distance near the surface.
pub fn reinitialise(liquid: &mut TallLiquid) {
    let g = &liquid.grid;
    let row = |i: usize, s: usize| g.row(Stagger::Centre, i, s);
    let lowest = |i: usize| row(i, usize::from(g.tall[i] > super::grid::MIN_TALL));
    let lo = (0..g.columns).map(lowest).min().unwrap_or(0);
    let hi = (0..g.columns)
        .map(|i| row(i, g.slots() - 1) + 1)
        .max()
        .unwrap_or(0)
        .min(g.height);
    if hi <= lo + 1 {
        return;
    }
    let rows = hi - lo;
    let spec = GridSpec::new(g.columns, rows, 1, g.dx);
    let mut raster = vec![0.0f32; g.columns * rows];
    for r in 0..rows {
        for i in 0..g.columns {
            let y = (lo + r) as i64;
            raster[i + g.columns * r] = at(
                g,
                &liquid.phi,
                Stagger::Centre,
                i as i64,
                y,
                Outside::LevelSet,
            );
        }
    }
    crate::levelset::redistance(&spec, &mut raster, SWEEPS);
    let mut phi = liquid.phi.clone();
    for i in 0..g.columns {
        for s in 0..g.slots() {
            let y = row(i, s);
            if (lo..hi).contains(&y) {
                phi[g.index(i, s)] = raster[i + g.columns * (y - lo)];
            }
        }
        let bottom = row(i, 0);
        if bottom < lo {
            let top = phi[g.index(i, 1)];
            phi[g.index(i, 0)] = top - (row(i, 1) - bottom) as f32 * g.dx;
        }
    }
    liquid.phi = phi;
}
