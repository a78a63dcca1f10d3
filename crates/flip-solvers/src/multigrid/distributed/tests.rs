//! The distributed hierarchy and V-cycle against the single-process ones, on thread ranks.

use super::*;
use crate::fixtures::{self, Scene};
use crate::multigrid::level::Level;
use flip_abi::{SlabLayout, CELL_FLUID};
use flip_comm::threads::ThreadComm;
use flip_comm::Distribution;
use flip_host::distributed::with_suite;
use flip_sdk::OwnedProblem;
use gather::GlobalProblem;
use std::sync::Arc;

/// A residual-like vector: smooth and rough parts on the fluid cells, 0 elsewhere.
fn residual_of(p: &OwnedProblem) -> Vec<f64> {
    (0..p.cell_count())
        .map(|c| {
            let fluid = p.cell_kind[c] == CELL_FLUID;
            let x = c as f64;
            if fluid {
                (0.013 * x).sin() + 0.3 * (1.7 * x).cos()
            } else {
                0.0
            }
        })
        .collect()
}

/// The hierarchy built on the whole grid, and its V-cycle (zero guess) of `r`.
fn single_process(p: &mut OwnedProblem, r: &[f64]) -> (Hierarchy, Vec<f64>) {
    let mut h = Hierarchy::new(&MultigridConfig::default());
    h.update(&p.view());
    let axis = if p.dims[2] > 1 { 2 } else { 1 };
    let whole = SlabLayout {
        axis: axis as u32,
        owned: p.dims[axis] as u32,
        global_dims: p.dims.map(|d| d as u32),
        ..SlabLayout::default()
    };
    let rows = SlabRows::whole(whole, &h.levels[0]);
    rows.load_b(&mut h.levels[0], r);
    vcycle(&mut h, 0, true, true, None);
    let mut z = vec![0.0; r.len()];
    rows.store_x(&h.levels[0], &mut z);
    (h, z)
}

/// What one rank ends with: its layout, its hierarchy, its slab of the V-cycle and its own
/// layers of the divided levels.
type RankResult = (SlabLayout, Hierarchy, Vec<f64>, Vec<std::ops::Range<usize>>);

/// One rank with `ghost` solve layers: builds its hierarchy for `before`, then (a rebuild) for
/// `p`, and applies the slab V-cycle to its slab of `r`.
fn rank(
    comm: Arc<ThreadComm>,
    ghost: usize,
    before: &OwnedProblem,
    p: &OwnedProblem,
    r: &[f64],
) -> RankResult {
    let dist = Arc::new(Distribution::new(comm, p.dims, ghost).expect("slabs fit"));
    let layout = *dist.layout();
    let lo = (layout.first - layout.ghost_lo) as usize * layout.layer_len();
    let n = layout.local_dims().iter().product::<usize>();
    let r = r[lo..lo + n].to_vec();
    with_suite(dist, || {
        let d = distributed().expect("the suite is offered");
        let mut pre = SlabVcycle::new(&MultigridConfig::default());
        pre.min_cells = 0; // divide small coarse levels too
        let mut blocks = setup::Blocks::default();
        let mut global = GlobalProblem::default();
        for q in [before, p] {
            let mut slab = q.slab(&layout);
            let slab = slab.view();
            let h = &mut pre.hierarchy;
            let gathered = setup::Gathered {
                min_cells: 0,
                root: coarse::coarse_rank(&d, true),
            };
            setup::update(h, &slab, &d, &mut blocks, &mut global, gathered).expect("built");
        }
        pre.prepare(&d, true).expect("prepared");
        let mut z = vec![0.0; n];
        pre.try_apply(&r, &mut z).expect("applied");
        let owns = pre.slab.as_ref().map_or(Vec::new(), |s| {
            s.levels.iter().map(|p| p.own.clone()).collect()
        });
        (layout, pre.hierarchy, z, owns)
    })
}

/// The natural cells of `level` a rank holds the single-process matrix on: all of a gathered
/// level; its own layers and the margins beside them on a divided one (`own` is Some).
fn held_cells(
    level: &Level,
    own: Option<&std::ops::Range<usize>>,
    axis: usize,
) -> std::ops::Range<usize> {
    let Some(own) = own else {
        return 0..level.len();
    };
    let n = level.dims[axis];
    // The outermost margin layer's coupling outward is cut (its neighbour is not held).
    let m = margins::MARGIN - 1;
    let layers = own.start.saturating_sub(m)..(own.end + m).min(n);
    let rows = slab::layer_rows(level, &layers);
    rows.start * level.pdims[0]..rows.end * level.pdims[0]
}

