//! Helpers shared by the worker tests: a one-node "drip" graph and event collection.
#![allow(dead_code)]

pub mod app_ui;

use flip_editor::run::resim::Start;
use flip_editor::run::worker::{Command, Event, Worker};
use flip_graph::{
    EdgeDoc, EvalCtx, GraphDoc, Node, NodeDoc, NodeError, NodeIo, NodeKind, NodeRegistry, NodeSpec,
    PortSpec, Value,
};
use flip_nodes::kinds::{TypedInputs, PARTICLES};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Adds one particle per step; fails from frame `fail_at` on.
pub struct Drip {
    fail_at: u32,
}

impl Node for Drip {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        if ctx.frame >= self.fail_at {
            return Err(NodeError::Failed("the drip ran dry".into()));
        }
        let mut p = io.particles("particles")?;
        Arc::make_mut(&mut p).push(glam::Vec3::splat(0.5), glam::Vec3::ZERO);
        io.set("particles", Value::shared(PARTICLES, p));
        Ok(())
    }
}

pub fn registry() -> Arc<NodeRegistry> {
    let spec = NodeSpec {
        kind: "drip".into(),
        label: "Drip".into(),
        category: "Test".into(),
        help: String::new(),
        inputs: vec![PortSpec::new("particles", PARTICLES, "in")],
        outputs: vec![PortSpec::new("particles", PARTICLES, "out")],
        params: vec![],
        ..Default::default()
    };
    let mut r = NodeRegistry::with_state(flip_nodes::kinds::state_slots());
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

pub fn graph(node: &str, cycle: bool) -> GraphDoc {
    let base = include_str!("../../../../graphs/dam_break_2d.ron");
    let mut doc = GraphDoc::from_ron(base, "test").unwrap();
    doc.settings.frames = 5;
    doc.settings.grid = [8, 8, 1];
    let n = |id: &str, kind: &str| NodeDoc::new(id, kind);
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
pub fn collect(w: &Worker, done: impl Fn(&Event) -> bool) -> Vec<Event> {
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

pub fn load(w: &Worker, gen: u64, doc: GraphDoc) {
    load_at(w, gen, doc, Start::Zero);
}

/// Loads `doc` starting at `start`.
pub fn load_at(w: &Worker, gen: u64, doc: GraphDoc, start: Start) {
    w.send(Command::Load {
        gen,
        doc: Box::new(doc),
        base_dir: ".".into(),
        out_dir: None,
        start,
    });
}

/// The frames among `events`.
pub fn frames(events: &[Event]) -> Vec<&flip_editor::frames::FrameData> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Frame { data, .. } => Some(&**data),
            _ => None,
        })
        .collect()
}
