//! Transfers between tall-cell levels (Chentanez & Müller 2011, "Restrict" / "Prolong"):
//! prolongation is bi-/trilinear interpolation of the coarse field at each fine sample, the
//! coarse field read through the paper's rule (inside a coarse tall cell the mix of its bottom
//! and top, the lowest sample below the terrain, zero in the air); restriction is its
//! transpose, so the residual is carried only by the samples (zero inside tall cells).

use super::grid::{Grid, Look};

/// Interpolation weights of each fine unknown: `(coarse unknown, weight)` lists in compressed
/// rows (fine unknown `f`'s entries are `weights[start[f]..start[f + 1]]`).
#[derive(Clone, Debug, Default)]
pub struct Prolongation {
    start: Vec<usize>,
    weights: Vec<(u32, f64)>,
}

/// Linear weights of coordinate `t` (in coarse cells) between cells `floor(t)` and the next,
/// clamped into `0..n`.
fn axis(t: f64, n: usize) -> [(i64, f64); 2] {
    let t = t.clamp(0.0, (n - 1) as f64);
    let a = t.floor();
    let w = t - a;
    [(a as i64, 1.0 - w), (a as i64 + 1, w)]
}

impl Prolongation {
    /// The weights from `coarse` (unknown rows `coarse_rows`) to the unknowns of `fine`.
    pub fn new(fine: &Grid, fine_rows: &[u32], coarse: &Grid, coarse_rows: &[u32]) -> Self {
        let (mut start, mut weights) = (vec![0], Vec::new());
        let [nx, nz] = coarse.columns;
        for (sample, &r) in fine_rows.iter().enumerate() {
            if r == u32::MAX {
                continue;
            }
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
            start.push(weights.len());
        }
        Self { start, weights }
    }

    /// Each fine unknown's weights, in order.
    fn rows(&self) -> impl Iterator<Item = &[(u32, f64)]> {
        self.start.windows(2).map(|w| &self.weights[w[0]..w[1]])
    }

    /// `fine += P·coarse`.
    pub fn add_prolonged(&self, coarse: &[f64], fine: &mut [f64]) {
        for (f, row) in fine.iter_mut().zip(self.rows()) {
            *f += row
                .iter()
                .map(|&(c, w)| w * coarse[c as usize])
                .sum::<f64>();
        }
    }

    /// `coarse = Pᵀ·fine`.
    pub fn restrict(&self, fine: &[f64], coarse: &mut [f64]) {
        coarse.fill(0.0);
        for (&f, row) in fine.iter().zip(self.rows()) {
            for &(c, w) in row {
                coarse[c as usize] += w * f;
            }
        }
    }
}
