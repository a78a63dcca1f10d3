//! A pressure problem that owns its arrays: what a host assembles into, what solver tests and
//! benchmarks build, and what a dump file holds. [`OwnedProblem::view`] lends it as a
//! [`Problem`].

use super::Problem;
use crate::abi::{CELL_AIR, CELL_FLUID, CELL_SOLID};

/// Owned arrays of a pressure problem (meaning of every field: `abi::PressureProblem`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OwnedProblem {
    /// Cells per axis (`[ni, nj, 1]` in 2D).
    pub dims: [usize; 3],
    /// 2 or 3.
    pub dimension: usize,
    /// Cell size (m).
    pub dx: f64,
    /// Solve the LCP on `complementarity` cells.
    pub lcp: bool,
    /// Step index.
    pub step: u64,
    /// `CELL_*`.
    pub cell_kind: Vec<u8>,
    /// Diagonal.
    pub diag: Vec<f32>,
    /// +x, +y, +z couplings.
    pub off: [Vec<f32>; 3],
    /// Right-hand side.
    pub rhs: Vec<f64>,
    /// Liquid signed distance.
    pub liquid_phi: Vec<f32>,
    /// Solid signed distance.
    pub solid_phi: Vec<f32>,
    /// Set S.
    pub complementarity: Vec<u8>,
    /// Solution / initial guess.
    pub pressure: Vec<f64>,
}

impl OwnedProblem {
    /// A problem with every cell air and zero arrays.
    pub fn empty(dims: [usize; 3], dx: f64) -> Self {
        let n = dims[0] * dims[1] * dims[2];
        Self {
            dims,
            dimension: if dims[2] == 1 { 2 } else { 3 },
            dx,
            cell_kind: vec![CELL_AIR; n],
            diag: vec![0.0; n],
            off: [vec![0.0; n], vec![0.0; n], vec![0.0; n]],
            rhs: vec![0.0; n],
            liquid_phi: vec![0.0; n],
            solid_phi: vec![1.0; n],
            complementarity: vec![0; n],
            pressure: vec![0.0; n],
            ..Self::default()
        }
    }

    /// Number of cells.
    pub fn cell_count(&self) -> usize {
        self.cell_kind.len()
    }

    /// Linear index of `(i, j, k)`.
    pub fn index(&self, i: usize, j: usize, k: usize) -> usize {
        i + self.dims[0] * (j + self.dims[1] * k)
    }

    /// Builds the unit-coefficient 5/7-point matrix from `cell_kind` (air = Dirichlet, solid
    /// and outside the grid = Neumann), as the host assembles it. Leaves `rhs` alone.
    pub fn assemble_matrix(&mut self) {
        let [ni, nj, nk] = self.dims;
        let strides = [1, ni, ni * nj];
        for c in 0..self.cell_count() {
            self.diag[c] = 0.0;
            for a in 0..3 {
                self.off[a][c] = 0.0;
            }
            if self.cell_kind[c] != CELL_FLUID {
                continue;
            }
            let pos = [c % ni, (c / ni) % nj, c / (ni * nj)];
            for a in 0..self.dimension {
                for dir in [-1isize, 1] {
                    let q = pos[a] as isize + dir;
                    if q < 0 || q as usize >= [ni, nj, nk][a] {
                        continue;
                    }
                    let nb = (c as isize + dir * strides[a] as isize) as usize;
                    match self.cell_kind[nb] {
                        CELL_SOLID => {}
                        CELL_FLUID => {
                            self.diag[c] += 1.0;
                            if dir == 1 {
                                self.off[a][c] = -1.0;
                            }
                        }
                        _ => self.diag[c] += 1.0,
                    }
                }
            }
        }
    }

    /// The SDK view of this problem (what a plugin receives).
    pub fn view(&mut self) -> Problem<'_> {
        Problem {
            dims: self.dims,
            dimension: self.dimension,
            dx: self.dx,
            lcp: self.lcp,
            step: self.step,
            cell_kind: &self.cell_kind,
            diag: &self.diag,
            off: [&self.off[0], &self.off[1], &self.off[2]],
            rhs: &self.rhs,
            liquid_phi: &self.liquid_phi,
            solid_phi: &self.solid_phi,
            complementarity: &self.complementarity,
            pressure: &mut self.pressure,
        }
    }

    /// Copies a view (for solvers that build modified systems).
    pub fn from_view(p: &Problem<'_>) -> Self {
        Self {
            dims: p.dims,
            dimension: p.dimension,
            dx: p.dx,
            lcp: p.lcp,
            step: p.step,
            cell_kind: p.cell_kind.to_vec(),
            diag: p.diag.to_vec(),
            off: [p.off[0].to_vec(), p.off[1].to_vec(), p.off[2].to_vec()],
            rhs: p.rhs.to_vec(),
            liquid_phi: p.liquid_phi.to_vec(),
            solid_phi: p.solid_phi.to_vec(),
            complementarity: p.complementarity.to_vec(),
            pressure: p.pressure.to_vec(),
        }
    }
}
