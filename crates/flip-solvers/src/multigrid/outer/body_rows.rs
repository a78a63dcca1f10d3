//! `J` on a level by cells: per body, each cell its columns touch once, with the body's `dofs`
//! values there. A product with `J` or `Jᵀ` then visits a cell once per body, not once per
//! column (a 3D body has 6), and the visits of different bodies run in parallel where they
//! only read.

use crate::multigrid::level::Level;
use rayon::prelude::*;

/// A cell of a level: unpadded `(i, j, k)`, then colour and colour-split index.
pub(super) type Cell = ([usize; 3], (usize, usize));

/// `J`'s rows on one level's unknowns, grouped by body.
#[derive(Clone)]
pub(super) struct BodyRows {
    dofs: usize,
    /// Start of each body's cells in `cells`.
    start: Vec<usize>,
    cells: Vec<Cell>,
    /// `dofs` values a cell.
    values: Vec<f64>,
}

impl BodyRows {
    /// Rows from each body's `(cell, dof, value)` entries, the cell as `level`'s unpadded
    /// natural index `i + ni (j + nj k)`, in any order. Values at one cell and dof are summed;
    /// a body's cells come in that index's order; cells that are not unknowns are dropped.
    pub fn build(level: &Level, dofs: usize, per_body: Vec<Vec<(usize, usize, f64)>>) -> Self {
        let built = (per_body.into_par_iter())
            .map(|entries| merge(level, dofs, entries))
            .collect();
        Self::from_rows(dofs, built)
    }

    /// Rows from each body's cells and their values, `dofs` a cell.
    pub fn from_rows(dofs: usize, built: Vec<(Vec<Cell>, Vec<f64>)>) -> Self {
        let mut out = Self {
            dofs,
            start: Vec::with_capacity(built.len() + 1),
            cells: Vec::new(),
            values: Vec::new(),
        };
        out.start.push(0);
        for (cells, values) in built {
            out.cells.extend(cells);
            out.values.extend(values);
            out.start.push(out.cells.len());
        }
        out
    }

    pub fn dofs(&self) -> usize {
        self.dofs
    }

    pub fn bodies(&self) -> usize {
        self.start.len() - 1
    }

    /// Body `b`'s cells and their values, `dofs` a cell.
    pub fn body(&self, b: usize) -> (&[Cell], &[f64]) {
        let range = self.start[b]..self.start[b + 1];
        let values = &self.values[range.start * self.dofs..range.end * self.dofs];
        (&self.cells[range], values)
    }

    /// Every body's cells, in the order [`Self::for_each_of_j_times`] visits them.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// `Jᵀ x` for a colour-split `x` (`bodies · dofs` values).
    pub fn transpose_times<T: Copy + Into<f64> + Sync>(&self, x: [&[T]; 2]) -> Vec<f64> {
        let dofs = self.dofs;
        let per_body: Vec<Vec<f64>> = (0..self.bodies())
            .into_par_iter()
            .map(|b| {
                let (cells, values) = self.body(b);
                let mut acc = vec![0.0; dofs];
                for (&(_, (colour, index)), row) in cells.iter().zip(values.chunks(dofs)) {
                    let x: f64 = x[colour][index].into();
                    for (a, v) in acc.iter_mut().zip(row) {
                        *a += v * x;
                    }
                }
                acc
            })
            .collect();
        per_body.concat()
    }

    /// Calls `f((colour, index), (J_b w_b)[cell])` for every body `b` and cell of it, in
    /// [`Self::cells`]' order (a cell two bodies touch comes once for each).
    pub fn for_each_of_j_times(&self, w: &[f64], mut f: impl FnMut((usize, usize), f64)) {
        let dofs = self.dofs;
        for b in 0..self.bodies() {
            let (cells, values) = self.body(b);
            let wb = &w[b * dofs..(b + 1) * dofs];
            for (&(_, at), row) in cells.iter().zip(values.chunks(dofs)) {
                f(at, row.iter().zip(wb).map(|(v, w)| v * w).sum());
            }
        }
    }

    /// Column `q`'s entries on its body's cells (zero where only the body's other columns
    /// have one).
    pub fn column(&self, q: usize) -> impl Iterator<Item = (Cell, f64)> + '_ {
        let (b, d) = (q / self.dofs, q % self.dofs);
        let (cells, values) = self.body(b);
        (cells.iter().zip(values.chunks(self.dofs))).map(move |(&cell, row)| (cell, row[d]))
    }
}

/// One body's cells and values from its entries (see [`BodyRows::build`]), sorted by a packed
/// `(cell, dof)` key.
fn merge(level: &Level, dofs: usize, entries: Vec<(usize, usize, f64)>) -> (Vec<Cell>, Vec<f64>) {
    let [ni, nj, _] = level.dims;
    let mut keyed: Vec<(usize, f64)> = (entries.into_iter())
        .map(|(n, d, v)| (n * dofs + d, v))
        .collect();
    keyed.sort_unstable_by_key(|&(key, _)| key);
    let (mut cells, mut values) = (Vec::new(), Vec::new());
    for cell in keyed.chunk_by(|a, b| a.0 / dofs == b.0 / dofs) {
        let n = cell[0].0 / dofs;
        let (i, j, k) = (n % ni, (n / ni) % nj, n / (ni * nj));
        let c = level.at(i, j, k);
        if !level.is_unknown(c) {
            continue;
        }
        cells.push(([i, j, k], level.split(c)));
        let at = values.len();
        values.resize(at + dofs, 0.0);
        for &(key, v) in cell {
            values[at + key % dofs] += v;
        }
    }
    (cells, values)
}
