//! Timing table of the CG variants on the dam-break system (rel. tolerance 1e-6). Run with
//! `cargo test --release -p flip-solvers krylov_timing_table -- --ignored --nocapture`
//! (`FLIP_TIMING_128=1` adds the 128³ grid). Wall time is the median of three solves; CPU time
//! (all threads, from `/proc/self/task/*/schedstat`) is less sensitive to a busy machine.
//! `krylov_kernel_costs` prints ns per cell of each kernel at 64³.

use super::kernels::{apply_dot, stencil_of, update, xpby};
use super::tests::solvers;
use super::{IncompleteCholesky, Mic0Config, PcgConfig, Preconditioner, RedBlackSsor};
use crate::fixtures::{self, Scene};
use std::time::Instant;

/// CPU time of the process so far, in ms (0 where `/proc` is unavailable).
fn cpu_ms() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    let ns: u64 = tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    ns as f64 * 1e-6
}

/// Median wall ms and mean CPU ms of `runs` calls of `f`.
fn time(runs: usize, mut f: impl FnMut()) -> (f64, f64) {
    let mut wall = Vec::with_capacity(runs);
    let cpu0 = cpu_ms();
    for _ in 0..runs {
        let t = Instant::now();
        f();
        wall.push(t.elapsed().as_secs_f64() * 1e3);
    }
    wall.sort_by(f64::total_cmp);
    (wall[runs / 2], (cpu_ms() - cpu0) / runs as f64)
}

#[test]
#[ignore = "timing table: run in release with --ignored --nocapture"]
fn krylov_timing_table() {
    let mut grids: Vec<[usize; 3]> = vec![[64, 64, 1], [128, 128, 1], [256, 256, 1]];
    grids.extend([[32, 32, 32], [64, 64, 64]]);
    if std::env::var_os("FLIP_TIMING_128").is_some() {
        grids.push([128, 128, 128]);
    }
    let threads = rayon::current_num_threads();
    println!("{threads} threads; wall: median of 3 solves (1 at 128³) from p = 0, set-up reused");
    println!("| grid | algorithm | iterations | wall ms | CPU ms |");
    println!("|---|---|---|---|---|");
    for dims in grids {
        let template = fixtures::build(Scene::DamBreak, dims, 1);
        for (name, mut solver) in solvers(PcgConfig::default()) {
            // First solve: hash, regions and preconditioner set-up.
            let stats = solver.solve(&mut template.clone().view()).expect("solves");
            assert_eq!(stats.converged, 1, "{name} {dims:?}: {stats:?}");
            let runs = if template.cell_count() < 1 << 20 {
                3
            } else {
                1
            };
            let (wall, cpu) = time(runs, || {
                let mut p = template.clone();
                solver.solve(&mut p.view()).expect("solves");
            });
            let grid = format!("{}x{}x{}", dims[0], dims[1], dims[2]);
            let its = stats.iterations;
            println!("| {grid} | {name} | {its} | {wall:.1} | {cpu:.1} |");
        }
    }
}

#[test]
#[ignore = "kernel costs: run in release with --ignored --nocapture"]
fn krylov_kernel_costs() {
    let mut p = fixtures::build(Scene::DamBreak, [64, 64, 64], 1);
    let view = p.view();
    let a = stencil_of(&view);
    let n = a.len();
    let (x, mut y, mut z) = (vec![1.0; n], vec![0.0; n], vec![0.5; n]);
    let mut partials = Vec::new();
    let mut mic = IncompleteCholesky::mic0(Mic0Config::default());
    let mut ssor = RedBlackSsor::new(Default::default());
    mic.setup(&a);
    ssor.setup(&a);
    let per_cell = |(w, c): (f64, f64)| {
        format!(
            "{:.2} ns/cell wall, {:.2} CPU",
            w * 1e6 / n as f64,
            c * 1e6 / n as f64
        )
    };
    println!("64³, {} threads", rayon::current_num_threads());
    println!(
        "apply_dot {}",
        per_cell(time(20, || {
            apply_dot(&a, &x, &mut y, &mut partials);
        }))
    );
    println!(
        "update    {}",
        per_cell(time(20, || {
            update(1e-3, &x, &x, &mut y, &mut z);
        }))
    );
    println!(
        "dot       {}",
        per_cell(time(20, || {
            crate::stencil::dot(&x, &z, 4096);
        }))
    );
    println!("xpby      {}", per_cell(time(20, || xpby(&x, 0.5, &mut y))));
    println!(
        "mic apply {}",
        per_cell(time(20, || mic.apply(&a, &x, &mut y)))
    );
    println!("mic setup {}", per_cell(time(5, || mic.setup(&a))));
    println!(
        "ssor      {}",
        per_cell(time(20, || ssor.apply(&a, &x, &mut y)))
    );
}
