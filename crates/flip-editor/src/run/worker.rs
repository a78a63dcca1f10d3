//! The simulation runs on its own thread; the UI sends [`Command`]s and receives [`Event`]s over
//! channels, so the window stays responsive however long a frame takes. Every load starts a
//! new generation; events carry it so the UI can drop frames of a graph it no longer shows.

use crate::frames::overlays::SolidsCache;
use crate::frames::FrameData;
use crate::graph::document::DEFAULT_SCENE;
use crate::run::probes::set_overlay_probes;
use crate::run::resim::{fresh_nodes, Start};
use crate::run::sim_thread::{Emitter, SimLoop, SimThread};
use crate::run::snapshots::{Snapshots, SNAPSHOT_BUDGET_BYTES};
use flip_graph::{GraphDoc, GraphError, NodeRegistry, RunError, Simulation};
use flip_nodes::roles::KindFacts;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// A request to the simulation thread.
pub enum Command {
    /// Compile and instantiate a graph and start it at `start` (frame 0, or the saved state
    /// after a kept frame: "simulate from here").
    Load {
        /// Generation of this load.
        gen: u64,
        /// The graph.
        doc: Box<GraphDoc>,
        /// Folder relative input paths are resolved against.
        base_dir: PathBuf,
        /// Output folder, or `None` to leave export nodes out.
        out_dir: Option<PathBuf>,
        /// Where the run starts.
        start: Start,
    },
    /// Run frames until paused, finished or failed.
    Play,
    /// Stop after the current frame.
    Pause,
    /// Simulate one frame.
    Step,
    /// Back to frame 0: every node (solver plugins included) forgets its state.
    Reset,
}

/// A report from the simulation thread.
pub enum Event {
    /// The graph compiled; frames of this generation follow, numbered from `kept + 1`.
    Loaded {
        /// Generation.
        gen: u64,
        /// Frames of the previous generation still valid (0: the run starts at frame 0).
        kept: u32,
        /// Why the requested start could not be honoured (the run then starts earlier).
        note: Option<String>,
    },
    /// The graph does not validate: every problem, each naming its node where it can.
    Invalid {
        /// Generation.
        gen: u64,
        /// Problems.
        errors: Vec<GraphError>,
    },
    /// A frame completed.
    Frame {
        /// Generation.
        gen: u64,
        /// The frame.
        data: Box<FrameData>,
    },
    /// The run stopped on an error (a node failed or the state blew up).
    Failed {
        /// Generation.
        gen: u64,
        /// The failing node, when one is to blame.
        node: Option<String>,
        /// Message.
        message: String,
    },
    /// Playback state changed (`finished`: the graph's frame count was reached).
    Playing {
        /// Generation.
        gen: u64,
        /// Whether frames are being simulated.
        playing: bool,
        /// Whether the last frame of the graph was reached.
        finished: bool,
    },
}

/// The UI's handle on the simulation thread.
pub type Worker = SimThread<Command, Event>;

impl SimThread<Command, Event> {
    /// Starts the thread; `wake` is called after every event (repaints the UI).
    pub fn spawn(registry: Arc<NodeRegistry>, wake: impl Fn() + Send + 'static) -> Self {
        Self::start("flipgraph-sim", move |tx, stop| {
            Thread::new(registry, Emitter::new(tx, Box::new(wake)), stop)
        })
    }
}

/// What a run of `doc` depends on: the graph without its layout, description and groups, and
/// without nodes that have no wire at all (left out of every run, [`flip_graph::unwired`]).
/// Two documents with the same view simulate the same.
pub fn sim_view(doc: &GraphDoc) -> GraphDoc {
    let mut d =
        flip_graph::unwired::without_unwired(&flip_graph::groups::ungrouped(doc)).into_owned();
    d.layout = Default::default();
    d.description.clear();
    d.variants.clear();
    d
}

