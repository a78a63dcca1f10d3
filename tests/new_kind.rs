//! A data kind defined outside `flip-graph` (a per-rank tally) with two toy nodes runs through
//! the scheduler, a checkpoint written and restored, and a 2-rank run on the thread
//! communicator: adding a data kind touches no file of the scheduler.

use flip_comm::threads::ThreadComm;
use flip_comm::CommExt;
use flip_graph::window::Window;
use flip_graph::{
    Checkpoint, DataKind, EdgeDoc, EvalCtx, GraphDoc, KindDesc, KindError, KindOps, Measure, Node,
    NodeDoc, NodeError, NodeInit, NodeIo, NodeKind, NodeRegistry, NodeSpec, PortSpec, Settings,
    Simulation, StateSlot, Value, WindowRefusal,
};

/// What the new kind holds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Tally {
    /// This rank's count.
    local: u64,
    /// The neighbouring rank's count, from the ghost refresh before the substep.
    neighbour: u64,
    /// Every rank's count summed, from the migration step before the substep.
    total: u64,
    /// `total` as the `audit` node saw it.
    audited: u64,
}

struct TallyOps;

fn tally(v: &Value) -> &Tally {
    v.get().expect("a tally")
}

impl KindOps for TallyOps {
    fn check(&self, v: &Value, _: Option<&Window>) -> Result<Measure, KindError> {
        let count = usize::try_from(tally(v).local).map_err(|e| KindError(e.to_string()))?;
        Ok(Measure { count, speed: 0.0 })
    }
    fn encode(&self, v: &Value) -> Option<Vec<u8>> {
        let t = tally(v);
        let words = [t.local, t.neighbour, t.total, t.audited];
        Some(words.iter().flat_map(|w| w.to_le_bytes()).collect())
    }
    fn decode(&self, bytes: &[u8]) -> Result<Value, KindError> {
        let words: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect();
        let [local, neighbour, total, audited] = words[..] else {
            return Err(KindError(format!(
                "a tally is 32 bytes, not {}",
                bytes.len()
            )));
        };
        let t = Tally {
            local,
            neighbour,
            total,
            audited,
        };
        Ok(Value::new(TALLY, t))
    }
    fn refresh_ghosts(&self, v: &mut Value, w: &Window) {
        let (rank, _) = w.rank();
        let t = v.make_mut::<Tally>().expect("a tally");
        let mut got = [0];
        w.comm().exchange(1 - rank, &[t.local], &mut got);
        t.neighbour = got[0];
    }
    fn migrate(&self, v: &mut Value, w: &Window) -> Option<flip_graph::window::ExchangeCounts> {
        let t = v.make_mut::<Tally>().expect("a tally");
        t.total = w.comm().all_gather_one(t.local).iter().sum();
        None
    }
}

const TALLY: DataKind = DataKind::new(&KindDesc {
    id: "tally",
    name: "tally",
    ops: &TallyOps,
});

/// `tick` adds `1 + rank` to the count; `audit` notes the total it sees.
struct Toy {
    audit: bool,
}

impl Node for Toy {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut v = io.require("tally")?;
        let t = v.make_mut::<Tally>().ok_or("not a tally")?;
        if self.audit {
            t.audited = t.total;
        } else {
            t.local += 1 + ctx.window.as_ref().map_or(0, |w| u64::from(w.rank().0));
        }
        io.set("tally", v);
        Ok(())
    }
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }
}

fn registry() -> NodeRegistry {
    let slot = StateSlot {
        name: "tally",
        kind: TALLY,
        start: Some(|| Value::new(TALLY, Tally::default())),
    };
    let mut r = NodeRegistry::with_state(vec![slot]);
    for (kind, audit) in [("tick", false), ("audit", true)] {
        let port = || vec![PortSpec::new("tally", TALLY, "")];
        let spec = NodeSpec::new(kind, kind, "Test", "", port(), port(), vec![]);
        let factory = move |_: &NodeInit<'_>| Ok(Box::new(Toy { audit }) as Box<dyn Node>);
        r.register(NodeKind::new(spec, Box::new(factory))).unwrap();
    }
    r
}

