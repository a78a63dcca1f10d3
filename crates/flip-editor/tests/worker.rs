//! The simulation thread: frames arrive, a failing node stops the run with its id, an invalid
//! graph is reported per node, and the built-in scene runs when the solver plugins are built.
//! No display needed.

mod common;

use common::{collect, graph, load, registry};
use flip_editor::run::worker::{Command, Event, Worker};
use flip_graph::GraphDoc;
use flip_host::{default_plugin_dirs, PluginSet};
use std::sync::Arc;

#[test]
fn frames_then_finished() {
    let w = Worker::spawn(registry(), || {});
    load(&w, 1, graph("good", false));
    w.send(Command::Play);
    let events = collect(&w, |e| matches!(e, Event::Playing { finished: true, .. }));
    let frames: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            Event::Frame { data, .. } => Some(data.frame),
            _ => None,
        })
        .collect();
    assert_eq!(frames, [1, 2, 3, 4, 5]);
    let last = events.iter().rev().find_map(|e| match e {
        Event::Frame { data, .. } => Some(data),
        _ => None,
    });
    let last = last.unwrap();
    assert!(last.particles > 0 && last.sample.points.len() == last.particles);
    assert!(last
        .nodes
        .iter()
        .any(|(id, s)| id == "good" && s.time_ms.is_some()));
}

#[test]
fn a_failing_node_stops_the_run_and_is_named() {
    let w = Worker::spawn(registry(), || {});
    load(&w, 7, graph("bad", false));
    w.send(Command::Play);
    let events = collect(&w, |e| matches!(e, Event::Failed { .. }));
    let frames = events
        .iter()
        .filter(|e| matches!(e, Event::Frame { .. }))
        .count();
    assert_eq!(frames, 2, "frames before the failure arrive");
    match events.last() {
        Some(Event::Failed { gen, node, message }) => {
            assert_eq!((*gen, node.as_deref()), (7, Some("bad")));
            assert!(message.contains("ran dry"), "{message}");
            // the CLI names the same frame: two completed, the third failed
            assert!(message.starts_with("frame 3:"), "{message}");
            let tmp = std::env::temp_dir();
            let reg = registry();
            let mut sim = flip_graph::Simulation::new(&graph("bad", false), &reg, &tmp, &tmp);
            let sim = sim.as_mut().unwrap();
            let cli = (0..3).find_map(|_| sim.advance_frame().err()).unwrap();
            assert!(cli.to_string().starts_with("frame 3,"), "{cli}");
        }
        _ => panic!("no failure reported"),
    }
    // Play does nothing until a reset.
    w.send(Command::Play);
    let after = collect(&w, |e| matches!(e, Event::Playing { .. }));
    assert!(matches!(
        after.last(),
        Some(Event::Playing { playing: false, .. })
    ));
}

#[test]
fn an_invalid_graph_names_its_nodes() {
    let w = Worker::spawn(registry(), || {});
    load(&w, 3, graph("a", true));
    let events = collect(&w, |e| matches!(e, Event::Invalid { .. }));
    let Some(Event::Invalid { gen: 3, errors }) = events.last() else {
        panic!("graph with a cycle was accepted");
    };
    assert!(errors
        .iter()
        .any(|e| e.node.as_deref() == Some("a") || e.message.contains('a')));
}

#[test]
fn the_built_in_scene_plays_when_plugins_are_built() {
    let plugins = Arc::new(PluginSet::load_dirs(&default_plugin_dirs()));
    if plugins.find("pcg/mic0-pcg").is_err() {
        eprintln!("skipped: the pcg plugin is not built next to the test binary");
        return;
    }
    let registry = Arc::new(flip_nodes::builtin_registry(plugins));
    let w = Worker::spawn(registry, || {});
    let doc = GraphDoc::from_ron(flip_editor::graph::document::DEFAULT_SCENE, "built-in").unwrap();
    load(&w, 1, doc);
    w.send(Command::Step);
    let events = collect(&w, |e| {
        matches!(e, Event::Frame { .. } | Event::Failed { .. })
    });
    let Some(Event::Frame { data, .. }) = events.last() else {
        panic!("no frame");
    };
    assert!(data.particles > 1000);
    assert!(data.level_set.is_some() && data.cells.is_some() && data.solids.is_some());
    // colour by attribute: pressure and vorticity at every drawn particle; no density field
    let n = data.sample.points.len();
    let samples = data.grid.at(&data.sample.points);
    assert_eq!((samples.pressure.len(), samples.vorticity.len()), (n, n));
    assert!(
        samples.pressure.iter().any(|p| *p > 0.0),
        "hydrostatic pressure"
    );
    assert!(
        data.density.is_none(),
        "a liquid's pressure is not drawn as smoke"
    );
    let pressure = data.nodes.iter().find(|(id, _)| id == "pressure").unwrap();
    assert!(pressure.1.solve().is_some() && pressure.1.converged.is_some());
}