/// The graph without its nodes that write particle files (and their edges): left out of
/// editor runs unless exports are switched on.
pub fn without_exports(doc: &GraphDoc, registry: &NodeRegistry) -> GraphDoc {
    let exports = |n: &flip_graph::NodeDoc| {
        (registry.get(&n.kind)).is_some_and(|k| k.spec.role().writes_particle_files())
    };
    let mut d = doc.clone();
    let gone: Vec<String> = d
        .nodes
        .iter()
        .filter(|n| exports(n))
        .map(|n| n.id.clone())
        .collect();
    d.nodes.retain(|n| !exports(n));
    let touches = |end: &flip_graph::Endpoint| gone.contains(&end.node);
    d.edges.retain(|e| !touches(&e.from) && !touches(&e.to));
    d
}

struct Thread {
    registry: Arc<NodeRegistry>,
    events: Emitter<Event>,
    sim: Option<Simulation>,
    ids: Vec<String>,
    gen: u64,
    playing: bool,
    /// The user pressed Play (and not Pause/Step/Reset since): resumes after an edit that
    /// made the graph invalid for a while.
    want_play: bool,
    broken: bool,
    last_solids: SolidsCache,
    mesher: crate::viewport::liquid_mesh::Mesher,
    /// States after simulated frames, for "simulate from here".
    snapshots: Snapshots,
    /// The graph the current simulation runs.
    doc: Arc<GraphDoc>,
    /// The UI's stop flag, installed in every simulation.
    stop: Arc<AtomicBool>,
}

impl Thread {
    fn new(registry: Arc<NodeRegistry>, events: Emitter<Event>, stop: Arc<AtomicBool>) -> Self {
        Self {
            stop,
            registry,
            events,
            sim: None,
            ids: vec![],
            gen: 0,
            playing: false,
            want_play: false,
            broken: false,
            last_solids: None,
            mesher: Default::default(),
            snapshots: Snapshots::new(SNAPSHOT_BUDGET_BYTES),
            doc: Arc::new(GraphDoc::from_ron(DEFAULT_SCENE, "").expect("parses")),
        }
    }

    fn emit(&self, e: Event) {
        self.events.emit(e);
    }

    fn set_playing(&mut self, playing: bool, finished: bool) {
        self.playing = playing;
        self.emit(Event::Playing {
            gen: self.gen,
            playing,
            finished,
        });
    }

    fn handle_command(&mut self, cmd: Command) {
        self.stop.store(false, Ordering::SeqCst); // the interrupted frame (if any) is over
        match cmd {
            Command::Load {
                gen,
                doc,
                base_dir,
                out_dir,
                start,
            } => self.load(gen, &doc, (base_dir, out_dir), start),
            Command::Play => {
                self.want_play = true;
                let can = self.sim.is_some() && !self.broken;
                self.set_playing(can, false);
            }
            Command::Pause => {
                self.want_play = false;
                self.set_playing(false, false);
            }
            Command::Step => {
                self.want_play = false;
                self.set_playing(false, false);
                self.next_frame();
            }
            Command::Reset => {
                self.want_play = false;
                if let Some(sim) = &mut self.sim {
                    sim.reset();
                }
                self.snapshots.clear();
                self.broken = false;
                self.set_playing(false, false);
            }
        }
    }

    fn load(&mut self, gen: u64, doc: &GraphDoc, dirs: (PathBuf, Option<PathBuf>), start: Start) {
        let (base_dir, out_dir) = dirs;
        self.gen = gen;
        self.sim = None;
        self.broken = false;
        self.last_solids = None;
        self.mesher = crate::viewport::liquid_mesh::Mesher::for_doc(doc, &self.registry, &base_dir);
        let (doc, out) = match out_dir {
            Some(out) => (doc.clone(), out),
            None => (
                without_exports(doc, &self.registry),
                std::env::temp_dir().join("flipgraph-editor"),
            ),
        };
        match Simulation::new(&doc, &self.registry, &out, &base_dir) {
            Ok(mut sim) => {
                sim.set_cancel_flag(self.stop.clone());
                set_overlay_probes(&mut sim, &doc, &self.registry);
                self.ids = sim.plan().nodes.iter().map(|n| n.id.clone()).collect();
                let (kept, note) = self.start_at(&mut sim, &doc, &start);
                self.doc = Arc::new(doc);
                self.sim = Some(sim);
                self.emit(Event::Loaded { gen, kept, note });
            }
            Err(errors) => self.emit(Event::Invalid { gen, errors }),
        }
        let playing = self.want_play && self.sim.is_some();
        self.set_playing(playing, false);
    }

