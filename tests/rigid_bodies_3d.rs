//! Rigid bodies coupled to the liquid in 3D (`graphs/floating_boxes_3d.ron` at 48³, default
//! emitter jitter). One two-second run (one 48³ run for the three, to keep the suite's time
//! down) holds a light box released on the surface, a neutral box released at mid-depth and a
//! heavy box released on the surface, side by side: the heavy box sinks to the floor, the light
//! one floats, no liquid enters a body and no body a wall or another body. A neutral box
//! released alone at mid-depth stays put. A light box alone floats at Archimedes' depth in a pond
//! 2 m across with absorbing sides after 5 s; within 2 s in the 1 m tank it does not (ignored
//! test: its radiated waves are as long as the tank, see docs/guide/rigid-bodies.md).
//! A body of an imported mesh of a box moves as the box does. Checkpoint and resume are bit
//! for bit (24³).

use flip_core::rigid::{Bodies, BodyShape, BodyState, RigidBody};
use flip_core::{Grid3, Particles};
use flip_graph::{GraphDoc, ParamValue::*, Simulation};
use flip_nodes::kinds::{CarriedParticles, LEVEL_SET};
use flipgraph_tests::{graph, registry, set, simulation, with_wave_absorber};
use glam::DVec3;

const N: usize = 48;
const DX: f64 = 1.0 / N as f64;

/// The three boxes of the acceptance run: light on the surface, neutral at mid-depth, heavy on
/// the surface.
const THREE: &str = "box 0.2 0.12 0.2 at 0.22 0.56 0.5 density 500; \
                     box 0.2 0.12 0.2 at 0.5 0.25 0.5 density 1000; \
                     box 0.2 0.12 0.2 at 0.78 0.56 0.5 density 1200";

/// The shipped graph with `bodies`, writing no particle or image files.
fn tank(bodies: &str) -> GraphDoc {
    let mut doc = graph("floating_boxes_3d.ron");
    assert_eq!(doc.settings.grid, [N, N, N]);
    set(&mut doc, "bodies", "bodies", Text(bodies.into()));
    set(&mut doc, "export", "ply", Bool(false));
    set(&mut doc, "export", "png", Bool(false));
    set(&mut doc, "fields", "every", Number(100000.0));
    doc
}

/// The shipped tank made a pond `columns` cells across at the same cell size and depth, its
/// four side walls lined with a `wave_absorber` `width` m wide (its default rate), wired on
/// P2G's velocity before gravity as the guide says: waves a floating body radiates leave.
fn pond(bodies: &str, columns: usize, width: f64) -> GraphDoc {
    let mut doc = tank(bodies);
    let across = columns as f64 * DX;
    doc.settings.grid = [columns, N, columns];
    let source = [
        ("center", [0.5 * across, 0.25, 0.5 * across]),
        ("size", [across, 0.5, across]),
    ];
    for (param, v) in source {
        set(&mut doc, "source", param, Vector(v.to_vec()));
    }
    let sides = [
        ("width", Number(width)),
        ("z_min", Bool(true)),
        ("z_max", Bool(true)),
    ];
    with_wave_absorber(doc, &sides)
}

fn bodies(sim: &Simulation) -> std::sync::Arc<Bodies> {
    sim.carried_as::<Bodies>().expect("bodies carried")
}

/// Height of the liquid surface (level set zero) in column `(i, k)`.
fn surface(phi: &Grid3<f32>, i: usize, k: usize) -> f64 {
    for j in 1..N {
        let (a, b) = (f64::from(phi[(i, j - 1, k)]), f64::from(phi[(i, j, k)]));
        if a < 0.0 && b >= 0.0 {
            return (j as f64 - 0.5) * DX + DX * a / (a - b);
        }
    }
    panic!("no surface in column ({i}, {k})")
}

