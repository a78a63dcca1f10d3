//! The window's panels: the top bar (file menu, mode switch, the shown mode's controls and
//! timeline) and the run mode's right side (viewport over the stats panel), and the keyboard
//! shortcuts.

use crate::app::{App, Mode};
use crate::graph::document::Pending;
use crate::graph::settings_ui::settings_ui;
use crate::hints::Hint;
use crate::run::stats::{plugins_ui, problems_ui};
use crate::viewport;
use crate::viewport::options::view_options;
use egui::{Context, Key, Modifiers, Ui};
use std::path::{Path, PathBuf};

impl App {
    /// Keyboard shortcuts (ignored while a text field has focus).
    pub(crate) fn shortcuts(&mut self, ctx: &Context) {
        if ctx.wants_keyboard_input() {
            return;
        }
        let cmd = |k: Key| ctx.input_mut(|i| i.consume_key(Modifiers::COMMAND, k));
        // In compare mode the canvas is hidden: no invisible node edits.
        let editing = self.mode == Mode::Run;
        if editing {
            self.edit_shortcuts(ctx);
        }
        if cmd(Key::D) && editing {
            let sel = self.doc.state.selected_nodes.clone();
            self.duplicate(&sel);
        }
        if cmd(Key::G) && editing {
            self.group_selection();
        }
        if cmd(Key::S) {
            self.save();
        }
        if cmd(Key::O) {
            self.request(Pending::Open);
        }
        if cmd(Key::N) {
            self.request(Pending::New);
        }
        let del = ctx.input(|i| i.key_pressed(Key::Delete));
        if del && editing && !self.doc.state.selected_nodes.is_empty() {
            for n in self.doc.state.selected_nodes.clone() {
                self.doc.delete(n);
            }
            self.edited();
        }
        if ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Space)) {
            self.play_pause();
        }
    }

    /// File menu, mode switch, the shown mode's controls and timeline.
    pub(crate) fn top_bar(&mut self, ctx: &Context) {
        egui::TopBottomPanel::top("top_bar").show(ctx, |ui| {
            ui.horizontal(|ui| {
                self.file_menu(ui);
                ui.separator();
                self.mode_switch(ui);
                ui.separator();
                self.mode_controls(ui);
            });
        });
    }

    fn file_menu(&mut self, ui: &mut Ui) {
        ui.menu_button("File", |ui| {
            let item = |ui: &mut Ui, text: &str, keys: &str| {
                let b = egui::Button::new(text).shortcut_text(keys);
                let clicked = ui.add(b).clicked();
                if clicked {
                    ui.close_menu();
                }
                clicked
            };
            if item(ui, "New", "Ctrl+N") {
                self.request(Pending::New);
            }
            if item(ui, "Open…", "Ctrl+O") {
                self.request(Pending::Open);
            }
            let recent: Vec<PathBuf> = (self.chrome.recent.paths().into_iter())
                .map(Path::to_path_buf)
                .collect();
            ui.add_enabled_ui(!recent.is_empty(), |ui| {
                ui.menu_button("Open Recent", |ui| {
                    for path in recent {
                        let name = path.file_name().unwrap_or_default().to_string_lossy();
                        let r = ui.button(name.as_ref()).hint(path.display().to_string());
                        if r.clicked() {
                            ui.close_menu();
                            self.request(Pending::OpenPath(path));
                        }
                    }
                });
            });
            if item(ui, "Save", "Ctrl+S") {
                self.save();
            }
            if item(ui, "Save As…", "") {
                self.save_as(None);
            }
            ui.separator();
            if item(ui, "Quit", "") {
                self.request(Pending::Quit);
            }
        });
    }

    /// The run mode's right side: the viewport over the stats panel.
    pub(crate) fn side_panel(&mut self, ctx: &Context) {
        let width = ctx.screen_rect().width() * 0.36;
        // no background of its own: the window's (see `WINDOW_BACKGROUND`)
        let frame = egui::Frame::side_top_panel(&ctx.style()).fill(egui::Color32::TRANSPARENT);
        egui::SidePanel::right("view_panel")
            .frame(frame)
            .default_width(width)
            .min_width(260.0)
            .resizable(true)
            .show(ctx, |ui| {
                let spec = self.doc.settings.grid_spec();
                let vmax = self
                    .run
                    .frames
                    .iter()
                    .map(|f| f.max_speed)
                    .fold(0.5f32, f32::max);
                let h = (ui.available_height() * 0.62).max(200.0);
                let frame = self.run.shown_frame().cloned();
                ui.allocate_ui(egui::vec2(ui.available_width(), h), |ui| {
                    viewport::show(ui, spec, frame.as_ref(), &mut self.run.cam, vmax);
                });
                view_options(ui, &mut self.run.cam, spec.is_2d(), vmax, frame.as_deref());
                ui.separator();
                egui::ScrollArea::vertical().show(ui, |ui| self.stats_ui(ui));
            });
    }

    /// Problems, frame numbers, solver plot, settings, plugins.
    fn stats_ui(&mut self, ui: &mut Ui) {
        problems_ui(ui, &self.run, &mut self.doc);
        self.run.frame_ui(ui);
        self.run.solve_plot(ui);
        let mut changed = false;
        egui::CollapsingHeader::new("Settings")
            .default_open(false)
            .show(ui, |ui| changed = settings_ui(ui, &mut self.doc));
        if changed {
            self.edited();
        }
        egui::CollapsingHeader::new("Plugins")
            .default_open(false)
            .show(ui, |ui| plugins_ui(ui, &self.plugins));
    }
}
