//! FAS multigrid for the LCP (Lai et al. Alg. 3, after Brandt's full approximation scheme):
//! V-cycles with projected Gauss-Seidel smoothing and the three modifications of §4.3
//! (compact barycentric transfers, one-sided interpolation at solids, Galerkin coarse
//! matrices), each switchable to reproduce Table 12.
//!
//! Choices the paper leaves open, and deviations:
//! - S rows are written `min(a_ii p_i, (A p − rhs)_i)` (the same complementarity as eq. 3.9)
//!   so that both branches of the min carry the units of `A p` on every level; with the
//!   unscaled `min(p, ·)` the Galerkin coarse rows (¼ of the fine scale per level in 2D) make
//!   the coarse problems a poor model and the cycles stall.
//! - `S^H` = coarse cells with a child in `S^h`; `b^H = R b^h`; the coarsest level is relaxed
//!   by PGS until its residual drops 10³-fold (at most 400 sweeps).
//! - Near the free boundary (where S switches from `p = 0` to `A p = rhs`) the non-smooth
//!   coarse operator can flip branches from one cycle to the next and plain corrections then
//!   alternate (a 2-cycle in the residual). A safeguard damps the coarse correction when a
//!   cycle fails to halve the residual ([`FasConfig::min_damping`]; 1 turns it off).
//!
//! Implementation (the computation is Alg. 3; only orderings and storage are chosen for speed):
//! the PGS smoother visits the unknowns colour by colour (red-black on the finest level, a
//! greedy multicolouring on the wider Galerkin stencils), each colour in parallel; the finest
//! level is stored in grid layout and smoothed without index arrays ([`super::gridsmooth`]);
//! the hierarchy is rebuilt in place (reusing every buffer) only when the matrix or S change,
//! with row-parallel Galerkin products ([`super::galerkin`]); per-level vectors live in the
//! solver, so a solve allocates nothing large. 2 vCPUs, 8 steps of `graphs/lcp_sphere_3d.ron`
//! at 128³ (403 k unknowns): 10 V-cycles, about 0.2 s of hierarchy and 0.3 s of cycles per
//! solve (`flipgraph bench lcp --only fas-mg`, and `lcp_profile` in the tests for replays).

use super::cache::Cached;
use super::coarse::{Hierarchy, MgOptions};
use super::csr::Csr;
use super::transfer::{Boundary, CoarseMatrix, Interpolation};
use super::vcycle::{Cycle, Finest, Work};
use super::{stats, DEFAULT_TOLERANCE};
use crate::tolerance::Tolerance;
use flip_sdk::{PressureSolver, Problem, SolveError, SolveStats};

/// Parameters of [`FasMgSolver`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FasConfig {
    /// Stopping rule on the LCP residual.
    pub tolerance: Tolerance,
    /// Most V-cycles.
    pub max_iterations: usize,
    /// PGS sweeps before and after the coarse correction (Lai: 2).
    pub n_sweep: usize,
    /// Interpolation (Lai: barycentric).
    pub interpolation: Interpolation,
    /// Boundary handling (Lai: one-sided).
    pub boundary: Boundary,
    /// Coarse matrices (Lai: Galerkin).
    pub coarse: CoarseMatrix,
    /// Smallest weight of the coarse-grid correction: starting at 1, the weight is multiplied
    /// by 0.8 after every cycle that reduces the residual by less than half, down to this
    /// value. 1 disables the safeguard (Alg. 3 exactly as published).
    pub min_damping: f64,
}

impl Default for FasConfig {
    fn default() -> Self {
        Self {
            tolerance: DEFAULT_TOLERANCE,
            max_iterations: 100,
            n_sweep: 2,
            interpolation: Interpolation::Barycentric,
            boundary: Boundary::OneSided,
            coarse: CoarseMatrix::Galerkin,
            min_damping: 0.6,
        }
    }
}

/// FAS multigrid; `iterations` counts V-cycles. Keeps its hierarchy while the matrix and S are
/// unchanged (rebuilt in place otherwise) and its per-level vectors between solves.
pub struct FasMgSolver {
    /// Parameters.
    pub config: FasConfig,
    cache: Cached<Hierarchy>,
    /// Per-level vectors (the finest in grid layout).
    work: Vec<Work>,
    /// `R` of the finest level with grid-layout columns (rows in level 1's grid order), and
    /// the hierarchy it was made for.
    r0: Csr,
    r0_generation: usize,
    /// Loads the finest level's vectors.
    finest: Finest,
    /// Compact vectors of the finest level: right-hand side, solution, initial guess (restored
    /// if the cycles diverge).
    rhs: Vec<f64>,
    x: Vec<f64>,
    x_init: Vec<f64>,
}

