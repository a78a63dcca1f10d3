//! The simulation thread: frames arrive, a failing node stops the run with its id, an invalid
//! graph is reported per node, and the built-in scene runs when the solver plugins are built.
//! No display needed.

use flip_editor::worker::{Command, Event, Worker};
use flip_graph::{
    DataKind, EdgeDoc, EvalCtx, GraphDoc, Node, NodeDoc, NodeError, NodeIo, NodeKind, NodeRegistry,
    NodeSpec, PortSpec, Value,
};
use flip_plugin::host::{default_plugin_dirs, PluginSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Adds one particle per step; fails from frame `fail_at` on.
struct Drip {
    fail_at: u32,
}

impl Node for Drip {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        if ctx.frame >= self.fail_at {
            return Err(NodeError::Failed("the drip ran dry".into()));
        }
        let mut p = io.particles("particles")?;
        Arc::make_mut(&mut p).push(glam::Vec3::splat(0.5), glam::Vec3::ZERO);
        io.set("particles", Value::Particles(p));
        Ok(())
    }
}

fn registry() -> Arc<NodeRegistry> {
    let spec = NodeSpec {
        kind: "drip".into(),
        label: "Drip".into(),
        category: "Test".into(),
        help: String::new(),
        inputs: vec![PortSpec::new("particles", DataKind::Particles, "in")],
        outputs: vec![PortSpec::new("particles", DataKind::Particles, "out")],
        params: vec![],
    };
    let mut r = NodeRegistry::new();
    r.register(NodeKind::new(
        spec,
        Box::new(|init| {
            let fail_at = if init.id == "bad" { 2 } else { u32::MAX };
            Ok(Box::new(Drip { fail_at }))
        }),
    ))
    .unwrap();
    Arc::new(r)
}

fn graph(node: &str, cycle: bool) -> GraphDoc {
    let base = include_str!("../../../graphs/dam_break_2d.ron");
    let mut doc = GraphDoc::from_ron(base, "test").unwrap();
    doc.settings.frames = 5;
    doc.settings.grid = [8, 8, 1];
    let n = |id: &str, kind: &str| NodeDoc {
        id: id.into(),
        kind: kind.into(),
        params: Default::default(),
    };
    doc.nodes = vec![
        n("in", "step_input"),
        n(node, "drip"),
        n("out", "step_output"),
    ];
    doc.edges = vec![
        EdgeDoc::new("in.particles", format!("{node}.particles")),
        EdgeDoc::new(format!("{node}.particles"), "out.particles"),
    ];
    if cycle {
        doc.nodes.push(n("loop", "drip"));
        doc.edges[0] = EdgeDoc::new("loop.particles", format!("{node}.particles"));
        doc.edges
            .push(EdgeDoc::new(format!("{node}.particles"), "loop.particles"));
    }
    doc.layout = Default::default();
    doc
}

/// Events until `done` says stop (or 60 s pass).
fn collect(w: &Worker, done: impl Fn(&Event) -> bool) -> Vec<Event> {
    let start = Instant::now();
    let mut out = vec![];
    while start.elapsed() < Duration::from_secs(60) {
        if let Ok(e) = w.rx.recv_timeout(Duration::from_millis(100)) {
            let stop = done(&e);
            out.push(e);
            if stop {
                break;
            }
        }
    }
    out
}

fn load(w: &Worker, gen: u64, doc: GraphDoc) {
    w.send(Command::Load {
        gen,
        doc: Box::new(doc),
        base_dir: ".".into(),
        out_dir: None,
    });
}

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
    assert!(last.particles > 0 && last.points.len() == last.particles);
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
    let doc = GraphDoc::from_ron(flip_editor::app::DEFAULT_SCENE, "built-in").unwrap();
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
    let pressure = data.nodes.iter().find(|(id, _)| id == "pressure").unwrap();
    assert!(pressure.1.stat("iterations").is_some() && pressure.1.converged.is_some());
}
