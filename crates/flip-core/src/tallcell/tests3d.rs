//! The tall-cell grid in 3D: the restricted rule along x and z after the re-fit, trilinear
//! reads of linear fields through tall cells, and the point-wise problem's structure.

use super::grid::TallGrid;
use super::pressure::assemble;
use super::sample::{sample, Outside};
use super::state::TallLiquid;
use super::terrain;
use super::{advect, Stagger};

/// A 20×16-column basin over hills, 40 cells high.
fn grid(regular: Option<usize>) -> TallGrid {
    let ([nx, nz], height, dx) = ([20, 16], 40, 1.0 / 20.0);
    let t = terrain::from_map([nx, nz], dx, height, |x, z| {
        0.1 + 0.08 * (6.0 * x).sin().abs() + 0.05 * (5.0 * z).cos().abs()
    });
    TallGrid::new(height, dx, t, regular, 2).expect("grid")
}

/// Largest height difference of neighbouring tall cells along x and along z.
fn steps(g: &TallGrid) -> [usize; 2] {
    let [nx, nz] = g.columns;
    let mut worst = [0, 0];
    for c in 0..g.column_count() {
        let (i, k) = g.ik(c);
        if i + 1 < nx {
            worst[0] = worst[0].max(g.tall[c].abs_diff(g.tall[c + 1]));
        }
        if k + 1 < nz {
            worst[1] = worst[1].max(g.tall[c].abs_diff(g.tall[c + nx]));
        }
    }
    worst
}

#[test]
fn refit_restricts_heights_along_x_and_z() {
    // deep water in one corner, shallow elsewhere: the targets jump by far more than D
    let surface = |x: f32, z: f32| if x < 0.3 && z < 0.3 { 1.8 } else { 0.5 };
    let mut liquid = TallLiquid::below_map(grid(Some(6)), surface);
    let d = liquid.grid.max_step;
    assert!(
        steps(&liquid.grid).iter().all(|&s| s <= d),
        "{:?}",
        steps(&liquid.grid)
    );
    assert!(
        steps(&liquid.grid).iter().all(|&s| s == d),
        "the jump is restricted on both axes"
    );
    liquid.set_phi(|[x, y, z]| y - surface(x, z));
    liquid.refit();
    let after = steps(&liquid.grid);
    assert!(after.iter().all(|&s| s <= d), "after the re-fit: {after:?}");
    let tallest = liquid.grid.tall.iter().max().copied().unwrap_or(0);
    assert!(tallest > 10, "deep columns get tall cells: {tallest}");
}

#[test]
fn linear_fields_are_read_exactly_through_tall_cells_in_3d() {
    let mut liquid = TallLiquid::below_map(grid(Some(6)), |x, z| 1.2 + 0.2 * x - 0.1 * z);
    assert!(liquid.grid.tall.iter().any(|&h| h > 8));
    liquid.set_phi(|[x, y, z]| 0.3 * x - y + 0.4 * z);
    let g = &liquid.grid;
    for p in [
        [0.31, 0.27, 0.4],
        [0.52, 0.33, 0.61],
        [0.7, 0.41, 0.12],
        [0.2, 0.6, 0.7],
    ] {
        let q = sample(g, &liquid.phi, Stagger::Centre, p, Outside::LevelSet);
        let exact = 0.3 * p[0] - p[1] + 0.4 * p[2];
        assert!((q - exact).abs() < 1e-5, "{p:?}: {q} vs {exact}");
    }
}

#[test]
fn tall_cells_pose_fewer_unknowns_and_the_regular_grid_a_symmetric_matrix() {
    let lake = |g: TallGrid| {
        let mut l = TallLiquid::below_map(g, |x, z| 1.3 + 0.1 * x + 0.05 * z);
        l.v.iter_mut().for_each(|v| *v = -0.1);
        l.w.iter_mut()
            .enumerate()
            .for_each(|(n, w)| *w = 0.02 * (n as f32).sin());
        advect::enforce_walls(&mut l);
        assemble(&l, 1000.0, 0.01)
    };
    let regular = lake(grid(None));
    assert!(regular.csr.symmetric, "the 3D MAC matrix");
    assert_eq!(regular.geometry.dimension, 3);
    let tall = lake(grid(Some(6)));
    assert!(!tall.csr.symmetric);
    assert!(
        4 * tall.csr.rhs.len() < regular.csr.rhs.len(),
        "tall cells: {} unknowns, regular: {}",
        tall.csr.rhs.len(),
        regular.csr.rhs.len()
    );
}
