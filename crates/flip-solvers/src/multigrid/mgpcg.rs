//! MGPCG (McAdams, Sifakis & Teran 2010): conjugate gradient in f64 preconditioned by one
//! symmetric V-cycle in f32 (zero initial guess, forward red-black pre-smoothing, backward
//! post-smoothing, exact coarsest solve), so the preconditioner is a fixed SPD operator.

use super::cycle::vcycle;
use super::hierarchy::Hierarchy;
use super::level::Level;
use super::outer::{self, row_sum};
use super::MultigridConfig;
use crate::stencil::{norm_inf, Stencil};
use flip_plugin::abi::CELL_FLUID;
use flip_plugin::sdk::{PressureSolver, Problem, SolveError, SolveStats};
use rayon::prelude::*;

/// CG preconditioned by a symmetric multigrid V-cycle. `iterations` counts CG iterations.
/// `config.cycle`, `n_vcycle` and `n_full_cycle` are not used (one V-cycle per application).
pub struct MgPcgSolver {
    config: MultigridConfig,
    hierarchy: Hierarchy,
    b: Vec<f64>,
    r: Vec<f64>,
    z: Vec<f64>,
    d: Vec<f64>,
    q: Vec<f64>,
}

impl MgPcgSolver {
    /// A solver with `config`.
    ///
    /// # Errors
    /// [`SolveError::BadValue`] when [`MultigridConfig::validate`] refuses the configuration.
    pub fn new(config: MultigridConfig) -> Result<Self, SolveError> {
        config.validate().map_err(SolveError::BadValue)?;
        Ok(Self {
            hierarchy: Hierarchy::new(&config),
            config,
            b: Vec::new(),
            r: Vec::new(),
            z: Vec::new(),
            d: Vec::new(),
            q: Vec::new(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &MultigridConfig {
        &self.config
    }

    /// Number of grid levels of the current hierarchy (0 before the first solve).
    pub fn levels(&self) -> usize {
        self.hierarchy.depth()
    }

    /// How many times the hierarchy was built (it is rebuilt only when the matrix changes).
    pub fn rebuilds(&self) -> usize {
        self.hierarchy.rebuilds
    }

    /// `z = M⁻¹ r` (one symmetric V-cycle; `level 0.b` already holds `r`); returns `r · z`.
    fn precondition(&mut self) -> f64 {
        let h = &mut self.hierarchy;
        vcycle(h, 0, self.config.n_sweep, true, true);
        let level = &h.levels[0];
        let ni = level.dims[0];
        copy_from_level(level, &mut self.z);
        if h.regions.any_singular() {
            h.regions.remove_mean(&mut self.z);
        }
        let (r, z) = (&self.r, &self.z);
        row_sum(r.len() / ni, |row| {
            let span = row * ni..(row + 1) * ni;
            r[span.clone()]
                .iter()
                .zip(&z[span])
                .map(|(a, b)| a * b)
                .sum()
        })
    }

    /// CG from the current `p` until the recurrence residual meets `bound` or `budget` runs
    /// out; returns the iterations used.
    fn cg(&mut self, a: &Stencil<'_>, p: &mut [f64], bound: f64, budget: usize) -> usize {
        let ni = a.dims[0];
        let mut rz = self.precondition();
        self.d.clone_from(&self.z);
        for it in 1..=budget {
            let (d, q) = (&self.d, &mut self.q);
            let partial: Vec<f64> = q
                .par_chunks_mut(ni)
                .enumerate()
                .map(|(row, out)| {
                    let mut s = 0.0;
                    for (i, o) in out.iter_mut().enumerate() {
                        let c = row * ni + i;
                        *o = a.row_dot(c, d);
                        s += d[c] * *o;
                    }
                    s
                })
                .collect();
            let dq: f64 = partial.iter().sum();
            if !(dq > 0.0 && rz.is_finite()) {
                return it - 1;
            }
            let alpha = rz / dq;
            let res = update(
                alpha,
                &self.d,
                &self.q,
                p,
                &mut self.r,
                &mut self.hierarchy.levels[0],
            );
            if res <= bound || it == budget {
                return it;
            }
            let rz_new = self.precondition();
            let beta = rz_new / rz;
            rz = rz_new;
            self.d
                .par_iter_mut()
                .zip(self.z.par_iter())
                .for_each(|(d, z)| *d = z + beta * *d);
        }
        budget
    }
}

/// `p += α d`, `r -= α q`, `level.b = r` (f32); returns `max |r|`.
fn update(
    alpha: f64,
    d: &[f64],
    q: &[f64],
    p: &mut [f64],
    r: &mut [f64],
    level: &mut Level,
) -> f64 {
    let ni = level.dims[0];
    let pi = level.pdims[0];
    let interior: Vec<&mut [f32]> = level
        .b
        .chunks_mut(pi)
        .enumerate()
        .filter(|(pr, _)| level_interior(*pr, level.pdims, level.pz))
        .map(|(_, row)| &mut row[1..=ni])
        .collect();
    p.par_chunks_mut(ni)
        .zip(r.par_chunks_mut(ni))
        .zip(interior.into_par_iter())
        .enumerate()
        .map(|(row, ((p, r), b))| {
            let mut m = 0.0f64;
            for i in 0..ni {
                let c = row * ni + i;
                p[i] += alpha * d[c];
                r[i] -= alpha * q[c];
                b[i] = r[i] as f32;
                m = m.max(r[i].abs());
            }
            m
        })
        .reduce(|| 0.0, f64::max)
}

/// Whether padded row `pr` is an interior row.
fn level_interior(pr: usize, pdims: [usize; 3], pz: usize) -> bool {
    let (jp, kp) = (pr % pdims[1], pr / pdims[1]);
    jp >= 1 && jp + 1 < pdims[1] && kp >= pz && kp + pz < pdims[2]
}

/// `z = level.x` on the unpadded grid.
fn copy_from_level(level: &Level, z: &mut [f64]) {
    let [ni, nj, _] = level.dims;
    z.par_chunks_mut(ni).enumerate().for_each(|(row, out)| {
        let base = level.at(0, row % nj, row / nj);
        for (i, v) in out.iter_mut().enumerate() {
            *v = f64::from(level.x.get(base + i));
        }
    });
}

impl PressureSolver for MgPcgSolver {
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        outer::check(problem)?;
        self.hierarchy.update(problem);
        outer::projected_rhs(problem, &self.hierarchy.regions, &mut self.b);
        outer::clean_guess(problem);
        let a = outer::stencil(problem);
        let n = problem.cell_count();
        for v in [&mut self.r, &mut self.z, &mut self.d, &mut self.q] {
            v.resize(n, 0.0);
        }
        let bound = self.config.tolerance.bound(norm_inf(&self.b));
        let level = &mut self.hierarchy.levels[0];
        let mut res = outer::residual_to_level(&a, &self.b, problem.pressure, level);
        let initial = res;
        let mut iterations = 0;
        // CG runs on the recurrence residual; restart from the true one if they drifted apart.
        while res > bound && res.is_finite() && iterations < self.config.max_iterations {
            true_residual(&a, &self.b, problem.pressure, &mut self.r);
            let used = self.cg(
                &a,
                problem.pressure,
                bound,
                self.config.max_iterations - iterations,
            );
            iterations += used.max(1);
            if self.hierarchy.regions.any_singular() {
                self.hierarchy.regions.remove_mean(problem.pressure);
            }
            let level = &mut self.hierarchy.levels[0];
            res = outer::residual_to_level(&a, &self.b, problem.pressure, level);
        }
        Ok(SolveStats {
            iterations: iterations as u32,
            outer_iterations: 0,
            residual: res,
            initial_residual: initial,
            converged: u32::from(res <= bound),
        })
    }
}

/// `r = b - A x` on fluid cells (f64).
fn true_residual(a: &Stencil<'_>, b: &[f64], x: &[f64], r: &mut [f64]) {
    r.par_iter_mut().enumerate().for_each(|(c, r)| {
        *r = if a.kind[c] == CELL_FLUID {
            b[c] - a.row_dot(c, x)
        } else {
            0.0
        };
    });
}
