//! The compare mode's window: the variant list on the left; the variants' viewports side by
//! side (the run mode's viewport, one shared camera, all at the timeline's frame) with the
//! metric curves under them.

use crate::compare::mode::CompareMode;
use crate::compare::plots::{metric_plots, swatch, variant_color};
use crate::graph::convert::EditorDoc;
use crate::viewport;
use crate::viewport::options::view_options;
use egui::{Color32, Context, FontId, RichText, Ui};
use flip_host::PluginSet;
use std::path::Path;

impl CompareMode {
    /// Variant list and view of the variants of `doc`. Returns whether the list was stored
    /// in `doc`'s variants.
    pub(crate) fn ui(
        &mut self,
        ctx: &Context,
        doc: &mut EditorDoc,
        plugins: &PluginSet,
        base_dir: &Path,
    ) -> bool {
        let mut stored = false;
        egui::SidePanel::left("compare_variants")
            .exact_width(330.0)
            .resizable(false)
            .show(ctx, |ui| {
                stored = self.variant_list_ui(ui, doc, plugins, base_dir);
            });
        egui::CentralPanel::default().show(ctx, |ui| compare_view(ui, self));
        stored
    }
}

/// Viewports, view options and plots.
fn compare_view(ui: &mut Ui, c: &mut CompareMode) {
    if c.variants.is_empty() {
        let hint = match &c.problem {
            Some(p) => format!("⚠ {p}"),
            None => "pick variants on the left and press ▶ Run variants (or ▶ Play)".into(),
        };
        ui.centered_and_justified(|ui| ui.label(RichText::new(hint).weak()));
        return;
    }
    let vmax = c
        .variants
        .iter()
        .flat_map(|v| v.frames.iter().flatten())
        .map(|f| f.max_speed)
        .fold(0.5f32, f32::max);
    let n = c.variants.len();
    let gap = ui.spacing().item_spacing.x;
    let width = (ui.available_width() - gap * (n as f32 - 1.0)) / n as f32;
    let height = (ui.available_height() * 0.5).max(180.0);
    ui.horizontal(|ui| {
        for i in 0..n {
            let layout = egui::Layout::top_down(egui::Align::Min);
            ui.allocate_ui_with_layout(egui::vec2(width, height), layout, |ui| {
                // Exactly this wide: long headers are cut, not allowed to push the others.
                ui.set_width(width);
                variant_viewport(ui, c, i, vmax);
            });
        }
    });
    let is_2d = c.variants[0].start.grid.is_2d();
    view_options(ui, &mut c.cam, is_2d, vmax, None);
    ui.separator();
    let shown = if c.done == 0 {
        0
    } else {
        c.playback.shown as u32 + 1
    };
    if let Some(frame) = metric_plots(ui, &c.variants, shown, c.frames) {
        if (frame as usize) <= c.done {
            c.playback.scrub(frame as usize - 1, c.done);
        }
    }
}

/// The header's distance to the baseline; `None`: the baseline has no particles this frame,
/// which happens only when it failed, and the header says so.
fn rms_note(rms: Option<f64>) -> String {
    match rms {
        Some(d) => format!(" · rms {d:.3} m"),
        None => " · rms n/a (the baseline failed)".into(),
    }
}

/// One variant: a header (name, frame numbers or its failure) over its viewport.
fn variant_viewport(ui: &mut Ui, c: &mut CompareMode, i: usize, vmax: f32) {
    let frame = c.shown_frame(i).cloned();
    let v = &c.variants[i];
    let red = Color32::from_rgb(255, 110, 100);
    ui.horizontal(|ui| {
        swatch(ui, variant_color(i));
        ui.label(RichText::new(&v.start.name).strong());
        if i == 0 {
            ui.label(RichText::new("baseline").weak().small());
        }
        if let Some(f) = &frame {
            let m = v.metrics.get(c.playback.shown);
            let rms = m.map_or(String::new(), |m| rms_note(m.rms_vs_baseline));
            let text = format!(
                "{:.0} it · {:.0} ms/frame{rms}",
                f.solve_iterations, f.wall_ms
            );
            ui.add(egui::Label::new(RichText::new(text).small().weak()).truncate());
        }
    });
    let failure = v.start.failure.clone();
    match &failure {
        Some(msg) => {
            let text = RichText::new(format!("✖ failed: {msg}")).color(red).small();
            ui.add(egui::Label::new(text).truncate());
        }
        None => {
            // The overrides, on the line a failure would take (keeps the viewports aligned).
            let all: Vec<String> = v.start.overrides.iter().map(ToString::to_string).collect();
            let all = all.join(", ");
            let text = if all.is_empty() {
                "the graph as it is".into()
            } else {
                all
            };
            ui.add(egui::Label::new(RichText::new(text).weak().small()).truncate());
        }
    }
    let grid = v.start.grid;
    let rect = ui.available_rect_before_wrap();
    viewport::show(ui, grid, frame.as_ref(), &mut c.cam, vmax);
    if let (None, Some(msg)) = (&frame, &failure) {
        // The whole message, wrapped, where the particles would be.
        let font = FontId::proportional(13.0);
        let galley = ui
            .painter()
            .layout(msg.clone(), font, red, rect.width() * 0.8);
        let at = rect.center() - galley.size() / 2.0;
        ui.painter().galley(at, galley, red);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_distance_says_why() {
        assert_eq!(rms_note(Some(0.01234)), " · rms 0.012 m");
        assert!(rms_note(None).contains("n/a (the baseline failed)"));
    }
}
