//! Profiling tool (ignored; run in release with `--ignored --nocapture`): replays dumped
//! simulation systems (`pressure.dump_problems = true`, folder in `FGPROB_DIR`) through one
//! solver instance, as a simulation does, and prints per-solve cycles and times, the time of a
//! hierarchy build and the levels' sizes. `FGPROB_ALGO=fmg|pgs` picks another solver than
//! `fas-mg`; `FGPROB_KERNELS=1` times the kernels of every level; `FGPROB_SAVE=file` writes the
//! solutions, `FGPROB_CMP=file` compares with saved ones.
//! `FGPROB_DIR=/tmp/dumps cargo test --release -p flip-solvers lcp_profile -- --ignored --nocapture`

use super::*;
use crate::lcp::cache::Cached;
use crate::lcp::coarse::{Hierarchy, MgOptions};
use crate::lcp::grid::GridLevel;
use std::time::Instant;

/// Milliseconds per call of `f` (median of 15).
fn time(f: &mut dyn FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..15)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[7]
}

/// Times the kernels of every level (the finest in grid layout).
fn kernels(h: &Hierarchy, g: &GridLevel) {
    use crate::lcp::{gridsmooth, smooth};
    let n = g.layout.len();
    let t: Vec<f64> = (0..n).map(|i| (i % 7) as f64 * 0.1 - 0.3).collect();
    let lo = vec![f64::NEG_INFINITY; n];
    let (mut x, mut r) = (vec![0.0; n], vec![0.0; n]);
    let ts = time(&mut || gridsmooth::sweep(g, &t, &lo, &mut x));
    let tr = time(&mut || gridsmooth::residual_scaled(g, &t, &lo, &x, &mut r, false));
    println!("level 0 (grid): sweep {ts:.3} ms, residual {tr:.3} ms");
    for (l, level) in h.levels.iter().enumerate().skip(1) {
        let n = level.len();
        let t: Vec<f64> = (0..n).map(|i| (i % 7) as f64 * 0.1 - 0.3).collect();
        let mut lo = Vec::new();
        level.lower_into(&mut lo);
        let (mut x, mut r) = (vec![0.0; n], vec![0.0; n]);
        let ts = time(&mut || smooth::sweep(level, &t, &lo, &mut x));
        let tr = time(&mut || smooth::residual_scaled(level, &t, &lo, &x, &mut r));
        println!("level {l}: sweep {ts:.3} ms, residual {tr:.3} ms");
    }
}

#[test]
#[ignore]
fn lcp_profile() {
    let Ok(dir) = std::env::var("FGPROB_DIR") else {
        println!("set FGPROB_DIR to a folder of .fgprob dumps");
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("FGPROB_DIR")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "fgprob"))
        .collect();
    files.sort();
    let mut solver: Box<dyn PressureSolver> = match std::env::var("FGPROB_ALGO").as_deref() {
        Ok("fmg") => Box::new(FmgSolver::new(FmgConfig::default())),
        Ok("pgs") => Box::new(PgsSolver::new(PgsConfig::default())),
        _ => Box::new(FasMgSolver::new(FasConfig::default())),
    };
    let opts = MgOptions {
        interpolation: Interpolation::Barycentric,
        boundary: Boundary::OneSided,
        coarse: CoarseMatrix::Galerkin,
    };
    let mut cache = Cached::new(Hierarchy::new(opts, true));
    let reference: Option<Vec<f64>> = std::env::var("FGPROB_CMP").ok().map(|f| {
        let b = std::fs::read(f).expect("FGPROB_CMP");
        b.chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    });
    let (mut times, mut saved) = (Vec::new(), Vec::new());
    for (n, f) in files.iter().enumerate() {
        let bytes = std::fs::read(f).expect("read dump");
        let mut p = OwnedProblem::parse_dump(&bytes).expect("dump");
        let t = Instant::now();
        cache.get(&p.view());
        let t_build = t.elapsed().as_secs_f64();
        let (sys, h) = cache.parts();
        if n == 0 {
            for (l, lev) in h.levels.iter().enumerate() {
                println!(
                    "level {l}: {:>9} unknowns, {:.1} nnz/row, {} colours",
                    lev.len(),
                    (lev.a.col.len() + lev.len()) as f64 / lev.len().max(1) as f64,
                    lev.colours.len()
                );
            }
            if std::env::var("FGPROB_KERNELS").is_ok() {
                kernels(h, &sys.grid);
            }
        }
        let mut q = p.clone();
        let t = Instant::now();
        let st = solver.solve(&mut q.view()).expect("solve");
        let t_solve = t.elapsed().as_secs_f64();
        let c = complementarity(&p.view(), &q.pressure);
        let diff = reference.as_ref().map_or(0.0, |r| {
            let r = &r[saved.len()..saved.len() + q.pressure.len()];
            max_diff(r, &q.pressure)
        });
        saved.extend_from_slice(&q.pressure);
        println!(
            "{}: {:>2} cycles, solve {:>7.1} ms (hierarchy {:.1} ms), res {:.2e}, min p {:.1e}, |Δp| {:.1e}",
            f.file_name().unwrap_or_default().to_string_lossy(),
            st.iterations,
            t_solve * 1e3,
            t_build * 1e3,
            st.residual,
            c.min_pressure,
            diff
        );
        times.push(t_solve);
    }
    if let Ok(f) = std::env::var("FGPROB_SAVE") {
        let bytes: Vec<u8> = saved.iter().flat_map(|v| v.to_le_bytes()).collect();
        std::fs::write(f, bytes).expect("FGPROB_SAVE");
    }
    times.sort_by(f64::total_cmp);
    if !times.is_empty() {
        println!("median solve {:.1} ms", times[times.len() / 2] * 1e3);
    }
}
