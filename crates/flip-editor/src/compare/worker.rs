//! The compare mode's simulation thread: the variants of one graph ([`Lockstep`]) advanced
//! frame by frame with the same seed, each frame captured for its viewport and measured for
//! the curves. A variant that fails is reported once with its error; the others go on.

use crate::frames::overlays::SolidsCache;
use crate::frames::FrameData;
use crate::run::probes::set_overlay_probes;
use crate::run::sim_thread::{Emitter, SimLoop, SimThread};
use crate::run::worker::without_exports;
use flip_core::GridSpec;
use flip_graph::{GraphDoc, NodeRegistry, Simulation};
use flip_nodes::compare::{default_jobs, FrameMetrics, Lockstep, VariantSpec};
use std::path::PathBuf;
use std::sync::Arc;

/// A request to the compare thread.
pub enum CompareCommand {
    /// Build every variant of `doc` (paused at frame 0).
    Load {
        /// Generation of this load.
        gen: u64,
        /// The base graph.
        doc: Box<GraphDoc>,
        /// Variants; the first is the baseline.
        variants: Vec<VariantSpec>,
        /// Folder relative input paths are resolved against.
        base_dir: PathBuf,
        /// Frames to simulate.
        frames: u32,
    },
    /// Run frames until paused, finished or every variant failed.
    Play,
    /// Stop after the current frame.
    Pause,
    /// Simulate one frame of every variant.
    Step,
}

/// A variant as loaded.
#[derive(Clone, Debug)]
pub struct VariantStart {
    /// Name.
    pub name: String,
    /// Its overrides.
    pub overrides: Vec<flip_graph::Override>,
    /// Its grid (overrides may change it).
    pub grid: GridSpec,
    /// Why it could not start (bad override, invalid graph).
    pub failure: Option<String>,
}

/// One variant's share of a frame.
pub struct VariantFrame {
    /// What its viewport draws.
    pub data: Box<FrameData>,
    /// Its curves' points.
    pub metrics: FrameMetrics,
}

/// A report from the compare thread.
pub enum CompareEvent {
    /// The variants were built (some may have failed already).
    Loaded {
        /// Generation.
        gen: u64,
        /// In order; the first is the baseline.
        variants: Vec<VariantStart>,
    },
    /// Nothing could start (no variants).
    Invalid {
        /// Generation.
        gen: u64,
        /// Why.
        message: String,
    },
    /// Every live variant completed `frame`.
    Frame {
        /// Generation.
        gen: u64,
        /// Frame number (1-based).
        frame: u32,
        /// Per variant; `None` for failed ones.
        variants: Vec<Option<VariantFrame>>,
    },
    /// A variant stopped on an error.
    VariantFailed {
        /// Generation.
        gen: u64,
        /// Its index.
        index: usize,
        /// The error.
        message: String,
    },
    /// Playback state changed (`finished`: the last frame was reached or nothing is left).
    Playing {
        /// Generation.
        gen: u64,
        /// Whether frames are being simulated.
        playing: bool,
        /// Whether the run is over.
        finished: bool,
    },
}

/// The UI's handle on the compare thread.
pub type CompareWorker = SimThread<CompareCommand, CompareEvent>;

impl SimThread<CompareCommand, CompareEvent> {
    /// Starts the thread; `wake` is called after every event (repaints the UI).
    pub fn spawn(registry: Arc<NodeRegistry>, wake: impl Fn() + Send + 'static) -> Self {
        Self::start("flipgraph-compare", move |tx, _stop| CompareThread {
            registry,
            events: Emitter::new(tx, Box::new(wake)),
            gen: 0,
            lockstep: None,
            frames: 0,
            ids: vec![],
            solids: vec![],
            reported: vec![],
            playing: false,
        })
    }
}

struct CompareThread {
    registry: Arc<NodeRegistry>,
    events: Emitter<CompareEvent>,
    gen: u64,
    lockstep: Option<Lockstep>,
    frames: u32,
    /// Plan node ids per variant.
    ids: Vec<Vec<String>>,
    solids: Vec<SolidsCache>,
    /// Failures already reported.
    reported: Vec<bool>,
    playing: bool,
}

/// Builds one variant's simulation the way the run mode does (exports left out, overlay
/// probes set).
fn build_variant(
    registry: &NodeRegistry,
    doc: &GraphDoc,
    out: PathBuf,
    base_dir: &std::path::Path,
) -> Result<Simulation, String> {
    let doc = without_exports(doc, registry);
    let mut sim = Simulation::new(&doc, registry, &out, base_dir).map_err(|errors| {
        let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
        all.join("; ")
    })?;
    set_overlay_probes(&mut sim, &doc, registry);
    Ok(sim)
}

