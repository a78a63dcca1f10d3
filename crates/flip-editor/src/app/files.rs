//! New / Open / Save / Save As in the `GraphDoc` RON format, and the unsaved-changes modal
//! (Save / Discard / Cancel) in front of New, Open and closing the window.

use crate::app::path_dialog::{Outcome, PathDialog, Purpose};
use crate::app::App;
use crate::graph::convert::EditorDoc;
use crate::graph::document::{empty_graph, Pending};
use crate::graph::file_text::text_to_save;
use crate::graph::history::History;
use crate::hints::Hint;
use crate::run::worker::Command;
use egui::{Align2, Context, RichText};
use flip_graph::GraphDoc;
use std::path::{Path, PathBuf};

impl App {
    /// Runs `action`, first asking about unsaved changes.
    pub(crate) fn request(&mut self, action: Pending) {
        if self.file.dirty {
            self.chrome.modal = Some(action);
        } else {
            self.perform(action);
        }
    }

    fn perform(&mut self, action: Pending) {
        self.chrome.modal = None;
        match action {
            Pending::New => {
                self.replace(&empty_graph(), None);
            }
            Pending::Open => {
                let start = self.user.base_dir.join("");
                self.chrome.path_dialog = Some(PathDialog::new(Purpose::Open, &start));
            }
            Pending::OpenPath(path) => self.open_path(&path),
            Pending::Quit => {
                self.chrome.allow_close = true;
                self.run.worker.interrupt();
                self.run.worker.send(Command::Pause);
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
        self.file.text = None;
        self.history = History::new(self.doc.to_doc());
        self.run.loaded = None;
        self.compare.forget(doc);
        self.file.path = path;
        self.file.dirty = false;
        self.file.clean = Some(self.history.current().clone());
        self.chrome.fit_view = true;
        self.chrome.overlap_check = 3;
        self.reload();
    }

    /// Opens a graph file; problems are reported, the current document stays.
    pub(crate) fn open_path(&mut self, path: &Path) {
        match GraphDoc::load(path) {
            Ok(doc) => {
                let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
                self.chrome.open_error = None;
                self.replace(&doc, Some(path.clone()));
                // what the editor makes of the file, with the file's text
                let text = std::fs::read_to_string(&path).ok();
                self.file.text = text.map(|t| (self.doc.to_doc(), t));
                self.notify(format!("opened {}", self.path_name()));
                self.remember(&path);
            }
            Err(e) => {
                self.chrome.open_error = Some(e.to_string());
                if self.run.gen == 0 {
                    self.reload();
                }
            }
        }
    }

    /// Puts `path` first among the recent graphs.
    fn remember(&mut self, path: &Path) {
        self.chrome.offer_last = None;
        if let Err(e) = self.chrome.recent.opened(path) {
            self.notify(format!("cannot keep the recent graphs: {e}"));
        }
    }

    fn path_name(&self) -> String {
        self.file
            .path
            .as_ref()
            .map_or("untitled".into(), |p| p.display().to_string())
    }

    /// Saves to the current file, or asks for one (then saves when the dialog is confirmed).
    /// Returns whether the file was written now.
    pub(crate) fn save(&mut self) -> bool {
        match self.file.path.clone() {
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
            .file
            .path
            .clone()
            .unwrap_or_else(|| self.user.base_dir.join("graph.ron"));
        self.chrome.path_dialog = Some(PathDialog::new(Purpose::SaveAs(then), &start));
    }

    fn save_to(&mut self, path: &Path) -> bool {
        let doc = self.doc.to_doc();
        let text = text_to_save(&doc, self.file.text.as_ref());
        let tmp = path.with_extension("ron.tmp");
        let written = std::fs::write(&tmp, &text).and_then(|()| std::fs::rename(&tmp, path));
        match written {
            Ok(()) => {
                self.file.clean = Some(doc.clone());
                self.file.text = Some((doc, text));
                self.file.dirty = false;
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
        let Some(dialog) = self.chrome.path_dialog.as_mut() else {
            return;
        };
        let purpose = dialog.purpose.clone();
        match dialog.show(ctx) {
            Outcome::Open => {}
            Outcome::Cancelled => self.chrome.path_dialog = None,
            Outcome::Chosen(path) => {
                self.chrome.path_dialog = None;
                match purpose {
                    Purpose::Open => self.open_path(&path),
                    Purpose::SaveAs(then) => {
                        if self.save_to(&path) {
                            let path = path.canonicalize().unwrap_or(path);
                            self.user.base_dir =
                                path.parent().map_or_else(|| ".".into(), Path::to_path_buf);
                            self.remember(&path);
                            self.file.path = Some(path);
                            if let Some(action) = then {
                                self.perform(action);
                            }
                        }
                    }
                }
            }
        }
    }

    /// At a start without a graph: the last one opened, offered until opened or dismissed.
    pub(crate) fn offer_last_ui(&mut self, ctx: &Context) {
        let Some(path) = self.chrome.offer_last.clone() else {
            return;
        };
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let (mut open, mut dismiss) = (false, false);
        egui::Window::new("Continue where you left off?")
            .collapsible(false)
            .resizable(false)
            .anchor(Align2::CENTER_TOP, [0.0, 60.0])
            .show(ctx, |ui| {
                ui.label(format!("The last graph opened was {name}."))
                    .hint(path.display().to_string());
                ui.horizontal(|ui| {
                    open = ui.button(format!("Open {name}")).clicked();
                    dismiss = ui.button("Not now").clicked();
                });
            });
        if open {
            self.request(Pending::OpenPath(path));
        }
        if open || dismiss {
            self.chrome.offer_last = None;
        }
    }

    /// Intercepts the window's close button while there are unsaved changes.
    pub(crate) fn handle_close(&mut self, ctx: &Context) {
        let asked = ctx.input(|i| i.viewport().close_requested());
        if asked && !self.chrome.allow_close && self.file.dirty && !self.auto.active() {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.chrome.modal = Some(Pending::Quit);
        }
        if self.chrome.allow_close && self.chrome.modal.is_none() {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }

    /// The Save / Discard / Cancel dialog.
    pub(crate) fn modal_ui(&mut self, ctx: &Context) {
        let Some(action) = self.chrome.modal.clone() else {
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
            Pending::Open | Pending::OpenPath(_) => "opening another graph",
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
                        if self.file.path.is_none() {
                            self.chrome.modal = None;
                            self.save_as(Some(action.clone()));
                        } else if self.save() {
                            self.perform(action.clone());
                        }
                    }
                    if ui.button("Discard").clicked() {
                        self.file.dirty = false;
                        self.perform(action.clone());
                    }
                    if ui.button("Cancel").clicked() {
                        self.chrome.modal = None;
                    }
                });
            });
    }
}

impl App {
    /// The window title: the file name and a `*` when there are unsaved changes.
    pub(crate) fn update_title(&mut self, ctx: &Context) {
        let name = self
            .file
            .path
            .as_ref()
            .and_then(|p| p.file_name())
            .map_or("untitled (built-in dam break)".to_string(), |n| {
                n.to_string_lossy().into_owned()
            });
        let title = format!(
            "flipgraph editor — {name}{}",
            if self.file.dirty { " *" } else { "" }
        );
        if title != self.chrome.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.chrome.title = title;
        }
    }
}
