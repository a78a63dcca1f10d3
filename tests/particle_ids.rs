//! Particle ids: every particle keeps the id it was emitted with for its life, ids are never
//! given twice, and the exported PLY carries them (read back here by parsing its header).
//! Particles move through a step instead of being copied: on the shipped 3D drop (volume
//! correction before advection, as shipped), every substep leaves the carried particles in the
//! allocation they started in, so no node copied them (a copy is a new allocation made while
//! the old one is still held).

use flip_graph::ParamValue::*;
use flip_nodes::kinds::CarriedParticles;
use flipgraph_tests::{graph, registry, set, simulation};
use std::collections::HashMap;

/// `(id, position)` of every vertex of a particle PLY, found through its header.
fn read_ply(bytes: &[u8]) -> Vec<(u32, [f32; 3])> {
    let end = bytes
        .windows(11)
        .position(|w| w == b"end_header\n")
        .unwrap()
        + 11;
    let header = std::str::from_utf8(&bytes[..end]).unwrap();
    let n: usize = header
        .lines()
        .find_map(|l| l.strip_prefix("element vertex "))
        .unwrap()
        .parse()
        .unwrap();
    let props: Vec<&str> = header
        .lines()
        .filter_map(|l| l.strip_prefix("property "))
        .collect();
    let at = |name: &str| props.iter().position(|p| p.ends_with(&format!(" {name}")));
    let (x, id) = (at("x").unwrap(), at("id").expect("an id property"));
    assert!(props
        .iter()
        .all(|p| p.starts_with("float ") || *p == "uint id"));
    let stride = 4 * props.len();
    let word = |v: usize, k: usize| {
        let o = end + v * stride + 4 * k;
        <[u8; 4]>::try_from(&bytes[o..o + 4]).unwrap()
    };
    (0..n)
        .map(|v| {
            let p = [0, 1, 2].map(|a| f32::from_le_bytes(word(v, x + a)));
            (u32::from_le_bytes(word(v, id)), p)
        })
        .collect()
}

#[test]
fn particles_keep_their_ids_while_a_continuous_emitter_adds_fresh_ones() {
    let mut doc = graph("dam_break_2d.ron");
    doc.settings.grid = [48, 48, 1];
    doc.settings.cell_size = 1.0 / 48.0;
    set(&mut doc, "source", "mode", Text("continuous".into()));
    set(&mut doc, "export", "png", Bool(false));
    let (mut sim, out) = simulation(&doc, &registry());
    let frame_time = 1.0 / doc.settings.fps;
    let mut before: HashMap<u64, glam::Vec3> = HashMap::new();
    let mut added = 0;
    for frame in 1..=8 {
        sim.advance_frame().unwrap();
        let p = sim.particles().unwrap();
        assert!(p.has_ids());
        let now: HashMap<u64, glam::Vec3> = p.id.iter().copied().zip(p.pos.clone()).collect();
        assert_eq!(now.len(), p.len(), "frame {frame}: an id is given twice");
        let newest = before.keys().copied().max();
        let reach = (p.max_speed() + 10.0) * frame_time;
        for (id, x) in &now {
            match before.get(id) {
                Some(y) => assert!((*x - *y).length() <= reach, "particle {id} jumped"),
                None => {
                    assert!(newest.is_none_or(|m| *id > m), "id {id} reused");
                    added += usize::from(newest.is_some());
                }
            }
        }
        assert!(
            before.keys().all(|id| now.contains_key(id)),
            "a particle vanished"
        );
        before = now;
    }
    assert!(added > 0, "the continuous emitter refilled the source");
    // the last frame's PLY holds the same particles under the same ids
    let ply = std::fs::read(out.path().join("frames/frame_0008.ply")).unwrap();
    let written = read_ply(&ply);
    assert_eq!(written.len(), before.len());
    for (id, x) in written {
        let y = before[&u64::from(id)];
        assert_eq!(glam::Vec3::from_array(x), y, "particle {id}");
    }
}

/// Where the carried particles' positions and velocities live (the `Arc` is let go of at once:
/// held, it would itself make the next step copy them).
fn buffers(sim: &flip_graph::Simulation) -> (usize, usize) {
    let p = sim.particles().expect("particles are carried");
    (p.pos.as_ptr() as usize, p.vel.as_ptr() as usize)
}

#[test]
fn a_step_moves_the_particles_instead_of_copying_them() {
    let mut doc = graph("drop_3d.ron");
    doc.settings.grid = [26, 26, 26];
    doc.settings.cell_size = 1.0 / 26.0;
    set(&mut doc, "export", "ply", Bool(false));
    set(&mut doc, "export", "png", Bool(false));
    // the one substep in `sort_every` that reorders the particles by cell replaces their arrays
    let sort_every = 5;
    set(
        &mut doc,
        "advect",
        "sort_every",
        Number(f64::from(sort_every)),
    );
    let (mut sim, _out) = simulation(&doc, &registry());
    let dt = 1.0 / 240.0;
    sim.substep(dt, 0, false).unwrap(); // the emitters fill the pool and the ball
    let n = sim.particles().unwrap().len();
    assert!(n > 10_000, "{n} particles");
    let mut before = buffers(&sim);
    for s in 1..16 {
        sim.substep(dt, s, s % 4 == 0).unwrap();
        let after = buffers(&sim);
        if s % sort_every != 0 {
            assert_eq!(after, before, "substep {s} copied the particles");
        }
        before = after;
    }
}
