//! Real simulation systems (dumped by the pressure node with `dump_problems`) replayed through
//! the solvers: splashes, thin sheets, one-cell droplets and air pockets, which the fixtures
//! lack. `tests/data` holds a few small ones (64² dam break, 20³ drop); the ignored tools replay
//! a whole folder of dumps (`FGPROB_DIR`) and print iterations and timings.

use super::tests::{solver, Algo, ALGOS};
use super::*;
use crate::direct::solve_reference;
use crate::krylov::{Mic0Config, Pcg, PcgConfig};
use crate::stencil::norm_inf;
use crate::OwnedProblem;
use flip_abi::CELL_FLUID;
use flip_sdk::PressureSolver;
use std::time::Instant;

/// Dumped systems of real runs: the 64² dam break (`graphs/dam_break_2d.ron` at 64², steps 27
/// and 35 while the front splashes, 421 late) and the 20³ drop (`graphs/drop_3d.ron`, step 29
/// just after impact); the hardest of their runs for the V-cycle.
const DUMPS: [(&str, &[u8]); 4] = [
    (
        "dam_break_64_step027",
        include_bytes!("../../tests/data/dam_break_64_step027.fgprob"),
    ),
    (
        "dam_break_64_step035",
        include_bytes!("../../tests/data/dam_break_64_step035.fgprob"),
    ),
    (
        "dam_break_64_step421",
        include_bytes!("../../tests/data/dam_break_64_step421.fgprob"),
    ),
    (
        "drop_20_step029",
        include_bytes!("../../tests/data/drop_20_step029.fgprob"),
    ),
];

fn dump(bytes: &[u8]) -> OwnedProblem {
    let mut p = OwnedProblem::parse_dump(bytes).expect("a valid dump");
    p.lcp = false;
    p
}

/// Most iterations to the default tolerance (rel. 1e-6) on the dumps, per algorithm (the same
/// for both coarsenings); measured: V 11, full 7, MGPCG 7 (before coarse levels kept
/// the fine Dirichlet distances: Galerkin 16 / 9 / 7, rediscretised 22 / 12 / 9).
fn bound(algo: Algo) -> u32 {
    match algo {
        Algo::V => 14,
        Algo::Full => 9,
        Algo::MgPcg => 9,
    }
}

#[test]
fn real_systems_converge_in_few_iterations_and_match_the_direct_reference() {
    for (name, bytes) in DUMPS {
        let mut base = dump(bytes);
        let reference = solve_reference(&base.view()).expect("reference solve");
        let scale = norm_inf(&reference).max(1e-12);
        for coarsening in [Coarsening::Galerkin, Coarsening::Rediscretise] {
            for algo in ALGOS {
                let what = format!("{algo:?} {coarsening:?} {name}");
                let config = MultigridConfig {
                    coarsening,
                    ..Default::default()
                };
                // Default tolerance, from the dump's initial guess (the previous pressure).
                let mut p = base.clone();
                let stats = solver(algo, config).solve(&mut p.view()).expect(&what);
                assert_eq!(stats.converged, 1, "{what}: {stats:?}");
                assert!(stats.iterations <= bound(algo), "{what}: {stats:?}");
                // Tight tolerance from zero: the solution of the direct solver.
                let mut p = base.clone();
                p.pressure.fill(0.0);
                let tight = MultigridConfig {
                    tolerance: crate::tolerance::Tolerance {
                        rel: 1e-10,
                        abs: 0.0,
                    },
                    ..config
                };
                let stats = solver(algo, tight).solve(&mut p.view()).expect(&what);
                assert_eq!(stats.converged, 1, "{what} (tight): {stats:?}");
                let err = p
                    .pressure
                    .iter()
                    .zip(&reference)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f64::max);
                assert!(
                    err <= 1e-7 * scale,
                    "{what}: ‖p − p_ref‖∞ = {err:e} ({scale:e})"
                );
            }
        }
    }
}

/// One solver instance on a sequence of different systems, as in a simulation, where the
/// hierarchy is rebuilt every solve: nothing of a previous system may leak into the next (a
/// stale correction on cells that turned to air once stalled MGPCG on 12 of 175 solves).
#[test]
fn one_instance_solves_a_sequence_of_real_systems() {
    let order = [0, 1, 2, 1, 0, 2];
    for algo in ALGOS {
        let mut s = solver(algo, MultigridConfig::default());
        for &i in &order[..3] {
            // The 2D dumps share a grid: the hierarchy is rebuilt in place.
            let (name, bytes) = DUMPS[i];
            let mut p = dump(bytes);
            let stats = s.solve(&mut p.view()).expect(name);
            assert_eq!(stats.converged, 1, "{algo:?} {name}: {stats:?}");
            assert!(
                stats.iterations <= bound(algo),
                "{algo:?} {name}: {stats:?}"
            );
        }
        for &i in &order[3..] {
            let (name, bytes) = DUMPS[i];
            let mut p = dump(bytes);
            p.pressure.fill(0.0);
            let stats = s.solve(&mut p.view()).expect(name);
            assert_eq!(stats.converged, 1, "{algo:?} {name} (cold): {stats:?}");
            assert!(
                stats.iterations <= bound(algo) + 2,
                "{algo:?} {name} (cold): {stats:?}"
            );
        }
    }
}

