//! MGPCG on one rank's slab of a distributed problem: conjugate gradient over the slabs (dot
//! products summed over ranks, matrix products after a halo exchange; `cg`, fused with the
//! hierarchy's level 0 like the single-process solver) preconditioned by the same symmetric
//! V-cycle as [`super::MgPcgSolver`]. A one-level hierarchy (a tiny grid) runs `krylov`'s
//! generic distributed CG around a gathered exact solve instead.
//!
//! The V-cycle's finest level is divided among the ranks; the coarse levels are gathered. Every
//! rank holds the hierarchy of the whole grid (built with the fine work divided, see `setup`),
//! but on level 0 it smooths, forms the residual, restricts and interpolates only on its own layers
//! (`slab::SlabRows` empties the other rows' spans, so the level's kernels skip them), and
//! refreshes one colour of the layer beside each slab end before every half-sweep that reads
//! it. The ranks' restrictions, one block of level-1 layers each, are summed on every rank
//! (one gather per V-cycle, a quarter (2D) or an eighth (3D) of the fine field), and the
//! V-cycle below level 0 runs replicated. The result is the single-process V-cycle up to
//! round-off in the summed restriction, so iteration counts match.

mod cg;
mod gather;
mod setup;
mod slab;
#[cfg(test)]
mod tests;

use super::cycle::vcycle;
use super::hierarchy::Hierarchy;
use super::outer::Vectors;
use super::smoother::{half_sweep, BLACK, RED};
use super::transfer::{prolong, restrict_rows};
use super::MultigridConfig;
use crate::krylov::{Pcg, PcgConfig, Preconditioner};
use crate::stencil::Stencil;
use flip_plugin::sdk::{distributed, Distributed, Problem, SolveError, SolveStats};
use gather::GlobalProblem;
use slab::SlabRows;

/// The symmetric V-cycle (zero guess) with level 0 divided among the ranks.
pub(crate) struct SlabVcycle {
    hierarchy: Hierarchy,
    slab: Option<SlabRows>,
    /// Gathered residual and correction (a one-level hierarchy only).
    r: Vec<f64>,
    z: Vec<f64>,
    failed: Option<SolveError>,
}

impl SlabVcycle {
    fn new(config: &MultigridConfig) -> Self {
        let mut hierarchy = Hierarchy::new(config);
        // The range projection's regions span ranks; distributed scenes have air instead.
        hierarchy.find_regions = false;
        Self {
            hierarchy,
            slab: None,
            r: Vec::new(),
            z: Vec::new(),
            failed: None,
        }
    }

    /// Fits the slab rows to the hierarchy (kept while it was not `rebuilt` on this layout).
    fn prepare(&mut self, d: &Distributed, rebuilt: bool) {
        let fits = self.slab.as_ref().is_some_and(|s| s.layout() == d.layout());
        if fits && !rebuilt {
            return;
        }
        let h = &mut self.hierarchy;
        self.slab = (h.depth() > 1).then(|| SlabRows::new(*d.layout(), &h.levels[0], &h.levels[1]));
        if let Some(s) = &self.slab {
            s.clear_foreign_residual(&mut h.levels[0]);
        }
    }

    fn try_apply(&mut self, r: &[f64], z: &mut [f64]) -> Result<(), SolveError> {
        let d = distributed()
            .ok_or_else(|| SolveError::Failed("the distributed suite went away".into()))?;
        let Some(slab) = self.slab.as_mut() else {
            return self.gathered(&d, r, z);
        };
        let h = &mut self.hierarchy;
        std::mem::swap(&mut h.levels[0].spans, &mut slab.owned_spans);
        let result = slab_vcycle(h, slab, &d, r, z);
        std::mem::swap(&mut h.levels[0].spans, &mut slab.owned_spans);
        result
    }

    /// A one-level hierarchy: the residual gathered, solved exactly on every rank.
    fn gathered(&mut self, d: &Distributed, r: &[f64], z: &mut [f64]) -> Result<(), SolveError> {
        let n: usize = d.layout().global_dims.iter().map(|&v| v as usize).product();
        self.r.resize(n, 0.0);
        self.z.resize(n, 0.0);
        d.all_gather(r, &mut self.r)?;
        let whole = flip_plugin::abi::SlabLayout {
            owned: d.layout().global_dims[d.layout().axis as usize],
            ghost_lo: 0,
            ghost_hi: 0,
            first: 0,
            ..*d.layout()
        };
        let h = &mut self.hierarchy;
        let all = SlabRows::whole(whole, &h.levels[0]);
        all.load_b(&mut h.levels[0], &self.r);
        vcycle(h, 0, true, true);
        all.store_x(&h.levels[0], &mut self.z);
        let layout = d.layout();
        let lo = (layout.first - layout.ghost_lo) as usize * layout.layer_len();
        z.copy_from_slice(&self.z[lo..lo + z.len()]);
        Ok(())
    }
}

