//! The multigrid hierarchy: coarse levels, their matrices (Galerkin `A^H = R A^h P` or direct
//! discretisation, Lai §4.3 / Table 12) and the transfer operators between them.

use super::csr::{inverse, Csr};
use super::system::{Level, NONE};
use super::transfer::{
    children, coarse_grid, interpolation, restriction, Boundary, CoarseGrid, CoarseMatrix,
    Interpolation,
};
use flip_plugin::abi::{CELL_AIR, CELL_SOLID};

/// Options of a hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MgOptions {
    /// Interpolation (and, transposed, restriction).
    pub interpolation: Interpolation,
    /// Boundary handling of the interpolation.
    pub boundary: Boundary,
    /// Coarse matrices.
    pub coarse: CoarseMatrix,
}

/// Stop coarsening at or below this many unknowns.
const COARSEST_UNKNOWNS: usize = 64;
/// At most this many levels.
const MAX_LEVELS: usize = 16;

/// Levels `0` (finest) … `L−1` (coarsest) with `p[l]: level l+1 → l` and `r[l]: l → l+1`.
pub(crate) struct Hierarchy {
    /// The levels.
    pub levels: Vec<Level>,
    /// Interpolations.
    pub p: Vec<Csr>,
    /// Restrictions.
    pub r: Vec<Csr>,
}

impl Hierarchy {
    /// Builds the hierarchy below `fine`.
    pub fn build(fine: Level, opts: MgOptions) -> Self {
        let mut levels = vec![fine];
        let (mut p, mut r) = (Vec::new(), Vec::new());
        // Direct discretisation: coarse couplings scale like h²/H² = ¼ per level relative to the
        // fine unit-coefficient stencil, consistent with R = Pᵀ/2^d (R A P ≈ A/4 per level).
        let mut scale = 1.0;
        loop {
            let fine = levels.last().expect("non-empty");
            let active = (0..fine.dimension).all(|a| fine.dims[a] > 2);
            if fine.len() <= COARSEST_UNKNOWNS || !active || levels.len() >= MAX_LEVELS {
                break;
            }
            let grid = coarse_grid(fine);
            if grid.cells.is_empty() || grid.cells.len() == fine.len() {
                break;
            }
            let pm = interpolation(fine, &grid, opts.interpolation, opts.boundary);
            let rm = restriction(&pm, fine.dimension);
            scale *= 0.25;
            let a = match opts.coarse {
                CoarseMatrix::Galerkin => rm.matmul(&fine.a.matmul(&pm)),
                CoarseMatrix::DirectDiscretisation => direct(fine, &grid, scale),
            };
            let (level, order) =
                Level::assemble(grid.dims, fine.dimension, grid.kind, grid.cells, a, grid.s);
            let inv = inverse(&order);
            let rows: Vec<u32> = (0..pm.n_rows() as u32).collect();
            let cols: Vec<u32> = (0..rm.n_cols as u32).collect();
            p.push(pm.permute(&rows, &inv));
            r.push(rm.permute(&order, &cols));
            levels.push(level);
        }
        Self { levels, p, r }
    }

    /// Restricts a fine vector to every level: `out[0] = v`, `out[l+1] = R out[l]`.
    pub fn restrict_all(&self, v: Vec<f64>) -> Vec<Vec<f64>> {
        let mut out = vec![v];
        for r in &self.r {
            let mut next = vec![0.0; r.n_rows()];
            r.mul(out.last().expect("non-empty"), &mut next);
            out.push(next);
        }
        out
    }
}

/// Direct discretisation on the coarse grid: each coarse face couples with `scale` times the
/// fraction of open fine faces across it (both fine cells non-solid); faces to coarse air cells
/// are Dirichlet (diagonal only), faces to solid are Neumann.
fn direct(fine: &Level, grid: &CoarseGrid, scale: f64) -> Csr {
    let dim = fine.dimension;
    let dims = grid.dims;
    let strides = [1, dims[0], dims[0] * dims[1]];
    let rows = grid
        .cells
        .iter()
        .enumerate()
        .map(|(u, &c)| {
            let c = c as usize;
            let cc = [c % dims[0], (c / dims[0]) % dims[1], c / strides[2]];
            let mut row = vec![(u as u32, 0.0)];
            for a in 0..dim {
                for dir in [-1isize, 1] {
                    let q = cc[a] as isize + dir;
                    if q < 0 || q as usize >= dims[a] {
                        continue;
                    }
                    let nb = (c as isize + dir * strides[a] as isize) as usize;
                    if grid.kind[nb] == CELL_SOLID {
                        continue;
                    }
                    let phi = open_fraction(fine, cc, a, dir);
                    if phi == 0.0 {
                        continue;
                    }
                    let w = scale * phi;
                    row[0].1 += w;
                    if grid.index[nb] != NONE {
                        row.push((grid.index[nb], -w));
                    } else {
                        debug_assert_eq!(grid.kind[nb], CELL_AIR);
                    }
                }
            }
            row
        })
        .collect();
    Csr::from_rows(grid.cells.len(), rows)
}

/// Fraction of the `2^{d−1}` fine faces across the face of coarse cell `cc` on axis `a`,
/// direction `dir`, whose two fine cells are both non-solid.
fn open_fraction(fine: &Level, cc: [usize; 3], a: usize, dir: isize) -> f64 {
    let mut open = 0usize;
    let mut total = 0usize;
    for f in children(fine, cc) {
        let fc = fine.coords(f);
        let on_face = if dir > 0 {
            fc[a] == 2 * cc[a] + 1
        } else {
            fc[a] == 2 * cc[a]
        };
        if !on_face {
            continue;
        }
        total += 1;
        let mut nb: [isize; 3] = fc.map(|x| x as isize);
        nb[a] += dir;
        if fine.kind[f] != CELL_SOLID && !fine.solid_at(nb) {
            open += 1;
        }
    }
    let nominal = 1usize << (fine.dimension - 1);
    if total == 0 {
        0.0
    } else {
        open as f64 / nominal as f64
    }
}