/// Points of a body in its own frame: the corners of a box (or 26 points of a ball's surface)
/// when `corners`, else a lattice of cell centres through the body's volume, 16 across and 256
/// high (its submerged fraction then resolves 0.4 % of the height, not the 6 % of 16 layers).
/// A mesh's corners are its vertices; its lattice spans the ball of its reach.
fn local_points(b: &RigidBody, corners: bool) -> Vec<DVec3> {
    let half = match &b.shape {
        BodyShape::Box { size } => 0.5 * DVec3::from_array(*size),
        BodyShape::Disc { radius } | BodyShape::Sphere { radius } => DVec3::splat(*radius),
        BodyShape::Mesh(mesh) if corners => {
            return mesh
                .vertices()
                .iter()
                .map(|&v| DVec3::from_array(v))
                .collect()
        }
        BodyShape::Mesh(mesh) => DVec3::splat(mesh.reach()),
    };
    let n = if corners { [3, 3, 3] } else { [16, 256, 16] };
    // lattice coordinate `i` of `n` along an axis, in [−1, 1]: the corners, or cell centres
    let at = |i: usize, n: usize| match corners {
        true => i as f64 - 1.0,
        false => (2 * i + 1) as f64 / n as f64 - 1.0,
    };
    let mut out = vec![];
    for k in 0..n[2] {
        for j in 0..n[1] {
            for i in 0..n[0] {
                let u = DVec3::new(at(i, n[0]), at(j, n[1]), at(k, n[2]));
                let p = u * half;
                match b.shape {
                    BodyShape::Box { .. } if corners && u.abs().min_element() < 0.5 => {}
                    BodyShape::Sphere { radius } if corners => {
                        if u != DVec3::ZERO {
                            out.push(u.normalize() * radius);
                        }
                    }
                    _ => {
                        if b.shape.distance(p) <= 0.0 {
                            out.push(p);
                        }
                    }
                }
            }
        }
    }
    out
}

fn world(s: &BodyState, local: &[DVec3]) -> Vec<DVec3> {
    let (q, c) = (s.rotation(), DVec3::from_array(s.position));
    local.iter().map(|p| c + q * *p).collect()
}

/// The deepest liquid particle inside a body, and body inside a wall or another body (m, ≥ 0),
/// where the step ended (the bodies at their `end` states).
fn worst_overlaps(b: &Bodies, particles: &Particles) -> (f64, f64) {
    let mut liquid = 0.0f64;
    for (body, end) in b.bodies.iter().zip(&b.end) {
        let c = DVec3::from_array(end.position);
        let reach = body.shape.reach(3);
        for p in &particles.pos {
            let p = p.as_dvec3();
            if (p - c).length() < reach {
                liquid = liquid.max(-body.distance(end, p.to_array()));
            }
        }
    }
    let mut solid = 0.0f64;
    for (i, body) in b.bodies.iter().enumerate() {
        for q in world(&b.end[i], &local_points(body, true)) {
            let walls = (0..3).map(|a| (q[a] - DX).min(1.0 - DX - q[a]));
            solid = solid.max(-walls.fold(f64::MAX, f64::min));
            for (k, other) in b.bodies.iter().enumerate() {
                if k != i {
                    solid = solid.max(-other.distance(&b.end[k], q.to_array()));
                }
            }
        }
    }
    (liquid, solid)
}

/// The fraction of a body's volume (`lattice`, its points from [`local_points`]) below the
/// height `level`, the body at `s`.
fn submerged(lattice: &[DVec3], s: &BodyState, level: f64) -> f64 {
    let points = world(s, lattice);
    points.iter().filter(|p| p.y < level).count() as f64 / points.len() as f64
}

/// What two seconds of a tank with `bodies` show, frame by frame.
struct Trace {
    /// Each body's submerged fraction below the far-field surface, per frame.
    submerged: Vec<Vec<f64>>,
    /// The bodies at the end of each frame.
    bodies: Vec<Bodies>,
    /// The deepest liquid particle inside a body, and body inside a wall or body (m).
    worst_liquid: f64,
    worst_solid: f64,
}

