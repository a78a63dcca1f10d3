//! Rigid bodies coupled to the liquid (2D, `graphs/floating_boxes_2d.ron` at 128²): a heavy box
//! sinks to the floor, a neutral box hangs still, no body enters a wall or another body and no
//! liquid a body, checkpoint and resume are bit for bit, and a dam-break wave pushes a box with
//! the momentum balanced by the walls' impulse. The level rises by a floating box's displaced
//! volume (1 %), and the liquid keeps its volume over 2000 steps with bodies moving (1 %).
//! A light box's heave is radiated away and it floats half submerged in a tank 4 m wide (the
//! same cells); in the 1 m tank whose side walls absorb waves (`wave_absorber`) its heave dies
//! and it settles at Archimedes' depth within ±2 % in 2 s. The liquid keeps its volume with a
//! box resting on the floor (its contact pinned in the solve).

use flip_core::measure::level_set_volume;
use flip_core::rigid::{Bodies, BodyShape, BodyState, RigidBody};
use flip_core::{Grid3, Particles};
use flip_graph::{GraphDoc, ParamValue::*, Simulation};
use flip_nodes::kinds::{CarriedParticles, LEVEL_SET, SOLIDS};
use flipgraph_tests::{graph, registry, set, simulation, with_wave_absorber};

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

