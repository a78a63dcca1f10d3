//! "Simulate from here" on the simulation thread: a run continued from a saved frame equals the
//! uninterrupted run, an edit continues from the shown frame instead of frame 0, a settings
//! change reruns from 0, Reset makes the solver plugins forget their state, and the saved
//! states stay within their memory budget. No display needed.

mod common;

use common::{collect, frames, load, load_at};
use flip_editor::frames::FrameData;
use flip_editor::run::resim::Start;
use flip_editor::run::snapshots::Snapshots;
use flip_editor::run::worker::{Command, Event, Worker};
use flip_graph::{GraphDoc, NodeRegistry, ParamValue, Simulation};
use flip_host::{default_plugin_dirs, PluginSet};
use std::sync::Arc;

/// The node registry with the solver plugins, or `None` when they are not built.
fn registry_with_plugins(solver: &str) -> Option<Arc<NodeRegistry>> {
    let plugins = Arc::new(PluginSet::load_dirs(&default_plugin_dirs()));
    if plugins.find(solver).is_err() {
        eprintln!("skipped: {solver} is not built next to the test binary");
        return None;
    }
    Some(Arc::new(flip_nodes::builtin_registry(plugins)))
}

fn set(doc: &mut GraphDoc, node: &str, param: &str, v: ParamValue) {
    let n = doc.node_mut(node).expect("node in the graph");
    n.params.insert(param.into(), v);
}

/// The built-in dam break at 32².
fn dam_break() -> GraphDoc {
    let mut doc =
        GraphDoc::from_ron(flip_editor::graph::document::DEFAULT_SCENE, "built-in").unwrap();
    doc.settings.grid = [32, 32, 1];
    doc.settings.cell_size = 1.0 / 32.0;
    doc.settings.frames = 6;
    doc.nodes.retain(|n| n.kind != "export_fields");
    doc.edges.retain(|e| e.to.node != "fields");
    doc
}

/// Steps `n` frames and returns them.
fn step(w: &Worker, n: usize) -> Vec<Arc<FrameData>> {
    (0..n)
        .map(|_| {
            w.send(Command::Step);
            let events = collect(w, |e| {
                matches!(e, Event::Frame { .. } | Event::Failed { .. })
            });
            let f = frames(&events);
            let f = f.last().unwrap_or_else(|| panic!("no frame"));
            Arc::new(clone_frame(f))
        })
        .collect()
}

fn clone_frame(f: &FrameData) -> FrameData {
    FrameData {
        frame: f.frame,
        time: f.time,
        substeps: f.substeps,
        wall_ms: f.wall_ms,
        snapshot_ms: f.snapshot_ms,
        capture_ms: f.capture_ms,
        particles: f.particles,
        max_speed: f.max_speed,
        sample: f.sample.clone(),
        grid: f.grid.clone(),
        diffuse: f.diffuse.clone(),
        level_set: None,
        cells: None,
        density: None,
        solids: None,
        surface: None,
        solid_meshes: Default::default(),
        nodes: vec![],
        solve_iterations: f.solve_iterations,
        solve_residual: f.solve_residual,
        graph: f.graph,
    }
}

/// The frame count a load reported it kept, and its note.
fn loaded(w: &Worker) -> (u32, Option<String>) {
    let events = collect(w, |e| {
        matches!(e, Event::Loaded { .. } | Event::Invalid { .. })
    });
    match events.into_iter().last() {
        Some(Event::Loaded { kept, note, .. }) => (kept, note),
        _ => panic!("the graph did not load"),
    }
}

fn bits(f: &FrameData) -> (u32, Vec<[u32; 3]>, u64) {
    let pos = f
        .sample
        .points
        .iter()
        .map(|p| p.map(f32::to_bits))
        .collect();
    (f.frame, pos, f.solve_iterations.to_bits())
}

#[test]
fn a_run_continued_from_a_saved_frame_equals_the_uninterrupted_run() {
    let Some(reg) = registry_with_plugins("pcg/mic0-pcg") else {
        return;
    };
    let w = Worker::spawn(reg, || {});
    load(&w, 1, dam_break());
    let first = step(&w, 4);
    let here = Start::After {
        frame: 2,
        live: false,
    };
    load_at(&w, 2, dam_break(), here);
    assert_eq!(loaded(&w), (2, None), "frames 1 and 2 are kept");
    let again = step(&w, 2);
    assert_eq!(bits(&again[0]), bits(&first[2]), "frame 3, bit for bit");
    assert_eq!(bits(&again[1]), bits(&first[3]), "frame 4, bit for bit");
}

