//! The coupled (rigid-body) problem kind through the plugins: a tank with floating, sinking and
//! spinning bodies of mixed densities, assembled and coupled as the pressure node does it. Every
//! bundled algorithm that lists the kind agrees with the exact (Woodbury over Cholesky) solve,
//! in this process and isolated in a child process; MGPCG needs at most two more iterations
//! in 3D than on the same grid without the bodies' term; an algorithm that does not list the kind is
//! refused by name, and broken bodies' terms are refused before any plugin sees them. The
//! pressure node's problem dumps of a shipped graph with bodies read back as the coupled kind.

use flip_core::pressure::PressureSystem;
use flip_core::project::{assemble, AssembleParams, Geometry};
use flip_core::rigid::{Bodies, BodyShape, BodyState, Coupling, RigidBody};
use flip_core::{CellGrid, CellKind, Grid3, GridSpec, MacGrid, Solids};
use flip_host::{ChildCommand, PluginError, PluginSet, ProblemRef, SolverInstance};
use flip_sdk::{CoupledProblem, DumpedProblem, OwnedBodyTerms, SolveStats};
use flipgraph_tests::{graph, plugins, registry, set, simulation};

const DT: f32 = 2e-3;

/// One body: shape, density (kg/m³), centre, velocity, spin.
type Spec = (BodyShape, f64, [f64; 3], [f64; 3], [f64; 3]);

/// A walled tank on `dims` filled to y = 0.55 m with `specs` in it, the liquid sloshing
/// sideways under gravity: the system the pressure node assembles and its coupling.
fn tank(dims: [usize; 3], specs: &[Spec]) -> (PressureSystem, Coupling) {
    let spec = GridSpec::new(dims[0], dims[1], dims[2], 1.0 / dims[0] as f32);
    let bodies: Vec<RigidBody> = specs
        .iter()
        .map(|(shape, density, position, velocity, spin)| RigidBody {
            shape: shape.clone(),
            density: *density,
            state: BodyState {
                position: *position,
                velocity: *velocity,
                spin: *spin,
                ..BodyState::default()
            },
        })
        .collect();
    let shapes = bodies.iter().map(|b| b.solid(&b.state)).collect();
    let solids = Solids::moving(spec, shapes, vec![]);
    let mut phi = Grid3::new(dims[0], dims[1], dims[2], 0.0f32);
    flip_core::grid::par_for_each_mut(spec.dims(), &mut phi.data, |i, j, k, v| {
        *v = spec.cell_center(i, j, k).y - 0.55;
    });
    let mut vel = MacGrid::zeros(&spec);
    vel.v.fill(-9.81 * DT);
    let d = vel.u.dims();
    flip_core::grid::par_for_each_mut(d, &mut vel.u.data, |i, j, k, u| {
        let p = spec.face_center(0, i, j, k);
        *u = 0.3 * (3.0 * p.y).sin() * (2.0 * p.z + 1.0).cos();
    });
    let cells = CellGrid::new(dims[0], dims[1], dims[2], CellKind::Air);
    let params = AssembleParams {
        density: 1000.0,
        dt: DT,
        separating: false,
        geometry: Geometry::Variational,
    };
    let mut sys = PressureSystem::default();
    assemble(&spec, &vel, &cells, &phi, &solids, &params, None, &mut sys);
    let end = bodies.iter().map(|b| b.state).collect();
    let bodies = Bodies {
        bodies,
        end,
        solved: vec![],
        contacts: vec![],
        resting: vec![],
    };
    let coupling = Coupling::new(&spec, &sys.problem, &bodies, 1000.0);
    coupling.shift_rhs(&mut sys.problem.rhs);
    (sys, coupling)
}

