//! A small in-app file dialog for Open and Save As: a path field, the `.ron` files and folders
//! next to it, and a "Browse…" button for the system dialog (rfd). The in-app part works where
//! no desktop portal or zenity is available (bare X servers, Xvfb), where rfd cannot show
//! anything and cancel cannot be told from failure.

use crate::graph::document::Pending;
use crate::hints::Hint;
use egui::{Context, RichText};
use std::path::{Path, PathBuf};

/// What the dialog is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// Open a graph.
    Open,
    /// Save the graph, then run the pending action (if any).
    SaveAs(Option<Pending>),
}

/// The dialog's state.
pub struct PathDialog {
    /// Open or Save As.
    pub purpose: Purpose,
    /// The path being typed.
    pub text: String,
}

/// What the user did this frame.
pub enum Outcome {
    /// Still open.
    Open,
    /// Confirmed this path.
    Chosen(PathBuf),
    /// Cancelled.
    Cancelled,
}

impl PathDialog {
    /// A dialog starting at `start` (a file or folder).
    pub fn new(purpose: Purpose, start: &Path) -> Self {
        Self {
            purpose,
            text: start.display().to_string(),
        }
    }

    /// Folder whose entries are listed: the typed path if it is a folder, else its parent.
    fn folder(&self) -> PathBuf {
        let p = PathBuf::from(&self.text);
        if p.is_dir() {
            return p;
        }
        match p.parent() {
            Some(d) if d.as_os_str().is_empty() => PathBuf::from("."),
            Some(d) => d.to_path_buf(),
            None => PathBuf::from("."),
        }
    }

    /// Draws the dialog.
    pub fn show(&mut self, ctx: &Context) -> Outcome {
        let title = match self.purpose {
            Purpose::Open => "Open graph",
            Purpose::SaveAs(_) => "Save graph as",
        };
        let mut outcome = Outcome::Open;
        egui::Window::new(title)
            .order(egui::Order::Foreground)
            .collapsible(false)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .default_width(520.0)
            .show(ctx, |ui| {
                let r = ui.add(egui::TextEdit::singleline(&mut self.text).desired_width(500.0));
                let enter = r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                self.entries(ui);
                ui.horizontal(|ui| {
                    let ok = if matches!(self.purpose, Purpose::Open) {
                        "Open"
                    } else {
                        "Save"
                    };
                    if ui.button(ok).clicked() || enter {
                        outcome = self.confirm();
                    }
                    if ui.button("Cancel").clicked() {
                        outcome = Outcome::Cancelled;
                    }
                    if ui.button("Browse…").hint("system file dialog").clicked() {
                        self.browse();
                    }
                });
            });
        outcome
    }

    fn confirm(&self) -> Outcome {
        let mut p = PathBuf::from(self.text.trim());
        if p.as_os_str().is_empty() || p.is_dir() {
            return Outcome::Open;
        }
        if matches!(self.purpose, Purpose::SaveAs(_)) && p.extension().is_none() {
            p.set_extension("ron");
        }
        Outcome::Chosen(p)
    }

    /// `..`, sub-folders and `.ron` files of the listed folder.
    fn entries(&mut self, ui: &mut egui::Ui) {
        let dir = self.folder();
        let mut items: Vec<(bool, PathBuf)> = std::fs::read_dir(&dir)
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "ron"))
                    .map(|p| (!p.is_dir(), p))
                    .collect()
            })
            .unwrap_or_default();
        items.sort();
        ui.label(RichText::new(dir.display().to_string()).weak());
        egui::ScrollArea::vertical()
            .max_height(220.0)
            .show(ui, |ui| {
                if let Some(up) = dir
                    .canonicalize()
                    .ok()
                    .and_then(|d| d.parent().map(Path::to_path_buf))
                {
                    if ui.selectable_label(false, "📁 ..").clicked() {
                        self.text = format!("{}/", up.display());
                    }
                }
                for (is_file, p) in items {
                    let name = p
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let label = if is_file {
                        format!("📄 {name}")
                    } else {
                        format!("📁 {name}")
                    };
                    if ui.selectable_label(false, label).clicked() {
                        self.text = if is_file {
                            p.display().to_string()
                        } else {
                            format!("{}/", p.display())
                        };
                    }
                }
            });
    }

    fn browse(&mut self) {
        let dialog = rfd::FileDialog::new()
            .add_filter("flipgraph graph", &["ron"])
            .set_directory(self.folder());
        let picked = match self.purpose {
            Purpose::Open => dialog.pick_file(),
            Purpose::SaveAs(_) => dialog.set_file_name("graph.ron").save_file(),
        };
        if let Some(p) = picked {
            self.text = p.display().to_string();
        }
    }
}
