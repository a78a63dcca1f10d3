//! The problem's arrays into the outer iteration's colour-split vectors and back.

use super::Vectors;
use crate::multigrid::level::Level;
use crate::multigrid::projection::remove_mean;
use flip_sdk::regions::Regions;
use flip_sdk::Problem;
use rayon::prelude::*;

/// [`load`] of a whole problem (every row of the level).
pub(crate) fn load_whole(
    p: &Problem<'_>,
    level: &Level,
    regions: &Regions,
    v: &mut Vectors,
) -> f64 {
    load(p, level, regions, v, 0, 0..level.rows())
}

/// Loads the projected right-hand side (`rhs` on unknowns, 0 elsewhere, mean removed on
/// singular regions) and the initial guess (non-finite values and non-unknowns set to 0) into
/// `v.b` and `v.p` on the padded `rows` (all, or a rank's owned rows: the others are never
/// read there and stay untouched); returns `‖b‖∞`. The problem's cell 0 is the level's cell
/// `origin` (0, or a rank's slab, whose cells the level's spans are then limited to).
pub(crate) fn load(
    p: &Problem<'_>,
    level: &Level,
    regions: &Regions,
    v: &mut Vectors,
    origin: usize,
    rows: std::ops::Range<usize>,
) -> f64 {
    let half = level.half;
    let [ni, nj, _] = level.dims;
    let min = level.min_rows();
    let mut bmax = 0.0f64;
    for colour in 0..2 {
        let m = v.b[colour]
            .par_chunks_mut(half)
            .zip(v.p[colour].par_chunks_mut(half))
            .enumerate()
            .with_min_len(min)
            .map(|(pr, (b, x))| {
                if !rows.contains(&pr) {
                    return 0.0;
                }
                let (lo, hi) = level.spans[colour][pr];
                b.fill(0.0);
                x.fill(0.0);
                if lo >= hi {
                    return 0.0;
                }
                let (j, k) = level.row_jk(pr).expect("unknowns lie on interior rows");
                let e = (colour + level.row_parity(pr)) & 1;
                let inv = &level.cs[colour].inv_diag[pr * half..][..half];
                // Entry h is cell ip = 2h + e, i = ip - 1.
                let base = (ni * (j + nj * k)) as isize + e as isize - 1 - origin as isize;
                let mut m = 0.0f64;
                for h in lo as usize..hi as usize {
                    if inv[h] != 0.0 {
                        let c = (base + 2 * h as isize) as usize;
                        let g = p.pressure[c];
                        b[h] = p.rhs[c];
                        x[h] = if g.is_finite() { g } else { 0.0 };
                        m = m.max(b[h].abs());
                    }
                }
                m
            })
            .reduce(|| 0.0, f64::max);
        bmax = bmax.max(m);
    }
    if regions.any_singular() {
        remove_mean(regions, level, &mut v.b);
        bmax =
            v.b.iter()
                .map(|b| b.par_iter().map(|x| x.abs()).reduce(|| 0.0, f64::max))
                .fold(0.0, f64::max);
    }
    bmax
}

/// Writes the iterate back: `pressure = p` on unknowns, 0 on every other cell. The problem's
/// cell 0 is the level's cell `origin` (a multiple of the row length).
pub(crate) fn store(p: &mut Problem<'_>, level: &Level, v: &Vectors, origin: usize) {
    let [ni, nj, _] = level.dims;
    let first_row = origin / ni;
    let half = level.half;
    p.pressure
        .par_chunks_mut(ni)
        .enumerate()
        .with_min_len(level.min_rows())
        .for_each(|(row, out)| {
            let row = row + first_row;
            let pr = level.at(0, row % nj, row / nj) / level.pdims[0];
            let q = level.row_parity(pr);
            out.fill(0.0);
            for colour in 0..2 {
                let (lo, hi) = level.spans[colour][pr];
                let e = (colour + q) & 1;
                let src = &v.p[colour][pr * half..][..half];
                let inv = &level.cs[colour].inv_diag[pr * half..][..half];
                for h in lo as usize..hi as usize {
                    if inv[h] != 0.0 {
                        out[2 * h + e - 1] = src[h];
                    }
                }
            }
        });
}
