//! The eframe application: owns the document, the simulation worker and the frame cache, and
//! lays out the window (top bar, node canvas on the left, viewport and stats on the right).

/// Undo/redo, copy/paste and swap-kind in the app, with their shortcuts.
pub mod editing;
/// Open / Save and the unsaved-changes modal.
pub mod files;
/// Top bar, canvas and side panels.
pub mod panels;
/// The in-app Open / Save As dialog.
pub mod path_dialog;

use crate::app::files::Pending;
use crate::compare::mode::CompareMode;
use crate::frames::FrameData;
use crate::graph::convert::EditorDoc;
use crate::run::autorun::AutoRun;
use crate::run::worker::{Command, Event, Worker};
use crate::types::{NodeStatus, Response, UserState};
use crate::viewport::Camera;
use egui::Context;
use egui_node_graph2::{InputId, NodeResponse, OutputId};
use flip_graph::{GraphDoc, NodeRegistry};
use flip_plugin::host::PluginSet;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The scene opened when no graph is given.
pub const DEFAULT_SCENE: &str = include_str!("../../../../graphs/dam_break_2d.ron");
/// Edits are applied to the simulation after this much quiet (dragging a value sends many).
const RELOAD_DELAY: Duration = Duration::from_millis(300);

/// Start-up options from the command line.
pub struct Options {
    /// Graph file to open (`None`: the built-in dam break).
    pub graph: Option<PathBuf>,
    /// Autoplay / screenshot / quit for scripted runs.
    pub auto: AutoRun,
}

/// The editor.
pub struct App {
    pub(crate) doc: EditorDoc,
    pub(crate) user: UserState,
    pub(crate) plugins: Arc<PluginSet>,
    /// The open file (`None`: untitled).
    pub(crate) path: Option<PathBuf>,
    pub(crate) dirty: bool,
    pub(crate) worker: Worker,
    pub(crate) gen: u64,
    /// Cached frames of the current generation (index = frame number − 1).
    pub(crate) frames: Vec<Arc<FrameData>>,
    /// Index of the shown frame.
    pub(crate) shown: usize,
    /// Show the newest frame as it arrives.
    pub(crate) follow: bool,
    pub(crate) playing: bool,
    pub(crate) finished: bool,
    /// Validation errors by node id ("" = not about one node).
    pub(crate) invalid: HashMap<String, Vec<String>>,
    /// The run's failure: node and message.
    pub(crate) failure: Option<(Option<String>, String)>,
    pub(crate) cam: Camera,
    /// Run export nodes (write files) in the editor.
    pub(crate) write_exports: bool,
    pub(crate) pending_reload: Option<Instant>,
    pub(crate) modal: Option<Pending>,
    pub(crate) allow_close: bool,
    pub(crate) toast: Option<(String, Instant)>,
    pub(crate) auto: AutoRun,
    pub(crate) title: String,
    /// Fit the canvas to the graph on the next frame.
    pub(crate) fit_view: bool,
    /// Rearrange the nodes on the next frame.
    pub(crate) tidy: bool,
    /// Frames until the freshly loaded layout is checked for overlapping nodes.
    pub(crate) overlap_check: u8,
    /// The Open / Save As dialog, while open.
    pub(crate) path_dialog: Option<crate::app::path_dialog::PathDialog>,
    /// The compare mode (variants side by side).
    pub(crate) compare: CompareMode,
    /// Cached frames being played back.
    pub(crate) playback: Option<crate::run::timeline::Playback>,
    /// Undo/redo snapshots.
    pub(crate) history: crate::graph::history::History,
    /// An edit (or move) not yet recorded in the history.
    pub(crate) unrecorded: bool,
    /// What the simulation runs (see [`crate::run::worker::sim_view`]) and its output folder: a
    /// reload that would run the same leaves the cache alone.
    pub(crate) loaded: Option<(GraphDoc, Option<PathBuf>)>,
    /// What an edit does to the run (from here or from frame 0; live edits).
    pub(crate) edit_policy: crate::run::resim::EditPolicy,
    /// The open file as read or last saved, and its text (see [`crate::app::files::text_to_save`]).
    pub(crate) file_text: Option<(GraphDoc, String)>,
}