/// The configuration under test in the ignored tools, from `MG_SWEEPS`, `MG_COARSE_SWEEPS`,
/// `MG_COARSEST`, `MG_BUBBLE`, `MG_COARSENING` (`r`: rediscretise).
pub(super) fn env_config() -> MultigridConfig {
    let get = |k: &str| std::env::var(k).ok().and_then(|s| s.parse::<usize>().ok());
    let d = MultigridConfig::default();
    MultigridConfig {
        bubble_levels: get("MG_BUBBLE").unwrap_or(d.bubble_levels),
        n_sweep: get("MG_SWEEPS").unwrap_or(d.n_sweep),
        n_sweep_coarse: get("MG_COARSE_SWEEPS").unwrap_or(d.n_sweep_coarse),
        coarsest_size: get("MG_COARSEST").unwrap_or(d.coarsest_size),
        coarsening: if std::env::var("MG_COARSENING").is_ok_and(|v| v == "r") {
            Coarsening::Rediscretise
        } else {
            d.coarsening
        },
        ..d
    }
}

fn load_dir(dir: &str) -> Vec<(String, OwnedProblem)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("dump dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "fgprob"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let d = OwnedProblem::parse_dump(&std::fs::read(f).unwrap()).unwrap();
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            (name, d)
        })
        .collect()
}

/// `FGPROB_DIR=/tmp/fgprob cargo test --release -p flip-solvers real_dump_report -- --ignored --nocapture`
#[test]
#[ignore]
fn real_dump_report() {
    let dir = std::env::var("FGPROB_DIR").unwrap_or_else(|_| "/tmp/fgprob".into());
    let mic = std::env::var("FGPROB_MIC").is_ok();
    let cold = std::env::var("FGPROB_COLD").is_ok();
    let problems = load_dir(&dir);
    let mut tot = [(0u32, 0.0f64, 0u32); 4];
    let mut max_it = [0u32; 3];
    println!("| dump | dims | fluid | V it | V ms | Full it | Full ms | MGPCG it | MGPCG ms | MIC0 it | MIC0 ms |");
    for (name, p) in &problems {
        let fluid = p.cell_kind.iter().filter(|&&k| k == CELL_FLUID).count();
        let mut line = format!("| {name} | {:?} | {fluid} |", p.dims);
        for (i, algo) in [Algo::V, Algo::Full, Algo::MgPcg].into_iter().enumerate() {
            let mut s = solver(algo, env_config());
            let mut q = p.clone();
            if cold {
                q.pressure.fill(0.0);
            }
            s.solve(&mut q.view()).unwrap(); // build hierarchy
            let mut q = p.clone();
            if cold {
                q.pressure.fill(0.0);
            }
            let t = Instant::now();
            let st = s.solve(&mut q.view()).unwrap();
            let ms = t.elapsed().as_secs_f64() * 1e3;
            tot[i].0 += st.iterations;
            tot[i].1 += ms;
            tot[i].2 += u32::from(st.converged == 0);
            max_it[i] = max_it[i].max(st.iterations);
            line += &format!(
                " {}{} | {ms:.1} |",
                st.iterations,
                if st.converged == 1 { "" } else { "!" }
            );
        }
        if mic {
            let mut q = p.clone();
            if cold {
                q.pressure.fill(0.0);
            }
            let t = Instant::now();
            let st = Pcg::mic0(PcgConfig::default(), Mic0Config::default())
                .solve(&mut q.view())
                .unwrap();
            let ms = t.elapsed().as_secs_f64() * 1e3;
            tot[3].0 += st.iterations;
            tot[3].1 += ms;
            line += &format!(" {} | {ms:.1} |", st.iterations);
        }
        if std::env::var("FGPROB_QUIET").is_err() {
            println!("{line}");
        }
    }
    let n = problems.len().max(1) as f64;
    println!(
        "mean: V {:.1} it {:.1} ms ({} stalls); Full {:.1} it {:.1} ms ({}); MGPCG {:.1} it {:.1} ms ({}); MIC0 {:.1} it {:.1} ms",
        tot[0].0 as f64 / n, tot[0].1 / n, tot[0].2,
        tot[1].0 as f64 / n, tot[1].1 / n, tot[1].2,
        tot[2].0 as f64 / n, tot[2].1 / n, tot[2].2,
        tot[3].0 as f64 / n, tot[3].1 / n,
    );
    println!(
        "max iterations: V {} Full {} MGPCG {}",
        max_it[0], max_it[1], max_it[2]
    );
}

/// One solver instance across the dumps in order (as in the pipeline).
#[test]
#[ignore]
fn real_dump_sequence() {
    let dir = std::env::var("FGPROB_DIR").unwrap_or_else(|_| "/tmp/fgprob".into());
    let problems = load_dir(&dir);
    for algo in [Algo::V, Algo::MgPcg] {
        let mut s = solver(algo, env_config());
        let (mut it, mut bad) = (0, 0);
        for (name, p) in &problems {
            let mut q = p.clone();
            let st = s.solve(&mut q.view()).unwrap();
            it += st.iterations;
            if st.converged == 0 || st.iterations > 12 {
                bad += 1;
                let mut fresh = solver(algo, env_config());
                let mut q = p.clone();
                let st2 = fresh.solve(&mut q.view()).unwrap();
                println!("{algo:?} {name}: {st:?} ; fresh: {} it", st2.iterations);
            }
        }
        println!(
            "{algo:?}: mean {:.1} it, {bad} bad",
            it as f64 / problems.len() as f64
        );
    }
}
