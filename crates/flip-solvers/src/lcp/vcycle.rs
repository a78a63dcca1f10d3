//! The FAS V-cycle of Lai et al. Alg. 3 on a hierarchy whose finest level is smoothed in grid
//! layout ([`GridLevel`]) and whose coarse levels are compact Galerkin levels. Every vector is
//! kept between cycles and solves ([`Work`]); nothing is allocated per cycle.

use super::coarse::Hierarchy;
use super::csr::{parallel, Csr};
use super::grid::GridLevel;
use super::system::Level;
use super::{gridsmooth, smooth};
use rayon::prelude::*;

/// The coarsest level is relaxed until its residual drops by this factor.
pub(crate) const COARSEST_REDUCTION: f64 = 1e-3;
/// … or for at most this many sweeps.
pub(crate) const COARSEST_SWEEPS: usize = 400;

/// Vectors of one level (the finest in grid layout, the others compact).
#[derive(Default)]
pub(crate) struct Work {
    /// `rhs` restricted to this level (Lai's `−b^l`).
    pub g: Vec<f64>,
    /// `g + f`: right-hand side of the bound-constrained form of `N(x) = f` (coarse levels;
    /// `g` itself on the finest, where `f = 0`).
    pub t: Vec<f64>,
    /// Its lower bounds (`f / a_ii` on S, −∞ elsewhere).
    pub lo: Vec<f64>,
    /// Iterate.
    pub x: Vec<f64>,
    /// Residual `f − N(x)` (0 on black cells of the finest level, see
    /// [`gridsmooth::residual_scaled`]).
    pub r: Vec<f64>,
    /// `R x^h` before the coarse solve (coarse levels).
    pub x0: Vec<f64>,
    /// `R r^h` (coarse levels; scratch of the residual norm on the finest).
    pub rr: Vec<f64>,
    /// `R x^h` and `R r^h` in grid order (level 1).
    pub gx: Vec<f64>,
    pub gr: Vec<f64>,
}

/// Loads the finest level's vectors in grid layout. Kernels leave 0 (−∞ in `lo`) on cells that
/// are not unknowns, so a new solve only clears the positions the previous one wrote.
#[derive(Default)]
pub(crate) struct Finest {
    written: Vec<u32>,
}

impl Finest {
    /// `g = rhs`, `lo` = 0 on S and −∞ elsewhere, `x = x0`, `r = 0` (its black cells stay 0, see
    /// [`gridsmooth::residual_scaled`]); `rr` sized as scratch.
    pub fn load(&mut self, grid: &GridLevel, s: &[bool], rhs: &[f64], x0: &[f64], w: &mut Work) {
        let len = grid.layout.len();
        if w.g.len() == len {
            for &q in &self.written {
                let q = q as usize;
                (w.g[q], w.x[q], w.r[q], w.lo[q]) = (0.0, 0.0, 0.0, f64::NEG_INFINITY);
            }
        } else {
            for (v, fill) in [
                (&mut w.g, 0.0),
                (&mut w.x, 0.0),
                (&mut w.r, 0.0),
                (&mut w.lo, f64::NEG_INFINITY),
            ] {
                v.clear();
                v.resize(len, fill);
            }
            w.rr.resize(len, 0.0);
        }
        for (u, &q) in grid.pos.iter().enumerate() {
            let q = q as usize;
            (w.g[q], w.x[q]) = (rhs[u], x0[u]);
            w.lo[q] = if s[u] { 0.0 } else { f64::NEG_INFINITY };
        }
        self.written.clone_from(&grid.pos);
    }

    /// `x = x0` at the unknowns.
    pub fn reset_x(&self, grid: &GridLevel, x0: &[f64], x: &mut [f64]) {
        for (&q, &v) in grid.pos.iter().zip(x0) {
            x[q as usize] = v;
        }
    }
}

/// Smoothing and residuals of one level, in grid layout or compact.
#[derive(Clone, Copy)]
pub(crate) enum Ops<'a> {
    /// The finest level.
    Grid(&'a GridLevel),
    /// A compact level.
    Compact(&'a Level),
}

impl Ops<'_> {
    /// One projected Gauss-Seidel sweep.
    pub fn sweep(self, t: &[f64], lo: &[f64], x: &mut [f64]) {
        match self {
            Ops::Grid(g) => gridsmooth::sweep(g, t, lo, x),
            Ops::Compact(l) => smooth::sweep(l, t, lo, x),
        }
    }

    /// The residual with diagonally scaled S rows (`f − N(x)` of Alg. 3) of `x` just relaxed
    /// by [`Ops::sweep`] (see [`gridsmooth::residual_scaled`]).
    pub fn residual_scaled(self, t: &[f64], lo: &[f64], x: &[f64], r: &mut [f64]) {
        match self {
            Ops::Grid(g) => gridsmooth::residual_scaled(g, t, lo, x, r, true),
            Ops::Compact(l) => smooth::residual_scaled(l, t, lo, x, r),
        }
    }

    /// `max |min(x − lo, A x − t)|` (`scratch` as long as `x`); `after_sweep` when `x` was just
    /// relaxed by [`Ops::sweep`].
    pub fn residual_norm(
        self,
        t: &[f64],
        lo: &[f64],
        x: &[f64],
        scratch: &mut [f64],
        after_sweep: bool,
    ) -> f64 {
        match self {
            Ops::Grid(g) => gridsmooth::residual_norm(g, t, lo, x, scratch, after_sweep),
            Ops::Compact(l) => smooth::residual_norm(l, t, lo, x),
        }
    }

    /// Relaxes until the residual drops by `COARSEST_REDUCTION` or `COARSEST_SWEEPS` sweeps
    /// (Alg. 3, line 4).
    fn solve(self, t: &[f64], lo: &[f64], x: &mut [f64], r: &mut [f64]) {
        let r0 = self.residual_norm(t, lo, x, r, false);
        let target = (COARSEST_REDUCTION * r0).max(1e-300);
        for k in 0..COARSEST_SWEEPS {
            self.sweep(t, lo, x);
            if k % 4 == 3 && self.residual_norm(t, lo, x, r, true) <= target {
                return;
            }
        }
    }
}

