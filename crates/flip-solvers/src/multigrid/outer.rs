//! Kernels on the fine problem shared by the stand-alone solver and MGPCG. The outer vectors
//! live in level 0's colour-split layout (see `level`), so every kernel is a loop over
//! contiguous slices of the rows' spans of unknowns, and the preconditioner's input and output
//! (`level.b`, `level.x`) need no reordering. The problem's arrays are converted once per solve.
//!
//! Precision: the right-hand side, the iterate, the search direction and the true residual are
//! f64, and every stencil product is summed in f64, so the accuracy of a solve is not limited by
//! f32. MGPCG's recurrence residual and `q = A d` are stored in f32 (the residual is level 0's
//! `b`, the preconditioner's input): their rounding is relative to their own size, which falls
//! with the residual, and the solver restarts CG from the f64 true residual whenever the
//! recurrence claims convergence that the true residual does not confirm. The direction must
//! stay f64: A amplifies the rounding of a smooth vector by up to its condition number.

use super::level::{dispatch, Level, Neighbours, RowGeom};
use flip_sdk::{Problem, SolveError};
use rayon::prelude::*;

mod body_levels;
mod body_rows;
mod body_space;
mod io;
mod low_rank;
pub(crate) use body_levels::BodyLevels;
pub(crate) use body_space::BodySpace;
pub(crate) use io::{load, load_whole, store};
pub(crate) use low_rank::LowRank;

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

/// Colour-split f64 vectors of the outer iteration, kept between solves.
#[derive(Default)]
pub(crate) struct Vectors {
    /// Projected right-hand side.
    pub b: [Vec<f64>; 2],
    /// Pressure (iterate).
    pub p: [Vec<f64>; 2],
    /// CG search direction (the residual is level 0's `b`).
    pub d: [Vec<f64>; 2],
    /// `A d`.
    pub q: [Vec<f32>; 2],
    /// Per-row partial sums of reductions (summed in row order: thread-count independent).
    partial: Vec<f64>,
}

impl Vectors {
    /// Sizes the vectors for `level` (allocates only when the grid changed).
    pub fn fit(&mut self, level: &Level, cg: bool) {
        let n = level.rows() * level.half;
        for v in self.b.iter_mut().chain(&mut self.p) {
            if v.len() != n {
                *v = vec![0.0; n];
            }
        }
        if cg {
            for v in &mut self.d {
                if v.len() != n {
                    *v = vec![0.0; n];
                }
            }
            for v in &mut self.q {
                if v.len() != n {
                    *v = vec![0.0; n];
                }
            }
        }
        self.partial.resize(level.rows(), 0.0);
    }
}

/// Row geometry of colour `colour`, padded row `pr` of `level` (None when the span is empty).
#[inline(always)]
fn geom(level: &Level, colour: usize, pr: usize) -> Option<RowGeom> {
    let (lo, hi) = level.spans[colour][pr];
    (lo < hi).then(|| RowGeom {
        base: pr * level.half,
        lo: lo as usize,
        hi: hi as usize,
        e: (colour + level.row_parity(pr)) & 1,
        sy: level.half,
        sz: level.half * level.pdims[1],
    })
}

/// Couplings of colour `c` as slices.
fn offs(level: &Level, c: usize) -> [&[f32]; 3] {
    let o = &level.cs[c].off;
    [&o[0], &o[1], &o[2]]
}

