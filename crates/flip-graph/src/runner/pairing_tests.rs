//! Substeps in pairs: a node that asks for them gets pairs of equal length, the frame ends on
//! the second of a pair, and forces act over the pair in its second substep.

use crate::doc::{EdgeDoc, GraphDoc, NodeDoc, Settings};
use crate::node::{EvalCtx, Node, NodeError, NodeIo};
use crate::registry::{NodeKind, NodeRegistry};
use crate::spec::{NodeSpec, PortSpec};
use crate::toy::DROPS;
use crate::Simulation;
use std::sync::{Arc, Mutex};

/// What a substep looked like to a node: its index, length, force time and frame end.
type Seen = (u32, f32, Option<f32>, bool);

/// Passes the drops on and writes down each substep it runs in.
struct Recorder {
    pairs: bool,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Node for Recorder {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let seen = (ctx.substep, ctx.dt, ctx.force_dt(), ctx.frame_end);
        self.seen.lock().expect("not poisoned").push(seen);
        let drops = io.require("drops")?;
        io.set("drops", drops);
        Ok(())
    }

    fn pairs_substeps(&self) -> bool {
        self.pairs
    }
}

fn registry(pairs: bool, seen: &Arc<Mutex<Vec<Seen>>>) -> NodeRegistry {
    let spec = NodeSpec {
        kind: "recorder".into(),
        label: "recorder".into(),
        category: "Test".into(),
        inputs: vec![PortSpec::new("drops", DROPS, "")],
        outputs: vec![PortSpec::new("drops", DROPS, "")],
        ..Default::default()
    };
    let seen = seen.clone();
    let make = move |_: &crate::node::NodeInit<'_>| {
        let seen = seen.clone();
        Ok(Box::new(Recorder { pairs, seen }) as Box<dyn Node>)
    };
    let mut r = crate::toy::registry();
    r.register(NodeKind::new(spec, Box::new(make)))
        .expect("registered");
    r
}

/// One frame at 10 fps with substeps of `fixed_dt`: what the recorder saw.
fn one_frame(pairs: bool, fixed_dt: f32) -> Vec<Seen> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let settings = Settings {
        grid: [4, 4, 1],
        cell_size: 0.25,
        fps: 10.0,
        frames: 1,
        cfl: 1.0,
        max_substeps: 16,
        fixed_dt,
        seed: 1,
        density: 1000.0,
    };
    let doc = GraphDoc {
        format_version: 1,
        description: String::new(),
        settings,
        nodes: vec![
            NodeDoc::new("in", "step_input"),
            NodeDoc::new("rec", "recorder"),
            NodeDoc::new("out", "step_output"),
        ],
        edges: vec![
            EdgeDoc::new("in.drops", "rec.drops"),
            EdgeDoc::new("rec.drops", "out.drops"),
        ],
        groups: vec![],
        variants: vec![],
        layout: Default::default(),
    };
    let tmp = std::env::temp_dir();
    let mut sim = Simulation::new(&doc, &registry(pairs, &seen), &tmp, &tmp).expect("built");
    sim.advance_frame().expect("a frame");
    let seen = seen.lock().expect("not poisoned").clone();
    seen
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-6
}

#[test]
fn unpaired_substeps_finish_the_frame_without_a_sliver_and_forces_act_every_substep() {
    let seen = one_frame(false, 0.03);
    let lengths: Vec<f32> = seen.iter().map(|s| s.1).collect();
    // 0.03 + 0.03, then the last 0.04 in one step rather than 0.03 and a sliver of 0.01
    assert_eq!(lengths.len(), 3, "{lengths:?}");
    assert!(close(lengths[2], 0.04), "{lengths:?}");
    assert!(seen.iter().all(|s| s.2 == Some(s.1)));
    assert!(seen.iter().map(|s| s.3).eq([false, false, true]));
}

#[test]
fn paired_substeps_come_in_equal_pairs_and_the_frame_ends_on_the_second() {
    let seen = one_frame(true, 0.03);
    let lengths: Vec<f32> = seen.iter().map(|s| s.1).collect();
    // a pair of 0.03 s, then the remaining 0.04 s as a pair of 0.02 s
    assert_eq!(lengths.len(), 4, "{lengths:?}");
    for (pair, expected) in lengths.chunks(2).zip([0.03, 0.02]) {
        assert!(
            close(pair[0], expected) && close(pair[1], expected),
            "{lengths:?}"
        );
    }
    assert!(close(lengths.iter().sum::<f32>(), 0.1));
    assert!(seen.iter().map(|s| s.3).eq([false, false, false, true]));
    // forces: none in the first of a pair, the pair's length in the second
    for (first, second) in seen.iter().step_by(2).zip(seen.iter().skip(1).step_by(2)) {
        assert_eq!((first.0 % 2, second.0 % 2), (0, 1));
        assert_eq!(first.2, None);
        assert!(close(second.2.expect("forces act"), 2.0 * second.1));
    }
}

#[test]
fn a_frame_shorter_than_a_pair_is_one_pair() {
    let seen = one_frame(true, 0.5);
    let lengths: Vec<f32> = seen.iter().map(|s| s.1).collect();
    assert_eq!(lengths.len(), 2, "{lengths:?}");
    assert!(
        close(lengths[0], 0.05) && close(lengths[1], 0.05),
        "{lengths:?}"
    );
}