/// Boxes and balls (discs in 2D) of densities 500, 1000 and 1200 kg/m³, floating across the
/// surface and submerged, moving and spinning.
fn mixed_bodies(three_d: bool) -> Vec<Spec> {
    let z = if three_d { 0.47 } else { 0.0 };
    let ball = |r| {
        if three_d {
            BodyShape::Sphere { radius: r }
        } else {
            BodyShape::Disc { radius: r }
        }
    };
    let side = |s: f64| BodyShape::Box {
        size: [s, 0.8 * s, if three_d { 0.9 * s } else { 1.0 }],
    };
    vec![
        (
            side(0.17),
            500.0,
            [0.27, 0.55, z],
            [0.1, -0.2, 0.0],
            [0.0, 0.0, 0.5],
        ),
        (
            ball(0.09),
            1200.0,
            [0.71, 0.31, z + 0.05],
            [0.0, -0.4, 0.1],
            [0.3, 0.0, -1.0],
        ),
        (
            side(0.12),
            1000.0,
            [0.52, 0.23, z - 0.08],
            [-0.2, 0.0, 0.0],
            [0.0, 0.7, 0.2],
        ),
        (
            ball(0.07),
            800.0,
            [0.83, 0.57, z],
            [0.0, 0.3, 0.0],
            [0.0, 0.0, 2.0],
        ),
    ]
}

/// Solves `sys` coupled by `coupling` with `name` (`child`: isolated) at a tight tolerance.
/// An instance of the loaded algorithm `name` (in a child process with `child`): the bundled
/// solvers at a tight tolerance; the faulty fixture has no tolerance.
fn instance(
    set: &PluginSet,
    name: &str,
    child: Option<&ChildCommand>,
) -> Result<SolverInstance, PluginError> {
    let (plugin, info) = set.find(name).expect("solver plugin");
    let tight = match name.starts_with("faulty/") {
        true => vec![],
        false => vec![("rel_tolerance".to_string(), 1e-10)],
    };
    match child {
        Some(c) => SolverInstance::create_isolated(plugin, &info.name, &tight, c),
        None => SolverInstance::create(plugin, &info.name, &tight),
    }
}