/// `r = b - A p` on unknowns (f64), written as f32 into `level.b`; returns `max |r|`.
pub(crate) fn residual(level: &mut Level, v: &mut Vectors) -> f64 {
    let three_d = level.three_d();
    let w = f64::from(level.uniform.unwrap_or(0.0));
    let half = level.half;
    let min = level.min_rows();
    let mut max = 0.0f64;
    for colour in 0..2 {
        let ot = 1 - colour;
        let mut lb = std::mem::take(&mut level.cs[colour].b);
        let lv = &*level;
        let (off_me, off_ot) = (offs(lv, colour), offs(lv, ot));
        let (b, p) = (&v.b[colour], &v.p);
        let diag = &lv.cs[colour].diag;
        let m = lb
            .par_chunks_mut(half)
            .enumerate()
            .with_min_len(min)
            .map(|(pr, lb)| {
                let Some(g) = geom(lv, colour, pr) else {
                    return 0.0;
                };
                let uni = lv.row_uniform(pr);
                let nb = Neighbours::new(&g, off_me, off_ot, &p[ot][..], three_d, uni);
                let (bb, pp, dd) = (g.at(b, 0), g.at(&p[colour], 0), g.at(diag, 0));
                let lb = &mut lb[g.lo..g.hi];
                dispatch!(three_d, uni, residual_row, [], (&nb, w, bb, pp, dd, lb))
            })
            .reduce(|| 0.0, f64::max);
        level.cs[colour].b = lb;
        max = max.max(m);
    }
    max
}

#[inline(always)]
fn residual_row<const THREE_D: bool, const UNI: bool>(
    nb: &Neighbours<'_, f64>,
    w: f64,
    b: &[f64],
    p: &[f64],
    d: &[f32],
    lb: &mut [f32],
) -> f64 {
    let n = lb.len();
    let (b, p, d) = (&b[..n], &p[..n], &d[..n]);
    let mut m = 0.0f64;
    for t in 0..n {
        let v = b[t] - f64::from(d[t]) * p[t] - nb.sum64::<THREE_D, UNI>(w, t);
        // Non-unknowns (diag 0) inside the span: 0 (in uniform mode the neighbour sum is not).
        let v = if d[t] != 0.0 { v } else { 0.0 };
        lb[t] = v as f32;
        m = m.max(v.abs());
    }
    m
}

/// `p += level.x` on unknowns (the stand-alone solver's correction).
pub(crate) fn add_correction(level: &Level, v: &mut Vectors) {
    let half = level.half;
    for colour in 0..2 {
        let x = &level.cs[colour].x;
        v.p[colour]
            .par_chunks_mut(half)
            .enumerate()
            .with_min_len(level.min_rows())
            .for_each(|(pr, p)| {
                let Some(g) = geom(level, colour, pr) else {
                    return;
                };
                let x = g.at(x, 0);
                for (p, &x) in p[g.lo..g.hi].iter_mut().zip(x) {
                    *p += f64::from(x);
                }
            });
    }
}

/// Row-ordered (thread-count independent) sum of `f(colour, pr)` over both colours' rows.
fn row_sum(
    level: &Level,
    partial: &mut [f64],
    f: impl Fn(usize, &RowGeom) -> f64 + Sync + Send,
) -> f64 {
    partial
        .par_iter_mut()
        .enumerate()
        .with_min_len(level.min_rows())
        .for_each(|(pr, s)| {
            *s = (0..2)
                .map(|c| geom(level, c, pr).map_or(0.0, |g| f(c, &g)))
                .sum();
        });
    partial.iter().sum()
}

/// `r · z`, with `r = level.b` and `z = level.x`.
pub(crate) fn dot_rz(level: &Level, v: &mut Vectors) -> f64 {
    row_sum(level, &mut v.partial, |c, g| {
        let (r, z) = (g.at(&level.cs[c].b, 0), g.at(&level.cs[c].x, 0));
        r.iter()
            .zip(z)
            .map(|(&r, &z)| f64::from(r) * f64::from(z))
            .sum()
    })
}

