//! One pressure solve of the half-filled dam break per algorithm (criterion).
//! `cargo bench -p flip-solvers --bench single_solve`; the CLI's `flipgraph bench solvers`
//! measures whole simulations instead.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use flip_sdk::PressureSolver;
use flip_solvers::fixtures::{build, Scene};
use flip_solvers::krylov::{Mic0Config, Pcg, PcgConfig};
use flip_solvers::multigrid::{MgPcgSolver, MultigridConfig, MultigridSolver};

/// Builds a fresh solver.
type Factory = Box<dyn Fn() -> Box<dyn PressureSolver>>;

fn solvers() -> Vec<(&'static str, Factory)> {
    vec![
        (
            "mic0-pcg",
            Box::new(|| Box::new(Pcg::mic0(PcgConfig::default(), Mic0Config::default()))),
        ),
        (
            "rbssor-pcg",
            Box::new(|| Box::new(Pcg::rbssor(PcgConfig::default(), Default::default()))),
        ),
        (
            "mg-vcycle",
            Box::new(|| {
                Box::new(
                    MultigridSolver::new(MultigridConfig::default())
                        .expect("default config is valid"),
                )
            }),
        ),
        (
            "mgpcg",
            Box::new(|| {
                Box::new(
                    MgPcgSolver::new(MultigridConfig::default()).expect("default config is valid"),
                )
            }),
        ),
    ]
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("dam_break_solve");
    group.sample_size(10);
    for dims in [[128, 128, 1], [256, 256, 1], [32, 32, 32], [64, 64, 64]] {
        let problem = build(Scene::DamBreak, dims, 1);
        let label = if dims[2] == 1 {
            format!("{}^2", dims[0])
        } else {
            format!("{}^3", dims[0])
        };
        for (name, make) in solvers() {
            // Set-up (factorisation / hierarchy) happens on the first solve and is reused, as in
            // a simulation whose geometry did not change; each timed solve starts from zero.
            let mut solver = make();
            let mut p = problem.clone();
            solver.solve(&mut p.view()).expect("solve");
            group.bench_function(BenchmarkId::new(name, &label), |b| {
                b.iter(|| {
                    p.pressure.fill(0.0);
                    solver.solve(&mut p.view()).expect("solve")
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
