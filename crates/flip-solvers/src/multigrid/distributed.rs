//! MGPCG on one rank's slab of a distributed problem: conjugate gradient over the slabs (dot
//! products summed over ranks, matrix products after a halo exchange; `cg`, fused with the
//! hierarchy's level 0 like the single-process solver) preconditioned by the same symmetric
//! V-cycle as [`super::MgPcgSolver`]. A one-level hierarchy (a tiny grid) runs `krylov`'s
//! generic distributed CG around a gathered exact solve instead.
//!
//! The V-cycle's finest levels are divided among the ranks; the coarse ones are gathered.
//! Every rank's hierarchy is indexed as the whole grid's, but of the divided levels it builds
//! only its own layers and the margins beside them (see `setup`); on level 0, and on each
//! coarser level of which every rank still owns
//! `slab::MIN_LAYERS` layers and `slab::MIN_CELLS` cells, it smooths, forms the residual,
//! restricts and interpolates only on its own layers (`slab::SlabRows` empties the other rows'
//! spans, so the level's kernels skip them), and refreshes one colour of the layer beside each
//! end of its part before every half-sweep that reads it (`exchange`). A restriction into a
//! divided level is completed by adding the neighbours' partial layers; the restrictions into
//! the first gathered level are gathered to one rank, which cycles the gathered levels and
//! sends each rank the correction on the layers its interpolation reads (`coarse`). The result
//! is the single-process V-cycle up to round-off in the summed restrictions, so iteration
//! counts match.

mod cg;
mod coarse;
mod exchange;
mod gather;
mod margins;
mod setup;
mod slab;
#[cfg(test)]
mod tests;

use super::hierarchy::Hierarchy;
use super::outer::Vectors;
use super::smoother::{half_sweep, BLACK, RED};
use super::transfer::{prolong_from_rows, restrict_rows};
use super::MultigridConfig;
use crate::hierarchy::cycle::vcycle;
use crate::krylov::{Pcg, PcgConfig, Preconditioner};
use crate::stencil::Stencil;
use flip_sdk::{distributed, Distributed, Problem, SolveError, SolveStats};
use gather::GlobalProblem;
use slab::SlabRows;

/// The symmetric V-cycle (zero guess) with its finest levels divided among the ranks.
pub(crate) struct SlabVcycle {
    hierarchy: Hierarchy,
    slab: Option<SlabRows>,
    /// Gathered residual and correction (a one-level hierarchy only).
    r: Vec<f64>,
    z: Vec<f64>,
    failed: Option<SolveError>,
    /// Fewest cells a rank must own of a coarse level to divide it ([`slab::MIN_CELLS`]).
    min_cells: usize,
    /// Whether the gathered levels go to one rank ([`coarse::COARSE_RANK`]) rather than to
    /// every rank, where the host can gather to one rank.
    one_coarse_rank: bool,
}

impl SlabVcycle {
    fn new(config: &MultigridConfig) -> Self {
        let mut hierarchy = Hierarchy::new(config);
        // The range projection's regions span ranks; distributed scenes have air instead.
        hierarchy.build.find_regions = false;
        Self {
            hierarchy,
            slab: None,
            r: Vec::new(),
            z: Vec::new(),
            failed: None,
            min_cells: slab::MIN_CELLS,
            one_coarse_rank: true,
        }
    }

    /// Fits the slab rows to the hierarchy (kept while it was not `rebuilt` on this layout);
    /// collective, like the solve.
    ///
    /// # Errors
    /// A failed reduction.
    fn prepare(&mut self, d: &Distributed, rebuilt: bool) -> Result<(), SolveError> {
        let fits = self.slab.as_ref().is_some_and(|s| s.layout() == d.layout());
        if fits && !rebuilt {
            return Ok(());
        }
        let h = &mut self.hierarchy;
        self.slab = None;
        if h.depth() > 1 {
            let coarse = slab::divided_levels(d.layout(), h, self.min_cells, d)?;
            let root = coarse::coarse_rank(d, self.one_coarse_rank);
            let slab = SlabRows::new(*d.layout(), h, coarse, root);
            slab.clear_foreign_residual(h);
            self.slab = Some(slab);
        }
        Ok(())
    }

    fn try_apply(&mut self, r: &[f64], z: &mut [f64]) -> Result<(), SolveError> {
        let d = distributed()
            .ok_or_else(|| SolveError::Failed("the distributed suite went away".into()))?;
        let Some(slab) = self.slab.as_mut() else {
            return self.gathered(&d, r, z);
        };
        let h = &mut self.hierarchy;
        slab.load_b(&mut h.levels[0], r);
        slab.swap_spans(h, 0);
        let result = slab_vcycle(h, slab, 0, &d);
        slab.swap_spans(h, 0);
        slab.store_x(&h.levels[0], z);
        result
    }

