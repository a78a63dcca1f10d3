//! The viscosity problem kind through the plugins: every bundled algorithm that lists it agrees
//! with the direct solve, in this process and isolated in a child process; an algorithm that
//! does not list it is refused by name.

use flip_core::viscosity::{assemble, ViscositySystem, Viscous, Walls};
use flip_core::{Grid3, GridSpec, MacGrid, Solids};
use flip_host::{ChildCommand, PluginError, PluginSet, ProblemRef, SolverInstance};
use flipgraph_tests::plugins;
use glam::Vec3;

/// A pool with a drop above it in a walled box, a swirling velocity, `nu` m²/s, `dt` s.
/// A uniform viscosity `nu` with no-slip walls.
fn no_slip(nu: &Grid3<f32>) -> Viscous<'_> {
    Viscous {
        nu,
        walls: Walls::NoSlip,
    }
}

fn system(dims: [usize; 3], nu: f32, dt: f32) -> ViscositySystem {
    let spec = GridSpec::new(dims[0], dims[1], dims[2], 1.0 / dims[0] as f32);
    let solids = Solids::walls(spec);
    let mut phi = Grid3::new(dims[0], dims[1], dims[2], 0.0f32);
    flip_core::grid::par_for_each_mut(spec.dims(), &mut phi.data, |i, j, k, v| {
        let p = spec.cell_center(i, j, k);
        let mut c = Vec3::new(0.5, 0.7, 0.5);
        if spec.is_2d() {
            c.z = p.z;
        }
        *v = (p.y - 0.35).min(p.distance(c) - 0.15);
    });
    let mut vel = MacGrid::zeros(&spec);
    for (a, g) in vel.axes_mut().into_iter().enumerate() {
        let d = g.dims();
        flip_core::grid::par_for_each_mut(d, &mut g.data, |i, j, k, u| {
            let p = spec.face_center(a, i, j, k);
            *u = (7.0 * p.x + 3.0 * a as f32).sin() * (5.0 * p.y).cos() + 0.3 * (11.0 * p.z).sin();
        });
    }
    let nu = Grid3::new(dims[0], dims[1], dims[2], nu);
    let mut sys = ViscositySystem::default();
    assemble(&spec, &vel, &phi, &solids, no_slip(&nu), dt, &mut sys);
    sys
}