/// With `z = level.x`: `d = z + β d`, `q = A z + β q` (so `q = A d` without a second pass over
/// `d`; `β = 0` starts a new direction); returns `d · q`.
pub(crate) fn direction(level: &Level, v: &mut Vectors, beta: f64) -> f64 {
    let three_d = level.three_d();
    let w = f64::from(level.uniform.unwrap_or(0.0));
    let half = level.half;
    let min = level.min_rows();
    for colour in 0..2 {
        let ot = 1 - colour;
        let (off_me, off_ot) = (offs(level, colour), offs(level, ot));
        let (z, zo) = (&level.cs[colour].x, &level.cs[ot].x);
        let diag = &level.cs[colour].diag;
        v.d[colour]
            .par_chunks_mut(half)
            .zip(v.q[colour].par_chunks_mut(half))
            .zip(v.partial.par_chunks_mut(1))
            .enumerate()
            .with_min_len(min)
            .for_each(|(pr, ((d, q), part))| {
                if colour == 0 {
                    part[0] = 0.0;
                }
                let Some(g) = geom(level, colour, pr) else {
                    return;
                };
                let uni = level.row_uniform(pr);
                let nb = Neighbours::new(&g, off_me, off_ot, &zo[..], three_d, uni);
                let (zz, dd) = (g.at(z, 0), g.at(diag, 0));
                let (d, q) = (&mut d[g.lo..g.hi], &mut q[g.lo..g.hi]);
                part[0] += dispatch!(
                    three_d,
                    uni,
                    direction_row,
                    [],
                    (&nb, w, beta, zz, dd, d, q)
                );
            });
    }
    v.partial.iter().sum()
}

#[inline(always)]
fn direction_row<const THREE_D: bool, const UNI: bool>(
    nb: &Neighbours<'_, f32>,
    w: f64,
    beta: f64,
    z: &[f32],
    diag: &[f32],
    d: &mut [f64],
    q: &mut [f32],
) -> f64 {
    let n = d.len();
    let (z, diag, q) = (&z[..n], &diag[..n], &mut q[..n]);
    // Non-unknowns (diag 0) inside the span: 0 (in uniform mode the neighbour sum is not).
    let az = |t: usize| {
        let v = f64::from(diag[t]) * f64::from(z[t]) + nb.sum64::<THREE_D, UNI>(w, t);
        if diag[t] != 0.0 {
            v
        } else {
            0.0
        }
    };
    let mut acc = 0.0f64;
    if beta == 0.0 {
        for t in 0..n {
            let a = az(t);
            d[t] = f64::from(z[t]);
            q[t] = a as f32;
            acc += d[t] * a;
        }
    } else {
        for t in 0..n {
            let a = az(t) + beta * f64::from(q[t]);
            d[t] = f64::from(z[t]) + beta * d[t];
            q[t] = a as f32;
            acc += d[t] * a;
        }
    }
    acc
}

/// `p += α d`, `r -= α q` (`r = level.b`); returns `max |r|`.
pub(crate) fn step(level: &mut Level, v: &mut Vectors, alpha: f64) -> f64 {
    let half = level.half;
    let min = level.min_rows();
    let alpha32 = alpha as f32;
    let mut max = 0.0f32;
    for colour in 0..2 {
        let mut lb = std::mem::take(&mut level.cs[colour].b);
        let lv = &*level;
        let (d, q) = (&v.d[colour], &v.q[colour]);
        let m = lb
            .par_chunks_mut(half)
            .zip(v.p[colour].par_chunks_mut(half))
            .enumerate()
            .with_min_len(min)
            .map(|(pr, (lb, p))| {
                let Some(g) = geom(lv, colour, pr) else {
                    return 0.0;
                };
                let (d, q) = (g.at(d, 0), g.at(q, 0));
                let (r, p) = (&mut lb[g.lo..g.hi], &mut p[g.lo..g.hi]);
                let mut m = 0.0f32;
                for t in 0..g.n() {
                    p[t] += alpha * d[t];
                    r[t] -= alpha32 * q[t];
                    m = m.max(r[t].abs());
                }
                m
            })
            .reduce(|| 0.0, f32::max);
        level.cs[colour].b = lb;
        max = max.max(m);
    }
    f64::from(max)
}
