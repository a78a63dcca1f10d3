//! `flipgraph bench …`: whole-step timings on the reference scene, solver sweeps in the style
//! of Lai et al.'s tables, cold solves of reference problems and dumps, surface meshing,
//! tall-cell water, and the cost of process isolation. Every table is printed and written as
//! CSV and Markdown into `--out` ([`table::Table`]); `docs/bench/README.md` indexes them.

mod isolation;
#[cfg(feature = "mpi")]
mod mpi;
mod nodes;
mod problems;
mod roofline;
mod step;
/// `bench step --bodies N`: the coupled rigid-body pressure solve against the uncoupled one.
mod step_bodies;
#[cfg(feature = "mpi")]
mod step_mpi;
mod surface;
mod sweep;
mod table;
mod tallcell;
mod tallcell_scenes;
mod tallcell_solvers;
mod whitewater;

use crate::session::Session;
use anyhow::Result;
use clap::Subcommand;
use std::path::PathBuf;

pub use sweep::{SweepArgs, SweepKind};

/// Benchmarks.
#[derive(Subcommand)]
pub enum BenchCommand {
    /// Seconds per FLIP step on the reference dam break (PERFORMANCE.md), by node.
    Step(step::StepArgs),
    /// Linear solvers: iterations and seconds per pressure solve vs grid size (Lai Tables 1, 5)
    /// on the dam break and the circle/sphere container, voxelized and variational side by side.
    Solvers(SweepArgs),
    /// LCP solvers for separating walls vs grid size (Lai Tables 1-6), voxelized and
    /// variational side by side.
    Lcp(SweepArgs),
    /// Cold pressure solves of reference problems (the solver fixtures, variational scenes) or
    /// of `.fgprob` dumps through the loaded plugins: iterations, ms per solve, ms of the
    /// host's result check (Lai et al. Tables 1, 3, 5, 12 with `--scene lcp-container`).
    Problems(problems::ProblemsArgs),
    /// The pressure solve in-process vs isolated in a child process
    /// (`pressure.isolation = "process"`) at 128² and 64³: per solve with the volume correction
    /// off (the same work in both), and per whole step with the default physics.
    Isolation(isolation::IsolationArgs),
    /// A node plugin against the built-in node doing the same work (vorticity confinement at
    /// 64³): ms per evaluation and the plugin's overhead.
    Nodes(nodes::NodesArgs),
    /// Liquid surface meshing (particle level set → Surface Nets → smoothing) of the dam
    /// break's particles: about 1 M (64³) and 8 M (128³).
    Surface(surface::SurfaceArgs),
    /// Tall-cell water (2D Tank; `--dim 3`: 3D Tank and Flood): unknowns, ms per stage (VE,
    /// LA, VA, RM, PP) and solver iterations on the tall-cell and the regular grid vs column
    /// count, then multigrid vs Krylov at 1e-4 and 1e-8.
    Tallcell(tallcell::TallcellArgs),
    /// Whitewater: seconds per frame and µs per diffuse particle-step with millions of
    /// diffuse particles (Ihmsen et al. 2012).
    Whitewater(whitewater::WhitewaterArgs),
    /// Weak scaling of the distributed pressure solve under `mpirun -np N` (feature `mpi`):
    /// ms per solve, communication share, bytes per halo exchange, messages per iteration.
    #[cfg(feature = "mpi")]
    Mpi(mpi::MpiArgs),
    /// In builds without the `mpi` feature: refused, saying how to build one.
    #[cfg(not(feature = "mpi"))]
    #[command(hide = true)]
    Mpi(MissingFeatureArgs),
}

/// Runs a benchmark.
pub fn run(session: &Session, cmd: BenchCommand) -> Result<()> {
    match cmd {
        BenchCommand::Step(a) => step::run(session, &a),
        BenchCommand::Solvers(a) => sweep::run(session, &a, SweepKind::Linear),
        BenchCommand::Lcp(a) => sweep::run(session, &a, SweepKind::Lcp),
        BenchCommand::Problems(a) => problems::run(session, &a),
        BenchCommand::Surface(a) => surface::run(session, &a),
        BenchCommand::Isolation(a) => isolation::run(session, &a),
        BenchCommand::Nodes(a) => nodes::run(session, &a),
        BenchCommand::Tallcell(a) => tallcell::run(session, &a),
        BenchCommand::Whitewater(a) => whitewater::run(session, &a),
        #[cfg(feature = "mpi")]
        BenchCommand::Mpi(a) => mpi::run(session, &a),
        #[cfg(not(feature = "mpi"))]
        BenchCommand::Mpi(_) => crate::features::MPI.require("bench mpi"),
    }
}

/// The arguments of a subcommand this build lacks: any, so the refusal says why.
#[cfg(not(feature = "mpi"))]
#[derive(clap::Args)]
pub struct MissingFeatureArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    _args: Vec<String>,
}

/// Peak resident memory of this process (MB), from /proc (Linux).
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Folder for benchmark tables (CSV and Markdown).
pub fn bench_dir(out: &Option<PathBuf>) -> PathBuf {
    out.clone().unwrap_or_else(|| PathBuf::from("out/bench"))
}