/// Solves `sys` with `name` (`child`: isolated), returning the velocities and iterations.
fn solve(
    set: &PluginSet,
    name: &str,
    sys: &ViscositySystem,
    child: Option<&ChildCommand>,
) -> Result<(Vec<f64>, u32), PluginError> {
    let (plugin, info) = set.find(name).expect("solver plugin");
    let tight = [("rel_tolerance".to_string(), 1e-10)];
    let mut s = match child {
        Some(c) => SolverInstance::create_isolated(plugin, &info.name, &tight, c)?,
        None => SolverInstance::create(plugin, &info.name, &tight)?,
    };
    let mut sys = sys.clone();
    let stats = s.solve_any(ProblemRef::Viscosity(&mut sys.problem()))?;
    assert_eq!(stats.converged, 1, "{name}: {stats:?}");
    Ok((sys.csr.pressure, stats.iterations))
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

const ITERATIVE: [&str; 3] = ["pcg/jacobi-pcg", "pcg/ic0-pcg", "multigrid/amg-pcg"];

#[test]
fn iterative_viscosity_solvers_agree_with_the_direct_solve_in_2d_and_3d() {
    let set = plugins();
    for (dims, nu) in [([48, 48, 1], 0.5), ([48, 48, 1], 1e-3), ([16, 16, 16], 0.2)] {
        let sys = system(dims, nu, 0.01);
        assert!(sys.rows() > 500, "{dims:?}: {} unknowns", sys.rows());
        let (exact, _) = solve(&set, "direct/cholesky", &sys, None).expect("direct solve");
        let scale = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for name in ITERATIVE {
            let (u, iterations) = solve(&set, name, &sys, None).expect("solves");
            let err = max_diff(&u, &exact);
            eprintln!("{dims:?} ν={nu}: {name} {iterations} iterations, max error {err:.2e}");
            assert!(err < 1e-6 * scale, "{name} {dims:?} ν={nu}: error {err:e}");
        }
    }
}

#[test]
fn viscosity_problems_solve_isolated_in_a_child_process() {
    let set = plugins();
    let child = ChildCommand {
        program: env!("CARGO_BIN_EXE_flipgraph-solver-child").into(),
        args: Vec::new(),
    };
    let sys = system([32, 32, 1], 0.3, 0.01);
    let (exact, _) = solve(&set, "direct/cholesky", &sys, None).expect("direct solve");
    let scale = exact.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for name in ["multigrid/amg-pcg", "direct/cholesky"] {
        let (u, _) = solve(&set, name, &sys, Some(&child)).expect("isolated solve");
        assert!(max_diff(&u, &exact) < 1e-6 * scale, "{name} isolated");
    }
}

#[test]
fn algorithms_that_do_not_list_the_viscosity_kind_are_refused() {
    let set = plugins();
    let sys = system([16, 16, 1], 0.1, 0.01);
    for name in ["pcg/mic0-pcg", "multigrid/mgpcg", "pcg/bicgstab"] {
        match solve(&set, name, &sys, None) {
            Err(PluginError::UnsupportedKind { kind, .. }) => assert_eq!(kind, "viscosity"),
            other => panic!("{name}: {:?}", other.map(|(_, it)| it)),
        }
    }
}

#[test]
fn rigid_motion_has_no_viscous_force_and_a_shear_decays() {
    // The kinetic term alone carries a rigid rotation through the step: A u = rhs holds for
    // u = the input velocity when the strain of u vanishes (faces away from walls).
    let spec = GridSpec::new(32, 32, 1, 1.0 / 32.0);
    let solids = Solids::walls(spec);
    let mut phi = Grid3::new(32, 32, 1, 0.0f32);
    flip_core::grid::par_for_each_mut(spec.dims(), &mut phi.data, |i, j, k, v| {
        *v = spec
            .cell_center(i, j, k)
            .distance(Vec3::new(0.5, 0.5, spec.cell_center(i, j, k).z))
            - 0.3;
    });
    let mut vel = MacGrid::zeros(&spec);
    for (a, g) in vel.axes_mut().into_iter().enumerate().take(2) {
        let d = g.dims();
        flip_core::grid::par_for_each_mut(d, &mut g.data, |i, j, k, u| {
            let p = spec.face_center(a, i, j, k) - Vec3::new(0.5, 0.5, 0.0);
            *u = if a == 0 { -p.y } else { p.x };
        });
    }
    let nu = Grid3::new(32, 32, 1, 10.0f32);
    let mut sys = ViscositySystem::default();
    assemble(&spec, &vel, &phi, &solids, no_slip(&nu), 0.01, &mut sys);
    let set = plugins();
    let (u, _) = solve(&set, "direct/cholesky", &sys, None).expect("solves");
    let change = max_diff(&u, &sys.csr.pressure);
    assert!(change < 1e-4, "a rigid rotation changed by {change} m/s");
}

#[test]
fn the_discrete_steady_channel_flow_is_the_parabola() {
    // A column of liquid between no-slip walls, free at both ends, gravity along it, stepped
    // to steady state with the direct solve: far from the ends ν v'' = −g, v = 0 at the walls.
    let n = 32;
    let height = 8 * n;
    let dx = 0.1 / n as f32;
    let spec = GridSpec::new(n + 2, height, 1, dx);
    let solids = Solids::walls(spec);
    let mut phi = Grid3::new(n + 2, height, 1, 0.0f32);
    flip_core::grid::par_for_each_mut(spec.dims(), &mut phi.data, |i, j, k, v| {
        let y = spec.cell_center(i, j, k).y;
        *v = (4.0 * dx - y).max(y - (height - 4) as f32 * dx);
    });
    let nu = 0.05f32;
    let nu_grid = Grid3::new(n + 2, height, 1, nu);
    let mut vel = MacGrid::zeros(&spec);
    let set = plugins();
    let dt = 0.05f32;
    for _ in 0..60 {
        vel.v.data.iter_mut().for_each(|v| *v -= 9.81 * dt);
        let mut sys = ViscositySystem::default();
        assemble(&spec, &vel, &phi, &solids, no_slip(&nu_grid), dt, &mut sys);
        let (u, _) = solve(&set, "direct/cholesky", &sys, None).expect("solves");
        sys.csr.pressure = u;
        flip_core::viscosity::apply(&sys, &mut vel);
    }
    let (a, b) = (f64::from(dx), f64::from(dx) * (n + 1) as f64);
    let exact = |x: f64| -9.81 / (2.0 * f64::from(nu)) * (x - a) * (b - x);
    let peak = exact(0.5 * (a + b)).abs();
    let mut worst = 0.0f64;
    for i in 1..=n {
        let x = (i as f64 + 0.5) * f64::from(dx);
        let v = f64::from(vel.v[(i, height / 2, 0)]);
        worst = worst.max((v - exact(x)).abs() / peak);
    }
    assert!(
        worst < 2e-3,
        "largest error {:.3} % of the peak",
        100.0 * worst
    );
}

/// Batty & Bridson's point: a rigid rotation has no strain, so the implicit viscous step
/// passes it through unchanged, surface layer included (partly filled faces, cells and edges),
/// however large the viscosity. A ball (disc in 2D) of radius 0.25 m spinning at 2 rad/s with
/// ν = 1 m²/s at a CFL-sized step, solved exactly.
#[test]
fn a_rigid_rotation_passes_the_viscous_step_unchanged() {
    let set = plugins();
    for dims in [[26usize, 26, 1], [23, 23, 23]] {
        let spec = GridSpec::new(dims[0], dims[1], dims[2], 1.0 / dims[0] as f32);
        let solids = Solids::walls(spec);
        let mut c = Vec3::new(0.52, 0.47, 0.49);
        if spec.is_2d() {
            c.z = 0.5 * spec.dx;
        }
        let mut phi = Grid3::new(dims[0], dims[1], dims[2], 0.0f32);
        flip_core::grid::par_for_each_mut(spec.dims(), &mut phi.data, |i, j, k, v| {
            *v = spec.cell_center(i, j, k).distance(c) - 0.25;
        });
        let mut vel = MacGrid::zeros(&spec);
        for (a, g) in vel.axes_mut().into_iter().enumerate() {
            flip_core::grid::par_for_each_mut(g.dims(), &mut g.data, |i, j, k, u| {
                let r = spec.face_center(a, i, j, k) - c;
                *u = 2.0 * [-r.y, r.x, 0.0][a];
            });
        }
        let nu = Grid3::new(dims[0], dims[1], dims[2], 1.0f32);
        let mut sys = ViscositySystem::default();
        assemble(&spec, &vel, &phi, &solids, no_slip(&nu), 0.04, &mut sys);
        let spun = sys.csr.pressure.clone();
        let (u, _) = solve(&set, "direct/cholesky", &sys, None).expect("direct solve");
        let change = max_diff(&u, &spun);
        eprintln!(
            "{dims:?}: {} unknowns, largest change {change:.2e} m/s",
            sys.rows()
        );
        assert!(
            change < 1e-6,
            "{dims:?}: the rotation changed by {change:.2e} m/s"
        );
    }
}
