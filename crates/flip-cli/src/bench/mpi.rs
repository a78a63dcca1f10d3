//! `flipgraph bench mpi` (feature `mpi`, run under `mpirun -np N`): weak scaling of the
//! distributed pressure solve. The dam-break problem grows with the ranks (each owns `size`
//! layers of a `size`² (2D: `size`) cross-section), every rank solves its slab, and rank 0
//! prints one row: ms per solve, time per owned cell (per solve and per CG iteration), the share of
//! the solve spent in communication (the slowest rank's), and the traffic a larger cluster
//! would see (bytes per halo exchange, messages and collectives per CG iteration).

use crate::session::Session;
use anyhow::{anyhow, Context, Result};
use clap::Args;
use flip_comm::mpi as mpi_comm;
use flip_comm::{Communicator, Distribution};
use flip_host::{SolveLimits, SolverInstance};
use flip_solvers::fixtures::{self, Scene};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `bench mpi`.
#[derive(Args)]
pub struct MpiArgs {
    /// Cells along each axis of a rank's part (the slab axis grows with the ranks).
    #[arg(long, default_value_t = 256)]
    pub size: usize,
    /// 2 or 3.
    #[arg(long, default_value_t = 2)]
    pub dim: usize,
    /// Timed solves (each from a zero initial guess).
    #[arg(long, default_value_t = 5)]
    pub solves: usize,
    /// Distributed solver (plugin/algorithm).
    #[arg(long, default_value = "multigrid/mgpcg")]
    pub solver: String,
}

/// Runs the benchmark on this rank.
pub fn run(session: &Session, a: &MpiArgs) -> Result<()> {
    let rt = mpi_comm::init().ok_or_else(|| anyhow!("MPI could not be initialised"))?;
    let ranks = rt.comm.ranks() as usize;
    let n = a.size.max(8);
    let dims = match a.dim {
        2 => [n, n * ranks, 1],
        3 => [n, n, n * ranks],
        d => return Err(anyhow!("--dim must be 2 or 3, not {d}")),
    };
    let dist = Arc::new(Distribution::for_solve(rt.comm.clone(), dims)?);
    let global = fixtures::build(Scene::DamBreak, dims, 7);
    let (plugin, _) = session.plugins.find(&a.solver)?;
    let name = a.solver.rsplit('/').next().unwrap_or(&a.solver);
    let mut solver = SolverInstance::create(plugin, name, &[])?;
    if ranks > 1 {
        solver.set_limits(SolveLimits {
            distributed: Some(dist.clone()),
            ..SolveLimits::default()
        });
    }
    let (mut seconds, mut iterations) = (0.0, 0u64);
    let stats = &dist.stats;
    for _ in 0..a.solves.max(1) {
        let mut local = global.slab(dist.layout());
        let mut sync = [0.0];
        dist.comm().sum(&mut sync); // start together
        let start = Instant::now();
        let s = solver
            .solve(&mut local.view())
            .with_context(|| format!("solving with {}", a.solver))?;
        seconds += start.elapsed().as_secs_f64();
        iterations += u64::from(s.iterations);
    }
    let solves = a.solves.max(1) as f64;
    let mut worst = [seconds, stats.comm_ns.load(Ordering::Relaxed) as f64 * 1e-9];
    dist.comm().max(&mut worst);
    if dist.comm().rank() == 0 {
        let owned = global.cell_count() / ranks;
        let per_it = |v: u64| v as f64 / iterations.max(1) as f64;
        let msgs = stats.halo_messages.load(Ordering::Relaxed);
        let bytes = stats.halo_bytes.load(Ordering::Relaxed);
        println!(
            "ranks {ranks:>2}  grid {dims:?}  {:.1} ms/solve  {:.2} ns/owned cell  {:.1} it/solve  {:.1} ns/owned cell/it  comm {:.0}%  {} B/halo exchange  {:.1} halo msgs/it  {:.1} collectives/it",
            1e3 * worst[0] / solves,
            1e9 * worst[0] / solves / owned as f64,
            iterations as f64 / solves,
            1e9 * worst[0] / iterations.max(1) as f64 / owned as f64,
            100.0 * worst[1] / worst[0].max(1e-12),
            bytes.checked_div(msgs).unwrap_or(0),
            per_it(msgs),
            per_it(stats.collectives.load(Ordering::Relaxed)),
        );
    }
    Ok(())
}
