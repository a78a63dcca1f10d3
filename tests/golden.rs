//! Speed work must not change the physics: a fixed-seed run is bit-identical on 1 and 2
//! threads, and its statistics match a reference kept in `tests/golden/` (regenerate with
//! `FLIP_UPDATE_GOLDEN=1 cargo test --release -p flipgraph-tests --test golden`).

use flip_graph::{GraphDoc, ParamValue::*};
use flip_nodes::kinds::CarriedParticles;
use flipgraph_tests::{graph, registry, set, simulation};
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Debug, Serialize, Deserialize)]
struct Reference {
    graph: String,
    frames: u32,
    particles: usize,
    mean_position: [f64; 3],
    mean_speed: f64,
    kinetic_energy: f64,
}

fn scene(name: &str, n: usize, frames: u32) -> GraphDoc {
    let mut doc = graph(name);
    let nk = if doc.settings.grid[2] == 1 { 1 } else { n };
    doc.settings.grid = [n, n, nk];
    doc.settings.cell_size = 1.0 / n as f32;
    doc.settings.frames = frames;
    set(&mut doc, "export", "ply", Bool(false));
    set(&mut doc, "export", "png", Bool(false));
    set(&mut doc, "pressure", "solver", Text("pcg/mic0-pcg".into()));
    doc
}

fn run(doc: &GraphDoc, threads: usize) -> flip_core::Particles {
    let registry = registry();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let (mut sim, _out) = simulation(doc, &registry);
        for _ in 0..doc.settings.frames {
            sim.advance_frame().expect("frame");
        }
        (*sim.particles().unwrap()).clone()
    })
}

fn stats(name: &str, frames: u32, p: &flip_core::Particles) -> Reference {
    let n = p.len() as f64;
    let mut mean = [0.0f64; 3];
    for x in &p.pos {
        for a in 0..3 {
            mean[a] += f64::from(x[a]) / n;
        }
    }
    Reference {
        graph: name.into(),
        frames,
        particles: p.len(),
        mean_position: mean,
        mean_speed: p.vel.iter().map(|v| f64::from(v.length())).sum::<f64>() / n,
        kinetic_energy: flip_core::measure::kinetic_energy(p),
    }
}

#[test]
fn runs_are_bit_identical_across_thread_counts() {
    for (name, n, frames) in [("dam_break_2d.ron", 48, 6), ("drop_3d.ron", 16, 4)] {
        let doc = scene(name, n, frames);
        let (a, b) = (run(&doc, 1), run(&doc, 2));
        assert!(
            a.pos == b.pos && a.vel == b.vel,
            "{name}: results depend on the thread count"
        );
    }
}

#[test]
fn fixed_seed_run_matches_the_reference() {
    for (name, n, frames) in [("dam_break_2d.ron", 48, 12), ("drop_3d.ron", 16, 6)] {
        let doc = scene(name, n, frames);
        let got = stats(name, frames, &run(&doc, 2));
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("golden")
            .join(name.replace(".ron", "_reference.ron"));
        if std::env::var_os("FLIP_UPDATE_GOLDEN").is_some() {
            let text = ron::ser::to_string_pretty(&got, ron::ser::PrettyConfig::default()).unwrap();
            std::fs::write(&file, text + "\n").unwrap();
            continue;
        }
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let want: Reference = ron::from_str(&text).unwrap();
        assert_eq!(got.particles, want.particles, "{name}: particle count");
        let close = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol * b.abs().max(1e-9);
        for a in 0..3 {
            assert!(
                close(got.mean_position[a], want.mean_position[a], 1e-4),
                "{name}: mean position {got:?} vs {want:?}"
            );
        }
        assert!(
            close(got.mean_speed, want.mean_speed, 1e-3),
            "{name}: mean speed {got:?} vs {want:?}"
        );
        assert!(
            close(got.kinetic_energy, want.kinetic_energy, 2e-3),
            "{name}: kinetic energy {got:?} vs {want:?}"
        );
    }
}