impl CompareThread {
    fn set_playing(&mut self, playing: bool, finished: bool) {
        self.playing = playing;
        self.events.emit(CompareEvent::Playing {
            gen: self.gen,
            playing,
            finished,
        });
    }

    /// Whether no frame is left to simulate.
    fn over(&self) -> bool {
        match &self.lockstep {
            Some(l) => l.all_failed() || l.frame() >= self.frames,
            None => true,
        }
    }

    fn load(&mut self, gen: u64, doc: &GraphDoc, variants: &[VariantSpec], base_dir: PathBuf) {
        self.gen = gen;
        self.lockstep = None;
        let out = std::env::temp_dir().join("flipgraph-editor-compare");
        let registry = self.registry.clone();
        let built = Lockstep::new(doc, &registry, variants, default_jobs(), |spec, doc| {
            build_variant(&registry, doc, out.join(&spec.name), &base_dir)
        });
        match built {
            Ok(l) => {
                let base_grid = doc.settings.grid_spec();
                let starts: Vec<VariantStart> = l
                    .runs()
                    .iter()
                    .map(|r| VariantStart {
                        name: r.spec.name.clone(),
                        overrides: r.spec.overrides.clone(),
                        grid: r
                            .sim
                            .as_ref()
                            .map_or(base_grid, |s| s.settings().grid_spec()),
                        failure: r.report.failure.clone(),
                    })
                    .collect();
                self.ids = l
                    .runs()
                    .iter()
                    .map(|r| {
                        let nodes = r.sim.as_ref().map(|s| &s.plan().nodes);
                        nodes.map_or(vec![], |n| n.iter().map(|n| n.id.clone()).collect())
                    })
                    .collect();
                self.solids = vec![None; starts.len()];
                self.reported = starts.iter().map(|s| s.failure.is_some()).collect();
                self.lockstep = Some(l);
                self.events.emit(CompareEvent::Loaded {
                    gen,
                    variants: starts,
                });
            }
            Err(e) => self.events.emit(CompareEvent::Invalid {
                gen,
                message: e.to_string(),
            }),
        }
        let over = self.over();
        self.set_playing(false, over);
    }

    fn next_frame(&mut self) {
        if self.over() {
            self.set_playing(false, true);
            return;
        }
        let Some(l) = self.lockstep.as_mut() else {
            return;
        };
        l.advance();
        let frame = l.frame();
        for (i, r) in l.runs().iter().enumerate() {
            if let (Some(message), false) = (&r.report.failure, self.reported[i]) {
                self.reported[i] = true;
                self.events.emit(CompareEvent::VariantFailed {
                    gen: self.gen,
                    index: i,
                    message: message.clone(),
                });
            }
        }
        let variants = l
            .runs()
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let (sim, metrics) = (r.sim.as_ref()?, r.metrics(frame)?.clone());
                let wall_ms = r.last_wall.as_secs_f64() * 1e3;
                let ids = &self.ids[i];
                // the compare views show particles only
                let no_mesh = &mut crate::viewport::liquid_mesh::Mesher::default();
                let solids = &mut self.solids[i];
                let data = FrameData::capture(sim, &r.last_steps, ids, wall_ms, solids, no_mesh);
                Some(VariantFrame {
                    data: Box::new(data),
                    metrics,
                })
            })
            .collect();
        self.events.emit(CompareEvent::Frame {
            gen: self.gen,
            frame,
            variants,
        });
        if self.over() {
            self.set_playing(false, true);
        }
    }
}

impl SimLoop for CompareThread {
    type Command = CompareCommand;

    fn handle(&mut self, cmd: CompareCommand) {
        match cmd {
            CompareCommand::Load {
                gen,
                doc,
                variants,
                base_dir,
                frames,
            } => {
                self.frames = frames;
                self.load(gen, &doc, &variants, base_dir);
            }
            CompareCommand::Play => {
                let over = self.over();
                self.set_playing(!over, over);
            }
            CompareCommand::Pause => self.set_playing(false, self.over()),
            CompareCommand::Step => {
                self.set_playing(false, false);
                self.next_frame();
            }
        }
    }

    fn frame(&mut self) {
        self.next_frame();
    }

    fn playing(&self) -> bool {
        self.playing
    }
}
