//! The tall-cell multigrid as a [`PressureSolver`] of the tall-cell problem kind: the
//! hierarchy is built from each problem's geometry, then full cycles (or V-cycles) run until
//! the tolerance.

use super::hierarchy::Hierarchy;
use crate::hierarchy::cycle::{full_cycle, vcycle};
use crate::stencil::max_nan;
use crate::tolerance::Tolerance;
use flip_sdk::{cancelled, PressureSolver, Problem, SolveError, SolveStats, TallCellProblem};

/// Which cycle each iteration runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TallCycle {
    /// Algorithm 4: the full cycle.
    Full,
    /// Algorithm 3: the V-cycle on the finest level.
    V,
}

/// Settings of [`TallMultigrid`].
#[derive(Clone, Copy, Debug)]
pub struct TallMgConfig {
    /// The cycle.
    pub cycle: TallCycle,
    /// Red-black Gauss-Seidel sweeps before and after each coarse-grid correction.
    pub sweeps: usize,
    /// Down-samplings that keep air bubbles (the paper's C).
    pub bubble_levels: usize,
    /// Largest coarsest level (unknowns) solved by dense LU.
    pub coarsest: usize,
    /// Stopping rule.
    pub tolerance: Tolerance,
    /// Most cycles per solve.
    pub max_iterations: u32,
}

impl Default for TallMgConfig {
    fn default() -> Self {
        Self {
            cycle: TallCycle::Full,
            sweeps: 2,
            bubble_levels: 2,
            coarsest: 100,
            tolerance: Tolerance {
                rel: 1e-6,
                abs: 1e-9,
            },
            max_iterations: 100,
        }
    }
}

/// Chentanez & Müller's multigrid for tall-cell problems. Keeps nothing between solves.
pub struct TallMultigrid {
    config: TallMgConfig,
}

impl TallMultigrid {
    /// A solver with `config`.
    pub fn new(config: TallMgConfig) -> Self {
        Self { config }
    }

    /// The levels a problem's hierarchy has (for reports and tests).
    pub fn level_count(&self, p: &TallCellProblem<'_>) -> usize {
        let c = &self.config;
        Hierarchy::new(p, c.coarsest, c.bubble_levels, c.sweeps)
            .levels
            .len()
    }
}

impl PressureSolver for TallMultigrid {
    fn solve(&mut self, _: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        Err(SolveError::Unsupported(
            "the tall-cell multigrid takes tall-cell problems".into(),
        ))
    }

    fn solve_tallcell(&mut self, p: &mut TallCellProblem<'_>) -> Result<SolveStats, SolveError> {
        let c = self.config;
        if (0..p.csr.rows()).any(|r| p.csr.is_complementarity(r)) {
            return Err(SolveError::Unsupported(
                "the tall-cell multigrid solves linear systems only".into(),
            ));
        }
        if let Some(r) = (0..p.csr.rows()).find(|&r| !p.csr.rhs[r].is_finite()) {
            return Err(SolveError::BadValue(format!("rhs[{r}] is not finite")));
        }
        let mut h = Hierarchy::new(p, c.coarsest, c.bubble_levels, c.sweeps);
        let b = p.csr.rhs.to_vec();
        let mut x: Vec<f64> = p
            .csr
            .pressure
            .iter()
            .map(|v| if v.is_finite() { *v } else { 0.0 })
            .collect();
        let bound = c
            .tolerance
            .bound(b.iter().fold(0.0, |m, v| max_nan(m, v.abs())));
        let mut r = vec![0.0; x.len()];
        let norm = |r: &[f64]| r.iter().fold(0.0, |m, v| max_nan(m, v.abs()));
        h.levels[0].matrix.residual(&b, &x, &mut r);
        let initial = norm(&r);
        let (mut res, mut it) = (initial, 0u32);
        while res > bound && it < c.max_iterations && !cancelled() {
            let fine = &mut h.levels[0];
            match c.cycle {
                TallCycle::Full => {
                    // On the correction equation: the coarse-to-fine pass yields the correction.
                    fine.b.copy_from_slice(&r);
                    full_cycle(&mut h);
                    for (xi, d) in x.iter_mut().zip(&h.levels[0].x) {
                        *xi += d;
                    }
                }
                TallCycle::V => {
                    fine.b.copy_from_slice(&b);
                    std::mem::swap(&mut fine.x, &mut x);
                    vcycle(&mut h, 0, false, false, None);
                    std::mem::swap(&mut h.levels[0].x, &mut x);
                }
            }
            h.levels[0].matrix.residual(&b, &x, &mut r);
            res = norm(&r);
            it += 1;
        }
        p.csr.pressure.copy_from_slice(&x);
        Ok(SolveStats {
            iterations: it,
            outer_iterations: 0,
            residual: res,
            initial_residual: initial,
            converged: u32::from(res <= bound),
        })
    }
}