    /// A one-level hierarchy: the residual gathered, solved exactly on every rank.
    fn gathered(&mut self, d: &Distributed, r: &[f64], z: &mut [f64]) -> Result<(), SolveError> {
        let n: usize = d.layout().global_dims.iter().map(|&v| v as usize).product();
        self.r.resize(n, 0.0);
        self.z.resize(n, 0.0);
        d.all_gather(r, &mut self.r)?;
        let whole = flip_abi::SlabLayout {
            owned: d.layout().global_dims[d.layout().axis as usize],
            ghost_lo: 0,
            ghost_hi: 0,
            first: 0,
            ..*d.layout()
        };
        let h = &mut self.hierarchy;
        let all = SlabRows::whole(whole, &h.levels[0]);
        all.load_b(&mut h.levels[0], &self.r);
        vcycle(h, 0, true, true, None);
        all.store_x(&h.levels[0], &mut self.z);
        let layout = d.layout();
        let lo = (layout.first - layout.ghost_lo) as usize * layout.layer_len();
        z.copy_from_slice(&self.z[lo..lo + z.len()]);
        Ok(())
    }
}

/// One V-cycle on divided level `l` and below, `b` to `x` on this rank's rows (level 0 holds
/// its owned spans already; a coarser divided level holds them while it is worked on).
fn slab_vcycle(
    h: &mut Hierarchy,
    slab: &mut SlabRows,
    l: usize,
    d: &Distributed,
) -> Result<(), SolveError> {
    if l == 0 {
        return divided_level(h, slab, 0, d);
    }
    slab.swap_spans(h, l);
    let result = divided_level(h, slab, l, d);
    slab.swap_spans(h, l);
    result
}

/// Karlsson Alg. 9 with the symmetric post-smoothing of [`vcycle`] on divided level `l`: the
/// half-sweeps on the owned rows, each after refreshing the colour it reads beside the slab;
/// the restriction completed by the neighbours' partial layers (a divided coarse level) or
/// gathered to the coarse rank (the first gathered level, see `coarse`).
/// The colour written last (red) is left stale beside the slab.
fn divided_level(
    h: &mut Hierarchy,
    slab: &mut SlabRows,
    l: usize,
    d: &Distributed,
) -> Result<(), SolveError> {
    let sweeps = h.sweeps(l);
    let level = &mut h.levels[l];
    for s in 0..sweeps {
        if s > 0 {
            slab.exchange(level, l, BLACK, d)?;
        }
        half_sweep(level, RED, s == 0);
        slab.exchange(level, l, RED, d)?;
        half_sweep(level, BLACK, false);
    }
    slab.exchange(level, l, BLACK, d)?;
    // After the black half-sweep only the red residual is nonzero (as in `vcycle`).
    level.residual(true);
    {
        let (fine, coarse) = h.levels.split_at_mut(l + 1);
        let rows = slab::layer_rows(&coarse[0], &slab.levels[l].touch);
        restrict_rows(&fine[l], &mut coarse[0], true, rows);
    }
    if l + 1 < slab.levels.len() {
        slab.add_partial_restrictions(&mut h.levels[l + 1], l + 1, d)?;
        slab_vcycle(h, slab, l + 1, d)?;
        slab.exchange(&mut h.levels[l + 1], l + 1, RED, d)?;
    } else {
        slab.coarse_cycle(h, l + 1, d)?;
    }
    {
        let (fine, coarse) = h.levels.split_at_mut(l + 1);
        // The owned fine layers interpolate from the coarse layers their restriction wrote.
        let rows = slab::layer_rows(&coarse[0], &slab.levels[l].touch);
        prolong_from_rows(&mut coarse[0], &mut fine[l], true, Some(RED), rows, None);
    }
    let level = &mut h.levels[l];
    for _ in 0..sweeps {
        slab.exchange(level, l, RED, d)?;
        half_sweep(level, BLACK, false);
        slab.exchange(level, l, BLACK, d)?;
        half_sweep(level, RED, false);
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
        let h = &mut pre.hierarchy;
        let gathered = setup::Gathered {
            min_cells: pre.min_cells,
            root: coarse::coarse_rank(d, pre.one_coarse_rank),
        };
        let rebuilt = setup::update(h, p, d, &mut self.blocks, &mut self.global, gathered)?;
        pre.prepare(d, rebuilt)?;
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