impl FasMgSolver {
    /// A solver with `config`.
    pub fn new(config: FasConfig) -> Self {
        Self {
            cache: Cached::new(Hierarchy::new(options(&config), true)),
            config,
            work: Vec::new(),
            r0: Csr::default(),
            r0_generation: 0,
            finest: Finest::default(),
            rhs: Vec::new(),
            x: Vec::new(),
            x_init: Vec::new(),
        }
    }
}

/// The hierarchy options of `config`.
fn options(config: &FasConfig) -> MgOptions {
    MgOptions {
        interpolation: config.interpolation,
        boundary: config.boundary,
        coarse: config.coarse,
    }
}

/// A cycle reducing the residual by less than this factor counts as stalling.
const STALL: f64 = 0.5;
/// On a stall the coarse-correction weight is multiplied by this (down to `min_damping`).
const DAMP: f64 = 0.8;

impl PressureSolver for FasMgSolver {
    fn solve(&mut self, problem: &mut Problem<'_>) -> Result<SolveStats, SolveError> {
        let config = self.config;
        if self.cache.value_mut().opts != options(&config) {
            self.cache.value_mut().opts = options(&config);
            self.cache.invalidate();
        }
        self.cache.get(problem);
        let (sys, h) = self.cache.parts();
        let grid = &sys.grid;
        if self.r0_generation != self.cache.generation() {
            // R of the finest level reading grid-layout vectors.
            self.r0_generation = self.cache.generation();
            if !h.r.is_empty() {
                let r = &h.r0_grid;
                let rows: Vec<u32> = (0..r.n_rows() as u32).collect();
                r.permute_into(&rows, Some(&grid.pos), &mut self.r0);
            }
        }
        let work = &mut self.work;
        work.resize_with(h.levels.len(), Work::default);
        for (w, level) in work.iter_mut().zip(&h.levels).skip(1) {
            for v in [
                &mut w.g, &mut w.lo, &mut w.x, &mut w.r, &mut w.rr, &mut w.t, &mut w.x0, &mut w.gx,
                &mut w.gr,
            ] {
                v.resize(level.len(), 0.0);
            }
        }
        // g on every level: b^H = R b^h (compact).
        sys.rhs_into(problem, &mut self.rhs);
        if !h.r.is_empty() {
            h.restrict(0, &self.rhs, &mut work[1].g);
        }
        for l in 1..h.r.len() {
            let (fine, coarse) = work.split_at_mut(l + 1);
            h.restrict(l, &fine[l].g, &mut coarse[0].g);
        }
        let bound = config
            .tolerance
            .bound(self.rhs.iter().fold(0.0, |m, v| m.max(v.abs())));
        sys.gather_into(problem.pressure, &mut self.x_init);
        let w = &mut work[0];
        self.finest
            .load(grid, &h.levels[0].s, &self.rhs, &self.x_init, w);
        let mut cycle = Cycle {
            h,
            grid,
            r0: &self.r0,
            n_sweep: config.n_sweep.max(1),
            omega: 1.0,
        };
        let ops = cycle.ops(0);
        let initial = ops.residual_norm(&w.g, &w.lo, &w.x, &mut w.rr, false);
        let mut res = initial;
        let mut cycles = 0;
        // Line 14: iterate V-cycle(p, 0) until the residual meets the tolerance.
        while res > bound && cycles < config.max_iterations && !flip_sdk::cancelled() {
            cycle.vcycle(work, 0);
            cycles += 1;
            let w = &mut work[0];
            let next = ops.residual_norm(&w.g, &w.lo, &w.x, &mut w.rr, true);
            if !next.is_finite() {
                self.finest.reset_x(grid, &self.x_init, &mut w.x); // diverged (Table 12 variants)
                res = initial;
                break;
            }
            // Safeguard: the non-smooth coarse operator can flip branches near the free
            // boundary and make plain FAS corrections alternate; damp them when a cycle stalls.
            if next > STALL * res {
                cycle.omega = (cycle.omega * DAMP).max(config.min_damping);
            }
            res = next;
        }
        grid.gather(&work[0].x, &mut self.x);
        sys.remove_mean(&mut self.x);
        sys.scatter(&self.x, problem.pressure);
        Ok(stats(cycles, 0, initial, res, bound))
    }

    fn reset(&mut self) {
        *self = Self::new(self.config);
    }
}
