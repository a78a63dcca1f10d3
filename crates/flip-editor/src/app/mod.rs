//! The eframe application: the document being edited, the run and compare modes side by side
//! (one shown at a time), and the window's chrome. It lays out the window: top bar, then the
//! shown mode (run: node canvas on the left, viewport and stats on the right; compare: the
//! variant list and the variants' views).

/// The node canvas: its toolbar, the library's responses, groups and Tidy.
pub mod canvas_panel;
/// Dialogs, messages, the window title and requests to the canvas.
pub mod chrome;
/// Undo/redo, copy/paste, swap-kind and new connections, with their shortcuts.
pub mod editing;
/// Open / Save and the unsaved-changes modal.
pub mod files;
/// Switching between the modes, and what goes to the shown one.
pub mod modes;
/// How soon the UI repaints for a new simulated frame.
pub mod pace;
/// Top bar, side panel and the keyboard shortcuts.
pub mod panels;
/// The in-app Open / Save As dialog.
pub mod path_dialog;
/// Recently opened graphs.
pub mod recent;
/// What a UI frame really costs (the GL driver's threads included).
pub mod ui_cost;

use crate::app::chrome::Chrome;
use crate::app::pace::RepaintPace;
use crate::app::recent::RecentFiles;
use crate::app::ui_cost::UiCpuClock;
use crate::compare::mode::CompareMode;
use crate::graph::convert::EditorDoc;
use crate::graph::document::{OpenFile, DEFAULT_SCENE};
use crate::graph::history::History;
use crate::run::autorun::AutoRun;
use crate::run::mode::{RunMode, RELOAD_DELAY};
use crate::run::worker::Command;
use crate::types::UserState;
use egui::Context;
use flip_graph::{GraphDoc, NodeRegistry};
use flip_host::PluginSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Start-up options from the command line.
pub struct Options {
    /// Graph file to open (`None`: the built-in dam break).
    pub graph: Option<PathBuf>,
    /// Autoplay / screenshot / quit for scripted runs.
    pub auto: AutoRun,
    /// Where the recently opened graphs are listed (`None`: nowhere; see
    /// [`recent::RecentFiles::default_list`]).
    pub recent: Option<PathBuf>,
}

/// The mode the window shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The node graph and one run of it.
    Run,
    /// Variants of the graph side by side.
    Compare,
}

/// The editor.
pub struct App {
    /// The graph being edited.
    pub(crate) doc: EditorDoc,
    /// The open file: its path, unsaved changes and text.
    pub(crate) file: OpenFile,
    /// Undo/redo snapshots.
    pub(crate) history: History,
    /// What the node widgets share: the registry, the node status, the graph's folder.
    pub(crate) user: UserState,
    /// The loaded solver plugins.
    pub(crate) plugins: Arc<PluginSet>,
    /// The mode shown; both keep their state while the other is shown.
    pub(crate) mode: Mode,
    /// The run mode: one simulation of the graph.
    pub(crate) run: RunMode,
    /// The compare mode: variants side by side.
    pub(crate) compare: CompareMode,
    /// Dialogs, messages, the title, requests to the canvas.
    pub(crate) chrome: Chrome,
    /// Autoplay / screenshot / quit for scripted runs.
    pub(crate) auto: AutoRun,
    /// The cost of UI frames, which paces the repaints the simulations ask for.
    pub(crate) pace: RepaintPace,
    /// Measures that cost, the GL driver's threads included.
    pub(crate) ui_cpu: UiCpuClock,
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
        let pace = RepaintPace::default();
        let run = RunMode::new(registry.clone(), pace.waker(ctx.clone()));
        let compare = CompareMode::new(registry.clone(), pace.waker(ctx.clone()));
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
        let history = History::new(doc.to_doc());
        let file = OpenFile {
            clean: Some(history.current().clone()),
            ..Default::default()
        };
        let mut app = Self {
            doc,
            file,
            history,
            user,
            plugins,
            mode: Mode::Run,
            run,
            compare,
            chrome: Chrome::new(),
            auto: opts.auto,
            pace,
            ui_cpu: UiCpuClock::default(),
        };
        app.chrome.recent = RecentFiles::load(opts.recent);
        if opts.graph.is_none() {
            app.chrome.offer_last = app.chrome.recent.paths().first().map(|p| p.to_path_buf());
        }
        if let Some(o) = app.auto.overlay {
            app.run.cam.overlay = o;
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
            match app.mode {
                Mode::Compare => app.compare.toggle_play(),
                Mode::Run => app.run.worker.send(Command::Play),
            }
        }
        app
    }

    /// Shows a short message in the top bar.
    pub(crate) fn notify(&mut self, msg: impl Into<String>) {
        self.chrome.notify(msg);
    }

    /// Marks the document changed in a way the simulation must see (restart after a pause).
    pub(crate) fn edited(&mut self) {
        self.file.dirty = true;
        self.history.unrecorded = true;
        self.compare.stale = true;
        self.run.pending_reload = Some(Instant::now());
    }

    /// Sends the current graph to the run (see [`RunMode::reload`]).
    pub(crate) fn reload(&mut self) {
        if self.run.reload(&self.doc, &self.user.base_dir) {
            self.refresh_status();
        }
    }

    /// Rebuilds the per-node status from the run's shown frame, validation and failure.
    pub(crate) fn refresh_status(&mut self) {
        self.user.status = self.run.node_status();
    }

    /// Play or pause the run: plays the cache back from the shown frame, then simulates past
    /// it.
    pub fn toggle_play(&mut self) {
        if self.run.toggle_play(&self.doc, &self.user.base_dir) {
            self.refresh_status();
        }
    }

    /// Frames in the run's cache (simulated so far in this generation).
    pub fn cached_frames(&self) -> usize {
        self.run.frames.len()
    }

    /// The run's cached frames, first frame first.
    pub fn frames(&self) -> &[Arc<crate::frames::FrameData>] {
        &self.run.frames
    }

    /// Whether the run's worker is simulating frames (not playing the cache back).
    pub fn is_simulating(&self) -> bool {
        self.run.playback.playing
    }

    fn poll_worker(&mut self) {
        let polled = self.run.poll();
        if let Some(note) = polled.note {
            self.notify(note);
        }
        if polled.changed {
            self.refresh_status();
        }
    }
}

