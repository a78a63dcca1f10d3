//! Eulerian smoke (graphs/smoke_plume_2d.ron): hot smoke rises and stays divergence-free,
//! cold dense smoke sinks, air at ambient temperature stays still, and an export without
//! anything to write is refused.

use flip_graph::{GraphDoc, ParamValue::*, RunError};
use flip_nodes::kinds::{VelocityField, SCALAR, VELOCITY};
use flipgraph_tests::{graph, registry, set, simulation, solve};

/// The plume at 48×72 cells, no file output.
fn small_plume() -> GraphDoc {
    let mut doc = graph("smoke_plume_2d.ron");
    doc.settings.grid = [48, 72, 1];
    doc.settings.cell_size = 1.0 / 48.0;
    set(&mut doc, "export", "png", Bool(false));
    doc
}

/// Lowest and highest cell centre holding smoke (density over 0.05), total density, and the
/// largest face speed after `frames`.
fn run(doc: &GraphDoc, frames: u32) -> ([f64; 2], f64, f32) {
    let registry = registry();
    let (mut sim, _out) = simulation(doc, &registry);
    sim.set_probes(&[("advect", "density"), ("pressure", "velocity")]);
    for _ in 0..frames {
        for r in sim.advance_frame().expect("step") {
            assert!(solve(&sim, &r, "pressure").converged);
            let div = solve(&sim, &r, "pressure").max_divergence;
            assert!(div < 1e-3, "max |div| {div} 1/s at frame {}", r.frame);
        }
    }
    let probe = |i: usize, kind| sim.probed()[i].as_ref().filter(|v| v.kind() == kind);
    let (Some(d), Some(v)) = (
        probe(0, SCALAR).and_then(|v| v.get::<flip_core::Grid3<f32>>()),
        probe(1, VELOCITY).and_then(|v| v.get::<VelocityField>()),
    ) else {
        panic!("probes")
    };
    let dx = doc.settings.cell_size as f64;
    let (mut mass, mut span) = (0.0, [f64::INFINITY, f64::NEG_INFINITY]);
    for j in 0..d.nj {
        for i in 0..d.ni {
            let s = f64::from(d[(i, j, 0)]);
            mass += s;
            if s > 0.05 {
                let y = (j as f64 + 0.5) * dx;
                span = [span[0].min(y), span[1].max(y)];
            }
        }
    }
    (span, mass, v.vel.max_abs())
}

#[test]
fn hot_smoke_rises_and_cold_dense_smoke_sinks() {
    // The source spans 0.09-0.15 m.
    let doc = small_plume();
    let ([_, early], _, _) = run(&doc, 6);
    let ([low, late], mass, speed) = run(&doc, 24);
    assert!(
        late > early + 0.1 && late > 0.25,
        "hot smoke's top {early:.3} m → {late:.3} m"
    );
    assert!(low > 0.05, "hot smoke sank to {low:.3} m");
    assert!(mass > 0.0 && speed > 0.1, "mass {mass}, speed {speed}");

    let mut cold = small_plume();
    set(&mut cold, "source", "center", Vector(vec![0.5, 0.8, 0.5]));
    set(&mut cold, "source", "temperature", Number(-1.0));
    set(&mut cold, "buoyancy", "alpha", Number(1.0));
    let ([sunk, top], _, _) = run(&cold, 24);
    assert!(
        sunk < 0.7 && top < 0.85,
        "cold dense smoke spans {sunk:.3}-{top:.3} m (source at 0.77-0.83 m)"
    );
}

#[test]
fn air_at_ambient_temperature_stays_still() {
    let mut doc = small_plume();
    set(&mut doc, "source", "density", Number(0.0));
    set(&mut doc, "source", "temperature", Number(0.0));
    let (_, mass, speed) = run(&doc, 12);
    assert_eq!(mass, 0.0);
    assert!(speed < 1e-6, "still air moves at {speed} m/s");
}

#[test]
fn an_export_with_nothing_to_write_is_refused_naming_the_node() {
    let mut doc = small_plume();
    doc.edges.retain(|e| e.to != "export.density");
    let registry = registry();
    let (mut sim, _out) = simulation(&doc, &registry);
    match sim.advance_frame() {
        Err(RunError::NodeFailed { node, error, .. }) => {
            let message = error.to_string();
            assert_eq!(node, "export");
            assert!(message.contains("particles or density"), "{message}");
        }
        other => panic!("expected the export to fail, got {other:?}"),
    }
}
