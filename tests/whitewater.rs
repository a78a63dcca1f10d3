//! Whitewater (Ihmsen et al. 2012) on the shipped breaking wave, `graphs/whitewater_wave_2d.ron`,
//! as a user runs it: spray flies ballistically, bubbles rise through the liquid, foam rides
//! the surface, and the liquid is the same with and without the whitewater nodes.

use flip_core::smoke::sample_cell;
use flip_core::transfer::sample_velocity;
use flip_core::whitewater::{Diffuse, DiffuseType, WhitewaterParams};
use flip_core::{Grid3, GridSpec};
use flip_graph::{GraphDoc, Simulation};
use flip_nodes::kinds::{CarriedParticles, VelocityField};
use flipgraph_tests::{graph, registry, simulation};
use glam::Vec3;
use std::sync::Arc;

/// Frames: the surge reaches the far wall near frame 20 and breaks after it.
const FRAMES: usize = 40;

/// What a frame's end holds for the checks.
struct FrameEnd {
    diffuse: Arc<Diffuse>,
    level_set: Arc<Grid3<f32>>,
    velocity: Arc<VelocityField>,
}

fn shipped() -> GraphDoc {
    graph("whitewater_wave_2d.ron")
}

fn frame_end(sim: &Simulation) -> FrameEnd {
    let v = sim.probed();
    FrameEnd {
        diffuse: v[0]
            .as_ref()
            .and_then(|v| v.shared_as(flip_nodes::kinds::DIFFUSE))
            .unwrap(),
        level_set: v[1]
            .as_ref()
            .and_then(|v| v.shared_as(flip_nodes::kinds::LEVEL_SET))
            .unwrap(),
        velocity: v[2]
            .as_ref()
            .and_then(|v| v.shared_as(flip_nodes::kinds::VELOCITY))
            .unwrap(),
    }
}

fn run_shipped() -> (GridSpec, f32, Vec<FrameEnd>) {
    let doc = shipped();
    let (mut sim, _out) = simulation(&doc, &registry());
    sim.set_probes(&[
        ("whitewater", "diffuse"),
        ("level_set", "level_set"),
        ("extrapolate_out", "velocity"),
    ]);
    let frames = (0..FRAMES)
        .map(|_| {
            sim.advance_frame().unwrap();
            frame_end(&sim)
        })
        .collect();
    let spec = doc.settings.grid_spec();
    (spec, 1.0 / doc.settings.fps, frames)
}

#[test]
fn spray_is_ballistic_bubbles_rise_and_foam_rides_the_surface() {
    let (spec, frame_dt, frames) = run_shipped();
    let params = WhitewaterParams::default(); // the shipped graph keeps the defaults
    let g = params.gravity;
    let last = &frames[FRAMES - 1].diffuse;
    let [spray, foam, bubbles] = last.counts();
    assert!(
        spray > 20 && foam > 20 && bubbles > 20,
        "{:?}",
        last.counts()
    );

    // spray whose ballistic path over the next frame stays two cells clear of the liquid (the
    // level set the whitewater node used for that frame: the one at its end): its velocity
    // changed by gravity alone
    let clear = |f: &FrameEnd, x: Vec3, v: Vec3| {
        (0..=16).all(|s| {
            let t = frame_dt * s as f32 / 16.0;
            let p = x + v * t + 0.5 * g * t * t;
            sample_cell(&spec, &f.level_set, p) > 2.0 * spec.dx
        })
    };
    let (mut ballistic, mut pairs) = (0, 0);
    for w in frames.windows(2) {
        let (a, b) = (&w[0].diffuse, &w[1].diffuse);
        for (j, id) in b.id.iter().enumerate() {
            let Ok(i) = a.id.binary_search(id) else {
                continue;
            };
            if a.kind[i] != DiffuseType::Spray || !clear(&w[1], a.pos[i], a.vel[i]) {
                continue;
            }
            pairs += 1;
            let accel = (b.vel[j] - a.vel[i]) / frame_dt;
            ballistic += usize::from((accel - g).length() < 0.01 * g.length());
        }
    }
    assert!(pairs > 50, "{pairs} spray pairs");
    assert!(
        ballistic as f64 > 0.9 * pairs as f64,
        "{ballistic} of {pairs} ballistic"
    );

    // bubbles move up relative to the liquid around them (newly born ones, with the liquid's
    // velocity, still accelerating towards the terminal slip)
    let terminal = params.bubble_buoyancy * g.length() / params.bubble_drag;
    let (mut slip, mut n) = (0.0f32, 0);
    for f in &frames[FRAMES / 2..] {
        let d = &f.diffuse;
        for i in (0..d.len()).filter(|&i| d.kind[i] == DiffuseType::Bubble) {
            slip += d.vel[i].y - sample_velocity(&spec, &f.velocity.vel, d.pos[i]).y;
            n += 1;
        }
    }
    let slip = slip / n as f32;
    assert!(
        n > 100 && slip > 0.2 * terminal,
        "mean bubble slip {slip} m/s over {n}"
    );

    // foam lies within a cell of the surface
    let (mut near, mut total) = (0, 0);
    for f in &frames {
        let d = &f.diffuse;
        for i in (0..d.len()).filter(|&i| d.kind[i] == DiffuseType::Foam) {
            let phi = sample_cell(&spec, &f.level_set, d.pos[i]);
            near += usize::from(phi.abs() <= spec.dx);
            total += 1;
        }
    }
    assert!(
        total > 100 && near as f64 >= 0.95 * total as f64,
        "{near} of {total} foam near the surface"
    );
}