/// The shipped tank made `columns` cells wide at the same cell size (and depth of water).
fn wide_tank(bodies: &str, columns: usize) -> GraphDoc {
    let mut doc = tank(bodies);
    let width = columns as f64 * DX;
    doc.settings.grid = [columns, N, 1];
    set(
        &mut doc,
        "source",
        "center",
        Vector(vec![0.5 * width, 0.25, 0.0]),
    );
    set(&mut doc, "source", "size", Vector(vec![width, 0.5, 0.0]));
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
/// wall or another body, where the step ended (the particles have moved over the substep, and
/// so have the bodies: to their `end` states).
fn worst_overlaps(b: &Bodies, particles: &Particles) -> (f64, f64) {
    let mut liquid = 0.0f64;
    for (body, end) in b.bodies.iter().zip(&b.end) {
        for p in &particles.pos {
            let d = body.distance(end, [f64::from(p.x), f64::from(p.y), 0.0]);
            liquid = liquid.max(-d);
        }
    }
    let mut solid = 0.0f64;
    for (i, body) in b.bodies.iter().enumerate() {
        for q in outline(body, &b.end[i]) {
            let wall = [q[0] - DX, 1.0 - DX - q[0], q[1] - DX, 1.0 - DX - q[1]];
            solid = solid.max(-wall.iter().copied().fold(f64::MAX, f64::min));
            for (k, other) in b.bodies.iter().enumerate() {
                if k != i {
                    solid = solid.max(-other.distance(&b.end[k], [q[0], q[1], 0.0]));
                }
            }
        }
    }
    (liquid, solid)
}

/// Points on a body's outline placed by `s` (corners of a box, 32 points of a disc).
fn outline(b: &RigidBody, s: &BodyState) -> Vec<[f64; 2]> {
    let (sin, cos) = s.angle_z().sin_cos();
    let local: Vec<[f64; 2]> = match b.shape {
        BodyShape::Box { size: [w, h, _] } => vec![
            [-0.5 * w, -0.5 * h],
            [0.5 * w, -0.5 * h],
            [0.5 * w, 0.5 * h],
            [-0.5 * w, 0.5 * h],
        ],
        BodyShape::Disc { radius } | BodyShape::Sphere { radius } => (0..32)
            .map(|k| {
                let a = k as f64 * std::f64::consts::TAU / 32.0;
                [radius * a.cos(), radius * a.sin()]
            })
            .collect(),
        BodyShape::Mesh(_) => panic!("2D bodies are boxes and discs"),
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

/// What two seconds of a tank show, frame by frame.
struct Trace {
    /// The first body's submerged fraction: the waterline beside it (the surface three cells
    /// off each side, averaged) over its bottom.
    submerged: Vec<f64>,
    /// The mean surface height of the columns whose centres no body covers (m).
    open_level: Vec<f64>,
    /// The bodies at the end of each frame.
    bodies: Vec<Bodies>,
    /// The deepest liquid particle inside a body, and body inside a wall or body (m).
    worst_liquid: f64,
    worst_solid: f64,
}

/// Where body `b` spans in x (m), from its outline.
fn x_span(b: &RigidBody, s: &BodyState) -> (f64, f64) {
    (outline(b, s).iter()).fold((f64::MAX, f64::MIN), |(l, r), q| (l.min(q[0]), r.max(q[0])))
}

fn two_seconds(bodies_text: &str) -> Trace {
    two_seconds_of(tank(bodies_text))
}

fn two_seconds_of(doc: GraphDoc) -> Trace {
    let columns = doc.settings.grid[0];
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    sim.set_probes(&[("level_set", "level_set")]);
    let frames = (2.0 * doc.settings.fps).round() as u32;
    let mut t = Trace {
        submerged: vec![],
        open_level: vec![],
        bodies: vec![],
        worst_liquid: 0.0,
        worst_solid: 0.0,
    };
    let centre = |i: usize| (i as f64 + 0.5) * DX;
    for _ in 0..frames {
        sim.advance_frame().expect("frame");
        let b = bodies(&sim);
        let particles = sim.particles().expect("particles");
        let (liquid, solid) = worst_overlaps(&b, &particles);
        t.worst_liquid = t.worst_liquid.max(liquid);
        t.worst_solid = t.worst_solid.max(solid);
        let phi = sim.probed()[0]
            .as_ref()
            .filter(|v| v.kind() == LEVEL_SET)
            .and_then(|v| v.get::<Grid3<f32>>())
            .expect("level set probed");
        let spans: Vec<(f64, f64)> = (b.bodies.iter()).map(|x| x_span(x, &x.state)).collect();
        let open: Vec<f64> = (1..columns - 1)
            .filter(|&i| (spans.iter()).all(|&(l, r)| centre(i) < l || centre(i) > r))
            .map(|i| surface(phi, i))
            .collect();
        t.open_level.push(mean(&open));
        if let (Some(first), Some(&(l, r))) = (b.bodies.first(), spans.first()) {
            let beside = [l - 3.0 * DX, r + 3.0 * DX].map(|x| surface(phi, (x / DX) as usize));
            t.submerged.push((mean(&beside) - bottom(&first.state)) / H);
        }
        t.bodies.push((*b).clone());
    }
    t
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn a_heavy_box_sinks_to_the_floor_and_no_body_enters_a_wall() {
    // a light and a heavy box, both released with their bottoms on the surface
    let t = two_seconds(
        "box 0.16 0.08 at 0.3 0.54 density 500; box 0.16 0.08 at 0.7 0.54 density 1200",
    );
    let heavy = bottom(&t.bodies.last().expect("frames").bodies[1].state);
    println!(
        "density 1200: bottom {heavy:.5} m (floor at {DX:.5}); deepest liquid in a body {:.3} \
         cells, body in a wall or body {:.3} cells",
        t.worst_liquid / DX,
        t.worst_solid / DX
    );
    assert!(
        (heavy - DX).abs() < 0.1 * DX,
        "density 1200 rests on the floor: bottom at {heavy}"
    );
    assert!(
        t.worst_solid <= 0.1 * DX,
        "a body {} cells inside a wall",
        t.worst_solid / DX
    );
    assert!(
        t.worst_liquid <= 0.1 * DX,
        "liquid {} cells inside a body",
        t.worst_liquid / DX
    );
}

/// The light box of the acceptance tests, released with its bottom on the surface.
const LIGHT: &str = "box 0.16 0.08 at 0.3 0.54 density 500";

/// The mean and the largest swing about it of the last half second (12 frames) of `v`.
fn last_half_second(v: &[f64]) -> (f64, f64) {
    let tail = &v[v.len() - 12..];
    let m = mean(tail);
    (m, tail.iter().fold(0.0f64, |s, x| s.max((x - m).abs())))
}

#[test]
fn a_light_boxs_heave_is_radiated_away_in_a_wide_tank_and_it_floats_half_submerged() {
    // the shipped tank 4 m wide (512 × 128 cells): the waves the heave radiates take longer
    // than the run to come back from the walls, as from a user's pond or a wide pool
    let t = two_seconds_of(wide_tank("box 0.16 0.08 at 2 0.54 density 500", 512));
    let heights: Vec<f64> = (t.bodies.iter())
        .map(|b| b.bodies[0].state.position[1])
        .collect();
    let first_drop = 0.54 - heights.iter().copied().fold(f64::MAX, f64::min);
    let (centre, heave) = last_half_second(&heights);
    let (floating, swing) = last_half_second(&t.submerged);
    println!(
        "density 500, 4 m tank: heights (cells) {:.2?}",
        heights.iter().map(|y| y / DX).collect::<Vec<_>>()
    );
    println!(
        "first drop {:.3} cells; last 0.5 s: centre {:.3} cells ± {:.3} ({:.1} % of the drop), \
         submerged {floating:.4} ± {swing:.4} (waterline beside the box)",
        first_drop / DX,
        centre / DX,
        heave / DX,
        100.0 * heave / first_drop
    );
    assert!(
        heave <= 0.1 * first_drop,
        "the heave is not radiated away: ±{heave} m after 1.5 s, the first drop {first_drop} m"
    );
    assert!(
        (floating - 0.5).abs() <= 0.02,
        "density 500: {floating} submerged on average, not 50 ± 2 %"
    );
}

#[test]
fn a_light_box_settles_half_submerged_in_the_tank_with_absorbing_sides() {
    // the shipped 1 m tank with a wave absorber (its defaults: layers 0.3 m wide on both side
    // walls), the light box released in the middle with its bottom on the surface: the waves
    // its heave radiates die in the layers instead of coming back, as in a wide pond, and it
    // settles at Archimedes' depth. The depth is measured against the tank's level (the mean
    // surface of the columns the box does not cover), as a draft is read; the waterline right
    // beside the box also carries the level set's particle-scale bumps.
    let light = "box 0.16 0.08 at 0.5 0.54 density 500";
    let heave = |t: &Trace| {
        let heights: Vec<f64> = (t.bodies.iter())
            .map(|b| b.bodies[0].state.position[1])
            .collect();
        last_half_second(&heights).1
    };
    let closed = two_seconds(light);
    let absorbing = two_seconds_of(with_wave_absorber(tank(light), &[]));
    let draft: Vec<f64> = (absorbing.open_level.iter().zip(&absorbing.bodies))
        .map(|(level, b)| (level - bottom(&b.bodies[0].state)) / H)
        .collect();
    println!("submerged by frame: {draft:.4?}");
    let (floating, swing) = last_half_second(&draft);
    let (beside, beside_swing) = last_half_second(&absorbing.submerged);
    let (heave, closed_heave) = (heave(&absorbing), heave(&closed));
    println!(
        "last 0.5 s: heave ±{:.3} cells (closed tank ±{:.3}); submerged {floating:.4} ± \
         {swing:.4} below the tank's level, {beside:.4} ± {beside_swing:.4} below the \
         waterline beside it",
        heave / DX,
        closed_heave / DX
    );
    assert!(
        heave <= 0.02 * H && heave <= 0.2 * closed_heave,
        "the box still heaves ±{heave} m (closed tank ±{closed_heave} m)"
    );
    assert!(
        (floating - 0.5).abs() <= 0.02 && swing <= 0.02,
        "density 500: {floating} ± {swing} submerged, not 50 ± 2 %"
    );
}

#[test]
fn the_level_rises_by_a_floating_boxs_displaced_volume() {
    // frame by frame, not the level averaged over a window: the box still heaves in the 1 m
    // tank and the tank sloshes, but at each instant the mean level of the open surface stands
    // over the still tank's by the volume the box holds below it over the tank's width; what
    // is left frame to frame is the level set's noise (±0.07 % of the liquid area), averaged
    // over the second second
    let t = two_seconds(LIGHT);
    let still = two_seconds("");
    let width = 1.0 - 2.0 * DX;
    let BodyShape::Box { size: [w, _, _] } = t.bodies[0].bodies[0].shape else {
        unreachable!("a box")
    };
    let floating = t.bodies[0].bodies[0].mass() / 1000.0 / width;
    let off: Vec<f64> = (24..48)
        .map(|f| {
            let rise = t.open_level[f] - still.open_level[f];
            let below = w * (t.open_level[f] - bottom(&t.bodies[f].bodies[0].state));
            (rise - below / width) / floating
        })
        .collect();
    let (mean_off, worst) = (mean(&off), off.iter().fold(0.0f64, |m, x| m.max(x.abs())));
    println!(
        "level rise minus displaced volume / width, per frame of the second second (% of the \
         floating box's {floating:.5} m): {:.2?}; mean {:+.2} %, over its halves {:+.2} % and \
         {:+.2} %, worst frame {:.2} %",
        off.iter().map(|x| 100.0 * x).collect::<Vec<_>>(),
        100.0 * mean_off,
        100.0 * mean(&off[..12]),
        100.0 * mean(&off[12..]),
        100.0 * worst
    );
    assert!(
        mean_off.abs() <= 0.01,
        "the level rose {:+.2} % off the displaced volume / width",
        100.0 * mean_off
    );
}

/// The liquid area of the particles' level set, with the scene's solids and the bodies left
/// out.
fn liquid_area(sim: &Simulation, spec: &flip_core::GridSpec) -> f64 {
    let grid = |i: usize| sim.probed()[i].as_ref().expect("probed").clone();
    let phi = grid(0);
    let solids = grid(1);
    let phi = phi.get::<Grid3<f32>>().expect("level set");
    let solids = solids
        .shared_as::<flip_core::Solids>(SOLIDS)
        .expect("solids");
    level_set_volume(spec, phi, Some(&solids))
}

/// Runs the shipped graph with `bodies_text` for 2000 steps: the largest drift of the liquid
/// area from the end of the first frame, and the farthest any body moved (m).
fn area_drift_over_2000_steps(bodies_text: &str) -> (f64, f64) {
    let doc = tank(bodies_text);
    let spec = flip_core::GridSpec::new(N, N, 1, DX as f32);
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    sim.set_probes(&[("level_set", "level_set"), ("bodies", "solids")]);
    let heights = |sim: &Simulation| -> Vec<f64> {
        (bodies(sim).bodies.iter())
            .map(|b| b.state.position[1])
            .collect()
    };
    let mut steps = sim.advance_frame().expect("frame").len();
    let (start, first) = (liquid_area(&sim, &spec), heights(&sim));
    let (mut worst, mut moved) = (0.0f64, 0.0f64);
    while steps < 2000 {
        steps += sim.advance_frame().expect("frame").len();
        worst = worst.max((liquid_area(&sim, &spec) / start - 1.0).abs());
        let now = heights(&sim);
        moved = (now.iter().zip(&first)).fold(moved, |m, (y, y0)| m.max((y - y0).abs()));
    }
    println!(
        "{steps} steps: the liquid area drifted at most {:.3} % (bodies moved up to {:.1} cells)",
        100.0 * worst,
        moved / DX
    );
    (worst, moved)
}

#[test]
fn the_liquid_keeps_its_volume_over_2000_steps_with_bodies_moving() {
    // a light box dropped on the surface heaves and rides the tank's sloshing; a neutral one
    // at mid-depth is carried about by it
    let (drift, moved) = area_drift_over_2000_steps(
        "box 0.16 0.08 at 0.3 0.54 density 500; box 0.16 0.08 at 0.7 0.25 density 1000",
    );
    assert!(moved > 3.0 * DX, "the bodies moved {moved} m");
    assert!(
        drift <= 0.01,
        "the liquid area drifted {:.3} %",
        100.0 * drift
    );
}

// The heavy box comes to rest on the floor. Before resting contacts were pinned in the
// coupled solve (flip_core::rigid::resting) the pressure pushed it into the floor each
// substep and the film under it was squeezed out: 1.42 % of the area lost over 2011 steps.
#[test]
fn the_liquid_keeps_its_volume_over_2000_steps_with_a_box_sinking_to_the_floor() {
    let doc = graph("floating_boxes_2d.ron");
    let (drift, _) = area_drift_over_2000_steps(
        doc.node("bodies")
            .and_then(|n| match n.params.get("bodies") {
                Some(Text(t)) => Some(t.clone()),
                _ => None,
            })
            .expect("the shipped bodies")
            .as_str(),
    );
    assert!(
        drift <= 0.01,
        "the liquid area drifted {:.3} %",
        100.0 * drift
    );
}

#[test]
fn a_neutral_box_released_at_mid_depth_stays_where_it_is() {
    let t = two_seconds("box 0.16 0.08 at 0.5 0.25 density 1000");
    let y0 = t.bodies[0].bodies[0].state.position[1];
    let drift = (t.bodies.iter())
        .map(|b| (b.bodies[0].state.position[1] - y0).abs())
        .fold(0.0f64, f64::max);
    let heights: Vec<f64> = (t.bodies.iter())
        .map(|b| (b.bodies[0].state.position[1] - y0) / DX)
        .collect();
    println!(
        "density 1000: drifted at most {:.3} cells: {heights:.2?}",
        drift / DX
    );
    assert!(
        drift <= 0.5 * DX,
        "density 1000 drifted {} cells",
        drift / DX
    );
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

#[test]
fn a_dam_break_wave_pushes_a_box_and_momentum_changes_only_by_the_walls_impulse() {
    // a column of water on the left, a light box lying on the floor in its way; one substep
    // of 1/480 s a frame
    let n = 96;
    let dx = 1.0 / n as f64;
    let dt = 1.0 / 480.0;
    let mut doc = tank(&format!(
        "box 0.12 0.06 at 0.6 {} density 500",
        dx + 0.03 + 1e-4
    ));
    doc.settings.grid = [n, n, 1];
    doc.settings.cell_size = dx as f32;
    doc.settings.fixed_dt = dt as f32;
    doc.settings.fps = (1.0 / dt) as f32;
    set(&mut doc, "source", "center", Vector(vec![0.15, 0.3, 0.0]));
    set(&mut doc, "source", "size", Vector(vec![0.3, 0.6, 0.0]));
    // frictionless: the floor's contact force on the box is vertical, so the walls' pressure
    // is the only horizontal force from outside
    set(&mut doc, "bodies", "friction", Number(0.0));
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    sim.set_probes(&[("pressure", "pressure")]);
    let rho = f64::from(doc.settings.density);
    let particle_mass = rho * dx * dx / 4.0;
    let momentum = |sim: &Simulation| {
        let liquid: f64 = (sim.particles().unwrap().vel.iter())
            .map(|v| particle_mass * f64::from(v.x))
            .sum();
        let b = &bodies(sim).bodies[0];
        (liquid, b.mass() * b.state.velocity[0])
    };
    sim.advance_frame().expect("first substep");
    let (liquid0, body0) = momentum(&sim);
    let mut wall_impulse = 0.0;
    // 0.2 s: the wave has reached the box but the box not the far wall
    for _ in 0..96 {
        sim.advance_frame().expect("substep");
        let p = sim.probed()[0]
            .as_ref()
            .and_then(|v| v.get::<Grid3<f32>>())
            .expect("pressure probed");
        // the walls push the liquid next to them away from themselves (per metre of depth)
        let left: f64 = (0..n).map(|j| f64::from(p[(1, j, 0)])).sum();
        let right: f64 = (0..n).map(|j| f64::from(p[(n - 2, j, 0)])).sum();
        wall_impulse += (left - right) * dx * dt;
    }
    let (liquid1, body1) = momentum(&sim);
    let change = (liquid1 + body1) - (liquid0 + body0);
    println!(
        "momentum (kg·m/s per m): liquid {liquid0:.4} → {liquid1:.4}, body {body0:.4} → \
         {body1:.4}; total change {change:.4}, walls' impulse {wall_impulse:.4}, balance error \
         {:.4} ({:.1} % of the liquid's change)",
        change - wall_impulse,
        100.0 * (change - wall_impulse).abs() / (liquid1 - liquid0).abs()
    );
    assert!(
        body1 > body0 + 0.01,
        "the wave pushes the box along: {body0} → {body1}"
    );
    assert!(
        (change - wall_impulse).abs() <= 0.15 * (liquid1 - liquid0).abs(),
        "momentum not balanced: change {change}, walls' impulse {wall_impulse}"
    );
}
