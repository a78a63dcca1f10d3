//! The run mode's state: the simulation thread, the frames of its current generation, their
//! playback, and what the last load and run reported.

use crate::frames::{enforce_budget, FrameData, CACHE_BUDGET_BYTES};
use crate::graph::convert::EditorDoc;
use crate::run::autorun::Progress;
use crate::run::lineage::Lineage;
use crate::run::playback::Playback;
use crate::run::resim::{start_after_edit, EditPolicy, Start};
use crate::run::worker::{sim_view, Command, Event, Worker};
use crate::types::NodeStatus;
use crate::viewport::camera::Camera;
use flip_graph::{GraphDoc, NodeRegistry};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Edits are applied to the simulation after this much quiet (dragging a value sends many).
pub const RELOAD_DELAY: Duration = Duration::from_millis(300);

/// What a node without wires says (`flipgraph run` leaves it out the same way).
pub const LEFT_OUT: &str = "no wires: left out of the run (as by `flipgraph run`)";

/// The run mode: one simulation of the graph and its cached frames.
pub struct RunMode {
    /// The simulation thread.
    pub(crate) worker: Worker,
    /// Generation of the last load; older events are dropped.
    pub(crate) gen: u64,
    /// Cached frames of the current generation (index = frame number − 1).
    pub(crate) frames: Vec<Arc<FrameData>>,
    /// The shown frame, following, simulating, replaying.
    pub(crate) playback: Playback,
    /// Validation errors by node id ("" = not about one node).
    pub(crate) invalid: HashMap<String, Vec<String>>,
    /// The run's failure: node and message.
    pub(crate) failure: Option<(Option<String>, String)>,
    /// The viewport's camera.
    pub(crate) cam: Camera,
    /// Run export nodes (write files) in the editor.
    pub(crate) write_exports: bool,
    /// When the edit not yet sent to the simulation was made.
    pub(crate) pending_reload: Option<Instant>,
    /// What the simulation runs (see [`sim_view`]) and its output folder: a reload that would
    /// run the same leaves the cache alone.
    pub(crate) loaded: Option<(GraphDoc, Option<PathBuf>)>,
    /// What an edit does to the run (from here or from frame 0; live edits).
    pub(crate) edit_policy: EditPolicy,
    /// The nodes left out of the run for having no wire ([`flip_graph::unwired`]).
    pub(crate) left_out: Vec<String>,
    /// Which graph simulated each cached frame; the number of the one loaded.
    lineage: Lineage,
    graph: u64,
    /// Node kinds (which parameters are live).
    registry: Arc<NodeRegistry>,
}

/// What one poll of the simulation thread brought.
pub struct Polled {
    /// Whether any event came (the node status is rebuilt).
    pub changed: bool,
    /// The last note of a load (why it starts earlier than asked).
    pub note: Option<String>,
}

impl RunMode {
    /// Starts the simulation thread (nothing loaded); `wake` repaints the UI.
    pub fn new(registry: Arc<NodeRegistry>, wake: impl Fn() + Send + 'static) -> Self {
        Self {
            worker: Worker::spawn(registry.clone(), wake),
            gen: 0,
            frames: vec![],
            playback: Playback::default(),
            invalid: HashMap::new(),
            failure: None,
            cam: Camera::default(),
            write_exports: false,
            pending_reload: None,
            loaded: None,
            edit_policy: Default::default(),
            left_out: vec![],
            lineage: Lineage::default(),
            graph: 0,
            registry,
        }
    }

    /// Sends `doc`, less its unwired nodes, to the worker (keeps playing if it was), unless
    /// what it simulates did not change (a node moved, an unwired node added, edited or
    /// deleted): then the cache and the running simulation stay. The run continues from the
    /// shown frame or restarts at frame 0 as [`start_after_edit`] says. Returns whether it
    /// was sent or the nodes left out changed (the node status is then rebuilt).
    pub fn reload(&mut self, doc: &EditorDoc, base_dir: &Path) -> bool {
        self.pending_reload = None;
        let out_dir = self.write_exports.then(|| base_dir.join("out"));
        let doc = doc.to_doc();
        let left_out: Vec<String> = flip_graph::unwired::unwired(&doc)
            .into_iter()
            .map(String::from)
            .collect();
        let left_out_changed = left_out != self.left_out;
        self.left_out = left_out;
        let doc = sim_view(&doc);
        let view = (doc.clone(), out_dir.clone());
        if self.loaded.as_ref() == Some(&view) {
            return left_out_changed;
        }
        let same_out = self.loaded.as_ref().is_some_and(|(_, o)| *o == out_dir);
        let old = self.loaded.as_ref().filter(|_| same_out).map(|(d, _)| d);
        let number = |f: Option<&Arc<FrameData>>| f.map_or(0, |f| f.frame);
        let p = &mut self.playback;
        let (shown, newest) = (number(self.frames.get(p.shown)), number(self.frames.last()));
        let policy = self.edit_policy;
        let start = start_after_edit(old, &doc, shown, newest, policy, &self.registry);
        let policy_kept = match &start {
            Start::After { frame, .. } => *frame as usize,
            Start::Zero => 0,
        };
        if self.loaded.is_none() {
            self.lineage.clear(); // a fresh run (Reset, another file)
        }
        let (graph, kept) = self.lineage.load(&doc, &self.frames, policy_kept);
        self.graph = graph;
        let start = match start {
            // a graph run before keeps exactly its own frames
            _ if kept != policy_kept => match kept {
                0 => Start::Zero,
                k => Start::After {
                    frame: k as u32,
                    live: false,
                },
            },
            start => start,
        };
        self.loaded = Some(view);
        p.replay = None;
        self.gen += 1;
        self.frames.truncate(kept);
        p.shown = p.shown.min(kept.saturating_sub(1));
        p.follow = true;
        p.finished = false;
        self.failure = None;
        self.invalid.clear();
        self.worker.interrupt(); // the frame in progress belongs to the old graph
        self.worker.send(Command::Load {
            gen: self.gen,
            doc: Box::new(doc),
            base_dir: base_dir.to_path_buf(),
            out_dir,
            start,
        });
        true
    }