/// `step_input → tick → audit → step_output`, one substep a frame.
fn doc() -> GraphDoc {
    let settings = Settings {
        grid: [8, 16, 1],
        cell_size: 0.125,
        fps: 10.0,
        frames: 3,
        cfl: 1.0,
        max_substeps: 1,
        fixed_dt: 0.1,
        seed: 1,
        density: 1000.0,
    };
    let edges = [
        ("in.tally", "tick.tally"),
        ("tick.tally", "audit.tally"),
        ("audit.tally", "out.tally"),
    ];
    GraphDoc {
        format_version: 1,
        description: String::new(),
        settings,
        nodes: vec![
            NodeDoc::new("in", "step_input"),
            NodeDoc::new("tick", "tick"),
            NodeDoc::new("audit", "audit"),
            NodeDoc::new("out", "step_output"),
        ],
        edges: edges.iter().map(|(f, t)| EdgeDoc::new(*f, *t)).collect(),
        groups: vec![],
        variants: vec![],
        layout: Default::default(),
    }
}

fn simulation(out: &std::path::Path) -> Simulation {
    Simulation::new(&doc(), &registry(), out, out).unwrap_or_else(|e| panic!("{e:?}"))
}

fn carried(sim: &Simulation) -> Tally {
    *sim.carried_as::<Tally>().expect("a carried tally")
}

#[test]
fn a_new_kind_runs_through_the_scheduler() {
    let tmp = tempfile::tempdir().unwrap();
    let mut sim = simulation(tmp.path());
    let mut count = 0;
    for _ in 0..3 {
        count = sim.advance_frame().unwrap().last().unwrap().count;
    }
    assert_eq!(carried(&sim).local, 3);
    assert_eq!(count, 3, "the kind's check counts the tally");
}

#[test]
fn a_new_kind_is_saved_in_a_checkpoint_and_restored() {
    let tmp = tempfile::tempdir().unwrap();
    let mut straight = simulation(tmp.path());
    for _ in 0..3 {
        straight.advance_frame().unwrap();
    }
    let mut first = simulation(tmp.path());
    for _ in 0..2 {
        first.advance_frame().unwrap();
    }
    let path = tmp.path().join("tally.ck");
    first
        .snapshot()
        .unwrap()
        .to_checkpoint("h")
        .write(&path)
        .unwrap();
    let mut resumed = simulation(tmp.path());
    resumed
        .restore(Checkpoint::read(&path).unwrap(), &[])
        .unwrap();
    assert_eq!(carried(&resumed).local, 2);
    resumed.advance_frame().unwrap();
    assert_eq!(carried(&resumed), carried(&straight));
}

#[test]
fn a_new_kind_is_exchanged_between_two_ranks() {
    let tmp = tempfile::tempdir().unwrap();
    let grid = doc().settings.grid_spec();
    let results: Vec<(Tally, usize)> = std::thread::scope(|s| {
        let runs: Vec<_> = ThreadComm::group(2)
            .into_iter()
            .map(|comm| {
                let out = tmp.path();
                s.spawn(move || {
                    let mut sim = simulation(out);
                    sim.set_window(Window::new(comm, grid, 2).unwrap()).unwrap();
                    let mut count = 0;
                    for _ in 0..3 {
                        count = sim.advance_frame().unwrap().last().unwrap().count;
                    }
                    (carried(&sim), count)
                })
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    // rank r adds 1 + r a substep; the exchanges before the third substep saw two substeps
    for (rank, (t, count)) in results.into_iter().enumerate() {
        let other = 2 - rank as u64;
        assert_eq!(t.local, 3 * (1 + rank as u64), "rank {rank}");
        assert_eq!(t.neighbour, 2 * other, "rank {rank}: the ghost refresh");
        assert_eq!((t.total, t.audited), (6, 6), "rank {rank}: the migration");
        assert_eq!(count, 9, "rank {rank}: the counts summed over the ranks");
    }
}
