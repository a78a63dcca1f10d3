//! Grid transfers of Lai et al. §4.3: cell-centred coarsening, the interpolation `P`
//! (compact barycentric, bi/trilinear or piecewise constant; Fig. 4.1/4.2), one-sided
//! weights at solid boundaries, and restriction `R = Pᵀ / 2^d` (¼ in 2D, ⅛ in 3D).

use super::csr::Csr;
use super::system::{Level, NONE};
use flip_plugin::abi::{CELL_AIR, CELL_FLUID, CELL_SOLID};
use rayon::prelude::*;

/// Interpolation between levels (Lai §4.3 and Table 12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// Compact barycentric: ½, ¼, ¼ in 2D (triangle of Fig. 4.1), ¼ × 4 in 3D (tetrahedron of
    /// Fig. 4.2). Second order with 3 (4) points instead of 4 (8).
    Barycentric,
    /// Bilinear / trilinear: 9/16, 3/16, 3/16, 1/16 in 2D; 27/64 … 1/64 in 3D.
    Trilinear,
    /// Piecewise constant: each fine cell takes its parent's value (Table 12 "PWC interp.").
    PiecewiseConstant,
}

/// How interpolation treats coarse points across a solid boundary (Lai §4.3, Fig. 4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boundary {
    /// Only coarse points on the same side of the solid; their weights renormalised to sum 1.
    OneSided,
    /// As `OneSided` but without renormalising (Lai's inner linear multigrid for PI/PE).
    OneSidedUnnormalised,
    /// Standard weights, ignoring the solid (Table 12 "Simple boundaries").
    Simple,
}

/// Construction of the coarse-level matrices (Lai §4.3 and Table 12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoarseMatrix {
    /// Galerkin `A^H = R A^h P`.
    Galerkin,
    /// Rediscretisation on the coarse grid from averaged open-face fractions (Chentanez &
    /// Müller's approach; Table 12 "Direct discretization").
    DirectDiscretisation,
}

/// Coarse grid geometry: dims, cell kinds, unknowns (grid order) and their S flags.
pub(crate) struct CoarseGrid {
    /// Cells per axis.
    pub dims: [usize; 3],
    /// Kind per coarse cell: fluid if a child is fluid, else air if a child is air, else solid.
    pub kind: Vec<u8>,
    /// Coarse unknowns (cells with a fluid child), grid order.
    pub cells: Vec<u32>,
    /// Coarse cell → index in `cells`.
    pub index: Vec<u32>,
    /// In S^H: some child is in S^h.
    pub s: Vec<bool>,
}

/// Children of coarse cell `c` (inside the fine grid).
pub(crate) fn children(fine: &Level, c: [usize; 3]) -> impl Iterator<Item = usize> + '_ {
    let nk = if fine.dimension == 3 { 2 } else { 1 };
    (0..nk).flat_map(move |dk| {
        (0..2).flat_map(move |dj| {
            (0..2).filter_map(move |di| {
                fine.index([
                    (2 * c[0] + di) as isize,
                    (2 * c[1] + dj) as isize,
                    (2 * c[2] + dk) as isize,
                ])
            })
        })
    })
}

/// Coarsens `fine` by 2 per axis (cell-centred).
pub(crate) fn coarse_grid(fine: &Level) -> CoarseGrid {
    let d = fine.dims;
    let dims = [
        d[0].div_ceil(2),
        d[1].div_ceil(2),
        if fine.dimension == 3 {
            d[2].div_ceil(2)
        } else {
            1
        },
    ];
    let n = dims[0] * dims[1] * dims[2];
    let mut kind = vec![CELL_SOLID; n];
    let mut s_flag = vec![false; n];
    for (c, k) in kind.iter_mut().enumerate() {
        let cc = [
            c % dims[0],
            (c / dims[0]) % dims[1],
            c / (dims[0] * dims[1]),
        ];
        for f in children(fine, cc) {
            match fine.kind[f] {
                CELL_FLUID => {
                    *k = CELL_FLUID;
                    let u = fine.unknown[f];
                    s_flag[c] |= u != NONE && fine.s[u as usize];
                }
                CELL_AIR if *k == CELL_SOLID => *k = CELL_AIR,
                _ => {}
            }
        }
    }
    let cells: Vec<u32> = (0..n as u32)
        .filter(|&c| kind[c as usize] == CELL_FLUID)
        .collect();
    let mut index = vec![NONE; n];
    for (u, &c) in cells.iter().enumerate() {
        index[c as usize] = u as u32;
    }
    let s = cells.iter().map(|&c| s_flag[c as usize]).collect();
    CoarseGrid {
        dims,
        kind,
        cells,
        index,
        s,
    }
}

