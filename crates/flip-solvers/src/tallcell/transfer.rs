//! Transfers between tall-cell levels (Chentanez & Müller 2011, "Restrict" / "Prolong"):
//! prolongation is bi-/trilinear interpolation of the coarse field at each fine sample, the
//! coarse field read through the paper's rule (inside a coarse tall cell the mix of its bottom
//! and top, the lowest sample below the terrain, zero in the air); restriction is its
//! transpose, so the residual is carried only by the samples (zero inside tall cells).

use super::grid::{Grid, Look};
use super::hierarchy::Level;
use super::operator::CHUNK;
use crate::hierarchy::Transfer;
use rayon::prelude::*;

/// The bi-/trilinear transfers of every level, each held by the finer level
/// ([`Level::from_coarse`]).
pub(crate) struct Trilinear;

impl Transfer<Level> for Trilinear {
    fn restrict(&self, fine: &Level, coarse: &mut Level, _: bool) {
        let p = fine.from_coarse.as_ref().expect("a coarser level");
        p.restrict(&fine.r, &mut coarse.b);
    }
    fn prolong(&self, coarse: &mut Level, fine: &mut Level, add: bool, _: Option<usize>) {
        let p = fine.from_coarse.as_ref().expect("a coarser level");
        if !add {
            fine.x.fill(0.0);
        }
        p.add_prolonged(&coarse.x, &mut fine.x);
    }
}

/// Interpolation weights of each fine unknown: `(coarse unknown, weight)` lists in compressed
/// rows (fine unknown `f`'s entries are `weights[start[f]..start[f + 1]]`), and the same
/// weights by coarse unknown (`(fine unknown, weight)`, the transpose) for the restriction.
#[derive(Clone, Debug, Default)]
pub struct Prolongation {
    start: Vec<usize>,
    weights: Vec<(u32, f64)>,
    t_start: Vec<usize>,
    t_weights: Vec<(u32, f64)>,
}

/// Linear weights of coordinate `t` (in coarse cells) between cells `floor(t)` and the next,
/// clamped into `0..n`.
fn axis(t: f64, n: usize) -> [(i64, f64); 2] {
    let t = t.clamp(0.0, (n - 1) as f64);
    let a = t.floor();
    let w = t - a;
    [(a as i64, 1.0 - w), (a as i64 + 1, w)]
}

/// Interpolation weights of the fine sample `sample` from `coarse`: the coarse field read
/// through its rule at the trilinear corners, as `(coarse unknown, weight)`.
fn sample_weights(
    fine: &Grid,
    sample: usize,
    coarse: &Grid,
    coarse_rows: &[u32],
) -> Vec<(u32, f64)> {
    let [nx, nz] = coarse.columns;
    let (c, s) = (sample / fine.slots(), sample % fine.slots());
    let (i, k) = (c % fine.columns[0], c / fine.columns[0]);
    let at = |v: usize| (v as f64 + 0.5) / 2.0 - 0.5;
    let y = at(fine.row(c, s));
    let ys = [
        (y.floor() as i64, 1.0 - y.fract()),
        (y.floor() as i64 + 1, y.fract()),
    ];
    let zs = if fine.dimension == 3 {
        axis(at(k), nz)
    } else {
        [(0, 1.0), (0, 0.0)]
    };
    let mut weights = Vec::with_capacity(16);
    for (ci, wx) in axis(at(i), nx) {
        for (ck, wz) in zs {
            for (cy, wy) in ys {
                let w = wx * wy * wz;
                if w == 0.0 {
                    continue;
                }
                let col = coarse.clamped(ci, ck);
                let parts = match coarse.lookup(col, cy) {
                    Look::Mix(p) => p,
                    Look::Solid(bottom) => [(bottom, 1.0), (bottom, 0.0)],
                    Look::Air(..) => continue,
                };
                for (cs, pw) in parts {
                    let cr = coarse_rows[cs];
                    if pw != 0.0 && cr != u32::MAX {
                        weights.push((cr, w * pw));
                    }
                }
            }
        }
    }
    weights
}

impl Prolongation {
    /// The weights from `coarse` (unknown rows `coarse_rows`) to the unknowns of `fine`.
    pub fn new(fine: &Grid, fine_rows: &[u32], coarse: &Grid, coarse_rows: &[u32]) -> Self {
        let samples: Vec<usize> = (0..fine_rows.len())
            .filter(|&n| fine_rows[n] != u32::MAX)
            .collect();
        let rows: Vec<Vec<(u32, f64)>> = samples
            .par_iter()
            .with_min_len(CHUNK)
            .map(|&n| sample_weights(fine, n, coarse, coarse_rows))
            .collect();
        let (mut start, mut weights) = (vec![0], Vec::new());
        for row in rows {
            weights.extend(row);
            start.push(weights.len());
        }
        let n_coarse = coarse_rows.iter().filter(|&&r| r != u32::MAX).count();
        let (t_start, t_weights) = transpose(&start, &weights, n_coarse);
        Self {
            start,
            weights,
            t_start,
            t_weights,
        }
    }

    /// `fine += P·coarse`.
    pub fn add_prolonged(&self, coarse: &[f64], fine: &mut [f64]) {
        let dot =
            |row: &[(u32, f64)]| -> f64 { row.iter().map(|&(c, w)| w * coarse[c as usize]).sum() };
        fine.par_iter_mut()
            .with_min_len(CHUNK)
            .enumerate()
            .for_each(|(f, v)| *v += dot(&self.weights[self.start[f]..self.start[f + 1]]));
    }

    /// `coarse = Pᵀ·fine`.
    pub fn restrict(&self, fine: &[f64], coarse: &mut [f64]) {
        let dot =
            |row: &[(u32, f64)]| -> f64 { row.iter().map(|&(f, w)| w * fine[f as usize]).sum() };
        coarse
            .par_iter_mut()
            .with_min_len(CHUNK)
            .enumerate()
            .for_each(|(c, v)| *v = dot(&self.t_weights[self.t_start[c]..self.t_start[c + 1]]));
    }
}

/// The compressed rows of the transpose of the `rows`-row matrix `(start, weights)` with
/// `cols` columns; entries keep the order of their rows.
fn transpose(
    start: &[usize],
    weights: &[(u32, f64)],
    cols: usize,
) -> (Vec<usize>, Vec<(u32, f64)>) {
    let mut t_start = vec![0usize; cols + 1];
    for &(c, _) in weights {
        t_start[c as usize + 1] += 1;
    }
    for c in 0..cols {
        t_start[c + 1] += t_start[c];
    }
    let mut fill = t_start.clone();
    let mut t_weights = vec![(0u32, 0.0); weights.len()];
    for (f, w) in start.windows(2).enumerate() {
        for &(c, x) in &weights[w[0]..w[1]] {
            t_weights[fill[c as usize]] = (f as u32, x);
            fill[c as usize] += 1;
        }
    }
    (t_start, t_weights)
}
