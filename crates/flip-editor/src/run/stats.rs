//! The stats panel under the run's viewport: problems, the shown frame's numbers, a plot of
//! pressure iterations per frame and the loaded plugins (the graph's settings are
//! [`crate::graph::settings_ui`]).

use crate::graph::convert::EditorDoc;
use crate::hints::Hint;
use crate::run::mode::RunMode;
use egui::{Color32, RichText, Ui};
use egui_plot::{Line, Plot, PlotPoints, VLine};
use flip_host::PluginSet;

/// The run's failure and the graph's validation errors. Those about a node are shown on the
/// node, so here only its name (a click selects it in `doc`): each message appears once.
pub(crate) fn problems_ui(ui: &mut Ui, run: &RunMode, doc: &mut EditorDoc) {
    let red = Color32::from_rgb(255, 110, 100);
    match &run.failure {
        Some((Some(node), _)) => {
            ui.colored_label(
                red,
                format!("⚠ run stopped at node `{node}` (see the node)"),
            );
        }
        Some((None, msg)) => {
            ui.colored_label(red, format!("⚠ run stopped: {msg}"));
        }
        None => {}
    }
    if run.failure.is_some() {
        ui.label(RichText::new("fix the graph (it restarts) or press Reset").weak());
    }
    for e in run.invalid.get("").into_iter().flatten() {
        ui.colored_label(red, format!("⚠ {e}"));
    }
    let mut nodes: Vec<&String> = run.invalid.keys().filter(|n| !n.is_empty()).collect();
    nodes.sort();
    if nodes.is_empty() {
        return;
    }
    ui.horizontal_wrapped(|ui| {
        ui.colored_label(red, "⚠ problems on");
        for node in nodes {
            let r = ui.add(
                egui::Label::new(RichText::new(format!("`{node}`")).color(red).underline())
                    .sense(egui::Sense::click()),
            );
            if r.hint("the message is on the node; click to select it")
                .clicked()
            {
                if let Some(id) = doc.find(node) {
                    doc.state.selected_nodes = vec![id];
                }
            }
        }
    });
}

impl RunMode {
    /// The shown frame's numbers.
    pub(crate) fn frame_ui(&self, ui: &mut Ui) {
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

    /// Pressure iterations per cached frame, with a line at the shown one.
    pub(crate) fn solve_plot(&self, ui: &mut Ui) {
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
}

/// The loaded solver plugins and the refused ones.
pub(crate) fn plugins_ui(ui: &mut Ui, plugins: &PluginSet) {
    let algos = plugins.algorithms();
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
    for r in &plugins.refused {
        ui.colored_label(Color32::from_rgb(240, 180, 90), format!("refused: {r}"));
    }
}
