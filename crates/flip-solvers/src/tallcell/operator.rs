//! The point-wise Laplacian of a tall-cell level (the rule of the host's tall-cell assembly,
//! re-discretised on each coarse level): every liquid sample couples to its neighbours through
//! the paper's rule, the free surface by the ghost-fluid weight (Gibou et al. 2002) and solid
//! faces by their open fraction (`flip_sdk::stencil`); a tall cell's bottom row is the
//! divergence of the gradient over the block of its cells below the top one.

use super::grid::{Grid, Look};
use flip_sdk::stencil::dirichlet_weight;
use flip_sdk::{merge_row, CsrProblem};
use rayon::prelude::*;

/// Rows per parallel task of the residual, the transfers and the set-up (smaller levels run
/// on one thread).
pub const CHUNK: usize = 2048;

/// A square sparse matrix in compressed rows: the off-diagonal entries, and the diagonal
/// apart (with its inverse), so the smoother's inner loop has no branch.
#[derive(Clone, Debug, Default)]
pub struct Sparse {
    /// Row starts into `col`/`val`.
    pub row_ptr: Vec<usize>,
    /// Off-diagonal columns, increasing per row.
    pub col: Vec<u32>,
    /// Off-diagonal values.
    pub val: Vec<f64>,
    /// The diagonal.
    pub diag: Vec<f64>,
    /// `1 / diag`, 0 where the diagonal is 0 (such a row is left alone by the smoother).
    pub inv_diag: Vec<f64>,
}

impl Sparse {
    /// Rows.
    pub fn rows(&self) -> usize {
        self.diag.len()
    }

    /// Appends a row from `(column, value)` entries (any order, repeats summed); `entries` is
    /// used as scratch and left empty.
    pub fn push_row(&mut self, entries: &mut Vec<(u32, f64)>) {
        let r = self.rows() as u32;
        merge_row(entries);
        if self.row_ptr.is_empty() {
            self.row_ptr.push(0);
        }
        let d = entries.iter().find(|e| e.0 == r).map_or(0.0, |e| e.1);
        for &(c, v) in entries.iter().filter(|e| e.0 != r) {
            self.col.push(c);
            self.val.push(v);
        }
        self.row_ptr.push(self.col.len());
        self.diag.push(d);
        self.inv_diag.push(if d != 0.0 { 1.0 / d } else { 0.0 });
        entries.clear();
    }

    /// A copy of a problem's matrix.
    pub fn from_csr(p: &CsrProblem<'_>) -> Self {
        let mut m = Self::default();
        let mut row = Vec::new();
        for r in 0..p.rows() {
            row.extend(p.row(r).map(|(c, v)| (c as u32, v)));
            m.push_row(&mut row);
        }
        m
    }

    /// Row `r`'s entries, the diagonal included, by increasing column.
    pub fn row(&self, r: usize) -> impl Iterator<Item = (u32, f64)> + '_ {
        let off = (self.row_ptr[r]..self.row_ptr[r + 1]).map(|e| (self.col[e], self.val[e]));
        let (below, above): (Vec<_>, Vec<_>) = off.partition(|e| (e.0 as usize) < r);
        below
            .into_iter()
            .chain(std::iter::once((r as u32, self.diag[r])))
            .chain(above)
    }

    /// `Σ_c A[r][c]·x[c]` over the row's off-diagonal entries.
    #[inline]
    pub fn off_dot(&self, r: usize, x: &[f64]) -> f64 {
        let (lo, hi) = (self.row_ptr[r], self.row_ptr[r + 1]);
        let (cols, vals) = (&self.col[lo..hi], &self.val[lo..hi]);
        cols.iter().zip(vals).map(|(&c, v)| v * x[c as usize]).sum()
    }

    /// `out = b − A x`.
    pub fn residual(&self, b: &[f64], x: &[f64], out: &mut [f64]) {
        out.par_iter_mut()
            .with_min_len(CHUNK)
            .enumerate()
            .for_each(|(r, o)| *o = b[r] - self.diag[r] * x[r] - self.off_dot(r, x));
    }
}

/// The level's matrix (`scale` times the unit stencil), rows in the order of `row_of`.
pub fn assemble(g: &Grid, row_of: &[u32], scale: f64) -> Sparse {
    let samples: Vec<usize> = (0..row_of.len())
        .filter(|&n| row_of[n] != u32::MAX)
        .collect();
    let rows: Vec<Vec<(u32, f64)>> = samples
        .par_iter()
        .with_min_len(CHUNK)
        .map(|&n| row_entries(g, row_of, n, scale))
        .collect();
    let mut m = Sparse::default();
    for mut row in rows {
        m.push_row(&mut row);
    }
    m
}

/// The entries of sample `sample`'s row, `scale` times the unit stencil.
fn row_entries(g: &Grid, row_of: &[u32], sample: usize, scale: f64) -> Vec<(u32, f64)> {
    let r = row_of[sample];
    let mut row = Vec::with_capacity(16);
    let (c, s) = (sample / g.slots(), sample % g.slots());
    let (i, k) = (c % g.columns[0], c / g.columns[0]);
    let y = g.row(c, s) as i64;
    let own = g.lookup(c, y);
    row.push((r, 0.0f64));
    let block = s == 0 && g.tall[c] > 2;
    let below = if y > g.terrain[c] as i64 { 1.0 } else { 0.0 };
    let above = if y + 1 < g.height as i64 { 1.0 } else { 0.0 };
    for (w, ny) in [(below, y - 1), (above, y + 1)] {
        if w > 0.0 {
            couple(g, row_of, (own, w), g.lookup(c, ny), &mut row);
        }
    }
    let rows = if block {
        let h0 = g.terrain[c] as i64;
        h0..h0 + g.tall[c] as i64 - 1
    } else {
        y..y + 1
    };
    for yy in rows {
        let own = g.lookup(c, yy);
        let (sides, count) = g.sides(i, k, yy);
        for &(w, nb) in &sides[..count] {
            if w > 0.0 {
                couple(g, row_of, (own, w), g.lookup(nb, yy), &mut row);
            }
        }
    }
    for e in &mut row {
        e.1 *= scale;
    }
    row
}

/// Adds one face of the cell at `own` with open fraction `w` towards `nb` to `row`: the
/// ghost-fluid Dirichlet term towards air, else `w·(p_own − p_nb)`, each side spread over the
/// unknowns of its mix.
fn couple(g: &Grid, row_of: &[u32], (own, w): (Look, f32), nb: Look, row: &mut Vec<(u32, f64)>) {
    let phi_c = g.phi_at(own) as f32;
    let phi_n = g.phi_at(nb) as f32;
    // Summed in place: a tall cell's block row gathers a few columns from many faces.
    let mut add = |look: Look, coef: f64| {
        if let Look::Mix(parts) = look {
            for (sample, weight) in parts {
                let col = row_of[sample];
                if weight == 0.0 || col == u32::MAX {
                    continue;
                }
                match row.iter_mut().find(|e| e.0 == col) {
                    Some(e) => e.1 += coef * weight,
                    None => row.push((col, coef * weight)),
                }
            }
        }
    };
    match nb {
        Look::Mix(_) if phi_n < 0.0 => {
            add(own, f64::from(w));
            add(nb, -f64::from(w));
        }
        _ => add(own, f64::from(dirichlet_weight(w, phi_c, phi_n.max(0.0)))),
    }
}
