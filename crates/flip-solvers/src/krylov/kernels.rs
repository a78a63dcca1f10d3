//! Vector kernels of the CG iteration, fused to save memory passes. Sums are taken per block
//! of whole grid rows (a block size fixed by the grid) and added in block order, so results
//! are bit-identical whatever the thread count.

use crate::stencil::Stencil;
use flip_abi::CELL_FLUID;
use flip_sdk::{Problem, SolveError};
use rayon::prelude::*;

/// The matrix of `p`, borrowing its arrays rather than `p` (so `p.pressure` stays writable).
pub(crate) fn stencil_of<'a>(p: &Problem<'a>) -> Stencil<'a> {
    Stencil {
        dims: p.dims,
        kind: p.cell_kind,
        diag: p.diag,
        off: p.off,
    }
}

/// Cells per reduction block: whole rows, about 4096 cells.
pub(crate) fn block_len(a: &Stencil<'_>) -> usize {
    let ni = a.dims[0].max(1);
    ni * (4096 / ni).max(1)
}

/// `q = A p`; returns `pᵀ q`.
pub(crate) fn apply_dot(a: &Stencil<'_>, p: &[f64], q: &mut [f64], partials: &mut Vec<f64>) -> f64 {
    let bs = block_len(a);
    q.par_chunks_mut(bs)
        .enumerate()
        .map(|(bi, out)| {
            let base = bi * bs;
            let mut sum = 0.0;
            for (i, o) in out.iter_mut().enumerate() {
                *o = a.row_dot(base + i, p);
                sum += p[base + i] * *o;
            }
            sum
        })
        .collect_into_vec(partials);
    partials.iter().sum()
}

/// `x += α p`, `r -= α q`; returns `‖r‖∞`.
pub(crate) fn update(alpha: f64, p: &[f64], q: &[f64], x: &mut [f64], r: &mut [f64]) -> f64 {
    x.par_iter_mut()
        .zip(r.par_iter_mut())
        .zip(p.par_iter().zip(q.par_iter()))
        .map(|((x, r), (p, q))| {
            *x += alpha * p;
            *r -= alpha * q;
            r.abs()
        })
        .reduce(|| 0.0, f64::max)
}

/// `p = z + β p`.
pub(crate) fn xpby(z: &[f64], beta: f64, p: &mut [f64]) {
    p.par_iter_mut()
        .zip(z.par_iter())
        .for_each(|(p, z)| *p = z + beta * *p);
}

/// Sets `x` to 0 off the fluid.
pub(crate) fn zero_off_fluid(a: &Stencil<'_>, x: &mut [f64]) {
    x.par_iter_mut().zip(a.kind.par_iter()).for_each(|(x, &k)| {
        if k != CELL_FLUID {
            *x = 0.0;
        }
    });
}

/// Copies `rhs` on the fluid cells into `b` (0 elsewhere).
pub(crate) fn restrict_to_fluid(a: &Stencil<'_>, rhs: &[f64], b: &mut [f64]) {
    b.par_iter_mut()
        .zip(rhs.par_iter().zip(a.kind.par_iter()))
        .for_each(|(b, (&v, &k))| *b = if k == CELL_FLUID { v } else { 0.0 });
}

/// Refuses a right-hand side with non-finite entries on the fluid.
///
/// # Errors
/// [`SolveError::BadValue`] naming the first such cell.
pub(crate) fn check_rhs(a: &Stencil<'_>, rhs: &[f64]) -> Result<(), SolveError> {
    let bad = (0..a.len())
        .into_par_iter()
        .find_first(|&c| a.kind[c] == CELL_FLUID && !rhs[c].is_finite());
    match bad {
        Some(c) => Err(SolveError::BadValue(format!(
            "rhs[{c}] = {} is not finite",
            rhs[c]
        ))),
        None => Ok(()),
    }
}

/// One step of the FxHash word mix.
#[inline]
fn mix(h: u64, word: u64) -> u64 {
    (h.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

/// A 64-bit hash of the matrix (dimensions, cell kinds, diagonal, couplings), used to detect
/// that the matrix is unchanged between solves.
pub(crate) fn matrix_hash(a: &Stencil<'_>, partials: &mut Vec<u64>) -> u64 {
    let bs = block_len(a);
    (0..a.len().div_ceil(bs))
        .into_par_iter()
        .map(|bi| {
            let mut h = bi as u64;
            for c in bi * bs..((bi + 1) * bs).min(a.len()) {
                let off = [a.off[0][c], a.off[1][c], a.off[2][c]].map(|o| u64::from(o.to_bits()));
                h = mix(
                    h,
                    u64::from(a.kind[c]) | u64::from(a.diag[c].to_bits()) << 8,
                );
                h = mix(h, off[0] | off[1] << 32);
                h = mix(h, off[2]);
            }
            h
        })
        .collect_into_vec(partials);
    let dims = a.dims.map(|d| d as u64);
    let seed = mix(mix(mix(0, dims[0]), dims[1]), dims[2]);
    partials.iter().fold(seed, |h, &p| mix(h, p))
}
