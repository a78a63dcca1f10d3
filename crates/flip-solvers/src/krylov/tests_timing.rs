//! `krylov_kernel_costs` prints ns per cell of each Krylov kernel at 64³ (ignored; run in
//! release with `--ignored --nocapture`). CPU time (all threads, from
//! `/proc/self/task/*/schedstat`) is less sensitive to a busy machine than wall time. Whole
//! solves: `flipgraph bench problems --scene dam-break`.

use super::kernels::{apply_dot, stencil_of, update, xpby};
use super::{IncompleteCholesky, Mic0Config, Preconditioner, RedBlackSsor};
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
