//! New / Open / Save / Save As in the `GraphDoc` RON format, and the unsaved-changes modal
//! (Save / Discard / Cancel) in front of New, Open and closing the window.

use crate::app::path_dialog::{Outcome, PathDialog, Purpose};
use crate::app::App;
use crate::graph::convert::EditorDoc;
use egui::{Align2, Context, RichText};
use flip_graph::{GraphDoc, NodeDoc, FORMAT_VERSION};
use std::path::{Path, PathBuf};

/// The text Save writes for `doc`: the file's own text when `doc` is what was read from (or
/// last written to) it, so saving an unchanged graph changes nothing on disk (comments and the
/// file's order of parameters and positions stay); else the document as RON.
pub fn text_to_save(doc: &GraphDoc, file: Option<&(GraphDoc, String)>) -> String {
    match file {
        Some((read, text)) if read == doc => text.clone(),
        _ => doc.to_ron(),
    }
}

/// An action that would discard the document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pending {
    /// Start an empty graph.
    New,
    /// Open a file (asks which).
    Open,
    /// Close the window.
    Quit,
}

/// A new graph: the step-state pair and the settings of the built-in scene.
pub fn empty_graph() -> GraphDoc {
    let base = GraphDoc::from_ron(crate::app::DEFAULT_SCENE, "built-in").expect("built-in parses");
    let node = |id: &str, kind: &str| NodeDoc::new(id, kind);
    let mut layout = flip_graph::doc::Layout::default();
    layout.positions.insert("step_in".into(), (40.0, 40.0));
    layout.positions.insert("step_out".into(), (700.0, 40.0));
    GraphDoc {
        format_version: FORMAT_VERSION,
        description: "New graph".into(),
        settings: base.settings,
        nodes: vec![
            node("step_in", "step_input"),
            node("step_out", "step_output"),
        ],
        edges: vec![],
        groups: vec![],
        variants: vec![],
        layout,
    }
}

impl App {
    /// Runs `action`, first asking about unsaved changes.
    pub(crate) fn request(&mut self, action: Pending) {
        if self.dirty {
            self.modal = Some(action);
        } else {
            self.perform(action);
        }
    }

    fn perform(&mut self, action: Pending) {
        self.modal = None;
        match action {
            Pending::New => {
                self.replace(&empty_graph(), None);
            }
            Pending::Open => {
                let start = self.user.base_dir.join("");
                self.path_dialog = Some(PathDialog::new(Purpose::Open, &start));
            }
            Pending::Quit => {
                self.allow_close = true;
                self.worker.interrupt();
                self.worker.send(crate::run::worker::Command::Pause);
            }
        }
    }

    /// Replaces the document (and restarts the simulation on it).
    fn replace(&mut self, doc: &GraphDoc, path: Option<PathBuf>) {
        self.user.base_dir = path
            .as_deref()
            .and_then(Path::parent)
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        self.doc = EditorDoc::new(doc, &self.user);
        self.file_text = None;
        self.history = crate::graph::history::History::new(self.doc.to_doc());
        self.unrecorded = false;
        self.loaded = None;
        self.compare.forget(doc);
        self.path = path;
        self.dirty = false;
        self.fit_view = true;
        self.overlap_check = 3;
        self.reload();
    }

    /// Opens a graph file; problems are reported, the current document stays.
    pub(crate) fn open_path(&mut self, path: &Path) {
        match GraphDoc::load(path) {
            Ok(doc) => {
                let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
                self.replace(&doc, Some(path.clone()));
                // what the editor makes of the file, with the file's text
                let text = std::fs::read_to_string(&path).ok();
                self.file_text = text.map(|t| (self.doc.to_doc(), t));
                self.notify(format!("opened {}", self.path_name()));
            }
            Err(e) => {
                self.notify(format!("cannot open: {e}"));
                if self.gen == 0 {
                    self.reload();
                }
            }
        }
    }

    fn path_name(&self) -> String {
        self.path
            .as_ref()
            .map_or("untitled".into(), |p| p.display().to_string())
    }

    /// Saves to the current file, or asks for one (then saves when the dialog is confirmed).
    /// Returns whether the file was written now.
    pub(crate) fn save(&mut self) -> bool {
        match self.path.clone() {
            Some(p) => self.save_to(&p),
            None => {
                self.save_as(None);
                false
            }
        }
    }

