//! Grid transfers of Lai et al. §4.3: cell-centred coarsening, the interpolation `P`
//! (compact barycentric, bi/trilinear or piecewise constant; Fig. 4.1/4.2) and one-sided
//! weights at solid boundaries; the restriction is `R = Pᵀ / 2^d` (¼ in 2D, ⅛ in 3D).

use super::ell::Ell;
use super::system::{Level, NONE};
use flip_abi::{CELL_AIR, CELL_FLUID, CELL_SOLID};
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

/// Coarse grid geometry: dims, cell kinds, unknowns (grid order) and their S flags (buffers
/// reused from one build to the next).
#[derive(Default)]
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
    /// Per coarse cell: some child is in S^h.
    s_cell: Vec<bool>,
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

/// Coarsens `fine` by 2 per axis (cell-centred) into `grid`.
pub(crate) fn coarse_grid(fine: &Level, grid: &mut CoarseGrid) {
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
    grid.dims = dims;
    grid.kind.resize(n, CELL_SOLID);
    grid.s_cell.resize(n, false);
    let f = fine.dims;
    let nk = if fine.dimension == 3 { 2 } else { 1 };
    let row = |(row, (ks, ss)): (usize, (&mut [u8], &mut [bool]))| {
        let (cj, ck) = (row % dims[1], row / dims[1]);
        for (ci, (k, s)) in ks.iter_mut().zip(ss.iter_mut()).enumerate() {
            (*k, *s) = (CELL_SOLID, false);
            for fk in (nk * ck..nk * ck + nk).filter(|&v| v < f[2]) {
                for fj in (2 * cj..2 * cj + 2).filter(|&v| v < f[1]) {
                    for fi in (2 * ci..2 * ci + 2).filter(|&v| v < f[0]) {
                        let c = fi + f[0] * (fj + f[1] * fk);
                        match fine.kind[c] {
                            CELL_FLUID => {
                                *k = CELL_FLUID;
                                let u = fine.unknown[c];
                                *s |= u != NONE && fine.s[u as usize];
                            }
                            CELL_AIR if *k == CELL_SOLID => *k = CELL_AIR,
                            _ => {}
                        }
                    }
                }
            }
        }
    };
    grid.kind
        .par_chunks_mut(dims[0])
        .zip(grid.s_cell.par_chunks_mut(dims[0]))
        .enumerate()
        .with_min_len(64)
        .for_each(row);
    grid.cells.clear();
    grid.cells
        .extend((0..n as u32).filter(|&c| grid.kind[c as usize] == CELL_FLUID));
    grid.index.clear();
    grid.index.resize(n, NONE);
    for (u, &c) in grid.cells.iter().enumerate() {
        grid.index[c as usize] = u as u32;
    }
    grid.s.clear();
    grid.s
        .extend(grid.cells.iter().map(|&c| grid.s_cell[c as usize]));
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
/// order), written into `out`. One-sided weights drop coarse points separated from the fine
/// point by a solid cell (a solid fine cell in the box between them) and, for
/// [`Boundary::OneSided`], renormalise the rest; coarse points without a fluid child are
/// Dirichlet (value 0) and are dropped after normalisation. Columns sorted within a row.
pub(crate) fn interpolation(
    fine: &Level,
    grid: &CoarseGrid,
    interp: Interpolation,
    boundary: Boundary,
    out: &mut Ell,
) {
    let dim = fine.dimension;
    let width = 1usize << dim;
    // Weight of offset `o` when the offsets in `mask` are kept: code `o << width | mask`.
    let total = |mask: usize| -> f64 {
        (0..width)
            .filter(|&o| mask >> o & 1 == 1)
            .map(|o| weight(interp, dim, o))
            .sum()
    };
    let norm = |total: f64| {
        if boundary == Boundary::OneSided && total > 0.0 {
            1.0 / total
        } else {
            1.0
        }
    };
    out.table.clear();
    out.table.extend((0..width << width).map(|code| {
        let (o, mask) = (code >> width, code & ((1 << width) - 1));
        weight(interp, dim, o) * norm(total(mask))
    }));
    let row = |u: usize, cs: &mut [u32], vs: &mut [f64], ks: &mut [u16]| -> u8 {
        let f = fine.ijk[u].map(|v| v as usize);
        let parent = [f[0] / 2, f[1] / 2, f[2] / 2];
        let side: [isize; 3] = std::array::from_fn(|a| if f[a] & 1 == 0 { -1 } else { 1 });
        let mut pts = [(NONE, 0.0f64, 0usize); 8];
        let (mut n, mut mask) = (0, 0);
        for o in 0..width {
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
                // A face closed between two fluid cells (a plate thinner than a cell) blocks
                // like a solid cell: every face crossed on the way through the box counts.
                let at = |sub: usize| std::array::from_fn(|a| f[a] as isize + step(a, sub));
                let blocked = (1..=o).filter(|&sub| sub & o == sub).any(|sub| {
                    let crossed = (0..dim)
                        .filter(|&a| sub >> a & 1 == 1)
                        .any(|a| fine.open_face(at(sub & !(1 << a)), a, side[a]) == 0.0);
                    crossed || fine.solid_at(at(sub))
                });
                if blocked {
                    continue;
                }
            }
            let ci = coarse[0] as usize
                + grid.dims[0] * (coarse[1] as usize + grid.dims[1] * coarse[2] as usize);
            pts[n] = (grid.index[ci], w, o);
            n += 1;
            mask |= 1 << o;
        }
        let total: f64 = pts[..n].iter().map(|p| p.1).sum();
        let norm = norm(total);
        let kept = &mut pts[..n];
        kept.sort_unstable_by_key(|p| p.0);
        let mut len = 0;
        for &(idx, w, o) in kept.iter().filter(|p| p.0 != NONE) {
            cs[len] = idx;
            vs[len] = w * norm;
            ks[len] = (o << width | mask) as u16;
            len += 1;
        }
        cs[len..].fill(0);
        vs[len..].fill(0.0);
        ks[len..].fill(0);
        len as u8
    };
    out.reset(fine.len(), width, grid.cells.len());
    let rows = out
        .col
        .par_chunks_mut(width)
        .zip(out.val.par_chunks_mut(width))
        .zip(out.code.par_chunks_mut(width))
        .zip(out.len.par_iter_mut())
        .enumerate()
        .with_min_len(1024);
    rows.for_each(|(u, (((cs, vs), ks), len))| *len = row(u, cs, vs, ks));
    debug_assert!((0..out.col.len()).all(|k| out.table[out.code[k] as usize] == out.val[k]));
}