/// Weight of the coarse point at offset `o` (bit per axis: moved one coarse cell towards the
/// fine point) for each interpolation.
fn weight(interp: Interpolation, dimension: usize, o: usize) -> f64 {
    let moved = o.count_ones() as usize;
    match interp {
        Interpolation::PiecewiseConstant => f64::from(u8::from(o == 0)),
        Interpolation::Trilinear => {
            0.75f64.powi((dimension - moved) as i32) * 0.25f64.powi(moved as i32)
        }
        Interpolation::Barycentric => match (dimension, moved) {
            (2, 0) => 0.5,
            (2, 1) => 0.25,
            (3, 0 | 1) => 0.25,
            _ => 0.0,
        },
    }
}

/// The interpolation `P` (rows: fine unknowns; columns: coarse unknowns in `grid.cells`
/// order). One-sided weights drop coarse points separated from the fine point by a solid cell
/// (a solid fine cell in the box between them) and, for [`Boundary::OneSided`], renormalise
/// the rest; coarse points without a fluid child are Dirichlet (value 0) and are dropped after
/// normalisation.
pub(crate) fn interpolation(
    fine: &Level,
    grid: &CoarseGrid,
    interp: Interpolation,
    boundary: Boundary,
) -> Csr {
    let dim = fine.dimension;
    let row = |u: usize| -> Vec<(u32, f64)> {
        let f = fine.coords(fine.cell[u] as usize);
        let parent = [f[0] / 2, f[1] / 2, f[2] / 2];
        let side: [isize; 3] = std::array::from_fn(|a| if f[a] & 1 == 0 { -1 } else { 1 });
        let mut pts: Vec<(Option<usize>, f64)> = Vec::with_capacity(8);
        for o in 0..(1usize << dim) {
            let w = weight(interp, dim, o);
            if w == 0.0 {
                continue;
            }
            let step = |a: usize, bits: usize| side[a] * ((bits >> a) & 1) as isize;
            let coarse: [isize; 3] = std::array::from_fn(|a| parent[a] as isize + step(a, o));
            let inside = (0..3).all(|a| coarse[a] >= 0 && (coarse[a] as usize) < grid.dims[a]);
            if !inside {
                continue;
            }
            if boundary != Boundary::Simple {
                // Same side: no solid fine cell in the box between f and the coarse point.
                let blocked = (1..=o).filter(|&sub| sub & o == sub).any(|sub| {
                    fine.solid_at(std::array::from_fn(|a| f[a] as isize + step(a, sub)))
                });
                if blocked {
                    continue;
                }
            }
            let ci = coarse[0] as usize
                + grid.dims[0] * (coarse[1] as usize + grid.dims[1] * coarse[2] as usize);
            let idx = grid.index[ci];
            pts.push(((idx != NONE).then_some(idx as usize), w));
        }
        let total: f64 = pts.iter().map(|p| p.1).sum();
        let norm = if boundary == Boundary::OneSided && total > 0.0 {
            1.0 / total
        } else {
            1.0
        };
        pts.into_iter()
            .filter_map(|(idx, w)| idx.map(|i| (i as u32, w * norm)))
            .collect()
    };
    let rows: Vec<Vec<(u32, f64)>> = (0..fine.len()).into_par_iter().map(row).collect();
    Csr::from_rows(grid.cells.len(), rows)
}

/// Restriction `R = Pᵀ / 2^d` (Lai §4.3: the scaled transpose preserves symmetry).
pub(crate) fn restriction(p: &Csr, dimension: usize) -> Csr {
    let mut r = p.transpose();
    r.scale(1.0 / (1u32 << dimension) as f64);
    r
}
