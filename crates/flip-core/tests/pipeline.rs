//! A whole FLIP step chained from the kernels (Karlsson §2.4's outline), with a plain
//! conjugate-gradient solve standing in for the solver plugins: a 2D and a 3D dam break must
//! stay in the box, out of the solids, divergence-free after projection and roughly
//! volume-preserving.

use flip_core::advect::{advect, cfl_dt};
use flip_core::emit::{emit, EmitParams, EmitShape};
use flip_core::extrapolate::extrapolate;
use flip_core::levelset::liquid_phi;
use flip_core::marker::mark_cells;
use flip_core::measure::{fluid_cell_count, particles_in_solid, particles_outside_domain};
use flip_core::pressure::PressureSystem;
use flip_core::project::{
    apply_pressure, assemble, divergence_violation, AssembleParams, Geometry,
};
use flip_core::transfer::{g2p, p2g, TransferScratch};
use flip_core::{
    CellGrid, CellKind, Grid3, GridSpec, MacGrid, MacMask, Particles, Shape, ShapeKind, Solids,
};
use glam::Vec3;

/// `A x` of the assembled system on fluid cells.
fn apply(sys: &PressureSystem, x: &[f64], out: &mut [f64]) {
    let s = sys.spec.unwrap();
    let strides = [1, s.ni, s.ni * s.nj];
    for c in 0..x.len() {
        if sys.cell_kind[c] != 0 {
            out[c] = 0.0;
            continue;
        }
        let mut r = sys.diag[c] as f64 * x[c];
        for (off, &st) in sys.off.iter().zip(&strides) {
            if off[c] != 0.0 {
                r += off[c] as f64 * x[c + st];
            }
            if c >= st && off[c - st] != 0.0 {
                r += off[c - st] as f64 * x[c - st];
            }
        }
        out[c] = r;
    }
}

/// Unpreconditioned CG to a relative residual of 1e-10.
fn solve(sys: &mut PressureSystem) {
    let n = sys.rhs.len();
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let mut ap = vec![0.0; n];
    apply(sys, &sys.pressure, &mut ap);
    let mut r: Vec<f64> = (0..n)
        .map(|c| {
            if sys.cell_kind[c] == 0 {
                sys.rhs[c] - ap[c]
            } else {
                0.0
            }
        })
        .collect();
    let mut p = r.clone();
    let (mut rr, r0) = (dot(&r, &r), dot(&sys.rhs, &sys.rhs).max(1e-300));
    for _ in 0..10 * n {
        if rr <= 1e-20 * r0 {
            break;
        }
        apply(sys, &p, &mut ap);
        let alpha = rr / dot(&p, &ap);
        for c in 0..n {
            sys.pressure[c] += alpha * p[c];
            r[c] -= alpha * ap[c];
        }
        let rr_new = dot(&r, &r);
        for c in 0..n {
            p[c] = r[c] + rr_new / rr * p[c];
        }
        rr = rr_new;
    }
}

fn run(spec: GridSpec, solids: Solids, steps: usize) {
    let mut ps = Particles::default();
    let per_cell = if spec.is_2d() { 4 } else { 8 };
    let shape = EmitShape::Box {
        min: Vec3::ZERO,
        max: Vec3::new(0.4, 0.6, 1.0),
    };
    let params = EmitParams {
        shape,
        per_cell,
        velocity: Vec3::ZERO,
        jitter: 1.0,
        top_up: false,
    };
    emit(&spec, &solids, &params, 9, &mut ps);
    let (mut vel, mut valid) = (MacGrid::zeros(&spec), MacMask::zeros(&spec));
    let (mut scratch, mut sys) = (TransferScratch::default(), PressureSystem::default());
    let mut cells = CellGrid::new(1, 1, 1, CellKind::Air);
    let mut phi = Grid3::new(1, 1, 1, 0.0f32);
    mark_cells(&spec, &ps, &solids, &mut cells);
    let fluid0 = fluid_cell_count(&cells) as f32;
    let y0 = ps.pos.iter().map(|p| p.y).sum::<f32>() / ps.len() as f32;
    for step in 0..steps {
        let dt = cfl_dt(&spec, ps.max_speed(), 1.0).min(1.0 / 60.0);
        p2g(&spec, &ps, &mut vel, &mut valid, &mut scratch);
        let old = vel.clone();
        vel.v.data.iter_mut().for_each(|v| *v -= 9.81 * dt); // eq. 18
        mark_cells(&spec, &ps, &solids, &mut cells);
        liquid_phi(&spec, &cells, 2, &mut phi);
        extrapolate(&spec, &mut vel, &mut valid, &phi, 2);
        let ap = AssembleParams {
            density: 1000.0,
            dt,
            separating: false,
            geometry: Geometry::Variational,
        };
        let previous = sys.pressure.clone();
        assemble(
            &spec,
            &vel,
            &cells,
            &phi,
            &solids,
            &ap,
            Some(&previous),
            &mut sys,
        );
        solve(&mut sys);
        apply_pressure(&spec, &sys, &solids, &mut vel, &mut valid);
        let div = divergence_violation(&spec, &vel, &solids, &sys);
        assert!(div * dt < 1e-4, "step {step}: divergence {div}");
        extrapolate(&spec, &mut vel, &mut valid, &phi, 3);
        g2p(&spec, &mut ps, &vel, &old, 0.95);
        advect(&spec, &mut ps, &vel, &solids, dt);
        assert!(ps.all_finite());
        assert_eq!(particles_in_solid(&ps, &solids), 0, "step {step}");
        assert_eq!(particles_outside_domain(&spec, &ps), 0, "step {step}");
    }
    mark_cells(&spec, &ps, &solids, &mut cells);
    let fluid = fluid_cell_count(&cells) as f32;
    assert!(
        (fluid - fluid0).abs() < 0.25 * fluid0,
        "volume {fluid0} -> {fluid}"
    );
    let y = ps.pos.iter().map(|p| p.y).sum::<f32>() / ps.len() as f32;
    assert!(y < y0, "the column collapses: {y0} -> {y}");
}

#[test]
fn dam_break_2d_with_an_obstacle() {
    let spec = GridSpec::new(32, 32, 1, 1.0 / 32.0);
    let ball = Shape {
        kind: ShapeKind::Sphere {
            center: Vec3::new(0.7, 0.2, 0.0),
            radius: 0.1,
        },
        inverted: false,
        shell: 0.0,
        subtract: false,
        placement: None,
    };
    run(spec, Solids::new(spec, vec![ball]), 40);
}

#[test]
fn dam_break_3d() {
    let spec = GridSpec::new(16, 16, 12, 1.0 / 16.0);
    run(spec, Solids::walls(spec), 12);
}
