//! Profiling tools for private kernels (ignored; run in release with `--ignored --nocapture`):
//! per-kernel timings of the fine level and hierarchy rebuilds. Whole solves are
//! `flipgraph bench problems --scene dam-break`. `MG_PROFILE=ni,nj,nk` picks the grid
//! (default 128³), `RAYON_NUM_THREADS` the threads.

use super::*;
use flip_abi::CELL_FLUID;
use std::time::Instant;

/// The grid of `MG_PROFILE`.
fn dims() -> [usize; 3] {
    let d: Vec<usize> = std::env::var("MG_PROFILE")
        .unwrap_or_else(|_| "128,128,128".into())
        .split(',')
        .map(|s| s.parse().expect("MG_PROFILE=ni,nj,nk"))
        .collect();
    [d[0], d[1], d[2]]
}

/// CPU time of this process (all threads), ms (from /proc/self/stat; 10 ms resolution).
fn cpu_ms() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = s.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11).and_then(|v| v.parse().ok()).unwrap_or(0.0)
        + f.get(12).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    ticks * 10.0
}

/// Per-kernel timings on the fine level of the dam break (medians of 15 runs).
/// `MG_PROFILE=128,128,128 cargo test --release -p flip-solvers mg_kernels -- --ignored --nocapture`
#[test]
#[ignore]
fn mg_kernels() {
    use super::hierarchy::Hierarchy;
    use super::outer::{self, Vectors};
    use super::smoother::half_sweep;
    use super::transfer::{prolong, restrict};
    let mut p = crate::fixtures::build(crate::fixtures::Scene::DamBreak, dims(), 1);
    let cfg = MultigridConfig::default();
    let mut h = Hierarchy::new(&cfg);
    let mut q = p.clone();
    let mut p2 = p.clone();
    let fluid = p2.cell_kind.iter().position(|&k| k == CELL_FLUID).unwrap();
    p2.diag[fluid] += 1.0;
    let view = p.view();
    let t = Instant::now();
    h.update(&view);
    println!(
        "setup (fresh) {:.2} ms, {} levels, {} unknowns",
        t.elapsed().as_secs_f64() * 1e3,
        h.depth(),
        h.levels[0].unknowns
    );
    let mut v = Vectors::default();
    v.fit(&h.levels[0], true);
    let time = |name: &str, f: &mut dyn FnMut()| {
        let mut ts: Vec<f64> = (0..15)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        ts.sort_by(f64::total_cmp);
        println!("{name:28} {:8.3} ms (min; median {:.3})", ts[0], ts[7]);
    };
    time("load (rhs, guess)", &mut || {
        outer::load_whole(&view, &h.levels[0], &h.build.regions, &mut v);
    });
    let mut flip = false;
    time("rebuild (same dims)", &mut || {
        flip = !flip;
        if flip {
            h.update(&p2.view());
        } else {
            h.update(&view);
        }
    });
    time("half sweep", &mut || half_sweep(&mut h.levels[0], 0, false));
    time("half sweep zero", &mut || {
        half_sweep(&mut h.levels[0], 0, true)
    });
    time("residual red (f32, scaled)", &mut || {
        h.levels[0].residual(true)
    });
    time("restrict 0->1", &mut || {
        let (f, c) = h.levels.split_at_mut(1);
        restrict(&f[0], &mut c[0], true);
    });
    time("prolong 1->0", &mut || {
        let (f, c) = h.levels.split_at_mut(1);
        prolong(&mut c[0], &mut f[0], true, Some(0));
    });
    time("vcycle", &mut || {
        crate::hierarchy::cycle::vcycle(&mut h, 0, true, true, None)
    });
    time("vcycle from level 1", &mut || {
        crate::hierarchy::cycle::vcycle(&mut h, 1, true, true, None)
    });
    time("outer residual f64", &mut || {
        outer::residual(&mut h.levels[0], &mut v);
    });
    time("outer dot r.z", &mut || {
        outer::dot_rz(&h.levels[0], &mut v);
    });
    time("outer direction", &mut || {
        outer::direction(&h.levels[0], &mut v, 0.5);
    });
    time("outer step", &mut || {
        outer::step(&mut h.levels[0], &mut v, 0.5);
    });
    time("store", &mut || {
        outer::store(&mut q.view(), &h.levels[0], &v, 0)
    });
}

/// 20 hierarchy rebuilds of the 128³ dam break (for `perf`): `MG_REBUILDS=20`.
#[test]
#[ignore]
fn mg_rebuilds() {
    use super::hierarchy::Hierarchy;
    let mut p = crate::fixtures::build(crate::fixtures::Scene::DamBreak, dims(), 1);
    let mut p2 = p.clone();
    let fluid = p2.cell_kind.iter().position(|&k| k == CELL_FLUID).unwrap();
    p2.diag[fluid] += 1.0;
    let mut h = Hierarchy::new(&MultigridConfig::default());
    h.update(&p.view());
    let n: usize = std::env::var("MG_REBUILDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let t = Instant::now();
    let c0 = cpu_ms();
    for i in 0..n {
        if i % 2 == 0 {
            h.update(&p2.view());
        } else {
            h.update(&p.view());
        }
    }
    println!(
        "rebuild: {:.2} ms wall, {:.2} ms CPU",
        t.elapsed().as_secs_f64() * 1e3 / n as f64,
        (cpu_ms() - c0) / n as f64
    );
}