    /// Puts `sim` at `start` from the saved states; returns the frame it starts after, and
    /// why it starts earlier than asked.
    fn start_at(
        &mut self,
        sim: &mut Simulation,
        doc: &GraphDoc,
        start: &Start,
    ) -> (u32, Option<String>) {
        let &Start::After { frame, live } = start else {
            self.snapshots.clear();
            return (0, None);
        };
        let saved = self.snapshots.at_or_before(frame);
        let fresh = saved.and_then(|(_, saved_doc)| fresh_nodes(saved_doc, doc, live));
        let (Some((snap, _)), Some(fresh)) = (saved, fresh) else {
            self.snapshots.clear();
            return (
                0,
                Some(format!(
                    "no usable saved state at frame {frame}: rerun from 0"
                )),
            );
        };
        let fresh: Vec<&str> = fresh.iter().map(String::as_str).collect();
        match sim.fork_from(snap, &fresh) {
            Ok(()) => {
                let kept = snap.frame();
                self.snapshots.forget_after(kept);
                let note = (kept < frame).then(|| format!("continued from frame {kept}"));
                (kept, note)
            }
            Err(e) => {
                sim.reset();
                self.snapshots.clear();
                (
                    0,
                    Some(format!(
                        "cannot continue from frame {frame} ({e}): rerun from 0"
                    )),
                )
            }
        }
    }

    fn next_frame(&mut self) {
        let Some(sim) = self.sim.as_mut().filter(|_| !self.broken) else {
            self.playing = false;
            return;
        };
        if sim.frame() >= sim.settings().frames {
            self.want_play = false;
            self.set_playing(false, true);
            return;
        }
        let start = Instant::now();
        match sim.advance_frame() {
            Ok(reports) => {
                let wall_ms = ms_since(start);
                let saved = Instant::now();
                // A node that cannot save its state only means no fork from this frame.
                if let Ok(snap) = sim.snapshot() {
                    self.snapshots.keep(snap, self.doc.clone());
                }
                let snapshot_ms = ms_since(saved);
                let captured = Instant::now();
                let (solids, mesher) = (&mut self.last_solids, &mut self.mesher);
                let mut data =
                    FrameData::capture(sim, &reports, &self.ids, wall_ms, solids, mesher);
                (data.snapshot_ms, data.capture_ms) = (snapshot_ms, ms_since(captured));
                self.emit(Event::Frame {
                    gen: self.gen,
                    data: Box::new(data),
                });
            }
            // Interrupted for a Reset/Load/Quit that discards the frame: nothing to report.
            Err(RunError::Cancelled { .. }) => {}
            Err(e) => {
                self.broken = true;
                self.want_play = false;
                let node = match &e {
                    RunError::NodeFailed { node, .. } => Some(node.clone()),
                    RunError::BlowUp { .. } | RunError::Cancelled { .. } => None,
                };
                let message = match &e {
                    RunError::NodeFailed { error, frame, .. } => {
                        format!("frame {}: {error}", frame + 1)
                    }
                    other => other.to_string(),
                };
                self.emit(Event::Failed {
                    gen: self.gen,
                    node,
                    message,
                });
                self.set_playing(false, false);
            }
        }
    }
}

/// Milliseconds since `t`.
fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

impl SimLoop for Thread {
    type Command = Command;
    fn handle(&mut self, cmd: Command) {
        self.handle_command(cmd);
    }
    fn frame(&mut self) {
        self.next_frame();
    }
    fn playing(&self) -> bool {
        self.playing
    }
}
