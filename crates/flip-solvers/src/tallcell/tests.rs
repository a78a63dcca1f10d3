//! The tall-cell multigrid on problems the host's tall-cell assembly poses: its operator
//! re-discretised on the finest grid is the host's matrix, its answers agree with the direct
//! solve (tall cells and the regular grid), and its full-cycle count stays flat as the grid
//! is refined.

use super::grid::Grid;
use super::operator::assemble;
use super::{TallCycle, TallMgConfig, TallMultigrid};
use crate::direct::DirectConfig;
use crate::sparse::CsrDirect;
use crate::tolerance::Tolerance;
use flip_core::tallcell::{advect, pressure, terrain, TallGrid, TallLiquid};
use flip_sdk::{PressureSolver, SolveStats};

/// A lake over hills on `cols` columns, 3/4 of the domain deep, its velocity stirred, after
/// gravity: the problem of one step (`regular: None` = the regular grid).
fn stirred_lake(cols: usize, regular: Option<usize>) -> pressure::TallPressure {
    let (height, dx) = (cols * 3 / 4, 1.0 / cols as f32);
    let t = terrain::from_fn(cols, dx, height, |x| {
        0.08 + 0.05 * (7.0 * x).sin() + 0.03 * (19.0 * x).cos()
    });
    let grid = TallGrid::new(height, dx, t, regular, 2).expect("grid");
    let mut liquid = TallLiquid::below(grid, |x| 0.5 + 0.02 * (9.0 * x).cos());
    for (c, v) in liquid.v.iter_mut().enumerate() {
        *v = 0.05 * ((c as f32) * 0.37).sin();
    }
    advect::enforce_walls(&mut liquid);
    advect::add_gravity(&mut liquid, -9.81, 0.01);
    pressure::assemble(&liquid, 1000.0, 0.01)
}

fn tolerance(rel: f64) -> Tolerance {
    Tolerance { rel, abs: 0.0 }
}

fn multigrid(p: &mut pressure::TallPressure, cycle: TallCycle, rel: f64) -> SolveStats {
    let config = TallMgConfig {
        cycle,
        tolerance: tolerance(rel),
        ..TallMgConfig::default()
    };
    p.csr.pressure.fill(0.0);
    TallMultigrid::new(config)
        .solve_tallcell(&mut p.tallcell())
        .expect("multigrid")
}

fn direct(p: &pressure::TallPressure) -> Vec<f64> {
    let mut csr = p.csr.clone();
    let config = DirectConfig {
        tolerance: tolerance(1e-12),
    };
    CsrDirect::new(config)
        .solve_csr(&mut csr.view())
        .expect("direct");
    csr.pressure
}

#[test]
fn the_finest_level_rediscretised_is_the_hosts_matrix() {
    for regular in [Some(8), None] {
        let mut p = stirred_lake(64, regular);
        let view = p.tallcell();
        let grid = Grid::from_geometry(&view.geometry);
        let mut rows = vec![u32::MAX; grid.phi.len()];
        for (r, &s) in view.geometry.row_sample.iter().enumerate() {
            rows[s as usize] = r as u32;
        }
        let m = assemble(&grid, &rows, 1.0);
        assert_eq!(m.rows(), view.csr.rows());
        for r in 0..m.rows() {
            let ours: Vec<(u32, f64)> = m.row(r).filter(|e| e.1 != 0.0).collect();
            let host: Vec<(u32, f64)> = view
                .csr
                .row(r)
                .map(|(c, v)| (c as u32, v))
                .filter(|e| e.1 != 0.0)
                .collect();
            assert_eq!(ours.len(), host.len(), "row {r}: {ours:?} vs {host:?}");
            for (a, b) in ours.iter().zip(&host) {
                assert!(
                    a.0 == b.0 && (a.1 - b.1).abs() < 1e-9,
                    "row {r}: {ours:?} vs {host:?}"
                );
            }
        }
    }
}

#[test]
fn multigrid_agrees_with_the_direct_solve() {
    for regular in [Some(8), None] {
        for cycle in [TallCycle::Full, TallCycle::V] {
            let mut p = stirred_lake(64, regular);
            let exact = direct(&p);
            let stats = multigrid(&mut p, cycle, 1e-10);
            let scale = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let err = p
                .csr
                .pressure
                .iter()
                .zip(&exact)
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            println!(
                "{regular:?} {cycle:?}: {} unknowns, {} cycles, error {err:.2e} (max |p| {scale:.2e})",
                exact.len(),
                stats.iterations
            );
            assert!(stats.converged == 1, "{stats:?}");
            assert!(err < 1e-7 * scale, "error {err}");
        }
    }
}

#[test]
fn full_cycles_stay_flat_across_resolutions() {
    let counts: Vec<u32> = [64, 128, 256]
        .iter()
        .map(|&n| {
            let mut p = stirred_lake(n, Some(8));
            let s = multigrid(&mut p, TallCycle::Full, 1e-8);
            println!(
                "{n} columns: {} unknowns, {} full cycles",
                p.csr.rhs.len(),
                s.iterations
            );
            assert_eq!(s.converged, 1, "{n} columns: {s:?}");
            s.iterations
        })
        .collect();
    let (lo, hi) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
    assert!(hi - lo <= 2, "full cycles {counts:?}");
}