fn solve(
    set: &PluginSet,
    name: &str,
    sys: &PressureSystem,
    terms: &OwnedBodyTerms,
    child: Option<&ChildCommand>,
) -> Result<(Vec<f64>, SolveStats), PluginError> {
    let mut s = instance(set, name, child)?;
    let mut sys = sys.clone();
    let stats = s.solve_any(ProblemRef::Coupled(&mut CoupledProblem {
        grid: sys.problem.view(),
        bodies: terms.view(),
    }))?;
    assert_eq!(stats.converged, 1, "{name}: {stats:?}");
    Ok((sys.problem.pressure.to_vec(), stats))
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

fn max_abs(a: &[f64]) -> f64 {
    a.iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

const ITERATIVE: [&str; 4] = [
    "multigrid/mgpcg",
    "pcg/mic0-pcg",
    "pcg/jacobi-pcg",
    "pcg/rbssor-pcg",
];

#[test]
fn iterative_coupled_solvers_agree_with_the_exact_solve_in_2d_and_3d() {
    let set = plugins();
    for dims in [[61usize, 53, 1], [29, 27, 25]] {
        let (sys, coupling) = tank(dims, &mixed_bodies(dims[2] > 1));
        let terms = coupling.terms();
        let (exact, _) = solve(&set, "direct/cholesky", &sys, terms, None).expect("direct");
        // the bodies matter: the coupled pressure differs from the liquid-only one
        let (plain, _) = solve(
            &set,
            "direct/cholesky",
            &sys,
            &OwnedBodyTerms::new(terms.dofs),
            None,
        )
        .expect("direct, no bodies");
        let scale = max_abs(&exact);
        let effect = max_diff(&exact, &plain);
        assert!(
            effect > 1e-3 * scale,
            "{dims:?}: bodies change p by {effect:e} of {scale:e}"
        );
        for name in ITERATIVE {
            let (p, stats) = solve(&set, name, &sys, terms, None).expect("solves");
            let err = max_diff(&p, &exact);
            eprintln!(
                "{dims:?}: {name} {} iterations, max error {err:.2e} of {scale:.2e}",
                stats.iterations
            );
            assert!(
                err < 1e-6 * scale,
                "{name} {dims:?}: error {err:e} of {scale:e}"
            );
        }
    }
}

/// CG on `A + J C Jᵀ`: the bodies' term has rank `columns` (3 per body in 2D, 6 in 3D), and a
/// V-cycle of `A` alone leaves CG up to an iteration per eigenvalue it moves (+5 here in 2D,
/// +3 in 3D; +4 and +1 with the Galerkin correction in `span J` around it). The V-cycle that
/// carries the term on every level (`outer::BodyLevels`) takes them all.
#[test]
fn mgpcg_needs_at_most_one_more_iteration_with_bodies() {
    let set = plugins();
    for dims in [[61usize, 53, 1], [29, 27, 25]] {
        let (sys, coupling) = tank(dims, &mixed_bodies(dims[2] > 1));
        let none = OwnedBodyTerms::new(coupling.terms().dofs);
        let (_, alone) = solve(&set, "multigrid/mgpcg", &sys, &none, None).expect("uncoupled");
        let (_, coupled) =
            solve(&set, "multigrid/mgpcg", &sys, coupling.terms(), None).expect("coupled");
        eprintln!(
            "{dims:?}: MGPCG {} iterations uncoupled, {} coupled ({} body degrees of freedom)",
            alone.iterations,
            coupled.iterations,
            coupling.dof(),
        );
        assert!(
            coupled.iterations <= alone.iterations + 1,
            "{dims:?}: {} coupled against {} uncoupled",
            coupled.iterations,
            alone.iterations
        );
    }
}

/// MGPCG solves the coupled kind in its one outer iteration (the structured kind's fused
/// kernels, the bodies' term added through `J`'s columns): with no bodies, the coupled kind
/// gives the structured kind's pressure bit for bit, in as many iterations.
#[test]
fn mgpcg_solves_the_coupled_kind_in_the_structured_kinds_iteration() {
    let set = plugins();
    for dims in [[61usize, 53, 1], [29, 27, 25]] {
        let (sys, coupling) = tank(dims, &mixed_bodies(dims[2] > 1));
        let none = OwnedBodyTerms::new(coupling.terms().dofs);
        let (coupled, coupled_stats) =
            solve(&set, "multigrid/mgpcg", &sys, &none, None).expect("coupled kind");
        let mut s = instance(&set, "multigrid/mgpcg", None).expect("instance");
        let mut structured = sys.clone();
        let stats = (s.solve_any(ProblemRef::Structured(&mut structured.problem.view())))
            .expect("structured kind");
        assert_eq!(stats.iterations, coupled_stats.iterations, "{dims:?}");
        let same = (structured.problem.pressure.iter().zip(&coupled))
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same, "{dims:?}: the two kinds' pressures differ");
    }
}

#[test]
fn coupled_problems_solve_isolated_in_a_child_process() {
    let set = plugins();
    let child = ChildCommand {
        program: env!("CARGO_BIN_EXE_flipgraph-solver-child").into(),
        args: Vec::new(),
    };
    let (sys, coupling) = tank([41, 37, 1], &mixed_bodies(false));
    let terms = coupling.terms();
    let (exact, _) = solve(&set, "direct/cholesky", &sys, terms, None).expect("direct");
    for name in ["multigrid/mgpcg", "direct/cholesky"] {
        let (p, _) = solve(&set, name, &sys, terms, Some(&child)).expect("isolated solve");
        assert!(
            max_diff(&p, &exact) < 1e-6 * max_abs(&exact),
            "{name} isolated"
        );
    }
}

#[test]
fn algorithms_that_do_not_list_the_coupled_kind_are_refused_by_name() {
    let set = plugins();
    let (sys, coupling) = tank([33, 29, 1], &mixed_bodies(false));
    for name in [
        "multigrid/mg-vcycle",
        "multigrid/mg-fullcycle",
        "pcg/bicgstab",
    ] {
        match solve(&set, name, &sys, coupling.terms(), None) {
            Err(e @ PluginError::UnsupportedKind { .. }) => {
                let text = e.to_string();
                let (plugin, algorithm) = name.split_once('/').expect("qualified");
                assert!(
                    text.contains(plugin) && text.contains(algorithm) && text.contains("coupled"),
                    "{name}: {text}"
                );
            }
            other => panic!("{name}: {:?}", other.map(|(_, s)| s)),
        }
    }
}

#[test]
fn broken_bodies_terms_are_refused_before_the_plugin_sees_them() {
    let set = plugins();
    let (sys, coupling) = tank([33, 29, 1], &mixed_bodies(false));
    let good = coupling.terms();
    let mut outside = good.clone();
    outside.column_cells[0] = sys.problem.cell_kind.len() as u32 + 7;
    let mut air = good.clone();
    air.column_cells[0] = 0; // a wall cell
    let mut unsymmetric = good.clone();
    unsymmetric.weight[1] += 1.0;
    let mut short = good.clone();
    short.column_start.pop();
    for (what, terms) in [
        ("a cell beyond the grid", outside),
        ("a cell that is no unknown", air),
        ("an unsymmetric C block", unsymmetric),
        ("a missing column start", short),
    ] {
        match solve(&set, "direct/cholesky", &sys, &terms, None) {
            Err(PluginError::Call {
                status, message, ..
            }) => {
                assert_eq!(status, flip_abi::STATUS_BAD_VALUE, "{what}: {message}");
            }
            other => panic!("{what}: {:?}", other.map(|(_, s)| s)),
        }
    }
}

#[test]
fn a_solver_that_ignores_the_bodies_or_fails_is_caught() {
    let set = plugins();
    let (sys, coupling) = tank([33, 29, 1], &mixed_bodies(false));
    let child = ChildCommand {
        program: env!("CARGO_BIN_EXE_flipgraph-solver-child").into(),
        args: Vec::new(),
    };
    // the grid alone solved, its residual claimed for the coupled system: refused on the
    // coupled residual, in this process and isolated
    for isolated in [None, Some(&child)] {
        match solve(
            &set,
            "faulty/ignores-bodies",
            &sys,
            coupling.terms(),
            isolated,
        ) {
            Err(PluginError::WrongResult { message, .. }) => {
                assert!(message.contains("residual"), "{message}");
            }
            other => panic!(
                "isolated {}: {:?}",
                isolated.is_some(),
                other.map(|(_, s)| s)
            ),
        }
    }
    // NaN pressures are refused; a panic is reported and poisons only the instance
    match solve(&set, "faulty/nan", &sys, coupling.terms(), None) {
        Err(PluginError::WrongResult { message, .. }) => assert!(message.contains("non-finite")),
        other => panic!("nan: {:?}", other.map(|(_, s)| s)),
    }
    match solve(&set, "faulty/panic", &sys, coupling.terms(), None) {
        Err(PluginError::Call { status, .. }) => assert_eq!(status, flip_abi::STATUS_PANIC),
        other => panic!("panic: {:?}", other.map(|(_, s)| s)),
    }
}

/// `graphs/floating_boxes_3d.ron` at 24³ with `dump_problems`: every substep's dump reads
/// back as the coupled kind, valid, with the three boxes' terms (`C`'s velocity block
/// `ρ dx³ / m` for each box's mass), and the boxes in the liquid have columns in `J`.
#[test]
fn the_pressure_nodes_dumps_of_a_graph_with_bodies_read_back_coupled() {
    let n = 24;
    let mut doc = graph("floating_boxes_3d.ron");
    doc.settings.grid = [n, n, n];
    doc.settings.cell_size = 1.0 / n as f32;
    set(
        &mut doc,
        "pressure",
        "dump_problems",
        flip_graph::ParamValue::Bool(true),
    );
    set(
        &mut doc,
        "export",
        "ply",
        flip_graph::ParamValue::Bool(false),
    );
    set(
        &mut doc,
        "export",
        "png",
        flip_graph::ParamValue::Bool(false),
    );
    let (mut sim, out) = simulation(&doc, &registry());
    let substeps = (0..2)
        .map(|_| sim.advance_frame().expect("frame").len())
        .sum();
    let mut files: Vec<_> = std::fs::read_dir(out.path().join("pressure_problems"))
        .expect("dumps written")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert_eq!(files.len(), substeps, "one dump per substep");
    let masses = [500.0, 1000.0, 1200.0].map(|density| density * 0.2 * 0.12 * 0.2);
    for (step, file) in files.iter().enumerate() {
        let bytes = std::fs::read(file).expect("dump");
        let DumpedProblem::Coupled(mut grid, bodies) = DumpedProblem::parse(&bytes).expect("dump")
        else {
            panic!("{}: not a coupled problem", file.display());
        };
        assert_eq!(
            (grid.dims, grid.dimension, grid.step),
            ([n; 3], 3, step as u64)
        );
        let dx = grid.dx;
        let problem = CoupledProblem {
            grid: grid.view(),
            bodies: bodies.view(),
        };
        problem.validate().expect("a valid coupled problem");
        assert_eq!((bodies.view().body_count(), bodies.dofs), (3, 6));
        for (b, m) in masses.iter().enumerate() {
            let c = &bodies.weight[b * 36..][..36];
            let want = 1000.0 * dx.powi(3) / m;
            for d in 0..3 {
                let got = c[d * 6 + d];
                assert!(
                    (got / want - 1.0).abs() < 1e-9,
                    "body {b}: C[{d}][{d}] {got} vs {want}"
                );
            }
            let entries = bodies.column_start[6 * (b + 1)] - bodies.column_start[6 * b];
            assert!(
                step == 0 || entries > 0,
                "body {b} has no column in step {step}"
            );
        }
    }
}

/// Balls of a cell or two and far lighter than the liquid (a bead of foam): their term
/// outweighs the pressure matrix's diagonal on the finest level, where the V-cycle's lagged
/// sweeps would amplify the error along `J` (18 to 97 iterations when it carried the term
/// there). MGPCG keeps the term off those levels and stays accurate and quick.
#[test]
fn mgpcg_stays_quick_with_tiny_light_bodies() {
    let set = plugins();
    for (dims, radius, density) in [([61usize, 53, 1], 0.7, 5.0), ([29, 27, 25], 1.2, 20.0)] {
        let three_d = dims[2] > 1;
        let r = radius / dims[0] as f64;
        let shape = if three_d {
            BodyShape::Sphere { radius: r }
        } else {
            BodyShape::Disc { radius: r }
        };
        let z = if three_d { 0.47 } else { 0.0 };
        let beads: Vec<Spec> = (0..4)
            .map(|i| {
                let at = [0.2 + 0.15 * i as f64, 0.3 + 0.01 * i as f64, z];
                (
                    shape.clone(),
                    density,
                    at,
                    [0.0, -0.3, 0.0],
                    [0.0, 0.0, 1.0],
                )
            })
            .collect();
        let (sys, coupling) = tank(dims, &beads);
        let terms = coupling.terms();
        let (exact, _) = solve(&set, "direct/cholesky", &sys, terms, None).expect("direct");
        let (p, coupled) = solve(&set, "multigrid/mgpcg", &sys, terms, None).expect("coupled");
        let none = OwnedBodyTerms::new(terms.dofs);
        let (_, alone) = solve(&set, "multigrid/mgpcg", &sys, &none, None).expect("uncoupled");
        let error = max_diff(&p, &exact) / max_abs(&exact);
        eprintln!(
            "{dims:?}: {} iterations coupled, {} uncoupled, error {error:.1e}",
            coupled.iterations, alone.iterations
        );
        assert!(error < 1e-6, "{dims:?}: error {error:e}");
        assert!(
            coupled.iterations <= alone.iterations + 6,
            "{dims:?}: {} coupled against {} uncoupled",
            coupled.iterations,
            alone.iterations
        );
    }
}
