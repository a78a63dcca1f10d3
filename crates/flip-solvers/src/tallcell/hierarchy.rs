//! The tall-cell multigrid hierarchy: levels down-sampled from the problem's grid until the
//! coarsest is small enough for a dense LU, each with its re-discretised matrix, its
//! red-black colouring and the prolongation from the next coarser level.

use super::coarsen::coarsen;
use super::grid::Grid;
use super::operator::{assemble, Sparse};
use super::smoother::SequentialRedBlack;
use super::transfer::{Prolongation, Trilinear};
use crate::hierarchy::{CoarseSolve, MultigridLevel};
use flip_sdk::TallCellProblem;

/// One level: its re-discretised matrix and the vectors of the cycles.
pub struct Level {
    /// Its matrix.
    pub matrix: Sparse,
    /// Rows by colour: `(i + k + y)` even, then odd.
    pub colours: [Vec<u32>; 2],
    /// Interpolation from the next coarser level (none on the coarsest).
    pub from_coarse: Option<Prolongation>,
    /// Iterate.
    pub x: Vec<f64>,
    /// Right-hand side.
    pub b: Vec<f64>,
    /// Residual `b - A x`, input of the restriction.
    pub r: Vec<f64>,
}

impl Level {
    /// A level of `matrix` with zero vectors.
    fn new(matrix: Sparse, colours: [Vec<u32>; 2]) -> Self {
        let n = matrix.rows();
        Self {
            matrix,
            colours,
            from_coarse: None,
            x: vec![0.0; n],
            b: vec![0.0; n],
            r: vec![0.0; n],
        }
    }
}

impl MultigridLevel for Level {
    type Smoother = SequentialRedBlack;
    type Transfer = Trilinear;
    type Coarse = DenseLu;
    type Build = ();
    fn residual(&mut self, _: bool) {
        self.matrix.residual(&self.b, &self.x, &mut self.r);
    }
    fn zero_x(&mut self) {
        self.x.fill(0.0);
    }
}

/// The tall-cell hierarchy: levels finest first, the coarsest solved by dense LU.
pub type Hierarchy = crate::hierarchy::Hierarchy<Level>;

/// Rows of the unknowns of `g` by colour.
fn colours(g: &Grid, rows: &[u32]) -> [Vec<u32>; 2] {
    let mut out = [Vec::new(), Vec::new()];
    for (sample, &r) in rows.iter().enumerate() {
        if r != u32::MAX {
            let (c, s) = (sample / g.slots(), sample % g.slots());
            let (i, k) = (c % g.columns[0], c / g.columns[0]);
            out[(i + k + g.row(c, s)) % 2].push(r);
        }
    }
    out
}

impl Hierarchy {
    /// Builds the levels of `p`: the finest level's matrix is the problem's; coarser levels
    /// are re-discretised (`2^(d−2)` per level, the factor that makes `Pᵀ A P` and the
    /// re-discretised unit stencil agree) and stop at `coarsest` unknowns. The bubble rule
    /// applies to φ on the first `bubble_levels` down-samplings.
    /// `sweeps`: smoothing sweeps before and after each coarse correction.
    pub fn new(
        p: &TallCellProblem<'_>,
        coarsest: usize,
        bubble_levels: usize,
        sweeps: usize,
    ) -> Self {
        let mut grid = Grid::from_geometry(&p.geometry);
        let mut rows = vec![u32::MAX; grid.phi.len()];
        for (r, &s) in p.geometry.row_sample.iter().enumerate() {
            rows[s as usize] = r as u32;
        }
        let factor = if grid.dimension == 3 { 2.0 } else { 1.0 };
        let mut scale = 1.0;
        let mut levels = vec![Level::new(Sparse::from_csr(&p.csr), colours(&grid, &rows))];
        while levels.last().map_or(0, |l| l.matrix.rows()) > coarsest
            && grid.columns.iter().any(|&n| n > 1)
        {
            let next = coarsen(&grid, levels.len() <= bubble_levels);
            let next_rows = next.unknowns();
            if next_rows.iter().all(|&r| r == u32::MAX) {
                break;
            }
            scale *= factor;
            let last = levels.last_mut().expect("the finest level");
            last.from_coarse = Some(Prolongation::new(&grid, &rows, &next, &next_rows));
            levels.push(Level::new(
                assemble(&next, &next_rows, scale),
                colours(&next, &next_rows),
            ));
            (grid, rows) = (next, next_rows);
        }
        let coarse = DenseLu::new(&levels.last().expect("one level").matrix);
        Self {
            levels,
            coarse,
            smoother: SequentialRedBlack,
            transfer: Trilinear,
            sweeps: [sweeps; 2],
            build: (),
        }
    }
}

/// The exact coarse correction `x + A⁻¹ (b − A x)` is `A⁻¹ b`.
impl CoarseSolve<Level> for DenseLu {
    fn solve(&mut self, level: &mut Level) {
        DenseLu::solve(self, &level.b, &mut level.x);
    }
    fn correct(&mut self, level: &mut Level) {
        DenseLu::solve(self, &level.b, &mut level.x);
    }
}

/// Dense LU with partial pivoting of a small matrix; a zero pivot pins its unknown to 0.
pub struct DenseLu {
    n: usize,
    lu: Vec<f64>,
    perm: Vec<usize>,
}

impl DenseLu {
    /// Factors `m`.
    pub fn new(m: &Sparse) -> Self {
        let n = m.rows();
        let mut lu = vec![0.0; n * n];
        for r in 0..n {
            for (c, v) in m.row(r) {
                lu[r * n + c as usize] = v;
            }
        }
        let mut perm: Vec<usize> = (0..n).collect();
        for j in 0..n {
            let p = (j..n)
                .max_by(|&a, &b| lu[a * n + j].abs().total_cmp(&lu[b * n + j].abs()))
                .unwrap_or(j);
            if p != j {
                for c in 0..n {
                    lu.swap(p * n + c, j * n + c);
                }
                perm.swap(p, j);
            }
            let d = lu[j * n + j];
            if d.abs() < 1e-14 {
                continue;
            }
            for r in j + 1..n {
                let f = lu[r * n + j] / d;
                lu[r * n + j] = f;
                if f != 0.0 {
                    for c in j + 1..n {
                        lu[r * n + c] -= f * lu[j * n + c];
                    }
                }
            }
        }
        Self { n, lu, perm }
    }

    /// `x = A⁻¹ b`.
    pub fn solve(&self, b: &[f64], x: &mut [f64]) {
        let n = self.n;
        let mut y: Vec<f64> = self.perm.iter().map(|&p| b[p]).collect();
        for r in 0..n {
            let s: f64 = (0..r).map(|c| self.lu[r * n + c] * y[c]).sum();
            y[r] -= s;
        }
        for r in (0..n).rev() {
            let s: f64 = (r + 1..n).map(|c| self.lu[r * n + c] * y[c]).sum();
            let d = self.lu[r * n + r];
            y[r] = if d.abs() < 1e-14 { 0.0 } else { (y[r] - s) / d };
        }
        x.copy_from_slice(&y);
    }
}