fn check(scene: Scene, dims: [usize; 3], ranks: u32, ghost: usize) {
    let before = fixtures::build(Scene::DamBreak, dims, 3);
    let mut p = fixtures::build(scene, dims, 7);
    let r = residual_of(&p);
    let (want_h, want_z) = single_process(&mut p, &r);
    let scale = want_z.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let handles: Vec<_> = ThreadComm::group(ranks)
        .into_iter()
        .map(|comm| {
            let (b, p, r) = (before.clone(), p.clone(), r.clone());
            std::thread::spawn(move || rank(comm, ghost, &b, &p, &r))
        })
        .collect();
    for h in handles {
        let (l, h, z, owns) = h.join().expect("rank finished");
        let is_root = l.first == 0;
        for (m, (got, want)) in h.levels.iter().zip(&want_h.levels).enumerate().skip(1) {
            let at = format!(
                "{scene:?} {dims:?}, {ranks} ranks, {ghost} ghost layers, slab at {}: level {m}",
                l.first
            );
            // Below the first gathered level only the coarse rank (rank 0) holds a matrix
            // (where the build is layer-divided; the whole-matrix build fills every level).
            let divided_build = ghost >= setup::LOAD_MARGIN && !owns.is_empty();
            if m > owns.len() && divided_build && !is_root {
                let held = got.diag.iter().position(|&v| v != 0.0);
                assert_eq!(held, None, "{at}: a level below the first gathered one");
                continue;
            }
            let c = held_cells(got, owns.get(m), l.axis as usize);
            let first_difference = |same: &dyn Fn(usize) -> bool| c.clone().find(|&i| !same(i));
            let kind = first_difference(&|i| got.kind[i] == want.kind[i]);
            let diag = first_difference(&|i| got.diag[i] == want.diag[i]);
            let off = first_difference(&|i| got.off[i] == want.off[i]);
            assert_eq!(
                (kind, diag, off),
                (None, None, None),
                "{at}: first cells whose kind, diagonal, couplings differ"
            );
        }
        let owned = l.owned_range();
        let global = &want_z[l.global_range()];
        let diff = z[owned]
            .iter()
            .zip(global)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(
            diff <= 1e-5 * scale,
            "{scene:?} {dims:?}, {ranks} ranks, {ghost} ghost layers, slab at {}: V-cycles differ by {diff:e} (scale {scale:e})",
            l.first
        );
    }
}

#[test]
fn the_layer_divided_hierarchy_and_v_cycle_are_the_single_process_ones() {
    // Free surfaces across the slab boundaries (the coarsening walks to them along the slab
    // axis), bubbles, and a column beside air; slabs built from their own ghost layers, and
    // (one ghost layer) from the gathered matrix.
    for scene in [Scene::FreeSurfaceBox, Scene::AirBubbles, Scene::DamBreak] {
        for (ranks, ghost) in [(2, setup::LOAD_MARGIN), (3, setup::LOAD_MARGIN), (3, 1)] {
            check(scene, [40, 38, 1], ranks, ghost);
            check(scene, [14, 12, 23], ranks, ghost);
        }
        // Slabs thick enough that levels below level 0 are divided too (`slab::MIN_LAYERS`
        // layers a rank on level 1 and more, the cell minimum lifted), with odd slab ends.
        check(scene, [24, 140, 1], 2, setup::LOAD_MARGIN);
        check(scene, [10, 8, 70], 2, setup::LOAD_MARGIN);
        check(scene, [10, 8, 99], 3, setup::LOAD_MARGIN);
    }
}

/// (iterations, pressure) of MGPCG on `p`, on one process or, with `ranks`, on thread ranks
/// (the pressure of every rank's owned layers, in global order), the gathered levels on one
/// rank or on all.
fn mgpcg(p: &OwnedProblem, ranks: Option<u32>, one_coarse_rank: bool) -> (u32, Vec<f64>) {
    use crate::multigrid::MgPcgSolver;
    use flip_sdk::PressureSolver;
    let config = MultigridConfig::default();
    let Some(ranks) = ranks else {
        let mut q = p.clone();
        let stats = MgPcgSolver::new(config).unwrap().solve(&mut q.view());
        return (stats.expect("solved").iterations, q.pressure.clone());
    };
    let (iterations, all) = crate::thread_ranks::solve_on_thread_ranks(p, ranks, move |slab| {
        let d = distributed().expect("the suite is offered");
        let mut solver = DistributedMgpcg::new(&config);
        let pre = solver.pcg.preconditioner_mut();
        pre.min_cells = 0;
        pre.one_coarse_rank = one_coarse_rank;
        solver.solve(&d, slab).expect("solved").iterations
    });
    assert!(
        iterations.windows(2).all(|w| w[0] == w[1]),
        "{iterations:?}"
    );
    (iterations[0], all)
}

#[test]
fn distributed_mgpcg_solves_as_one_process_does() {
    for (scene, dims) in [
        (Scene::DamBreak, [48, 64, 1]),
        (Scene::AirBubbles, [40, 38, 1]),
        (Scene::DamBreak, [16, 14, 24]),
        (Scene::DamBreak, [24, 140, 1]),
        (Scene::AirBubbles, [10, 8, 99]),
    ] {
        let p = fixtures::build(scene, dims, 7);
        let (n1, want) = mgpcg(&p, None, true);
        let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for ranks in [2, 3] {
            let (n, got) = mgpcg(&p, Some(ranks), true);
            let diff = got
                .iter()
                .zip(&want)
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            assert!(
                n.abs_diff(n1) <= 1 && diff <= 1e-6 * scale,
                "{scene:?} {dims:?} on {ranks} ranks: {n} iterations (one process {n1}), pressures differ by {diff:e} of {scale:e}"
            );
        }
        // Cycling the gathered levels on every rank is the same arithmetic.
        let on_all = mgpcg(&p, Some(3), false);
        assert!(
            on_all == mgpcg(&p, Some(3), true),
            "{scene:?} {dims:?}: the gathered levels on all ranks give another solve"
        );
    }
}
