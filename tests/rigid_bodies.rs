//! Rigid bodies coupled to the liquid (2D, `graphs/floating_boxes_2d.ron` at 128²): Archimedes
//! (a light box floats half submerged, a neutral one hangs where it is released, a heavy one
//! sinks), the tank's level rise, no liquid inside a body and no body inside a wall, and
//! checkpoint/resume bit for bit.

use flip_core::rigid::{Bodies, BodyShape, BodyState, RigidBody};
use flip_core::{Grid3, Particles};
use flip_graph::{GraphDoc, ParamValue::*, Simulation};
use flip_nodes::kinds::{CarriedParticles, LEVEL_SET};
use flipgraph_tests::{graph, registry, set, simulation};

const N: usize = 128;
const DX: f64 = 1.0 / N as f64;
/// The boxes' height (m).
const H: f64 = 0.08;

/// The shipped graph with `bodies`, writing no files.
fn tank(bodies: &str) -> GraphDoc {
    let mut doc = graph("floating_boxes_2d.ron");
    assert_eq!(doc.settings.grid, [N, N, 1]);
    set(&mut doc, "bodies", "bodies", Text(bodies.into()));
    set(&mut doc, "export", "ply", Bool(false));
    set(&mut doc, "export", "png", Bool(false));
    set(&mut doc, "fields", "every", Number(100000.0));
    doc
}

fn bodies(sim: &Simulation) -> std::sync::Arc<Bodies> {
    sim.carried_as::<Bodies>().expect("bodies carried")
}

/// Height of the liquid surface (level set zero) in column `i`.
fn surface(phi: &Grid3<f32>, i: usize) -> f64 {
    let spec_y = |j: usize| (j as f64 + 0.5) * DX;
    for j in 1..N {
        let (a, b) = (f64::from(phi[(i, j - 1, 0)]), f64::from(phi[(i, j, 0)]));
        if a < 0.0 && b >= 0.0 {
            return spec_y(j - 1) + DX * a / (a - b);
        }
    }
    panic!("no surface in column {i}")
}

/// The deepest point of a liquid particle inside a body (m, ≥ 0), and of a body inside a
/// wall or another body.
fn worst_overlaps(b: &Bodies, particles: &Particles) -> (f64, f64) {
    let mut liquid = 0.0f64;
    for body in &b.bodies {
        for p in &particles.pos {
            let d = body.distance(&body.state, [f64::from(p.x), f64::from(p.y)]);
            liquid = liquid.max(-d);
        }
    }
    let mut solid = 0.0f64;
    for (i, body) in b.bodies.iter().enumerate() {
        for q in outline(body) {
            let wall = [q[0] - DX, 1.0 - DX - q[0], q[1] - DX, 1.0 - DX - q[1]];
            solid = solid.max(-wall.iter().copied().fold(f64::MAX, f64::min));
            for (k, other) in b.bodies.iter().enumerate() {
                if k != i {
                    solid = solid.max(-other.distance(&other.state, q));
                }
            }
        }
    }
    (liquid, solid)
}

/// Points on a body's outline (corners of a box, 32 points of a disc).
fn outline(b: &RigidBody) -> Vec<[f64; 2]> {
    let s = &b.state;
    let (sin, cos) = s.angle.sin_cos();
    let local: Vec<[f64; 2]> = match b.shape {
        BodyShape::Box { size: [w, h] } => vec![
            [-0.5 * w, -0.5 * h],
            [0.5 * w, -0.5 * h],
            [0.5 * w, 0.5 * h],
            [-0.5 * w, 0.5 * h],
        ],
        BodyShape::Disc { radius } => (0..32)
            .map(|k| {
                let a = k as f64 * std::f64::consts::TAU / 32.0;
                [radius * a.cos(), radius * a.sin()]
            })
            .collect(),
    };
    local
        .iter()
        .map(|p| {
            [
                s.position[0] + cos * p[0] - sin * p[1],
                s.position[1] + sin * p[0] + cos * p[1],
            ]
        })
        .collect()
}

fn bottom(s: &BodyState) -> f64 {
    s.position[1] - 0.5 * H
}