    /// The frame on screen.
    pub fn shown_frame(&self) -> Option<&Arc<FrameData>> {
        self.frames.get(self.playback.shown)
    }

    /// The per-node status: the shown frame's, the nodes left out, validation errors and the
    /// failure.
    pub fn node_status(&self) -> HashMap<String, NodeStatus> {
        let mut status: HashMap<String, NodeStatus> = HashMap::new();
        if let Some(f) = self.shown_frame() {
            status.extend(f.nodes.iter().cloned());
        }
        for id in &self.left_out {
            status
                .entry(id.clone())
                .or_default()
                .warnings
                .push(LEFT_OUT.into());
        }
        for (node, errs) in &self.invalid {
            if !node.is_empty() {
                status
                    .entry(node.clone())
                    .or_default()
                    .errors
                    .extend(errs.iter().cloned());
            }
        }
        if let Some((Some(node), msg)) = &self.failure {
            status
                .entry(node.clone())
                .or_default()
                .errors
                .push(msg.clone());
        }
        status
    }

    /// Applies the simulation thread's events.
    pub fn poll(&mut self) -> Polled {
        let mut polled = Polled {
            changed: false,
            note: None,
        };
        while let Ok(ev) = self.worker.rx.try_recv() {
            polled.changed = true;
            match ev {
                Event::Loaded { gen, kept, note } if gen == self.gen => {
                    self.invalid.clear();
                    self.frames.truncate(kept as usize);
                    let p = &mut self.playback;
                    p.shown = p.shown.min(self.frames.len().saturating_sub(1));
                    if note.is_some() {
                        polled.note = note;
                    }
                }
                Event::Invalid { gen, errors } if gen == self.gen => {
                    self.invalid.clear();
                    for e in errors {
                        let key = e.node.clone().unwrap_or_default();
                        let text = match (&e.node, &e.field) {
                            (Some(_), Some(f)) => format!("`{f}`: {}", e.message),
                            (Some(_), None) => e.message.clone(),
                            (None, _) => e.to_string(),
                        };
                        self.invalid.entry(key).or_default().push(text);
                    }
                }
                Event::Frame { gen, mut data } if gen == self.gen => {
                    data.graph = self.graph;
                    self.frames.push(Arc::from(data));
                    enforce_budget(&mut self.frames, CACHE_BUDGET_BYTES);
                    self.playback.arrived(self.frames.len());
                }
                Event::Failed { gen, node, message } if gen == self.gen => {
                    self.failure = Some((node, message));
                }
                Event::Playing {
                    gen,
                    playing,
                    finished,
                } if gen == self.gen => {
                    self.playback.worker_says(playing, finished);
                }
                _ => {}
            }
        }
        polled
    }

    /// Frames done, whether the run is over, whether it is broken (invalid graph or failed
    /// run): what a scripted run waits for.
    pub fn progress(&self) -> Progress {
        Progress {
            frames: self.frames.len(),
            finished: self.playback.finished,
            broken: self.failure.is_some() || !self.invalid.is_empty(),
        }
    }

    /// One line naming what went wrong (empty: nothing).
    pub fn problem_summary(&self) -> String {
        if let Some((node, msg)) = &self.failure {
            return match node {
                Some(n) => format!("node `{n}` failed: {msg}"),
                None => msg.clone(),
            };
        }
        let mut all: Vec<String> = self
            .invalid
            .iter()
            .flat_map(|(n, errs)| errs.iter().map(move |e| format!("node `{n}`: {e}")))
            .collect();
        all.sort();
        all.join("; ")
    }
}
