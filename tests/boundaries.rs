//! Accurate boundaries (variational solid faces, ghost-fluid free surface, particle level set):
//! still water is still wherever its surface lies, pressure is hydrostatic, curved containers
//! hold water at rest.

use flip_graph::{GraphDoc, ParamValue::*, Value};
use flipgraph_tests::{graph, registry, set, simulation, stat};

/// A tank at `n`² (2D) or `n`³ (3D) filled to `depth_cells` cells above the floor (the wall
/// layer is one cell), one substep per frame of `dt`, no file output.
fn tank(n: usize, three_d: bool, depth_cells: f32, dt: f32) -> GraphDoc {
    let mut doc = graph(if three_d { "drop_3d.ron" } else { "dam_break_2d.ron" });
    let nk = if three_d { n } else { 1 };
    doc.settings.grid = [n, n, nk];
    doc.settings.cell_size = 1.0 / n as f32;
    doc.settings.fps = 1.0 / dt;
    doc.settings.fixed_dt = dt;
    let dx = 1.0 / n as f64;
    let top = (1.0 + f64::from(depth_cells)) * dx;
    let source = if three_d { "ball" } else { "source" };
    set(&mut doc, source, "shape", Text("box".into()));
    set(&mut doc, source, "center", Vector(vec![0.5, 0.5 * top, 0.5]));
    set(&mut doc, source, "size", Vector(vec![1.0, top, 1.0]));
    set(&mut doc, source, "jitter", Number(1.0));
    set(&mut doc, "export", "ply", Bool(false));
    set(&mut doc, "export", "png", Bool(false));
    doc
}

#[test]
fn explore_still_tank() {
    let registry = registry();
    for (frac, sm) in [(0.37f32, 4.0)] {
        let mut doc = tank(128, false, 40.0 + frac, 1.0 / 240.0);
        set(&mut doc, "level_set", "smoothing", Number(sm));
        set(&mut doc, "g2p", "flip_ratio", Number(0.0));
        let (mut sim, _out) = simulation(&doc, &registry);
        let mut worst = 0.0f32;
        for step in 0..400 {
            sim.advance_frame().expect("step");
            let ps = sim.particles().unwrap();
            let s = ps.max_speed();
            let at = ps.vel.iter().position(|v| v.length() >= s).unwrap();
            if step % 100 == 0 {
                eprintln!("  at {:?} (cells)", ps.pos[at] * 128.0);
            }
            worst = worst.max(s);
            if step % 100 == 0 {
                eprintln!("frac {frac} step {step}: max particle speed {s:.2e}");
            }
        }
        eprintln!("frac {frac} smoothing {sm}: worst {worst:.2e}");
    }
}
