//! `flipgraph-mpi-solve SCENE NI NJ NK ALGORITHM OUT`: one rank of a distributed pressure solve,
//! started by the MPI tests under `mpirun`. Builds a fixture problem, solves this rank's slab
//! through the host (a plugin instance offered the distributed suite), gathers the solution and
//! writes, on rank 0, `OUT` (the global pressure, little-endian f64) and one line
//! `iterations=N residual=R ranks=P` on stdout. With one rank the solve is the ordinary one.

use flip_comm::mpi as mpi_comm;
use flip_comm::Distribution;
use flip_host::{default_plugin_dirs, PluginSet, SolveLimits, SolverInstance};
use flip_solvers::fixtures::{self, Scene};
use std::sync::Arc;

fn scene(name: &str) -> Scene {
    match name {
        "dam_break" => Scene::DamBreak,
        "free_surface" => Scene::FreeSurfaceBox,
        "bubbles" => Scene::AirBubbles,
        "lcp_container" => Scene::LcpContainer,
        other => panic!("unknown scene {other}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, name, ni, nj, nk, algorithm, out] = &args[..] else {
        panic!("usage: flipgraph-mpi-solve SCENE NI NJ NK ALGORITHM OUT");
    };
    let dims = [ni, nj, nk].map(|v| v.parse::<usize>().expect("a cell count"));
    let runtime = mpi_comm::init().expect("MPI initialises");
    let comm = runtime.comm.clone();
    let dist = Arc::new(Distribution::for_solve(comm, dims).expect("slabs fit"));
    let global = fixtures::build(scene(name), dims, 7);
    let mut local = global.slab(dist.layout());
    // Built as dependencies of the tests, the plugins lie in `deps` beside this binary; look
    // there first (a copy beside the binary may be older).
    let exe = std::env::current_exe().expect("own path");
    let mut dirs: Vec<_> = exe.parent().map(|d| d.join("deps")).into_iter().collect();
    dirs.extend(default_plugin_dirs());
    let set = PluginSet::load_dirs(&dirs);
    let (plugin, _) = set.find(algorithm).expect("the algorithm is built");
    let short = algorithm.split('/').next_back().unwrap_or(algorithm);
    let mut solver = SolverInstance::create(plugin, short, &[]).expect("instance");
    let ranks = dist.comm().ranks();
    if ranks > 1 {
        solver.set_limits(SolveLimits {
            distributed: Some(dist.clone()),
            ..SolveLimits::default()
        });
    }
    let stats = solver
        .solve(&mut local.view())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut pressure = vec![0.0; global.cell_count()];
    if ranks > 1 {
        dist.all_gather(&local.pressure, &mut pressure);
    } else {
        pressure.copy_from_slice(&local.pressure);
    }
    if dist.comm().rank() == 0 {
        let bytes: Vec<u8> = pressure.iter().flat_map(|v| v.to_le_bytes()).collect();
        std::fs::write(out, bytes).expect("write the solution");
        println!(
            "iterations={} residual={:e} ranks={ranks}",
            stats.iterations, stats.residual
        );
    }
}
