//! Free fall, resting on the floor wall and stacking, in 2D and 3D.

use super::*;
use crate::rigid::BodyShape;
use crate::GridSpec;

fn ball(at: [f64; 3], dimension: usize) -> (RigidBody, BodyState) {
    let state = BodyState {
        position: at,
        ..BodyState::default()
    };
    let shape = if dimension == 2 {
        BodyShape::Disc { radius: 0.1 }
    } else {
        BodyShape::Sphere { radius: 0.1 }
    };
    let body = RigidBody {
        shape,
        density: 1000.0,
        state,
    };
    (body, state)
}

fn run(
    bodies: &[RigidBody],
    mut states: Vec<BodyState>,
    steps: usize,
    dimension: usize,
) -> Vec<BodyState> {
    let nk = if dimension == 2 { 1 } else { 32 };
    let scene = Solids::walls(GridSpec::new(32, 32, nk, 1.0 / 32.0));
    let params = ContactParams {
        friction: 0.5,
        restitution: 0.0,
        gravity: [0.0, -9.81, 0.0],
    };
    for _ in 0..steps {
        states = advance(bodies, &states, &scene, &params, 1e-3);
    }
    states
}

#[test]
fn a_ball_falls_freely_then_rests_on_the_floor_wall() {
    for dimension in [2, 3] {
        let z = if dimension == 2 { 0.0 } else { 0.5 };
        let (b, s) = ball([0.5, 0.6, z], dimension);
        let after = run(std::slice::from_ref(&b), vec![s], 100, dimension);
        // 0.1 s of free fall: v = g t, y = 0.6 − g t²/2 (symplectic Euler: within g dt t)
        let a = after[0];
        assert!((a.velocity[1] + 0.981).abs() < 1e-6, "{dimension}D {a:?}");
        assert!((a.position[1] - (0.6 - 0.5 * 9.81 * 0.01)).abs() < 1e-3);
        assert!((a.position[0] - 0.5).abs() < 1e-12 && (a.position[2] - z).abs() < 1e-12);
        let rest = run(&[b], vec![s], 1500, dimension);
        let floor = 1.0 / 32.0 + 0.1;
        let r = rest[0];
        assert!(
            (r.position[1] - floor).abs() < 0.1 / 32.0,
            "{dimension}D {r:?}"
        );
        assert!(r.velocity[1].abs() < 1e-2);
    }
}

#[test]
fn a_ball_stacked_on_another_stays_above_it() {
    for dimension in [2, 3] {
        let z = if dimension == 2 { 0.0 } else { 0.5 };
        let (a, sa) = ball([0.5, 0.2, z], dimension);
        let (b, sb) = ball([0.5, 0.45, z], dimension);
        let after = run(&[a, b], vec![sa, sb], 1500, dimension);
        let gap = DVec3::from_array(after[1].position) - DVec3::from_array(after[0].position);
        assert!(
            gap.length() > 0.2 - 0.1 / 32.0,
            "{dimension}D: the upper ball sank into the lower one: {gap}"
        );
    }
}

#[test]
fn a_box_set_down_on_an_edge_tips_onto_a_face_in_3d() {
    // a cube of 0.1 m turned 30° about z, its lowest edge (0.068 m under its centre) just over
    // the floor: it falls flat
    let mut state = BodyState {
        position: [0.5, 1.0 / 32.0 + 0.07, 0.5],
        ..BodyState::default()
    };
    state.set_rotation(DQuat::from_rotation_z(30f64.to_radians()));
    let b = RigidBody {
        shape: BodyShape::Box {
            size: [0.1, 0.1, 0.1],
        },
        density: 1000.0,
        state,
    };
    let rest = run(&[b], vec![state], 1500, 3)[0];
    // resting on a face: its centre half a side above the floor, turned by a multiple of 90°
    assert!(
        (rest.position[1] - (1.0 / 32.0 + 0.05)).abs() < 0.1 / 32.0,
        "{rest:?}"
    );
    let turned = rest.angle_z().to_degrees().rem_euclid(90.0);
    assert!(turned.min(90.0 - turned) < 1.0, "{rest:?}");
}
