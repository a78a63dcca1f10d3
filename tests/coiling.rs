//! A rope of honey coils (issue 38, item 4): the shipped `graphs/honey_pour_3d.ron` (emitter with
//! its default jitter, particle level set, implicit viscosity) pours a rope of ν = 0.1 m²/s onto
//! the floor. Where the rope meets the pile it builds it buckles, and its foot circles the
//! source's axis, mostly the same way round (the sense is chosen by the flow, not the scene).
//! A thin liquid poured the same way does not: its foot stays on the axis.

use flip_graph::{GraphDoc, ParamValue::*};
use flip_nodes::kinds::CarriedParticles;
use flipgraph_tests::{graph, registry, set, simulation};
use glam::{Vec2, Vec3};
use std::f32::consts::{PI, TAU};

/// The pile's top is the highest layer of cells in which the liquid reaches farther than this
/// from the axis (m): 6.4 cells, 2.6 rope radii, outside the rings the coiling rope lays.
const PILE_RADIUS: f32 = 0.05;

/// Frames a second the foot is looked at: a quarter turn takes about six.
const FPS: f32 = 96.0;

/// The shipped pour with viscosity `nu`, no files, seen [`FPS`] times a second.
fn pour(nu: f64) -> GraphDoc {
    let mut doc = graph("honey_pour_3d.ron");
    set(&mut doc, "export", "ply", Bool(false));
    set(&mut doc, "export", "png", Bool(false));
    set(&mut doc, "fields", "every", Number(1e5));
    set(&mut doc, "viscosity", "viscosity", Number(nu));
    doc.settings.fps = FPS;
    doc
}

/// Where the rope's foot is: the horizontal centroid, relative to the axis, of the particles
/// two to six cells above the pile's top.
fn foot(pos: &[Vec3], axis: Vec2, dx: f32) -> Option<Vec2> {
    let flat = |p: &Vec3| Vec2::new(p.x, p.z) - axis;
    let layer = |p: &Vec3| (p.y / dx).floor() as i64;
    let pile = pos
        .iter()
        .filter(|p| flat(p).length() > PILE_RADIUS)
        .map(layer)
        .max()?;
    let above: Vec<Vec2> = pos
        .iter()
        .filter(|p| (pile + 2..pile + 6).contains(&layer(p)))
        .map(flat)
        .collect();
    (!above.is_empty()).then(|| above.iter().sum::<Vec2>() / above.len() as f32)
}

/// How the rope's foot went round from 1.5 s to 2.5 s (the rope reaches the floor after about
/// 0.5 s and settles into coiling within about a second).
struct Coiling {
    /// Turns about the axis, signed (positive anticlockwise seen from above).
    turns: f32,
    /// Share of the frames in which the foot turned the majority's way (a frame without a rope
    /// above the pile counts against it).
    steady: f32,
    /// Mean distance of the foot from the axis, in cells.
    offset: f32,
}

impl Coiling {
    /// Follows the foot of the shipped pour with viscosity `nu` about its source's axis.
    fn of_pour(nu: f64) -> Self {
        let doc = pour(nu);
        let dx = doc.settings.cell_size;
        let axis = source_axis(&doc);
        let registry = registry();
        let (mut sim, _out) = simulation(&doc, &registry);
        let mut feet = Vec::new();
        for frame in 1..=(2.5 * FPS) as u32 {
            sim.advance_frame().expect("frame");
            if frame as f32 > 1.5 * FPS {
                let ps = sim.particles().expect("particles");
                feet.push(foot(&ps.pos, axis, dx));
            }
        }
        // seen from above (+y), x towards z is clockwise
        let angle = |v: &Vec2| -v.y.atan2(v.x);
        let steps: Vec<f32> = feet
            .windows(2)
            .filter_map(|w| {
                let d = angle(w[1].as_ref()?) - angle(w[0].as_ref()?);
                Some((d + PI).rem_euclid(TAU) - PI)
            })
            .collect();
        let turns = steps.iter().sum::<f32>() / TAU;
        let along = steps
            .iter()
            .filter(|d| d.signum() == turns.signum())
            .count();
        let seen: Vec<f32> = feet.iter().flatten().map(|f| f.length() / dx).collect();
        Self {
            turns,
            steady: along as f32 / (feet.len() - 1) as f32,
            offset: seen.iter().sum::<f32>() / seen.len().max(1) as f32,
        }
    }

    /// Whether the foot coiled: half a cell or more off the axis on average (the rope
    /// buckled), and one and a half turns or more round it in the second (measured: 2.3 to 4.5
    /// with seeds 1 to 3; a rope that buckles may also fold back and forth in a plane for a
    /// while, which turns it nowhere).
    fn coiled(&self) -> bool {
        self.turns.abs() >= 1.5 && self.offset >= 0.5
    }

    fn report(&self, liquid: &str) -> String {
        format!(
            "{liquid}: the foot turned {:+.2} times from 1.5 s to 2.5 s, {:.0} % of the frames \
             the same way, {:.2} cells off the axis",
            self.turns,
            100.0 * self.steady,
            self.offset
        )
    }
}

/// The vertical axis through the centre of the graph's source (x, z).
fn source_axis(doc: &GraphDoc) -> Vec2 {
    let source = doc.nodes.iter().find(|n| n.id == "source").expect("source");
    match source.params.get("center") {
        Some(Vector(c)) => Vec2::new(c[0] as f32, c[2] as f32),
        other => panic!("the source's centre is {other:?}"),
    }
}

#[test]
fn a_rope_of_honey_coils_where_it_meets_its_pile() {
    let honey = Coiling::of_pour(0.1);
    eprintln!("{}", honey.report("honey (0.1 m²/s)"));
    assert!(honey.coiled(), "did not coil: {}", honey.report("honey"));
}

#[test]
fn a_thin_liquid_poured_the_same_way_does_not_coil() {
    // a hundred times thinner: the jet lands and spreads without buckling
    let thin = Coiling::of_pour(1e-3);
    eprintln!("{}", thin.report("thin (1e-3 m²/s)"));
    assert!(!thin.coiled(), "coiled: {}", thin.report("thin"));
}