#[test]
fn light_boxes_float_half_submerged_neutral_ones_hang_and_heavy_ones_sink() {
    // released with their bottoms on the surface (light, heavy) and at mid-depth (neutral)
    let doc = tank(
        "box 0.16 0.08 at 0.22 0.54 density 500; box 0.16 0.08 at 0.5 0.25 density 1000; \
         box 0.16 0.08 at 0.78 0.54 density 1200",
    );
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    sim.set_probes(&[("level_set", "level_set")]);
    let start = bodies(&sim_after_first_frame(&mut sim));
    let neutral_start = start.bodies[1].state.position[1];
    let (mut worst_liquid, mut worst_solid, mut neutral_drift) = (0.0f64, 0.0f64, 0.0f64);
    let frames = (2.0 * doc.settings.fps).round() as u32;
    let mut submerged = Vec::new();
    for _ in 1..frames {
        sim.advance_frame().expect("frame");
        let b = bodies(&sim);
        let (liquid, solid) = worst_overlaps(&b, &sim.particles().expect("particles"));
        worst_liquid = worst_liquid.max(liquid);
        worst_solid = worst_solid.max(solid);
        neutral_drift = neutral_drift.max((b.bodies[1].state.position[1] - neutral_start).abs());
        let phi = sim.probed()[0]
            .as_ref()
            .filter(|v| v.kind() == LEVEL_SET)
            .and_then(|v| v.get::<Grid3<f32>>())
            .expect("level set probed");
        // the far field: between the bodies and by the walls
        let level = [4, 46, 82, 123]
            .iter()
            .map(|&i| surface(phi, i))
            .sum::<f64>()
            / 4.0;
        submerged.push((level - bottom(&b.bodies[0].state)) / H);
    }
    let b = bodies(&sim);
    let last = submerged[submerged.len() - 1];
    let heavy = bottom(&b.bodies[2].state);
    println!(
        "submerged (density 500) {last:.4}; neutral drift {:.3} cells; heavy bottom {:.4} m; \
         deepest liquid in a body {:.3} cells, body in a wall/body {:.3} cells",
        neutral_drift / DX,
        heavy,
        worst_liquid / DX,
        worst_solid / DX
    );
    assert!(
        (last - 0.5).abs() <= 0.02,
        "density 500: {last} submerged, not 50 ± 2 %"
    );
    assert!(
        (heavy - DX).abs() < 0.1 * DX,
        "density 1200 rests on the floor: bottom at {heavy}"
    );
    assert!(
        neutral_drift <= 0.5 * DX,
        "density 1000 drifted {} cells",
        neutral_drift / DX
    );
    assert!(
        worst_liquid <= 0.1 * DX,
        "liquid {} cells inside a body",
        worst_liquid / DX
    );
    assert!(
        worst_solid <= 0.1 * DX,
        "a body {} cells inside a wall",
        worst_solid / DX
    );
}

/// Advances the first frame and returns the simulation (the bodies are carried from then on).
fn sim_after_first_frame(sim: &mut Simulation) -> &Simulation {
    sim.advance_frame().expect("first frame");
    sim
}

#[test]
fn checkpoint_and_resume_give_the_same_bodies_and_liquid_bit_for_bit() {
    let mut doc = tank(
        "box 0.16 0.08 at 0.4 0.56 density 600 angle 20; disc 0.05 at 0.7 0.6 density 900 spin 2",
    );
    doc.settings.frames = 12;
    let registry = registry();
    let (mut a, _out_a) = simulation(&doc, &registry);
    for _ in 0..6 {
        a.advance_frame().expect("frame");
    }
    let ck = a.snapshot().expect("snapshot").to_checkpoint("test");
    let (mut b, _out_b) = simulation(&doc, &registry);
    b.restore(ck, &[]).expect("restore");
    for frame in 6..12 {
        a.advance_frame().expect("frame");
        b.advance_frame().expect("frame");
        assert_eq!(*bodies(&a), *bodies(&b), "bodies differ at frame {frame}");
        let (pa, pb) = (a.particles().unwrap(), b.particles().unwrap());
        assert_eq!(pa.pos, pb.pos, "particles differ at frame {frame}");
    }
    assert!(
        bodies(&a).bodies[0].state.position[1] < 0.56,
        "the box moved"
    );
}
