//! Real simulation systems (dumped by the pressure node with `dump_problems`) replayed through
//! the solvers: splashes, thin sheets, one-cell droplets and air pockets, which the fixtures
//! lack. `tests/data` holds a few small ones (64² dam break, 20³ drop). To time a whole folder
//! of dumps: `flipgraph bench problems --dumps DIR [--sequence]`.

use super::tests::{solver, Algo, ALGOS};
use super::*;
use crate::direct::solve_reference;
use crate::stencil::norm_inf;
use crate::OwnedProblem;

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