#[test]
fn an_edit_continues_from_the_shown_frame_and_a_settings_change_reruns() {
    let Some(reg) = registry_with_plugins("pcg/mic0-pcg") else {
        return;
    };
    let w = Worker::spawn(reg, || {});
    load(&w, 1, dam_break());
    let first = step(&w, 4);
    let mut heavier = dam_break();
    set(
        &mut heavier,
        "gravity",
        "gravity",
        ParamValue::Vector(vec![0.0, -40.0, 0.0]),
    );
    let here = Start::After {
        frame: 3,
        live: false,
    };
    load_at(&w, 2, heavier.clone(), here.clone());
    assert_eq!(loaded(&w).0, 3);
    let next = step(&w, 1);
    assert_eq!(next[0].frame, 4, "numbered on from the kept frames");
    assert!(
        next[0].max_speed > first[3].max_speed,
        "the heavier gravity acts from frame 4: {} vs {}",
        next[0].max_speed,
        first[3].max_speed
    );
    let mut finer = heavier;
    finer.settings.grid = [40, 40, 1];
    load_at(&w, 3, finer, here);
    let (kept, note) = loaded(&w);
    assert_eq!(kept, 0, "another grid cannot continue a state");
    assert!(note.is_some_and(|n| n.contains("rerun from 0")));
    assert_eq!(step(&w, 1)[0].frame, 1);
}

#[test]
fn reset_makes_the_solver_plugins_forget_their_state() {
    let solver = "lcp/pi-pcg";
    let Some(reg) = registry_with_plugins(solver) else {
        return;
    };
    let text = include_str!("../../../graphs/lcp_circle_2d.ron");
    let mut doc = GraphDoc::from_ron(text, "lcp_circle_2d.ron").unwrap();
    doc.settings.grid = [24, 24, 1];
    doc.settings.cell_size = 1.0 / 24.0;
    set(
        &mut doc,
        "pressure",
        "solver",
        ParamValue::Text(solver.into()),
    );
    set(
        &mut doc,
        "pressure",
        "boundary",
        ParamValue::Text("separating".into()),
    );
    let w = Worker::spawn(reg, || {});
    load(&w, 1, doc);
    let fresh: Vec<_> = step(&w, 3).iter().map(|f| bits(f)).collect();
    w.send(Command::Reset);
    let again: Vec<_> = step(&w, 3).iter().map(|f| bits(f)).collect();
    assert!(fresh == again, "a run after Reset differs from a fresh run");
}

#[test]
fn saved_states_are_thinned_to_their_budget_keeping_the_newest() {
    let doc = common::graph("good", false);
    let reg = common::registry();
    let tmp = std::env::temp_dir();
    let run = |budget: usize| {
        let mut sim = Simulation::new(&doc, &reg, &tmp, &tmp).unwrap();
        let mut store = Snapshots::new(budget);
        let shared = Arc::new(doc.clone());
        for _ in 0..5 {
            sim.advance_frame().unwrap();
            store.keep(sim.snapshot().unwrap(), shared.clone());
        }
        store
    };
    let all = run(usize::MAX);
    assert_eq!(all.frames(), [1, 2, 3, 4, 5]);
    assert_eq!(run(0).frames(), [5], "the newest state is always kept");
    let mut half = run(all.bytes() / 2);
    let kept = half.frames();
    assert!(kept.len() < 5 && kept.ends_with(&[5]), "{kept:?}");
    assert!(half.bytes() <= all.bytes() / 2 || kept == [5]);
    assert_eq!(half.at_or_before(9).map(|(s, _)| s.frame()), Some(5));
    let earlier = half.at_or_before(4).map(|(s, _)| s.frame());
    assert!(earlier.is_none_or(|f| f <= 4 && kept.contains(&f)));
    half.forget_after(2);
    assert!(half.frames().iter().all(|&f| f <= 2));
}
