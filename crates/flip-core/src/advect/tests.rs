use super::*;
use crate::solids::{Shape, ShapeKind};

fn uniform(spec: &GridSpec, u: Vec3) -> MacGrid {
    let mut m = MacGrid::zeros(spec);
    m.u.fill(u.x);
    m.v.fill(u.y);
    m.w.fill(u.z);
    m
}

#[test]
fn uniform_field_moves_particles_by_v_dt() {
    for spec in [
        GridSpec::new(16, 16, 1, 0.1),
        GridSpec::new(16, 16, 16, 0.1),
    ] {
        let solids = Solids::walls(spec);
        let u = Vec3::new(0.5, -0.25, if spec.is_2d() { 0.0 } else { 0.75 });
        let vel = uniform(&spec, u);
        let z = if spec.is_2d() { 0.05 } else { 0.6 };
        let start = [Vec3::new(0.5, 0.7, z), Vec3::new(1.1, 0.3, z)];
        let mut ps = Particles {
            pos: start.to_vec(),
            vel: vec![u; 2],
            ..Default::default()
        };
        advect(&spec, &mut ps, &vel, &solids, 0.1);
        for (p, s) in ps.pos.iter().zip(start) {
            assert!(
                (*p - (s + 0.1 * u)).abs().max_element() < 1e-5,
                "{p} vs {}",
                s + 0.1 * u
            );
        }
    }
}

#[test]
fn particles_pushed_into_a_solid_end_outside_it() {
    for spec in [
        GridSpec::new(20, 20, 1, 0.05),
        GridSpec::new(20, 20, 20, 0.05),
    ] {
        let sphere = Shape {
            kind: ShapeKind::Sphere {
                center: Vec3::splat(0.5),
                radius: 0.2,
            },
            inverted: false,
            shell: 0.0,
            subtract: false,
            placement: None,
        };
        let solids = Solids::new(spec, vec![sphere]);
        // a field that drives everything towards the sphere centre / the floor
        let vel = uniform(&spec, Vec3::new(0.0, -3.0, 0.0));
        let z = if spec.is_2d() { 0.025 } else { 0.5 };
        let mut ps = Particles::default();
        for x in [0.45, 0.5, 0.55, 0.2, 0.8] {
            ps.push(Vec3::new(x, 0.75, z), Vec3::ZERO);
            ps.push(Vec3::new(x, 0.08, z), Vec3::ZERO);
        }
        // moves 0.1: the particles above end 0.05 deep inside the sphere top
        advect(&spec, &mut ps, &vel, &solids, 0.1 / 3.0);
        for p in &ps.pos {
            assert!(
                solids.distance(*p) >= 0.0,
                "{p} inside: {}",
                solids.distance(*p)
            );
            assert!(p.y >= spec.dx, "{p} in the floor");
        }
        // eq. 27 moved the ones that hit the sphere top back above it, by β·depth
        assert!((ps.pos[2].y - 0.725).abs() < 2e-3, "{}", ps.pos[2]);
    }
}