/// The colour behind the node canvas and the run mode's side panel. The window is cleared to
/// it and neither paints a background of its own: with Mesa's software rasteriser a clear is
/// nearly free while every pixel painted over it goes through the fragment shader, and those
/// two backgrounds were 1.5 of the 2.7 million pixels a 1600×1000 frame painted.
pub const WINDOW_BACKGROUND: egui::Color32 = egui::Color32::from_rgb(28, 28, 32);

impl eframe::App for App {
    fn update(&mut self, ctx: &Context, frame: &mut eframe::Frame) {
        self.record_frame_cost(frame.info().cpu_usage);
        self.ui(ctx);
    }

    fn clear_color(&self, _visuals: &egui::Visuals) -> [f32; 4] {
        WINDOW_BACKGROUND.to_normalized_gamma_f32()
    }
}

impl App {
    /// Records the CPU seconds of the last whole UI frame, which pace the repaints for new
    /// simulated frames ([`pace`]): the UI and GL threads' time since the last call where the
    /// system says ([`ui_cost`]), else `eframe_cpu` (eframe's `cpu_usage`). Returns what it
    /// recorded.
    pub fn record_frame_cost(&mut self, eframe_cpu: Option<f32>) -> Option<f32> {
        let cost = (self.ui_cpu.lap()).map(|d| d.as_secs_f32()).or(eframe_cpu);
        self.pace.record(cost);
        cost
    }

    /// One UI frame (never waits for the worker; headless benchmarks and tests call it).
    pub fn ui(&mut self, ctx: &Context) {
        crate::viewport::points_cache::set_show_delay(ctx, self.pace.gap());
        self.poll_worker();
        self.compare.poll();
        let pending = self.run.pending_reload;
        if pending.is_some_and(|t| t.elapsed() >= RELOAD_DELAY) {
            self.reload();
        } else if pending.is_some() {
            ctx.request_repaint_after(RELOAD_DELAY);
        }
        if self.run.tick(ctx, self.doc.settings.frames) {
            self.refresh_status();
        }
        self.record_history(ctx);
        self.shortcuts(ctx);
        self.handle_close(ctx);
        self.top_bar(ctx);
        match self.mode {
            Mode::Compare => self.compare_ui(ctx),
            Mode::Run => {
                self.side_panel(ctx);
                egui::CentralPanel::default()
                    .frame(egui::Frame::none())
                    .show(ctx, |ui| self.canvas_panel(ui));
            }
        }
        self.chrome.open_error_ui(ctx);
        self.offer_last_ui(ctx);
        self.modal_ui(ctx);
        self.path_dialog_ui(ctx);
        self.update_title(ctx);
        self.auto_step(ctx);
    }
}
