//! Level-set reinitialisation on the tall-cell grid: the rows that hold regular cells and
//! tall-cell tops are rasterised with the paper's rule onto a regular window (all columns,
//! x-y in 2D, x-y-z in 3D), redistanced by the project's fast sweeping
//! (`levelset::redistance`) and read back; a tall cell's bottom below the window keeps its
//! distance to the top (`φ_top − (h − 1)·Δx`: the surface lies above it).

use super::grid::Stagger;
use super::sample::{at, Outside};
use super::state::TallLiquid;
use super::PAR_MIN;
use crate::grid::GridSpec;
use rayon::prelude::*;

/// Fast-sweeping passes per reinitialisation.
const SWEEPS: usize = 2;

/// Reinitialises φ to a signed distance near the surface.
pub fn reinitialise(liquid: &mut TallLiquid) {
    let g = &liquid.grid;
    let row = |c: usize, s: usize| g.row(Stagger::Centre, c, s);
    let lowest = |c: usize| row(c, usize::from(g.tall[c] > super::grid::MIN_TALL));
    let n = g.column_count();
    let lo = (0..n).map(lowest).min().unwrap_or(0);
    let hi = (0..n)
        .map(|c| row(c, g.slots() - 1) + 1)
        .max()
        .unwrap_or(0)
        .min(g.height);
    if hi <= lo + 1 {
        return;
    }
    let ([nx, nz], rows) = (g.columns, hi - lo);
    let spec = GridSpec::new(nx, rows, nz, g.dx);
    let cell = |c: usize, r: usize| {
        let (i, k) = g.ik(c);
        i + nx * (r + rows * k)
    };
    let mut raster = vec![0.0f32; n * rows];
    raster
        .par_iter_mut()
        .with_min_len(PAR_MIN)
        .enumerate()
        .for_each(|(m, q)| {
            let (i, r, k) = (m % nx, (m / nx) % rows, m / (nx * rows));
            let (ik, y) = ([i as i64, k as i64], (lo + r) as i64);
            *q = at(g, &liquid.phi, Stagger::Centre, ik, y, Outside::LevelSet);
        });
    crate::levelset::redistance(&spec, &mut raster, SWEEPS);
    let mut phi = liquid.phi.clone();
    for c in 0..n {
        for s in 0..g.slots() {
            let y = row(c, s);
            if (lo..hi).contains(&y) {
                phi[g.index(c, s)] = raster[cell(c, y - lo)];
            }
        }
        let bottom = row(c, 0);
        if bottom < lo {
            let top = phi[g.index(c, 1)];
            phi[g.index(c, 0)] = top - (row(c, 1) - bottom) as f32 * g.dx;
        }
    }
    liquid.phi = phi;
}