#[test]
fn rigid_rotation_is_second_order() {
    // u = ω × (x − c): linear, so the MAC interpolation is exact; after G2P (PIC) v_p is the
    // field at x_p. One RK2 step keeps the radius to O((ω dt)⁴); Euler would grow it by
    // r·((1 + (ω dt)²)^½ − 1) ≈ 5e-3 here.
    let spec = GridSpec::new(32, 32, 1, 1.0 / 32.0);
    let solids = Solids::walls(spec);
    let mut vel = MacGrid::zeros(&spec);
    let field = |p: Vec3| Vec3::new(-(p.y - 0.5), p.x - 0.5, 0.0);
    let dx = spec.dx;
    crate::grid::par_for_each_mut(vel.u.dims(), &mut vel.u.data, |i, j, _, u| {
        *u = field(Vec3::new(i as f32, j as f32 + 0.5, 0.5) * dx).x;
    });
    crate::grid::par_for_each_mut(vel.v.dims(), &mut vel.v.data, |i, j, _, v| {
        *v = field(Vec3::new(i as f32 + 0.5, j as f32, 0.5) * dx).y;
    });
    let p0 = Vec3::new(0.75, 0.5, 0.5 * dx);
    let mut ps = Particles {
        pos: vec![p0],
        vel: vec![field(p0)],
        ..Default::default()
    };
    advect(&spec, &mut ps, &vel, &solids, 0.2);
    let r = (ps.pos[0] - Vec3::new(0.5, 0.5, ps.pos[0].z)).length();
    assert!((r - 0.25).abs() < 2e-4, "radius {r}");
    let angle = (ps.pos[0].y - 0.5).atan2(ps.pos[0].x - 0.5);
    assert!((angle - 0.2).abs() < 2e-3, "angle {angle}"); // phase error O((ω dt)³)
}

/// A wall one cell thick (0.1 m) between x = 0.8 and 0.9 m, across the whole height.
fn wall_at_x08(spec: GridSpec) -> Solids {
    let wall = Shape {
        kind: ShapeKind::Box {
            min: Vec3::new(0.8, 0.0, 0.0),
            max: Vec3::new(0.9, 2.0, 0.0),
        },
        inverted: false,
        shell: 0.0,
        subtract: false,
        placement: None,
    };
    Solids::new(spec, vec![wall])
}

#[test]
fn a_particle_never_crosses_a_wall_one_cell_thick() {
    let spec = GridSpec::new(16, 16, 1, 0.1);
    let solids = wall_at_x08(spec);
    // from 0.02 m left of the wall, 0.09 m to the right: 0.07 m deep in a 0.1 m wall,
    // nearer its far face, where eq. 27 alone would push it out
    let mut ps = Particles {
        pos: vec![Vec3::new(0.78, 0.8, 0.05)],
        vel: vec![Vec3::new(0.9, 0.0, 0.0)],
        ..Default::default()
    };
    let vel = uniform(&spec, Vec3::new(0.9, 0.0, 0.0));
    advect(&spec, &mut ps, &vel, &solids, 0.1);
    let x = ps.pos[0].x;
    assert!(x <= 0.8 && x > 0.78, "stays on its side of the wall: {x}");
}

#[test]
fn a_move_longer_than_a_thin_wall_does_not_jump_it() {
    let spec = GridSpec::new(16, 16, 1, 0.1);
    let solids = wall_at_x08(spec);
    // from 0.02 m left of the wall to 0.08 m right of it: the move ends outside, past the
    // wall's far face, in one step of 1.6 cells
    let mut ps = Particles {
        pos: vec![Vec3::new(0.78, 0.8, 0.05)],
        vel: vec![Vec3::new(1.6, 0.0, 0.0)],
        ..Default::default()
    };
    let vel = uniform(&spec, Vec3::new(1.6, 0.0, 0.0));
    advect(&spec, &mut ps, &vel, &solids, 0.1);
    let x = ps.pos[0].x;
    assert!(x <= 0.8 && x > 0.78, "stays on its side of the wall: {x}");
    // a long move that meets no solid is kept
    let mut free = Particles {
        pos: vec![Vec3::new(0.2, 0.8, 0.05)],
        vel: vec![Vec3::new(1.6, 0.0, 0.0)],
        ..Default::default()
    };
    advect(&spec, &mut free, &vel, &solids, 0.1);
    assert!((free.pos[0].x - 0.36).abs() < 1e-5, "{}", free.pos[0].x);
}

#[test]
fn cfl_step() {
    let spec = GridSpec::new(8, 8, 8, 0.5);
    assert_eq!(cfl_dt(&spec, 2.0, 1.0), 0.25);
    assert!(cfl_dt(&spec, 0.0, 1.0).is_finite());
}