/// Runs `doc` for `frames` frames into a temporary folder; the liquid's particles of each frame
/// as bits, and the folder.
fn liquid_bits(doc: &GraphDoc, frames: usize) -> (Vec<LiquidBits>, tempfile::TempDir) {
    let (mut sim, out) = simulation(doc, &registry());
    let bits = (0..frames)
        .map(|_| {
            sim.advance_frame().unwrap();
            let p = sim.particles().unwrap();
            let bits = |v: &[Vec3]| {
                v.iter()
                    .flat_map(|x| x.to_array().map(f32::to_bits))
                    .collect::<Vec<_>>()
            };
            (bits(&p.pos), bits(&p.vel), p.id.clone())
        })
        .collect();
    (bits, out)
}

type LiquidBits = (Vec<u32>, Vec<u32>, Vec<u64>);

/// The shipped graph with its whitewater nodes removed.
fn without_whitewater(with: &GraphDoc) -> GraphDoc {
    let mut without = with.clone();
    without.nodes.retain(|n| !n.kind.contains("whitewater"));
    without
        .edges
        .retain(|e| !e.from.node.contains("whitewater") && !e.to.node.contains("whitewater"));
    without
}

#[test]
fn whitewater_never_changes_the_liquid_and_rebakes_from_its_cache_bit_for_bit() {
    let with = shipped();
    let frames = 30;
    let (a, inline) = liquid_bits(&with, frames);
    let (b, _) = liquid_bits(&without_whitewater(&with), frames);
    for (f, (a, b)) in a.iter().zip(&b).enumerate() {
        assert!(a == b, "frame {}: the liquid differs", f + 1);
    }

    // the shipped re-bake, pointed at the inline run's cache, writes the same files
    let mut rebake = graph("whitewater_rebake_2d.ron");
    let cache = inline.path().join("cache");
    let liquid = rebake.nodes.iter_mut().find(|n| n.id == "liquid").unwrap();
    liquid.params.insert(
        "folder".into(),
        flip_graph::ParamValue::Text(cache.display().to_string()),
    );
    let (mut sim, rebaked) = simulation(&rebake, &registry());
    for _ in 0..frames {
        sim.advance_frame().unwrap();
    }
    let mut diffuse = 0;
    for f in 1..=frames {
        let name = format!("whitewater/diffuse_{f:04}.ply");
        let (a, b) = (
            std::fs::read(inline.path().join(&name)).unwrap(),
            std::fs::read(rebaked.path().join(&name)).unwrap(),
        );
        assert!(
            a == b,
            "{name} differs between the inline run and the re-bake"
        );
        diffuse = diffuse.max(a.len());
    }
    assert!(diffuse > 10_000, "no whitewater to compare ({diffuse} B)");

    // past the cache's end the re-bake stops, naming the node and the missing file
    let e = sim.advance_frame().unwrap_err().to_string();
    assert!(
        e.contains("`liquid`") && e.contains(&format!("liquid_{:04}.flc", frames + 1)),
        "{e}"
    );
}