impl App {
    /// Builds the editor: starts the worker and loads the initial graph.
    pub fn new(
        ctx: &Context,
        plugins: Arc<PluginSet>,
        registry: NodeRegistry,
        opts: Options,
    ) -> Self {
        let registry = Arc::new(registry);
        let wake_ctx = ctx.clone();
        let worker = Worker::spawn(registry.clone(), move || wake_ctx.request_repaint());
        let wake_ctx = ctx.clone();
        let compare = CompareMode::new(registry.clone(), move || wake_ctx.request_repaint());
        let mut user = UserState::new(registry);
        user.lcp_solvers = plugins
            .algorithms()
            .into_iter()
            .filter(|(_, info)| info.supports_lcp())
            .map(|(name, _)| name)
            .collect();
        let default = GraphDoc::from_ron(DEFAULT_SCENE, "built-in dam_break_2d.ron")
            .expect("the built-in scene parses");
        let doc = EditorDoc::new(&default, &user);
        let history = crate::graph::history::History::new(doc.to_doc());
        let mut app = Self {
            doc,
            user,
            plugins,
            path: None,
            dirty: false,
            worker,
            gen: 0,
            frames: vec![],
            shown: 0,
            follow: true,
            playing: false,
            finished: false,
            invalid: HashMap::new(),
            failure: None,
            cam: Camera::default(),
            write_exports: false,
            pending_reload: None,
            modal: None,
            allow_close: false,
            toast: None,
            auto: opts.auto,
            title: String::new(),
            fit_view: true,
            tidy: false,
            overlap_check: 3,
            path_dialog: None,
            compare,
            playback: None,
            history,
            unrecorded: false,
            loaded: None,
            edit_policy: Default::default(),
            file_text: None,
        };
        if let Some(o) = app.auto.overlay {
            app.cam.overlay = o;
        }
        match opts.graph {
            Some(path) => app.open_path(&path),
            None => app.reload(),
        }
        if app.auto.compare {
            app.enter_compare();
            app.start_compare();
        }
        // `--compare` alone runs the variants at once too.
        if (app.auto.autoplay || app.auto.compare) && !app.auto.active() {
            if app.compare.active {
                app.compare.toggle_play();
            } else {
                app.worker.send(Command::Play);
            }
        }
        app
    }

    /// Shows a short message in the top bar.
    pub(crate) fn notify(&mut self, msg: impl Into<String>) {
        self.toast = Some((msg.into(), Instant::now()));
    }

    /// Marks the document changed in a way the simulation must see (restart after a pause).
    pub(crate) fn edited(&mut self) {
        self.dirty = true;
        self.unrecorded = true;
        self.compare.stale = true;
        self.pending_reload = Some(Instant::now());
    }

    /// Sends the current graph, less its unwired nodes, to the worker (keeps playing if it
    /// was), unless what it simulates did not change (a node moved, an unwired node added,
    /// edited or deleted): then the cache and the running simulation stay. The run continues
    /// from the shown frame or restarts at frame 0 as [`crate::run::resim::start_after_edit`] says.
    pub(crate) fn reload(&mut self) {
        self.pending_reload = None;
        let out_dir = self.write_exports.then(|| self.user.base_dir.join("out"));
        let doc = crate::run::worker::sim_view(&self.doc.to_doc());
        let view = (doc.clone(), out_dir.clone());
        if self.loaded.as_ref() == Some(&view) {
            return;
        }
        let same_out = self.loaded.as_ref().is_some_and(|(_, o)| *o == out_dir);
        let old = self.loaded.as_ref().filter(|_| same_out).map(|(d, _)| d);
        let number = |f: Option<&Arc<FrameData>>| f.map_or(0, |f| f.frame);
        let (shown, newest) = (
            number(self.frames.get(self.shown)),
            number(self.frames.last()),
        );
        let start = crate::run::resim::start_after_edit(old, &doc, shown, newest, self.edit_policy);
        let kept = match &start {
            crate::run::resim::Start::After { frame, .. } => *frame as usize,
            crate::run::resim::Start::Zero => 0,
        };
        self.loaded = Some(view);
        self.playback = None;
        self.gen += 1;
        self.frames.truncate(kept);
        self.shown = self.shown.min(kept.saturating_sub(1));
        self.follow = true;
        self.finished = false;
        self.failure = None;
        self.invalid.clear();
        self.worker.interrupt(); // the frame in progress belongs to the old graph
        self.worker.send(Command::Load {
            gen: self.gen,
            doc: Box::new(doc),
            base_dir: self.user.base_dir.clone(),
            out_dir,
            start,
        });
        self.refresh_status();
    }

    /// The frame on screen.
    pub(crate) fn shown_frame(&self) -> Option<&Arc<FrameData>> {
        self.frames.get(self.shown)
    }