fn two_seconds(bodies_text: &str) -> Trace {
    run_for(&tank(bodies_text), 2.0)
}

/// `secs` seconds of `doc`, frame by frame.
fn run_for(doc: &GraphDoc, secs: f64) -> Trace {
    let registry = registry();
    let (mut sim, _out) = simulation(doc, &registry);
    sim.set_probes(&[("level_set", "level_set")]);
    let frames = (secs * f64::from(doc.settings.fps)).round() as u32;
    let mut t = Trace {
        submerged: vec![],
        bodies: vec![],
        worst_liquid: 0.0,
        worst_solid: 0.0,
    };
    // the far field: columns near the front and back walls, away from the bodies
    let w = doc.settings.grid[0];
    let columns = [
        (5, 5),
        (w / 2, 5),
        (w - 6, 5),
        (5, w - 6),
        (w / 2, w - 6),
        (w - 6, w - 6),
    ];
    // each body's lattice in its own frame, made once
    let mut lattices: Option<Vec<Vec<DVec3>>> = None;
    for _ in 0..frames {
        sim.advance_frame().expect("frame");
        let b = bodies(&sim);
        let lattices = lattices.get_or_insert_with(|| {
            (b.bodies.iter())
                .map(|body| local_points(body, false))
                .collect()
        });
        let particles = sim.particles().expect("particles");
        let (liquid, solid) = worst_overlaps(&b, &particles);
        t.worst_liquid = t.worst_liquid.max(liquid);
        t.worst_solid = t.worst_solid.max(solid);
        let phi = sim.probed()[0]
            .as_ref()
            .filter(|v| v.kind() == LEVEL_SET)
            .and_then(|v| v.get::<Grid3<f32>>())
            .expect("level set probed");
        let level = columns
            .iter()
            .map(|&(i, k)| surface(phi, i, k))
            .sum::<f64>()
            / 6.0;
        t.submerged.push(
            (lattices.iter().zip(&b.end))
                .map(|(lattice, end)| submerged(lattice, end, level))
                .collect(),
        );
        t.bodies.push((*b).clone());
    }
    t
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Body `k`'s mean submerged fraction over the last half second and its largest swing from
/// that mean.
fn floating(t: &Trace, k: usize) -> (f64, f64) {
    let light: Vec<f64> = t.submerged.iter().map(|s| s[k]).collect();
    let tail = &light[light.len() - 12..];
    let m = mean(tail);
    (m, tail.iter().fold(0.0f64, |w, s| w.max((s - m).abs())))
}

/// Body `k`'s displacement from where it was released, per frame (cells).
fn displacement(t: &Trace, k: usize) -> Vec<DVec3> {
    let start = DVec3::from_array(t.bodies[0].bodies[k].state.position);
    (t.bodies.iter())
        .map(|b| (DVec3::from_array(b.bodies[k].state.position) - start) / DX)
        .collect()
}

#[test]
fn boxes_of_three_densities_sink_and_float_without_liquid_inside_them() {
    let t = two_seconds(THREE);
    let last = t.bodies.last().expect("frames");
    let light: Vec<f64> = t.submerged.iter().map(|s| s[0]).collect();
    println!("density 500, submerged by frame: {light:.3?}");
    let (float, swing) = floating(&t, 0);
    let neutral = displacement(&t, 1);
    println!("density 1000, displacement by frame (cells): {neutral:.2?}");
    let heavy = &last.bodies[2];
    let lowest = world(&heavy.state, &local_points(heavy, true))
        .iter()
        .fold(f64::MAX, |m, p| m.min(p.y));
    println!(
        "density 500: submerged {float:.4} ± {swing:.4} (last 0.5 s); density 1200: lowest \
         corner {lowest:.5} m (floor at {DX:.5}); deepest liquid in a body {:.3} cells, body in \
         a wall or body {:.3} cells",
        t.worst_liquid / DX,
        t.worst_solid / DX
    );
    assert!(
        (lowest - DX).abs() < 0.1 * DX,
        "density 1200 rests on the floor: lowest corner at {lowest}"
    );
    assert!(
        t.worst_solid <= 0.1 * DX,
        "a body {} cells inside a wall or another body",
        t.worst_solid / DX
    );
    assert!(
        t.worst_liquid <= 0.1 * DX,
        "liquid {} cells inside a body",
        t.worst_liquid / DX
    );
    // the light box floats (Archimedes' 50 ± 2 % is the ignored test below)
    assert!(light.iter().all(|&s| s < 1.0), "density 500 went under");
}

#[test]
#[ignore = "not met: released alone with its bottom on the surface, the light box heaves \
            with a period of 0.71 s and radiates waves about 0.8 m long. In the 1 m tank they \
            cannot leave: ±17 % of its height over the last 0.5 s of 2 s even with absorbing \
            layers on all four side walls. In a pond 2 m across with layers 0.5 m deep they do, \
            and the heave dies away at a damping ratio of about 0.1: ±7.5 % after 2 s, within \
            ±2 % after 4 to 5 s (the pond test below; docs/guide/rigid-bodies.md)"]
fn a_light_box_settles_half_submerged_within_two_seconds() {
    let t = two_seconds("box 0.2 0.12 0.2 at 0.5 0.56 0.5 density 500");
    let light: Vec<f64> = t.submerged.iter().map(|s| s[0]).collect();
    println!("density 500 alone, submerged by frame: {light:.3?}");
    let (float, swing) = floating(&t, 0);
    println!("density 500 alone: submerged {float:.4} ± {swing:.4} (last 0.5 s)");
    assert!(
        (float - 0.5).abs() <= 0.02 && swing <= 0.02,
        "density 500: {float} ± {swing} submerged, not 50 ± 2 %"
    );
}

#[test]
fn a_light_box_settles_half_submerged_in_a_pond_with_absorbing_sides() {
    // The light box alone, released with its bottom on the surface in the middle of a pond 2 m
    // across (96 × 48 × 96 cells of the shipped graph's size) whose sides absorb 0.5 m deep.
    // The waves it radiates damp its heave (period 0.71 s) at a damping ratio of about 0.1:
    // it still swings ±0.43 cell after 2 s and ±2 % of its height after 4 s. Measured over the
    // last half second of 5 s: 51.4 ± 0.9 % (of 4 s: 51.7 ± 2.4 %); with density 540 it read
    // 54.9 ± 2.2 % at 4 s, which fails (see docs/guide/rigid-bodies.md).
    let doc = pond("box 0.2 0.12 0.2 at 1 0.56 1 density 500", 96, 0.5);
    let t = run_for(&doc, 5.0);
    let light: Vec<f64> = t.submerged.iter().map(|s| s[0]).collect();
    println!("density 500 in the pond, submerged by frame: {light:.3?}");
    let (float, swing) = floating(&t, 0);
    println!("density 500 in the pond: submerged {float:.4} ± {swing:.4} (last 0.5 s of 5 s)");
    assert!(
        (float - 0.5).abs() <= 0.02 && swing <= 0.02,
        "density 500 in the pond: {float} ± {swing} submerged, not 50 ± 2 %"
    );
}

#[test]
fn a_neutral_box_released_at_mid_depth_stays_where_it_is() {
    // measured: 0.02 cell over 2 s (8.1 cells to the floor in 1.5 s before the rim columns and
    // the footprint's corners were measured right; see docs/guide/rigid-bodies.md)
    let t = two_seconds("box 0.2 0.12 0.2 at 0.5 0.25 0.5 density 1000");
    let moved = displacement(&t, 0);
    println!("density 1000 alone, displacement by frame (cells): {moved:.2?}");
    let drift = moved.iter().fold(0.0f64, |m, d| m.max(d.length()));
    println!("density 1000 alone: drifted at most {drift:.3} cells");
    assert!(drift <= 0.5, "density 1000 drifted {drift} cells");
}

#[test]
fn checkpoint_and_resume_give_the_same_bodies_liquid_and_transforms_bit_for_bit() {
    // 24³ to keep it quick; turned and spinning bodies so every degree of freedom is carried
    let n = 24;
    let mut doc = tank(
        "box 0.2 0.12 0.25 at 0.35 0.55 0.5 density 600 angle 10 20 30 spin 0 1 0; \
         sphere 0.08 at 0.7 0.6 0.4 density 900 velocity 0.2 0 0",
    );
    doc.settings.grid = [n, n, n];
    doc.settings.cell_size = 1.0 / n as f32;
    doc.settings.frames = 8;
    let registry = registry();
    let (mut a, out_a) = simulation(&doc, &registry);
    for _ in 0..4 {
        a.advance_frame().expect("frame");
    }
    let ck = a.snapshot().expect("snapshot").to_checkpoint("test");
    let (mut b, out_b) = simulation(&doc, &registry);
    b.restore(ck, &[]).expect("restore");
    for frame in 4..8 {
        a.advance_frame().expect("frame");
        b.advance_frame().expect("frame");
        assert_eq!(*bodies(&a), *bodies(&b), "bodies differ at frame {frame}");
        let (pa, pb) = (a.particles().unwrap(), b.particles().unwrap());
        assert_eq!(pa.pos, pb.pos, "particles differ at frame {frame}");
    }
    // the exported transforms of the resumed frames, byte for byte
    let mut compared = 0;
    for entry in std::fs::read_dir(out_b.path().join("bodies")).expect("bodies exported") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "json") {
            let name = path.file_name().expect("name");
            let first = std::fs::read(out_a.path().join("bodies").join(name)).expect("same file");
            assert_eq!(
                first,
                std::fs::read(&path).expect("read"),
                "{name:?} differs"
            );
            compared += 1;
        }
    }
    assert!(compared >= 4, "only {compared} transform files compared");
    let s = &bodies(&a).bodies[0].state;
    assert!(s.position[1] < 0.55, "the box moved");
    assert!(s.spin.iter().any(|w| w.abs() > 1e-3), "and turns: {s:?}");
}