/// `xc = R x` and `rc = R r` in one pass over `R` (weights read through their codes when `R`
/// has them).
fn restrict_pair(r: &Csr, x: &[f64], res: &[f64], xc: &mut [f64], rc: &mut [f64]) {
    let row = |(i, (a, b)): (usize, (&mut f64, &mut f64))| {
        let rows = r.ptr[i]..r.ptr[i + 1];
        let (mut sx, mut sr) = (0.0, 0.0);
        if r.code.is_empty() {
            for (&j, &w) in r.col[rows.clone()].iter().zip(&r.val[rows]) {
                sx += w * x[j as usize];
                sr += w * res[j as usize];
            }
        } else {
            for (&j, &k) in r.col[rows.clone()].iter().zip(&r.code[rows]) {
                let w = r.table[k as usize];
                sx += w * x[j as usize];
                sr += w * res[j as usize];
            }
        }
        (*a, *b) = (sx, sr);
    };
    if parallel(xc.len(), r.per_row()) {
        let rows = xc.par_iter_mut().zip(rc.par_iter_mut()).enumerate();
        rows.with_min_len(256).for_each(row);
    } else {
        xc.iter_mut().zip(rc.iter_mut()).enumerate().for_each(row);
    }
}

/// A hierarchy ready for cycles: the finest level in grid layout and `R` of the finest level
/// with its columns as grid-layout positions and its rows in level 1's grid order.
pub(crate) struct Cycle<'a> {
    pub h: &'a Hierarchy,
    pub grid: &'a GridLevel,
    pub r0: &'a Csr,
    pub n_sweep: usize,
    pub omega: f64,
}

impl<'a> Cycle<'a> {
    /// The smoother of level `l`.
    pub fn ops(&self, l: usize) -> Ops<'a> {
        if l == 0 {
            Ops::Grid(self.grid)
        } else {
            Ops::Compact(&self.h.levels[l])
        }
    }

    /// One FAS V-cycle on level `l` for `N^l(x) = f` (Alg. 3), with `t = g + f` and the bounds
    /// of `f` already in `work[l]` (`f = 0` on the finest level).
    pub fn vcycle(&self, work: &mut [Work], l: usize) {
        let (h, ops) = (self.h, self.ops(l));
        let w = &mut work[l];
        let t = if l == 0 { &w.g } else { &w.t };
        if l + 1 == h.levels.len() {
            ops.solve(t, &w.lo, &mut w.x, &mut w.rr); // line 4: solve on the coarsest level with PGS
            return;
        }
        for _ in 0..self.n_sweep {
            ops.sweep(t, &w.lo, &mut w.x); // line 6: pre-smooth
        }
        ops.residual_scaled(t, &w.lo, &w.x, &mut w.r); // line 7: r = f − N(x)
        let (fine, coarse) = work.split_at_mut(l + 1);
        let (w, c) = (&fine[l], &mut coarse[0]);
        // Line 8: x^H = R x (and R r, for line 9).
        if l == 0 {
            restrict_pair(self.r0, &w.x, &w.r, &mut c.gx, &mut c.gr);
            let order = &h.order1;
            let gather = |(i, (x, r)): (usize, (&mut f64, &mut f64))| {
                let k = order[i] as usize;
                (*x, *r) = (c.gx[k], c.gr[k]);
            };
            let (cx, cr) = (&mut c.x, &mut c.rr);
            if parallel(cx.len(), 1) {
                cx.par_iter_mut()
                    .zip(cr.par_iter_mut())
                    .enumerate()
                    .for_each(gather);
            } else {
                cx.iter_mut()
                    .zip(cr.iter_mut())
                    .enumerate()
                    .for_each(gather);
            }
        } else {
            restrict_pair(&h.r[l], &w.x, &w.r, &mut c.x, &mut c.rr);
        }
        // Line 9: f^H = N^H(R x) + R r, as the bound-constrained problem of the coarse level.
        smooth::coarse_problem(&h.levels[l + 1], &c.g, &c.x, &c.rr, &mut c.t, &mut c.lo);
        c.x0.copy_from_slice(&c.x);
        self.vcycle(work, l + 1); // line 10
        let (fine, coarse) = work.split_at_mut(l + 1);
        let (w, c) = (&mut fine[l], &mut coarse[0]);
        let omega = self.omega;
        c.x.iter_mut()
            .zip(&c.x0)
            .for_each(|(a, b)| *a = omega * (*a - b));
        // Line 11: x += P (x^H − R x).
        if l == 0 {
            h.p[0].mul_add_at(&self.grid.pos, &c.x, &mut w.x);
        } else {
            h.p[l].mul_add(&c.x, &mut w.x);
        }
        let t = if l == 0 { &w.g } else { &w.t };
        for _ in 0..self.n_sweep {
            ops.sweep(t, &w.lo, &mut w.x); // line 12: post-smooth
        }
    }
}
