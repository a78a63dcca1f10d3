//! Residual and complementarity of a pressure field, measured on the grid (independent of the
//! solvers' internal numbering).

use crate::stencil::Stencil;
use flip_sdk::Problem;
use rayon::prelude::*;
use std::ops::Range;

/// How well a pressure field satisfies the LCP (eq. 3.7-3.11 with `b = −rhs`). With
/// `problem.lcp` false, S is empty and only `linear_residual` matters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Complementarity {
    /// `min p` over S (`+∞` when S is empty): must be ≥ 0.
    pub min_pressure: f64,
    /// `min (A p − rhs)` over S (`+∞` when S is empty): must be ≥ 0.
    pub min_slack: f64,
    /// `max |p · (A p − rhs)|` over S: must be 0.
    pub max_product: f64,
    /// `max |rhs − A p|` over fluid cells outside S.
    pub linear_residual: f64,
    /// The LCP residual of [`lcp_residual`].
    pub residual: f64,
}

/// Per-cell LCP residual: `|min(p, A p − rhs)|` on S (when `lcp`), `|rhs − A p|` on other fluid
/// cells, 0 elsewhere.
fn cell_residual(
    problem: &Problem<'_>,
    a: &Stencil<'_>,
    p: &[f64],
    c: usize,
) -> Option<(bool, f64, f64)> {
    if !problem.is_fluid(c) {
        return None;
    }
    let w = a.row_dot(c, p) - problem.rhs[c];
    let on_s = problem.lcp && problem.complementarity[c] != 0;
    Some((on_s, p[c], w))
}

/// Max-norm of the LCP residual of `p` (as reported in `SolveStats::residual`).
pub fn lcp_residual(problem: &Problem<'_>, p: &[f64]) -> f64 {
    complementarity(problem, p).residual
}

/// [`lcp_residual`] over the cells `rows` only (one rank's owned cells of a slab).
pub fn lcp_residual_rows(problem: &Problem<'_>, p: &[f64], rows: Range<usize>) -> f64 {
    complementarity_rows(problem, p, rows).residual
}

/// Measures the complementarity conditions of `p` for `problem`.
pub fn complementarity(problem: &Problem<'_>, p: &[f64]) -> Complementarity {
    complementarity_rows(problem, p, 0..problem.cell_count())
}

/// [`complementarity`] over the cells `rows` only.
fn complementarity_rows(problem: &Problem<'_>, p: &[f64], rows: Range<usize>) -> Complementarity {
    let a = Stencil::of(problem);
    let init = || Complementarity {
        min_pressure: f64::INFINITY,
        min_slack: f64::INFINITY,
        ..Complementarity::default()
    };
    rows.into_par_iter()
        .fold(init, |mut acc, c| {
            if let Some((on_s, pc, w)) = cell_residual(problem, &a, p, c) {
                if on_s {
                    acc.min_pressure = acc.min_pressure.min(pc);
                    acc.min_slack = acc.min_slack.min(w);
                    acc.max_product = acc.max_product.max((pc * w).abs());
                    acc.residual = acc.residual.max(pc.min(w).abs());
                } else {
                    acc.linear_residual = acc.linear_residual.max(w.abs());
                    acc.residual = acc.residual.max(w.abs());
                }
            }
            acc
        })
        .reduce(init, |x, y| Complementarity {
            min_pressure: x.min_pressure.min(y.min_pressure),
            min_slack: x.min_slack.min(y.min_slack),
            max_product: x.max_product.max(y.max_product),
            linear_residual: x.linear_residual.max(y.linear_residual),
            residual: x.residual.max(y.residual),
        })
}