/// Half a second of one body (the light box of the acceptance run, released on the surface):
/// its centre per frame.
fn half_second(body: &str) -> Vec<DVec3> {
    let doc = tank(body);
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    let frames = (0.5 * doc.settings.fps).round() as u32;
    (0..frames)
        .map(|_| {
            sim.advance_frame().expect("frame");
            DVec3::from_array(bodies(&sim).bodies[0].state.position)
        })
        .collect()
}

#[test]
fn a_body_of_a_meshed_box_floats_as_the_box_does() {
    // a unit cube centred at (3, 1, 2) in its file: the body finds its own centre
    let obj =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/meshes/unit_cube.obj");
    // a 0.16 m cube released on the surface, tilted 20° about y: the primitive, and the
    // unit cube's mesh scaled to it
    let at = "at 0.47 0.56 0.52 density 500 angle 0 20 0";
    let primitive = half_second(&format!("box 0.16 0.16 0.16 {at}"));
    let mesh = half_second(&format!("mesh {} scale 0.16 {at}", obj.display()));
    let apart = (primitive.iter().zip(&mesh))
        .map(|(a, b)| (*a - *b).length() / DX)
        .fold(0.0, f64::max);
    let moved = (primitive[0] - primitive[primitive.len() - 1]).length() / DX;
    println!("the box moved {moved:.2} cells; the mesh body stayed within {apart:.3} cells of it");
    assert!(moved > 0.5, "the light box heaves: it moved {moved} cells");
    assert!(
        apart < 0.1,
        "the mesh body drifted {apart} cells from the box"
    );
}