    /// Rebuilds the per-node status from the shown frame, validation and the failure.
    pub(crate) fn refresh_status(&mut self) {
        let mut status: HashMap<String, NodeStatus> = HashMap::new();
        if let Some(f) = self.frames.get(self.shown) {
            status.extend(f.nodes.iter().cloned());
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
        self.user.status = status;
    }

    fn poll_worker(&mut self) {
        let mut changed = false;
        while let Ok(ev) = self.worker.rx.try_recv() {
            changed = true;
            match ev {
                Event::Loaded { gen, kept, note } if gen == self.gen => {
                    self.invalid.clear();
                    self.frames.truncate(kept as usize);
                    self.shown = self.shown.min(self.frames.len().saturating_sub(1));
                    if let Some(note) = note {
                        self.notify(note);
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
                Event::Frame { gen, data } if gen == self.gen => {
                    self.frames.push(Arc::from(data));
                    crate::frames::enforce_budget(
                        &mut self.frames,
                        crate::frames::CACHE_BUDGET_BYTES,
                    );
                    if self.follow {
                        self.shown = self.frames.len() - 1;
                    }
                }
                Event::Failed { gen, node, message } if gen == self.gen => {
                    self.failure = Some((node, message));
                }
                Event::Playing {
                    gen,
                    playing,
                    finished,
                } if gen == self.gen => {
                    self.playing = playing;
                    self.finished = finished;
                }
                _ => {}
            }
        }
        if changed {
            self.refresh_status();
        }
    }

    /// Draws the node canvas and applies the library's responses.
    pub(crate) fn canvas(&mut self, ui: &mut egui::Ui) {
        let before: HashMap<InputId, Vec<OutputId>> =
            self.doc.state.graph.iter_connection_groups().collect();
        let zoom = self.doc.state.pan_zoom.zoom;
        if std::mem::take(&mut self.tidy) {
            self.tidy_layout(ui);
        }
        self.user.wire_choices = self.wire_choices();
        let resp = crate::graph::canvas::draw(&mut self.doc.state, ui, &mut self.user);
        self.check_overlap(ui.ctx());
        self.doc.track_zoom(zoom);
        for r in resp.node_responses {
            match r {
                NodeResponse::ConnectEventEnded { output, input, .. } => {
                    self.connected(output, input, &before);
                }
                NodeResponse::DisconnectEvent { .. } | NodeResponse::DeleteNodeFull { .. } => {
                    self.edited();
                }
                NodeResponse::CreatedNode(n) => {
                    self.doc.adopt_new_node(n);
                    self.edited();
                }
                NodeResponse::MoveNode { .. } => {
                    self.dirty = true;
                    self.unrecorded = true;
                }
                NodeResponse::User(Response::ParamChanged { node, name }) => {
                    self.doc.state.graph[node].user_data.explicit.insert(name);
                    self.doc.sync_params(node, &self.user.registry);
                    self.edited();
                }
                NodeResponse::User(Response::Duplicate(node)) => self.duplicate(&[node]),
                NodeResponse::User(Response::Expand(node)) => self.expand_group(node),
                NodeResponse::User(Response::Swap(node, kind)) => self.swap_kind(node, &kind),
                NodeResponse::User(Response::Bypass(node)) => {
                    if let Some(n) = self.doc.state.graph.nodes.get_mut(node) {
                        n.user_data.bypass = !n.user_data.bypass;
                        self.edited();
                    }
                }
                NodeResponse::User(Response::InsertOnWire(node, wire)) => {
                    self.insert_on_wire(node, &wire);
                }
                _ => {}
            }
        }
    }
}

impl eframe::App for App {
    fn update(&mut self, ctx: &Context, _frame: &mut eframe::Frame) {
        self.ui(ctx);
    }
}

impl App {
    /// One UI frame (never waits for the worker; headless benchmarks and tests call it).
    pub fn ui(&mut self, ctx: &Context) {
        self.poll_worker();
        self.compare.poll();
        if self
            .pending_reload
            .is_some_and(|t| t.elapsed() >= RELOAD_DELAY)
        {
            self.reload();
        } else if self.pending_reload.is_some() {
            ctx.request_repaint_after(RELOAD_DELAY);
        }
        self.tick_playback(ctx);
        self.record_history(ctx);
        self.shortcuts(ctx);
        self.handle_close(ctx);
        self.top_bar(ctx);
        if self.compare.active {
            self.compare_ui(ctx);
        } else {
            self.side_panel(ctx);
            egui::CentralPanel::default()
                .frame(egui::Frame::none())
                .show(ctx, |ui| self.canvas_panel(ui));
        }
        self.modal_ui(ctx);
        self.path_dialog_ui(ctx);
        self.update_title(ctx);
        self.auto_step(ctx);
    }
}