/// One V-cycle with level 0 on this rank's rows, from the slab vector `r` into `z`.
fn slab_vcycle(
    h: &mut Hierarchy,
    slab: &mut SlabRows,
    d: &Distributed,
    r: &[f64],
    z: &mut [f64],
) -> Result<(), SolveError> {
    slab.load_b(&mut h.levels[0], r);
    slab_vcycle_loaded(h, slab, d)?;
    slab.store_x(&h.levels[0], z);
    Ok(())
}

/// One V-cycle with level 0 on this rank's rows (see the module documentation; Karlsson
/// Alg. 9 with the symmetric post-smoothing of [`vcycle`]): level 0's `b` to its `x`, on the
/// owned rows (the level holds the owned spans). The colour written last (red) is left stale
/// beside the slab.
fn slab_vcycle_loaded(
    h: &mut Hierarchy,
    slab: &mut SlabRows,
    d: &Distributed,
) -> Result<(), SolveError> {
    let sweeps = h.sweeps(0);
    let fine = &mut h.levels[0];
    for s in 0..sweeps {
        if s > 0 {
            slab.exchange(fine, BLACK, d)?;
        }
        half_sweep(fine, RED, s == 0);
        slab.exchange(fine, RED, d)?;
        half_sweep(fine, BLACK, false);
    }
    slab.exchange(fine, BLACK, d)?;
    // After the black half-sweep only the red residual is nonzero (as in `vcycle`).
    fine.residual(true);
    {
        let (fine, coarse) = h.levels.split_at_mut(1);
        restrict_rows(&fine[0], &mut coarse[0], true, slab.coarse_rows());
        slab.sum_restrictions(&mut coarse[0], d)?;
    }
    vcycle(h, 1, true, true);
    {
        let (fine, coarse) = h.levels.split_at_mut(1);
        prolong(&mut coarse[0], &mut fine[0], true, Some(RED));
    }
    let fine = &mut h.levels[0];
    for _ in 0..sweeps {
        slab.exchange(fine, RED, d)?;
        half_sweep(fine, BLACK, false);
        slab.exchange(fine, BLACK, d)?;
        half_sweep(fine, RED, false);
    }
    Ok(())
}

impl Preconditioner for SlabVcycle {
    fn distributable(&self) -> bool {
        true
    }
    fn setup(&mut self, _a: &Stencil<'_>) {} // the hierarchy is updated from the gathered problem
    fn apply(&mut self, _a: &Stencil<'_>, r: &[f64], z: &mut [f64]) {
        if let Err(e) = self.try_apply(r, z) {
            self.failed = Some(e);
            z.fill(0.0);
        }
    }
}

/// The distributed MGPCG state of a solver (created on its first distributed solve).
pub(crate) struct DistributedMgpcg {
    config: MultigridConfig,
    /// The generic distributed CG around the V-cycle: one-level hierarchies only.
    pcg: Pcg<SlabVcycle>,
    /// The fused CG's vectors (level 0's colour-split layout).
    v: Vectors,
    global: GlobalProblem,
    blocks: setup::Blocks,
}

impl DistributedMgpcg {
    /// A solver with `config`'s tolerance, budget and hierarchy settings.
    pub(crate) fn new(config: &MultigridConfig) -> Self {
        let pcg_config = PcgConfig {
            tolerance: config.tolerance,
            max_iterations: config.max_iterations as u32,
        };
        Self {
            config: *config,
            pcg: Pcg::new(pcg_config, SlabVcycle::new(config)),
            v: Vectors::default(),
            global: GlobalProblem::default(),
            blocks: setup::Blocks::default(),
        }
    }

    /// Solves this rank's slab.
    ///
    /// # Errors
    /// A failed collective call (reduction, halo exchange, gather).
    pub(crate) fn solve(
        &mut self,
        d: &Distributed,
        p: &mut Problem<'_>,
    ) -> Result<SolveStats, SolveError> {
        d.check_dims(p.dims)?;
        if !d.has_blocks() {
            return Err(SolveError::Unsupported(
                "MGPCG needs the distributed suite's block gather, which this host lacks".into(),
            ));
        }
        let pre = self.pcg.preconditioner_mut();
        let rebuilt = setup::update(&mut pre.hierarchy, p, d, &mut self.blocks, &mut self.global)?;
        pre.prepare(d, rebuilt);
        pre.failed = None;
        if pre.slab.is_some() {
            return cg::solve(pre, &mut self.v, &self.config, d, p);
        }
        let a = Stencil::of(p);
        let stats = self.pcg.solve_slab(d, &a, p.rhs, p.pressure)?;
        match self.pcg.preconditioner_mut().failed.take() {
            Some(e) => Err(e),
            None => Ok(stats),
        }
    }
}
