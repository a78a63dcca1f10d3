//! MGPCG on one rank's slab of a distributed problem: conjugate gradient over the slabs (dot
//! products summed over ranks, matrix products after a halo exchange: `krylov`'s distributed
//! CG) preconditioned by the same symmetric V-cycle as [`super::MgPcgSolver`], applied to the
//! residual gathered from every rank. Version 1 gathers at the finest level, so every rank
//! runs the whole V-cycle (replicated, no communication inside it) and keeps its slab of the
//! result; the V-cycle's cost is not divided among ranks. Distributed smoothing of the fine
//! levels, gathering only the coarse ones, is the next step (see ARCHITECTURE).

use super::cycle::vcycle;
use super::hierarchy::Hierarchy;
use super::level::Level;
use super::MultigridConfig;
use crate::krylov::{Pcg, PcgConfig, Preconditioner};
use crate::stencil::Stencil;
use flip_plugin::sdk::{distributed, Distributed, OwnedProblem, Problem, SolveError, SolveStats};
use rayon::prelude::*;

/// One symmetric V-cycle (zero guess) on the global residual, gathered from the slabs.
pub(crate) struct GatheredVcycle {
    hierarchy: Hierarchy,
    r: Vec<f64>,
    z: Vec<f64>,
    failed: Option<SolveError>,
}

impl GatheredVcycle {
    fn new(config: &MultigridConfig) -> Self {
        Self {
            hierarchy: Hierarchy::new(config),
            r: Vec::new(),
            z: Vec::new(),
            failed: None,
        }
    }
}

impl Preconditioner for GatheredVcycle {
    fn distributable(&self) -> bool {
        true
    }
    fn setup(&mut self, _a: &Stencil<'_>) {} // the hierarchy is updated from the gathered problem
    fn apply(&mut self, _a: &Stencil<'_>, r: &[f64], z: &mut [f64]) {
        let Some(d) = distributed() else {
            self.failed = Some(SolveError::Failed("the distributed suite went away".into()));
            return z.fill(0.0);
        };
        let n: usize = d.layout().global_dims.iter().map(|&v| v as usize).product();
        self.r.resize(n, 0.0);
        self.z.resize(n, 0.0);
        if let Err(e) = d.all_gather(r, &mut self.r) {
            self.failed = Some(e);
            return z.fill(0.0);
        }
        let level = &mut self.hierarchy.levels[0];
        grid_to_b(level, &self.r);
        vcycle(&mut self.hierarchy, 0, true, true);
        x_to_grid(&self.hierarchy.levels[0], &mut self.z);
        let layout = d.layout();
        let lo = (layout.first - layout.ghost_lo) as usize * layout.layer_len();
        z.copy_from_slice(&self.z[lo..lo + z.len()]);
    }
}

/// Loads a grid vector into level 0's right-hand side (f32, colour-split; 0 off the unknowns).
fn grid_to_b(level: &mut Level, r: &[f64]) {
    let [ni, nj, _] = level.dims;
    let half = level.half;
    for colour in 0..2 {
        let mut b = std::mem::take(&mut level.cs[colour].b);
        b.par_chunks_mut(half).enumerate().for_each(|(pr, b)| {
            b.fill(0.0);
            let (lo, hi) = level.spans[colour][pr];
            let Some((j, k)) = level.row_jk(pr).filter(|_| lo < hi) else {
                return;
            };
            let e = (colour + level.row_parity(pr)) & 1;
            let inv = &level.cs[colour].inv_diag[pr * half..][..half];
            // Entry h is cell ip = 2h + e, i = ip - 1 (as in `outer::load`).
            let base = (ni * (j + nj * k)) as isize + e as isize - 1;
            for h in lo as usize..hi as usize {
                if inv[h] != 0.0 {
                    b[h] = r[(base + 2 * h as isize) as usize] as f32;
                }
            }
        });
        level.cs[colour].b = b;
    }
}

/// Level 0's solution `x` as a grid vector (0 off the unknowns; as `outer::store`).
fn x_to_grid(level: &Level, z: &mut [f64]) {
    let [ni, nj, _] = level.dims;
    let half = level.half;
    z.par_chunks_mut(ni).enumerate().for_each(|(row, out)| {
        let pr = level.at(0, row % nj, row / nj) / level.pdims[0];
        let q = level.row_parity(pr);
        out.fill(0.0);
        for colour in 0..2 {
            let (lo, hi) = level.spans[colour][pr];
            let e = (colour + q) & 1;
            let src = &level.cs[colour].x[pr * half..][..half];
            let inv = &level.cs[colour].inv_diag[pr * half..][..half];
            for h in lo as usize..hi as usize {
                if inv[h] != 0.0 {
                    out[2 * h + e - 1] = f64::from(src[h]);
                }
            }
        }
    });
}

/// The matrix of the whole problem on every rank (what the hierarchy reads: cell kinds,
/// diagonal, couplings and, with `face_open`, the open fractions), each array's owned slabs
/// gathered.
fn gather_problem(
    d: &Distributed,
    p: &Problem<'_>,
    face_open: bool,
) -> Result<OwnedProblem, SolveError> {
    let l = d.layout();
    let dims = l.global_dims.map(|v| v as usize);
    let mut g = OwnedProblem::empty(dims, p.dx);
    let n = g.cell_count();
    let mut buf = vec![0.0f64; n];
    let mut gather = |src: Vec<f64>| -> Result<Vec<f64>, SolveError> {
        d.all_gather(&src, &mut buf)?;
        Ok(buf.clone())
    };
    let f32s = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>();
    let back = |v: Vec<f64>| v.into_iter().map(|x| x as f32).collect::<Vec<_>>();
    g.cell_kind = gather(p.cell_kind.iter().map(|&k| f64::from(k)).collect())?
        .into_iter()
        .map(|k| k as u8)
        .collect();
    g.diag = back(gather(f32s(p.diag))?).into();
    for a in 0..3 {
        g.off[a] = back(gather(f32s(p.off[a]))?).into();
        if face_open {
            g.face_open[a] = back(gather(f32s(p.face_open[a]))?).into();
        }
    }
    Ok(g)
}

/// The distributed MGPCG state of a solver (created on its first distributed solve).
pub(crate) struct DistributedMgpcg {
    pcg: Pcg<GatheredVcycle>,
}

impl DistributedMgpcg {
    /// A solver with `config`'s tolerance, budget and hierarchy settings.
    pub(crate) fn new(config: &MultigridConfig) -> Self {
        let pcg_config = PcgConfig {
            tolerance: config.tolerance,
            max_iterations: config.max_iterations as u32,
        };
        Self {
            pcg: Pcg::new(pcg_config, GatheredVcycle::new(config)),
        }
    }

    /// Solves this rank's slab.
    ///
    /// # Errors
    /// As the distributed CG, plus a failed gather inside the preconditioner.
    pub(crate) fn solve(
        &mut self,
        d: &Distributed,
        p: &mut Problem<'_>,
    ) -> Result<SolveStats, SolveError> {
        d.check_dims(p.dims)?;
        let pre = self.pcg.preconditioner_mut();
        let mut global = gather_problem(d, p, pre.hierarchy.reads_face_open())?;
        pre.hierarchy.update(&global.view());
        pre.failed = None;
        let a = Stencil::of(p);
        let stats = self.pcg.solve_slab(d, &a, p.rhs, p.pressure)?;
        match self.pcg.preconditioner_mut().failed.take() {
            Some(e) => Err(e),
            None => Ok(stats),
        }
    }
}
