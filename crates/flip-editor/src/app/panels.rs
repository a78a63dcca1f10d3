//! The window's panels: top bar (file menu, run controls, frame counter, timeline), the node
//! canvas with its toolbar, and the right side (viewport over the stats panel).

use crate::app::files::Pending;
use crate::app::App;
use crate::hints::Hint;
use crate::run::controls::{run_buttons, view_options, RunButton};
use crate::run::worker::Command;
use crate::viewport;
use egui::{Context, Key, Modifiers, RichText, Ui};
use egui_node_graph2::NodeFinder;
use std::time::Duration;

const FROM_HERE_HELP: &str = "Simulate from here: 0.3 s after the last edit the graph is \
    re-validated and the run continues from the state saved after the shown frame (frames up \
    to it stay cached; nodes the edit changed start afresh, like `flipgraph run --from`). \
    Off: edits rerun from frame 0. Settings (grid, cell size, fps, …) always rerun from 0. \
    Moving nodes, and adding, editing or deleting a node with no wires, keep the cache.";
const LIVE_HELP: &str = "Live edits: gravity, the FLIP ratio and the solver tolerances apply \
    to the running simulation from its newest frame on, without dropping cached frames.";

impl App {
    /// Keyboard shortcuts (ignored while a text field has focus).
    pub(crate) fn shortcuts(&mut self, ctx: &Context) {
        if ctx.wants_keyboard_input() {
            return;
        }
        let cmd = |k: Key| ctx.input_mut(|i| i.consume_key(Modifiers::COMMAND, k));
        if !self.compare.active {
            self.edit_shortcuts(ctx);
        }
        if cmd(Key::D) && !self.compare.active {
            let sel = self.doc.state.selected_nodes.clone();
            self.duplicate(&sel);
        }
        if cmd(Key::G) && !self.compare.active {
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
        // In compare mode the canvas is hidden: no invisible node edits.
        if del && !self.compare.active && !self.doc.state.selected_nodes.is_empty() {
            for n in self.doc.state.selected_nodes.clone() {
                self.doc.delete(n);
            }
            self.edited();
        }
        if ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Space)) {
            if self.compare.active {
                self.compare_play();
            } else {
                self.toggle_play();
            }
        }
    }

    /// File menu, run controls, frame counter and timeline.
    pub(crate) fn top_bar(&mut self, ctx: &Context) {
        egui::TopBottomPanel::top("top_bar").show(ctx, |ui| {
            ui.horizontal(|ui| {
                self.file_menu(ui);
                ui.separator();
                self.mode_switch(ui);
                ui.separator();
                if self.compare.active {
                    self.compare_controls(ui);
                    ui.separator();
                    self.compare_timeline(ui);
                } else {
                    self.run_controls(ui);
                    ui.separator();
                    self.timeline(ui);
                }
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

    fn run_controls(&mut self, ui: &mut Ui) {
        match run_buttons(ui, self.is_playing()) {
            Some(RunButton::PlayPause) => self.toggle_play(),
            Some(RunButton::Step) => self.step_frame(),
            Some(RunButton::Reset) => {
                self.loaded = None; // a fresh run even when the graph did not change
                self.reload();
                self.worker.send(Command::Reset);
            }
            None => {}
        }
        ui.checkbox(&mut self.edit_policy.from_here, "from here")
            .hint(FROM_HERE_HELP);
        ui.checkbox(&mut self.edit_policy.live, "live")
            .hint(LIVE_HELP);
        let r = ui.checkbox(&mut self.write_exports, "exports");
        let r = r.hint(
            "Run export nodes (PLY/PNG files under <graph folder>/out). Off: export nodes are \
             left out of editor runs.",
        );
        if r.changed() {
            self.reload();
        }
    }

    /// The last message (saved, refused link, …) floating over the bottom of the canvas.
    fn toast_ui(&mut self, ui: &Ui) {
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

    /// The node canvas with its toolbar.
    pub(crate) fn canvas_panel(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            ui.add_space(6.0);
            if ui
                .button("➕ Add node")
                .hint("or right-click the canvas")
                .clicked()
            {
                let at = ui.max_rect().left_top() + egui::vec2(40.0, 40.0);
                self.doc.state.node_finder = Some(NodeFinder::new_at(at));
            }
            if ui
                .button("Fit")
                .hint("show the whole graph (F or Home)")
                .clicked()
            {
                self.fit_view = true;
            }
            let tidy = ui
                .button("Tidy")
                .hint("rearrange the nodes in columns by dependency depth (no overlaps)");
            if tidy.clicked() {
                self.tidy = true;
            }
            let group = ui.add_enabled(
                !self.doc.state.selected_nodes.is_empty(),
                egui::Button::new("Group"),
            );
            if group.hint("collapse the selected nodes into one group node (Ctrl+G)").clicked() {
                self.group_selection();
            }
            ui.label(
                RichText::new(
                    "drag ports to connect · Del deletes · Ctrl+D duplicates · Ctrl+G groups · Ctrl+C/V \
                     copy/paste · Ctrl+Z/Ctrl+Shift+Z undo/redo · Ctrl/middle-drag pans · \
                     scroll zooms",
                )
                .weak()
                .small(),
            );
        });
        let rect = ui.available_rect_before_wrap();
        ui.painter()
            .rect_filled(rect, 0.0, egui::Color32::from_rgb(28, 28, 32));
        let mut child = ui.new_child(egui::UiBuilder::new().max_rect(rect));
        if std::mem::take(&mut self.fit_view) {
            let nodes = self.doc.state.graph.iter_nodes();
            let drawn = crate::graph::layout::drawn_rects(ui.ctx(), nodes);
            self.doc.fit(&child, &drawn);
        }
        self.canvas(&mut child);
        self.toast_ui(ui);
    }

    /// The viewport over the stats panel.
    pub(crate) fn side_panel(&mut self, ctx: &Context) {
        let width = ctx.screen_rect().width() * 0.36;
        egui::SidePanel::right("view_panel")
            .default_width(width)
            .min_width(260.0)
            .resizable(true)
            .show(ctx, |ui| {
                let spec = self.doc.settings.grid_spec();
                let vmax = self
                    .frames
                    .iter()
                    .map(|f| f.max_speed)
                    .fold(0.5f32, f32::max);
                let h = (ui.available_height() * 0.62).max(200.0);
                let frame = self.frames.get(self.shown).cloned();
                ui.allocate_ui(egui::vec2(ui.available_width(), h), |ui| {
                    viewport::show(ui, spec, frame.as_ref(), &mut self.cam, vmax);
                });
                view_options(ui, &mut self.cam, spec.is_2d(), vmax, frame.as_deref());
                ui.separator();
                egui::ScrollArea::vertical().show(ui, |ui| self.stats_ui(ui));
            });
    }
}
