//! Volume-true liquids (issue 18): the density correction keeps a dam break's liquid area and
//! its particle spacing; without it the liquid shrinks.

use flip_core::levelset::{particle_phi, ParticlePhiScratch, Redistance};
use flip_core::measure::level_set_volume;
use flip_core::{Grid3, GridSpec, Particles, Solids};
use flip_graph::{GraphDoc, ParamValue::*, Simulation};
use flip_nodes::kinds::{CarriedParticles, SOLIDS};
use flipgraph_tests::{graph, registry, set, simulation};
use std::sync::Arc;

/// What a run keeps of its liquid.
#[derive(Debug)]
struct Drift {
    steps: usize,
    /// Relative change of the liquid area (volume in 3D) from the level set of the particles.
    volume: f64,
    /// Particles per interior cell at the start and the end.
    per_cell: (f64, f64),
}

fn spec_of(doc: &GraphDoc) -> GridSpec {
    let [ni, nj, nk] = doc.settings.grid;
    GridSpec::new(ni, nj, nk, doc.settings.cell_size)
}

/// Liquid volume of the particles' level set (solid cells left out) and the mean particle
/// count of the cells more than 1.5 cells inside the liquid.
fn measure(spec: &GridSpec, ps: &Particles, solids: &Solids) -> (f64, f64) {
    let mut phi = Grid3::new(0, 0, 0, 0.0);
    let mut scratch = ParticlePhiScratch::default();
    particle_phi(
        spec,
        &ps.pos,
        Some(solids),
        Redistance::whole_grid(2),
        &mut scratch,
        &mut phi,
    );
    let volume = level_set_volume(spec, &phi, Some(solids));
    let mut count = vec![0u32; spec.cell_count()];
    for p in &ps.pos {
        let [i, j, k] = spec.cell_of(*p);
        count[phi.index(i, j, k)] += 1;
    }
    let deep = -1.5 * spec.dx;
    let interior: Vec<f64> = (0..count.len())
        .filter(|&c| phi.data[c] < deep && solids.phi.data[c] > 0.0)
        .map(|c| f64::from(count[c]))
        .collect();
    (volume, interior.iter().sum::<f64>() / interior.len() as f64)
}

fn solids_of(sim: &Simulation) -> Arc<Solids> {
    let probe = &sim.probed()[0];
    let solids = probe.as_ref().and_then(|v| v.shared_as(SOLIDS));
    solids.unwrap_or_else(|| panic!("solids probe: {probe:?}"))
}

/// Runs `doc` without file output for `frames` frames, or on until at least `min_steps` steps,
/// and measures its drift from the end of the first frame.
fn run(mut doc: GraphDoc, frames: u32, min_steps: usize) -> Drift {
    for export in ["export", "fields"] {
        if doc.node_mut(export).is_some() {
            doc.nodes.retain(|n| n.id != export);
            doc.edges.retain(|e| e.to.node != export);
        }
    }
    let spec = spec_of(&doc);
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    sim.set_probes(&[("walls", "solids")]);
    let (mut start, mut steps) = (None, 0);
    while sim.frame() < frames || steps < min_steps {
        steps += sim.advance_frame().expect("frame").len();
        start.get_or_insert_with(|| measure(&spec, &sim.particles().unwrap(), &solids_of(&sim)));
        if std::env::var_os("FLIP_TRACE").is_some() && sim.frame() % 5 == 0 {
            let m = measure(&spec, &sim.particles().unwrap(), &solids_of(&sim));
            eprintln!(
                "frame {}: volume {:.4}, per cell {:.2}",
                sim.frame(),
                m.0,
                m.1
            );
        }
    }
    let (v0, n0) = start.unwrap();
    let (v1, n1) = measure(&spec, &sim.particles().unwrap(), &solids_of(&sim));
    Drift {
        steps,
        volume: v1 / v0 - 1.0,
        per_cell: (n0, n1),
    }
}

/// The issue's dam break at `n²`: a column a × 2a in a box of 6a (inside one-cell walls), 4
/// particles per cell, MIC(0)-PCG, FLIP 0.95, with the correction on or off.
fn dam_break(n: usize, correction: bool) -> GraphDoc {
    let mut doc = graph("dam_break_2d.ron");
    let dx = 1.0 / n as f64;
    let a = (1.0 - 2.0 * dx) / 6.0;
    doc.settings.grid = [n, n, 1];
    doc.settings.cell_size = dx as f32;
    set(
        &mut doc,
        "source",
        "center",
        Vector(vec![(dx + a) / 2.0, (dx + 2.0 * a) / 2.0, 0.0]),
    );
    set(
        &mut doc,
        "source",
        "size",
        Vector(vec![dx + a, dx + 2.0 * a, 0.0]),
    );
    set(&mut doc, "volume", "enabled", Bool(correction));
    doc
}

