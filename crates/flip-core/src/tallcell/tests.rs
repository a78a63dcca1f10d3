use super::grid::{Lookup, Stagger, TallGrid};
use super::pressure::assemble;
use super::refit::fit_heights;
use super::sample::{sample, Outside};
use super::state::TallLiquid;
use super::terrain;

fn grid(regular: Option<usize>, bumps: f32) -> TallGrid {
    let (cols, height, dx) = (32, 40, 1.0 / 32.0);
    let t = terrain::from_fn(cols, dx, height, |x| 0.1 + bumps * (x * 9.0).sin().abs());
    TallGrid::new(height, dx, t, regular, 2).expect("grid")
}

#[test]
fn the_rule_mixes_tall_cell_bottom_and_top() {
    let mut g = grid(Some(4), 0.0);
    g.tall[3] = 5;
    let h = g.terrain[3] as i64;
    let (s0, s1) = (g.index(3, 0), g.index(3, 1));
    assert_eq!(
        g.lookup(Stagger::Centre, (3, 0), h - 1),
        Lookup::Solid { bottom: s0 }
    );
    assert_eq!(
        g.lookup(Stagger::Centre, (3, 0), h + 2),
        Lookup::Mix([(s0, 0.5), (s1, 0.5)])
    );
    assert_eq!(
        g.lookup(Stagger::Centre, (3, 0), h + 5),
        Lookup::Mix([(g.index(3, 2), 1.0), (s0, 0.0)])
    );
    let top = g.index(3, 5);
    assert_eq!(
        g.lookup(Stagger::Centre, (3, 0), h + 10),
        Lookup::Air { top, above: 2.0 }
    );
    // y faces: slot 0 sits one face above the terrain face, which is solid
    assert!(matches!(
        g.lookup(Stagger::FaceY, (3, 0), h - 1),
        Lookup::Solid { .. }
    ));
    assert_eq!(g.row(Stagger::FaceY, 3, 0) as i64, h);
    assert!(g.closed_y(3, 0), "the terrain face is closed");
}

#[test]
fn linear_fields_are_read_exactly_through_tall_cells() {
    let mut liquid = TallLiquid::below(grid(Some(6), 0.08), |x| 0.8 + 0.1 * x);
    assert!(
        liquid.grid.tall.iter().any(|&h| h > 6),
        "{:?}",
        liquid.grid.tall
    );
    liquid.set_phi(|[x, y, _]| 0.3 * x - y);
    let g = &liquid.grid;
    for (x, y) in [(0.31, 0.27), (0.52, 0.33), (0.7, 0.41), (0.2, 0.6)] {
        let q = sample(
            g,
            &liquid.phi,
            Stagger::Centre,
            [x, y, 0.5 * g.dx],
            Outside::LevelSet,
        );
        assert!((q - (0.3 * x - y)).abs() < 1e-5, "({x}, {y}): {q}");
    }
}

#[test]
fn refit_restricts_neighbouring_heights_to_d() {
    let g = grid(Some(4), 0.0);
    let mut surface = vec![30.0f32; g.column_count()];
    for s in surface.iter_mut().skip(16) {
        *s = 12.0;
    }
    let h = fit_heights(&g, &surface);
    for w in h.windows(2) {
        assert!(w[0].abs_diff(w[1]) <= g.max_step, "{h:?}");
    }
    for (i, &t) in h.iter().enumerate() {
        let top = g.terrain[i] + t;
        assert!(
            top + g.under_surface <= surface[i] as usize,
            "column {i}: {h:?}"
        );
    }
    assert!(h[0] > h[31] + 10, "deep columns get tall cells: {h:?}");
}

#[test]
fn regular_grids_pose_symmetric_problems_and_tall_cells_do_not() {
    let lake = |g: TallGrid| {
        let mut l = TallLiquid::below(g, |x| 0.9 + 0.2 * x);
        l.v.iter_mut().for_each(|v| *v = -0.1);
        assemble(&l, 1000.0, 0.01)
    };
    let regular = lake(grid(None, 0.05));
    assert!(regular.csr.symmetric);
    let tall = lake(grid(Some(6), 0.05));
    assert!(!tall.csr.symmetric);
    assert!(
        4 * tall.csr.rhs.len() < 2 * regular.csr.rhs.len(),
        "tall cells: {} unknowns, regular: {}",
        tall.csr.rhs.len(),
        regular.csr.rhs.len()
    );
}
