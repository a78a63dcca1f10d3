//! The stats panel under the viewport: problems, the shown frame's numbers, a plot of pressure
//! iterations per frame, the graph's settings and the loaded plugins.

use crate::app::App;
use crate::hints::Hint;
use egui::{Color32, DragValue, RichText, Ui};
use egui_plot::{Line, Plot, PlotPoints, VLine};

impl App {
    /// Problems, frame numbers, solver plot, settings, plugins.
    pub(crate) fn stats_ui(&mut self, ui: &mut Ui) {
        self.problems_ui(ui);
        self.frame_ui(ui);
        self.solve_plot(ui);
        egui::CollapsingHeader::new("Settings")
            .default_open(false)
            .show(ui, |ui| self.settings_ui(ui));
        egui::CollapsingHeader::new("Plugins")
            .default_open(false)
            .show(ui, |ui| self.plugins_ui(ui));
    }

    fn problems_ui(&mut self, ui: &mut Ui) {
        let red = Color32::from_rgb(255, 110, 100);
        if let Some((node, msg)) = &self.failure {
            let who = node
                .as_deref()
                .map_or(String::new(), |n| format!("node `{n}`: "));
            ui.colored_label(red, format!("⚠ run stopped: {who}{msg}"));
            ui.label(RichText::new("fix the graph (it restarts) or press Reset").weak());
        }
        let mut nodes: Vec<_> = self.invalid.iter().collect();
        nodes.sort();
        for (node, errs) in nodes {
            for e in errs {
                let text = if node.is_empty() {
                    format!("⚠ {e}")
                } else {
                    format!("⚠ node `{node}`: {e}")
                };
                let r = ui.add(
                    egui::Label::new(RichText::new(text).color(red)).sense(egui::Sense::click()),
                );
                if r.hint("click to select the node").clicked() {
                    if let Some(id) = self.doc.find(node) {
                        self.doc.state.selected_nodes = vec![id];
                    }
                }
            }
        }
    }

    fn frame_ui(&self, ui: &mut Ui) {
        let Some(f) = self.shown_frame() else {
            let hint = if self.invalid.is_empty() {
                "press ▶ Play (Space) or ⏭ Step"
            } else {
                "the graph does not validate"
            };
            ui.label(RichText::new(hint).weak());
            return;
        };
        egui::Grid::new("frame_stats")
            .num_columns(4)
            .show(ui, |ui| {
                ui.label("frame");
                ui.label(format!("{} (t = {:.3} s)", f.frame, f.time));
                ui.label("particles");
                ui.label(format!("{}", f.particles));
                ui.end_row();
                ui.label("substeps");
                ui.label(format!("{}", f.substeps));
                ui.label("max speed");
                ui.label(format!("{:.3} m/s", f.max_speed));
                ui.end_row();
                ui.label("frame time");
                ui.label(format!("{:.1} ms", f.wall_ms));
                ui.label("pressure");
                ui.label(format!(
                    "{:.0} it, res ≤ {:.1e}",
                    f.solve_iterations, f.solve_residual
                ));
                ui.end_row();
            });
        if f.sample.points.len() < f.particles {
            ui.label(
                RichText::new(format!(
                    "showing {} of {} particles",
                    f.sample.points.len(),
                    f.particles
                ))
                .weak(),
            );
        }
    }

    fn solve_plot(&self, ui: &mut Ui) {
        if self.frames.is_empty() {
            return;
        }
        let pts: Vec<[f64; 2]> = self
            .frames
            .iter()
            .map(|f| [f64::from(f.frame), f.solve_iterations])
            .collect();
        let shown = self.shown_frame().map_or(0.0, |f| f64::from(f.frame));
        ui.add_space(8.0);
        ui.label(
            RichText::new("pressure iterations per frame")
                .small()
                .weak(),
        );
        Plot::new("solve_plot")
            .height(140.0)
            .allow_scroll(false)
            .allow_drag(false)
            .allow_zoom(false)
            .include_y(0.0)
            .x_axis_label("frame")
            .y_axis_label("iterations")
            .show(ui, |p| {
                p.line(Line::new(PlotPoints::from(pts)).name("iterations per frame"));
                p.vline(VLine::new(shown).color(Color32::from_gray(160)));
            });
    }

