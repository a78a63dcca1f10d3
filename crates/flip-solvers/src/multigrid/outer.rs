//! f64 kernels on the fine problem shared by the stand-alone solver and MGPCG: the projected
//! right-hand side, the true residual handed to the f32 hierarchy, and corrections.

use super::level::Level;
use crate::neumann::Regions;
use crate::stencil::Stencil;
use flip_plugin::abi::CELL_FLUID;
use flip_plugin::sdk::{Problem, SolveError};
use rayon::prelude::*;

/// The matrix of `p` without borrowing `p` itself (so `p.pressure` stays writable).
pub(crate) fn stencil<'a>(p: &Problem<'a>) -> Stencil<'a> {
    Stencil {
        dims: p.dims,
        kind: p.cell_kind,
        diag: p.diag,
        off: p.off,
    }
}

/// Checks what a linear multigrid solve needs.
pub(crate) fn check(p: &Problem<'_>) -> Result<(), SolveError> {
    p.validate()
        .map_err(|e| SolveError::BadValue(e.to_string()))?;
    if p.lcp {
        return Err(SolveError::Unsupported(
            "multigrid solves the linear system only (lcp = 0)".into(),
        ));
    }
    Ok(())
}

/// `b = rhs` on fluid cells, 0 elsewhere, with its mean removed on singular regions.
pub(crate) fn projected_rhs(p: &Problem<'_>, regions: &Regions, b: &mut Vec<f64>) {
    b.clear();
    b.extend(
        p.rhs
            .iter()
            .zip(p.cell_kind)
            .map(|(&r, &k)| if k == CELL_FLUID { r } else { 0.0 }),
    );
    regions.remove_mean(b);
}

/// Sets the pressure of non-fluid cells to 0 (and non-finite guesses to 0).
pub(crate) fn clean_guess(p: &mut Problem<'_>) {
    let kind = p.cell_kind;
    p.pressure
        .par_iter_mut()
        .zip(kind.par_iter())
        .for_each(|(x, &k)| {
            if k != CELL_FLUID || !x.is_finite() {
                *x = 0.0;
            }
        });
}

/// `r = b - A x` on fluid cells, written as f32 into `level.b` (level 0); returns `max |r|`.
pub(crate) fn residual_to_level(a: &Stencil<'_>, b: &[f64], x: &[f64], level: &mut Level) -> f64 {
    let [ni, nj, _] = a.dims;
    let pi = level.pdims[0];
    let (pj, pz) = (level.pdims[1], level.pz);
    level
        .b
        .par_chunks_mut(pi)
        .enumerate()
        .map(|(pr, out)| {
            let (jp, kp) = (pr % pj, pr / pj);
            if jp == 0 || jp > nj || kp < pz || kp >= pz + a.dims[2] {
                return 0.0;
            }
            let base = ni * ((jp - 1) + nj * (kp - pz));
            let mut m = 0.0f64;
            for i in 0..ni {
                let c = base + i;
                let r = if a.kind[c] == CELL_FLUID {
                    b[c] - a.row_dot(c, x)
                } else {
                    0.0
                };
                out[i + 1] = r as f32;
                m = m.max(r.abs());
            }
            m
        })
        .reduce(|| 0.0, f64::max)
}

/// `p += x` (level 0's correction) on fluid cells.
pub(crate) fn add_correction(level: &Level, p: &mut [f64]) {
    let [ni, nj, _] = level.dims;
    p.par_chunks_mut(ni).enumerate().for_each(|(row, out)| {
        let base = level.at(0, row % nj, row / nj);
        for (i, v) in out.iter_mut().enumerate() {
            *v += f64::from(level.x.get(base + i));
        }
    });
}

/// Row-ordered (thread-count independent) sum of `f(row)` over the rows of an `ni`-wide grid.
pub(crate) fn row_sum(rows: usize, f: impl Fn(usize) -> f64 + Sync + Send) -> f64 {
    let partial: Vec<f64> = (0..rows).into_par_iter().map(f).collect();
    partial.iter().sum()
}
