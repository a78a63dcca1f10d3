//! The dataflow schedule: a node starts when its inputs are ready, not at its level's barrier;
//! failures are reported as a level-by-level run would.

use crate::doc::{EdgeDoc, GraphDoc, NodeDoc, Settings};
use crate::node::{EvalCtx, Node, NodeError, NodeInit, NodeIo};
use crate::registry::{NodeKind, NodeRegistry};
use crate::spec::{NodeSpec, PortSpec};
use crate::toy::{Drops, DROPS};
use crate::value::Value;
use crate::{RunError, Simulation};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a test node does before passing its first input on.
#[derive(Clone)]
enum Act {
    Pass,
    /// Waits (at most 5 s) for the flag; fails if it never comes.
    Wait(Arc<AtomicBool>),
    Signal(Arc<AtomicBool>),
    /// Sleeps, then fails.
    SlowFail(Duration),
    Fail,
    /// Leaves its input `a` untaken and outputs new drops.
    Peek,
    /// Fails unless it holds the only reference to its input `a`.
    Unique,
}

struct Probe(Act);

impl Node for Probe {
    fn eval(&mut self, _: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        match &self.0 {
            Act::Pass => {}
            Act::Wait(flag) => {
                let start = Instant::now();
                while !flag.load(Ordering::SeqCst) {
                    if start.elapsed() > Duration::from_secs(5) {
                        return Err(NodeError::Failed("the signal never came".into()));
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            Act::Signal(flag) => flag.store(true, Ordering::SeqCst),
            Act::SlowFail(d) => {
                std::thread::sleep(*d);
                return Err(NodeError::Failed("slow failure".into()));
            }
            Act::Fail => return Err(NodeError::Failed("quick failure".into())),
            Act::Peek => {
                io.set("drops", Value::new(DROPS, Drops::new()));
                return Ok(());
            }
            Act::Unique => {
                let drops = io.require("a")?.into_shared::<Drops>().expect("drops");
                if Arc::strong_count(&drops) != 1 {
                    return Err(NodeError::Failed("the input is shared".into()));
                }
                io.set("drops", Value::shared(DROPS, drops));
                return Ok(());
            }
        }
        let drops = io.require("a")?;
        io.set("drops", drops);
        Ok(())
    }
}

/// Kinds `name` with inputs `a` (and `b` for "join"), output `drops`.
fn registry(acts: &[(&str, Act)]) -> NodeRegistry {
    let mut r = crate::toy::registry();
    for (name, act) in acts {
        let mut inputs = vec![PortSpec::new("a", DROPS, "")];
        if *name == "join" {
            inputs.push(PortSpec::new("b", DROPS, ""));
        } else {
            inputs.push(PortSpec::optional("b", DROPS, ""));
        }
        let spec = NodeSpec {
            kind: (*name).into(),
            label: (*name).into(),
            category: "Test".into(),
            help: String::new(),
            inputs,
            outputs: vec![PortSpec::new("drops", DROPS, "")],
            params: vec![],
            ..Default::default()
        };
        let act = act.clone();
        let factory =
            Box::new(move |_: &NodeInit<'_>| Ok(Box::new(Probe(act.clone())) as Box<dyn Node>));
        r.register(NodeKind::new(spec, factory)).unwrap();
    }
    r
}

/// `in → slow → join.a`, `in → quick → late → join.b`, `join → out`: `slow` and `quick` share
/// level 1, `late` is on level 2.
fn two_branches(slow: &str, late: &str) -> GraphDoc {
    let settings = Settings {
        grid: [8, 8, 1],
        cell_size: 0.125,
        fps: 10.0,
        frames: 1,
        cfl: 1.0,
        max_substeps: 1,
        fixed_dt: 0.1,
        seed: 1,
        density: 1000.0,
    };
    let nodes = [
        ("in", "step_input"),
        ("slow", slow),
        ("quick", "pass"),
        ("late", late),
        ("join", "join"),
        ("out", "step_output"),
    ];
    let edges = [
        ("in.drops", "slow.a"),
        ("in.drops", "quick.a"),
        ("quick.drops", "late.a"),
        ("slow.drops", "join.a"),
        ("late.drops", "join.b"),
        ("join.drops", "out.drops"),
    ];
    GraphDoc {
        format_version: 1,
        description: String::new(),
        settings,
        nodes: nodes.iter().map(|(i, k)| NodeDoc::new(*i, *k)).collect(),
        edges: edges.iter().map(|(f, t)| EdgeDoc::new(*f, *t)).collect(),
        groups: vec![],
        variants: vec![],
        layout: Default::default(),
    }
}

/// One substep on a pool of two threads.
fn substep(doc: &GraphDoc, registry: &NodeRegistry) -> Result<(), RunError> {
    let tmp = std::env::temp_dir();
    let mut sim = Simulation::new(doc, registry, &tmp, &tmp).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| sim.substep(0.1, 0, true)).map(|_| ())
}

#[test]
fn a_node_starts_when_its_inputs_are_ready_not_when_its_level_is_done() {
    // `slow` (level 1) waits for `late` (level 2): a level-by-level run never gets there
    let flag = Arc::new(AtomicBool::new(false));
    let acts = [
        ("pass", Act::Pass),
        ("join", Act::Pass),
        ("wait", Act::Wait(flag.clone())),
        ("signal", Act::Signal(flag.clone())),
    ];
    let doc = two_branches("wait", "signal");
    substep(&doc, &registry(&acts)).expect("the waiting node was released");
    assert!(flag.load(Ordering::SeqCst));
}

#[test]
fn the_failure_reported_is_the_lowest_levels_whatever_finishes_first() {
    // `late` (level 2) fails at once, `slow` (level 1) 100 ms later: `slow` is named
    let acts = [
        ("pass", Act::Pass),
        ("join", Act::Pass),
        ("slow_fail", Act::SlowFail(Duration::from_millis(100))),
        ("fail", Act::Fail),
    ];
    let doc = two_branches("slow_fail", "fail");
    match substep(&doc, &registry(&acts)) {
        Err(RunError::NodeFailed { node, error, .. }) => {
            let message = error.to_string();
            assert_eq!(node, "slow", "{message}");
            assert!(message.contains("slow failure"), "{message}");
        }
        other => panic!("expected `slow` to fail, got {other:?}"),
    }
}

#[test]
fn the_last_reader_of_a_value_holds_its_only_reference() {
    // `peek` reads `in.drops` first and leaves it untaken; `unique`, after it, is the last
    // reader: the runner must not keep `peek`'s copy of the reference
    let acts = [("peek", Act::Peek), ("unique", Act::Unique)];
    let nodes = [
        ("in", "step_input"),
        ("peek", "peek"),
        ("unique", "unique"),
        ("out", "step_output"),
    ];
    let edges = [
        ("in.drops", "peek.a"),
        ("in.drops", "unique.a"),
        ("peek.drops", "unique.b"),
        ("unique.drops", "out.drops"),
    ];
    let mut doc = two_branches("pass", "pass");
    doc.nodes = nodes.iter().map(|(i, k)| NodeDoc::new(*i, *k)).collect();
    doc.edges = edges.iter().map(|(f, t)| EdgeDoc::new(*f, *t)).collect();
    substep(&doc, &registry(&acts)).expect("the last reader's value is not shared");
}