    fn settings_ui(&mut self, ui: &mut Ui) {
        let s = &mut self.doc.settings;
        let mut changed = false;
        egui::Grid::new("settings").num_columns(2).show(ui, |ui| {
            ui.label("grid (ni, nj, nk)")
                .hint("nk = 1 makes a 2D simulation");
            ui.horizontal(|ui| {
                for (axis, n) in s.grid.iter_mut().enumerate() {
                    let min = if axis == 2 { 1 } else { 4 };
                    let before = *n;
                    if ui.add(DragValue::new(n).range(min..=512)).changed() {
                        *n = valid_cells(axis, before, *n);
                        changed = true;
                    }
                }
            });
            ui.end_row();
            let mut row = |ui: &mut Ui, label: &str, v: &mut f32, speed: f64| {
                ui.label(label);
                changed |= ui
                    .add(DragValue::new(v).speed(speed).range(0.0..=1e6))
                    .changed();
                ui.end_row();
            };
            row(ui, "cell size (m)", &mut s.cell_size, 0.0001);
            row(ui, "fps", &mut s.fps, 0.1);
            row(ui, "cfl", &mut s.cfl, 0.01);
            row(ui, "fixed dt (s, 0 = CFL)", &mut s.fixed_dt, 0.0001);
            row(ui, "density (kg/m³)", &mut s.density, 1.0);
            ui.label("frames");
            changed |= ui
                .add(DragValue::new(&mut s.frames).range(1..=100_000))
                .changed();
            ui.end_row();
            ui.label("max substeps");
            changed |= ui
                .add(DragValue::new(&mut s.max_substeps).range(1..=10_000))
                .changed();
            ui.end_row();
            ui.label("seed");
            changed |= ui.add(DragValue::new(&mut s.seed)).changed();
            ui.end_row();
            ui.label("description");
            changed |= ui.text_edit_singleline(&mut self.doc.description).changed();
            ui.end_row();
        });
        if changed {
            self.edited();
        }
    }

    fn plugins_ui(&self, ui: &mut Ui) {
        let algos = self.plugins.algorithms();
        if algos.is_empty() {
            ui.colored_label(
                Color32::from_rgb(255, 110, 100),
                "no solver plugins loaded: build them (cargo build --release) or pass --plugin-dir",
            );
        }
        for (name, info) in algos {
            let lcp = if info.supports_lcp() { " (LCP)" } else { "" };
            ui.label(format!("• {name}{lcp}")).hint(&info.help);
        }
        for r in &self.plugins.refused {
            ui.colored_label(Color32::from_rgb(240, 180, 90), format!("refused: {r}"));
        }
    }
}

/// Cells along `axis` after an edit from `before` to `typed`: at least 4 (what validation
/// needs), except nk = 1 for 2D; nk = 2 or 3 goes on to 4 or back to 1.
pub fn valid_cells(axis: usize, before: usize, typed: usize) -> usize {
    match (axis, typed) {
        (2, 2 | 3) if typed > before => 4,
        (2, 0..=3) => 1,
        (_, n) => n.clamp(4, 512),
    }
}

#[cfg(test)]
mod tests {
    use super::valid_cells;

    #[test]
    fn the_grid_accepts_only_sizes_validation_accepts() {
        assert_eq!(valid_cells(0, 8, 2), 4);
        assert_eq!(valid_cells(1, 8, 1000), 512);
        assert_eq!(valid_cells(2, 1, 2), 4, "from 2D up: 4 cells deep");
        assert_eq!(valid_cells(2, 4, 3), 1, "from 4 down: back to 2D");
        assert_eq!(valid_cells(2, 4, 16), 16);
    }
}