    /// Asks for a file name; `then` runs after a successful save.
    pub(crate) fn save_as(&mut self, then: Option<Pending>) {
        let start = self
            .path
            .clone()
            .unwrap_or_else(|| self.user.base_dir.join("graph.ron"));
        self.path_dialog = Some(PathDialog::new(Purpose::SaveAs(then), &start));
    }

    fn save_to(&mut self, path: &Path) -> bool {
        let doc = self.doc.to_doc();
        let text = text_to_save(&doc, self.file_text.as_ref());
        let tmp = path.with_extension("ron.tmp");
        let written = std::fs::write(&tmp, &text).and_then(|()| std::fs::rename(&tmp, path));
        match written {
            Ok(()) => {
                self.file_text = Some((doc, text));
                self.dirty = false;
                self.notify(format!("saved {}", path.display()));
                true
            }
            Err(e) => {
                self.notify(format!("cannot save: {e}"));
                false
            }
        }
    }

    /// Shows the Open / Save As dialog while one is open.
    pub(crate) fn path_dialog_ui(&mut self, ctx: &Context) {
        let Some(dialog) = self.path_dialog.as_mut() else {
            return;
        };
        let purpose = dialog.purpose;
        match dialog.show(ctx) {
            Outcome::Open => {}
            Outcome::Cancelled => self.path_dialog = None,
            Outcome::Chosen(path) => {
                self.path_dialog = None;
                match purpose {
                    Purpose::Open => self.open_path(&path),
                    Purpose::SaveAs(then) => {
                        if self.save_to(&path) {
                            let path = path.canonicalize().unwrap_or(path);
                            self.user.base_dir =
                                path.parent().map_or_else(|| ".".into(), Path::to_path_buf);
                            self.path = Some(path);
                            if let Some(action) = then {
                                self.perform(action);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Intercepts the window's close button while there are unsaved changes.
    pub(crate) fn handle_close(&mut self, ctx: &Context) {
        let asked = ctx.input(|i| i.viewport().close_requested());
        if asked && !self.allow_close && self.dirty && !self.auto.active() {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.modal = Some(Pending::Quit);
        }
        if self.allow_close && self.modal.is_none() {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }

    /// The Save / Discard / Cancel dialog.
    pub(crate) fn modal_ui(&mut self, ctx: &Context) {
        let Some(action) = self.modal else {
            return;
        };
        let screen = ctx.screen_rect();
        egui::Area::new(egui::Id::new("modal_shade"))
            .order(egui::Order::Middle)
            .fixed_pos(screen.min)
            .show(ctx, |ui| {
                let (rect, _) = ui.allocate_exact_size(screen.size(), egui::Sense::click());
                ui.painter()
                    .rect_filled(rect, 0.0, egui::Color32::from_black_alpha(140));
            });
        let what = match action {
            Pending::New => "starting a new graph",
            Pending::Open => "opening another graph",
            Pending::Quit => "closing",
        };
        egui::Window::new("Unsaved changes")
            .order(egui::Order::Foreground)
            .collapsible(false)
            .resizable(false)
            .anchor(Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ctx, |ui| {
                ui.label(format!("{} has unsaved changes.", self.path_name()));
                ui.label(RichText::new(format!("Save them before {what}?")).strong());
                ui.horizontal(|ui| {
                    if ui.button("Save").clicked() {
                        if self.path.is_none() {
                            self.modal = None;
                            self.save_as(Some(action));
                        } else if self.save() {
                            self.perform(action);
                        }
                    }
                    if ui.button("Discard").clicked() {
                        self.dirty = false;
                        self.perform(action);
                    }
                    if ui.button("Cancel").clicked() {
                        self.modal = None;
                    }
                });
            });
    }
}

impl App {
    /// The window title: the file name and a `*` when there are unsaved changes.
    pub(crate) fn update_title(&mut self, ctx: &Context) {
        let name = self
            .path
            .as_ref()
            .and_then(|p| p.file_name())
            .map_or("untitled (built-in dam break)".to_string(), |n| {
                n.to_string_lossy().into_owned()
            });
        let title = format!(
            "flipgraph editor — {name}{}",
            if self.dirty { " *" } else { "" }
        );
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
    }
}