/// Asserts the issue's bounds with the correction on: volume (area) within `bound`, interior
/// particles per cell within ±10 % of the seeding.
fn assert_kept(label: &str, d: &Drift, bound: f64) {
    report(label, d);
    assert!(
        d.volume.abs() < bound,
        "{label}: volume drift {:+.4}",
        d.volume
    );
    let ppc = d.per_cell.1 / d.per_cell.0 - 1.0;
    assert!(
        ppc.abs() < 0.1,
        "{label}: particles per cell drift {ppc:+.3}"
    );
}

fn report(label: &str, d: &Drift) {
    eprintln!(
        "{label}: {} steps, volume (area) {:+.2} %, particles per interior cell {:.2} → {:.2}",
        d.steps,
        100.0 * d.volume,
        d.per_cell.0,
        d.per_cell.1
    );
}

#[test]
fn dam_break_keeps_its_area_with_the_correction_and_loses_it_without_2d() {
    let on = run(dam_break(128, true), 82, 1000); // 3.4 s
    let off = run(dam_break(128, false), 82, 1000);
    report("128² correction off", &off);
    assert_kept("128² correction on", &on, 0.01);
    assert!(on.steps >= 1000, "{} steps", on.steps);
    assert!(
        off.volume.abs() > 0.03,
        "without correction: {:+.4}",
        off.volume
    );
}

#[test]
fn dam_break_keeps_its_area_at_256_and_as_shipped_2d() {
    let fine = run(dam_break(256, true), 80, 2000);
    assert_kept("256² correction on", &fine, 0.01);
    let shipped = run(graph("dam_break_2d.ron"), 100, 0);
    assert_kept("dam_break_2d.ron as shipped", &shipped, 0.01);
}

#[test]
fn dam_break_keeps_its_volume_3d() {
    let mut doc = graph("bench_dam_break_3d.ron");
    doc.settings.grid = [48, 48, 48];
    doc.settings.cell_size = 1.0 / 48.0;
    let d = run(doc, 0, 500);
    assert_kept("3D 48³ correction on", &d, 0.015);
}

#[test]
fn the_level_set_band_changes_no_particle_2d() {
    let final_positions = |band: f64| {
        let mut doc = dam_break(64, true);
        set(&mut doc, "level_set", "band", Number(band));
        let (mut sim, _out) = simulation(&doc, &registry());
        for _ in 0..30 {
            sim.advance_frame().expect("frame");
        }
        let bits = |p: &glam::Vec3| p.to_array().map(f32::to_bits);
        sim.particles()
            .unwrap()
            .pos
            .iter()
            .map(bits)
            .collect::<Vec<_>>()
    };
    let (whole, narrow) = (final_positions(0.0), final_positions(3.0));
    assert!(whole.len() > 500, "{} particles", whole.len());
    assert!(whole == narrow, "a band of 3 cells moved particles");
}

/// `doc` with the correction wired the older way, after advection: `advect → volume →` the
/// advect node's readers, measuring and moving the advected particles itself.
fn corrected_after_advection(mut doc: GraphDoc) -> GraphDoc {
    doc.edges.retain(|e| {
        !(e.to.node == "volume" && e.to != "volume.solids") && e.from != "volume.shift"
    });
    for e in doc
        .edges
        .iter_mut()
        .filter(|e| e.from == "advect.particles")
    {
        e.from = "volume.particles".into();
    }
    let edge = r#"(from: "advect.particles", to: "volume.particles")"#;
    doc.edges.push(ron::from_str(edge).expect("edge"));
    doc
}

#[test]
fn the_correction_wired_after_advection_still_keeps_the_area_2d() {
    let doc = corrected_after_advection(dam_break(64, true));
    assert!(doc.edges.iter().all(|e| e.to.port != "shift"));
    let d = run(doc, 0, 1000);
    assert_kept("64² correction after advection", &d, 0.01);
}

/// APIC transfers and reseeding: momentum of free flight, cell populations, a still tank.
#[path = "volume_apic.rs"]
mod apic;
