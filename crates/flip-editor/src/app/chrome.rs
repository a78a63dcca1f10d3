//! The window's chrome: the unsaved-changes question, the Open / Save As dialog, the last
//! message, the title, the canvas's pending requests (fit, tidy, overlap check) and whether the
//! window may close.

use crate::app::path_dialog::PathDialog;
use crate::app::recent::RecentFiles;
use crate::graph::document::Pending;
use egui::{RichText, Ui};
use std::time::{Duration, Instant};

/// Dialogs, messages, title and canvas requests.
pub struct Chrome {
    /// The Save / Discard / Cancel question, while asked.
    pub modal: Option<Pending>,
    /// The Open / Save As dialog, while open.
    pub path_dialog: Option<PathDialog>,
    /// The last message and when it came.
    pub toast: Option<(String, Instant)>,
    /// A file that could not be opened and why: shown until dismissed.
    pub open_error: Option<String>,
    /// The recently opened graphs (File ▸ Open Recent).
    pub recent: RecentFiles,
    /// The last graph opened, offered at a start without one until opened or dismissed.
    pub offer_last: Option<std::path::PathBuf>,
    /// The window title as last set.
    pub title: String,
    /// Where the node canvas was drawn last (pastes land at the pointer on it).
    pub canvas_rect: Option<egui::Rect>,
    /// Fit the canvas to the graph on the next frame.
    pub fit_view: bool,
    /// Rearrange the nodes on the next frame.
    pub tidy: bool,
    /// Frames until the freshly loaded layout is checked for overlapping nodes.
    pub overlap_check: u8,
    /// The window may close (nothing left to ask).
    pub allow_close: bool,
}

impl Chrome {
    /// No dialog or message; the first frames fit the canvas and check the layout.
    pub fn new() -> Self {
        Self {
            modal: None,
            path_dialog: None,
            toast: None,
            open_error: None,
            recent: RecentFiles::default(),
            offer_last: None,
            title: String::new(),
            canvas_rect: None,
            fit_view: true,
            tidy: false,
            overlap_check: 3,
            allow_close: false,
        }
    }

    /// Shows a short message over the canvas.
    pub fn notify(&mut self, msg: impl Into<String>) {
        self.toast = Some((msg.into(), Instant::now()));
    }

    /// The last message (saved, refused link, …) floating over the bottom of `ui`.
    pub fn toast_ui(&mut self, ui: &Ui) {
        let Some((msg, at)) = &self.toast else {
            return;
        };
        if at.elapsed() > Duration::from_secs(6) {
            self.toast = None;
            return;
        }
        let pos = ui.max_rect().left_bottom() + egui::vec2(12.0, -40.0);
        egui::Area::new(egui::Id::new("toast"))
            .order(egui::Order::Foreground)
            .fixed_pos(pos)
            .show(ui.ctx(), |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.label(
                        RichText::new(msg.as_str()).color(egui::Color32::from_rgb(240, 200, 120)),
                    );
                });
            });
        ui.ctx().request_repaint_after(Duration::from_millis(500));
    }
}

impl Chrome {
    /// Why a file could not be opened, in a window that stays until dismissed.
    pub fn open_error_ui(&mut self, ctx: &egui::Context) {
        let Some(msg) = &self.open_error else {
            return;
        };
        let mut dismissed = false;
        egui::Window::new("Cannot open the graph")
            .order(egui::Order::Foreground)
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_TOP, [0.0, 60.0])
            .show(ctx, |ui| {
                let text =
                    RichText::new(msg.as_str()).color(egui::Color32::from_rgb(255, 150, 130));
                ui.add(egui::Label::new(text).wrap());
                ui.label(RichText::new("the graph shown is the one open before").weak());
                dismissed = ui.button("Dismiss").clicked();
            });
        if dismissed {
            self.open_error = None;
        }
    }
}

impl Default for Chrome {
    fn default() -> Self {
        Self::new()
    }
}
