//! The outer CG of distributed MGPCG, fused with the hierarchy as in the single-process
//! [`MgPcgSolver`](super::super::MgPcgSolver): the iteration runs on level 0's colour-split
//! vectors (`outer`'s kernels, f64 iterate and direction, f32 recurrence residual and `A d`)
//! over this rank's owned rows only, so the V-cycle's input and output need no conversion and
//! the matrix products use the hierarchy's fused f32 stencil.
//!
//! Per iteration the ranks exchange one colour of the V-cycle's result (the colour its last
//! half-sweep wrote) beside the slab ends, and sum or take the maximum of three scalars; the
//! true residual (at the start and at each residual replacement) first exchanges both colours
//! of the iterate. Every decision is taken on global values, so all ranks run the same
//! iterations, and the sums run in rank order (reproducible for a given rank count).

use super::super::hierarchy::Hierarchy;
use super::super::mgpcg::REPLACE;
use super::super::outer::{self, Vectors};
use super::super::smoother::RED;
use super::slab::SlabRows;
use super::{slab_vcycle, SlabVcycle};
use crate::multigrid::MultigridConfig;
use flip_sdk::{Distributed, Problem, SolveError, SolveStats};

/// One distributed solve on this rank's rows of the hierarchy.
struct Run<'a> {
    h: &'a mut Hierarchy,
    slab: &'a mut SlabRows,
    v: &'a mut Vectors,
    d: &'a Distributed,
    /// Set on every rank at once when any rank's bake was cancelled.
    cancelled: bool,
}

/// Solves this rank's slab `p` with the fused CG (`pre` holds a hierarchy of two levels or
/// more and its slab rows).
///
/// # Errors
/// A failed collective call.
pub(super) fn solve(
    pre: &mut SlabVcycle,
    v: &mut Vectors,
    config: &MultigridConfig,
    d: &Distributed,
    p: &mut Problem<'_>,
) -> Result<SolveStats, SolveError> {
    let SlabVcycle {
        hierarchy: h, slab, ..
    } = pre;
    let slab = slab
        .as_mut()
        .ok_or_else(|| SolveError::Failed("the slab rows were not prepared".into()))?;
    v.fit(&h.levels[0], true);
    // The kernels visit only the owned rows while the owned spans are in the level.
    slab.swap_spans(h, 0);
    let mut run = Run {
        h,
        slab,
        v,
        d,
        cancelled: false,
    };
    let result = run.solve(config, p);
    run.slab.swap_spans(run.h, 0);
    result
}

impl Run<'_> {
    fn solve(
        &mut self,
        config: &MultigridConfig,
        p: &mut Problem<'_>,
    ) -> Result<SolveStats, SolveError> {
        let origin = self.slab.offset();
        let h = &mut *self.h;
        let rows = self.slab.levels[0].rows.clone();
        let local = outer::load(p, &h.levels[0], &h.build.regions, self.v, origin, rows);
        let bound = config.tolerance.bound(self.d.max1(local)?);
        let mut res = self.residual()?;
        let initial = res;
        let mut iterations = 0;
        // As the single-process solver: restart from the true residual if CG's drifted.
        while res > bound && res.is_finite() && iterations < config.max_iterations {
            let used = self.cg(res, bound, config.max_iterations - iterations)?;
            iterations += used.max(1);
            res = self.residual()?;
            if self.cancelled {
                break;
            }
        }
        outer::store(p, &self.h.levels[0], self.v, origin);
        let l = self.d.layout();
        self.d
            .halo_exchange(p.pressure, l.ghost_lo.max(l.ghost_hi))?;
        Ok(crate::multigrid::stats(iterations, res, initial, bound))
    }

    /// The true residual into level 0's `b` (after refreshing the iterate beside the slab);
    /// its global max-norm.
    fn residual(&mut self) -> Result<f64, SolveError> {
        let level = &mut self.h.levels[0];
        let [p0, p1] = &mut self.v.p;
        self.slab
            .exchange_vectors(level, 0, [p0, p1], [true, true], self.d)?;
        self.d.max1(outer::residual(level, self.v))
    }

    /// `z = M⁻¹ r` into level 0's `x` (the slab V-cycle, then the colour its last half-sweep
    /// wrote refreshed beside the slab for the next matrix product); global `r · z`.
    fn precondition(&mut self) -> Result<f64, SolveError> {
        slab_vcycle(self.h, self.slab, 0, self.d)?;
        self.slab.exchange(&mut self.h.levels[0], 0, RED, self.d)?;
        self.d.sum1(outer::dot_rz(&self.h.levels[0], self.v))
    }

    /// The new direction and `A d` (see [`outer::direction`]); global `d · q`.
    fn direction(&mut self, beta: f64) -> Result<f64, SolveError> {
        self.d
            .sum1(outer::direction(&self.h.levels[0], self.v, beta))
    }

    /// `p += α d`, `r -= α q`; the global max-norm of `r`, with the cancel flag carried along.
    fn step(&mut self, alpha: f64) -> Result<f64, SolveError> {
        let local = outer::step(&mut self.h.levels[0], self.v, alpha);
        let (res, cancelled) = self.d.max1_or_cancelled(local)?;
        self.cancelled |= cancelled;
        Ok(res)
    }

    /// [`MgPcgSolver`](super::super::MgPcgSolver)'s CG with residual replacement, on the
    /// slab; returns the iterations used.
    fn cg(&mut self, mut res: f64, bound: f64, budget: usize) -> Result<usize, SolveError> {
        let mut reference = res;
        let mut rz = self.precondition()?;
        let mut dq = self.direction(0.0)?;
        for it in 1..=budget {
            if !(dq > 0.0 && rz.is_finite()) || self.cancelled {
                return Ok(it - 1);
            }
            res = self.step(rz / dq)?;
            if res <= bound || it == budget || self.cancelled {
                return Ok(it);
            }
            if res < REPLACE * reference {
                res = self.residual()?;
                reference = res;
                if res <= bound {
                    return Ok(it);
                }
            }
            let rz_new = self.precondition()?;
            let beta = rz_new / rz;
            rz = rz_new;
            dq = self.direction(beta)?;
        }
        Ok(budget)
    }
}
