//! The compare mode's curves: one egui_plot per metric, one line per variant (in the
//! variant's colour), a vertical line at the shown frame; clicking a plot scrubs there.

use crate::compare::mode::VariantView;
use crate::graph::params_ui::format_number;
use egui::{Color32, RichText, Ui};
use egui_plot::{Line, Plot, PlotPoints, VLine};
use flip_nodes::compare::FrameMetrics;

type Getter = fn(&FrameMetrics) -> f64;

/// Plot id, title, value.
const CURVES: [(&str, &str, Getter); 6] = [
    ("solve_ms", "pressure solve (ms / frame)", |m| m.solve_ms),
    ("iterations", "solver iterations / frame", |m| m.iterations),
    ("max_div", "max |div u| after projection (1/s)", |m| {
        m.max_divergence
    }),
    ("volume", "liquid volume (m^d)", |m| m.volume),
    (
        "kinetic",
        "kinetic energy: Σ ½|v|² summed over particles (m²/s²; × particle mass = J)",
        |m| m.kinetic_energy,
    ),
    // No point where the baseline failed (n/a, not a flat 0).
    ("rms", "RMS distance to the baseline (m)", |m| {
        m.rms_vs_baseline.unwrap_or(f64::NAN)
    }),
];

/// Colour of variant `i` (viewport header, plot line).
pub fn variant_color(i: usize) -> Color32 {
    const PALETTE: [Color32; 8] = [
        Color32::from_rgb(80, 165, 255),
        Color32::from_rgb(255, 160, 40),
        Color32::from_rgb(80, 205, 100),
        Color32::from_rgb(200, 110, 255),
        Color32::from_rgb(240, 80, 80),
        Color32::from_rgb(225, 215, 80),
        Color32::from_rgb(80, 220, 220),
        Color32::from_rgb(245, 140, 200),
    ];
    PALETTE[i % PALETTE.len()]
}

/// A small disc in a variant's colour (the default fonts have no "●" in proportional text).
pub fn swatch(ui: &mut Ui, color: Color32) {
    let (rect, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
    ui.painter().circle_filled(rect.center(), 5.0, color);
}

/// The legend: each variant's colour and name, in one row above the plots.
fn legend(ui: &mut Ui, variants: &[VariantView]) {
    ui.horizontal_wrapped(|ui| {
        for (i, v) in variants.iter().enumerate() {
            swatch(ui, variant_color(i));
            ui.label(RichText::new(&v.start.name).small());
            ui.add_space(8.0);
        }
    });
}

/// The legend and the six plots in a grid of three columns filling the space left; returns
/// the frame (1-based) clicked on, if any.
pub fn metric_plots(ui: &mut Ui, variants: &[VariantView], shown: u32, frames: u32) -> Option<u32> {
    if variants.iter().all(|v| v.metrics.is_empty()) {
        ui.label(RichText::new("the curves appear as frames arrive").weak());
        return None;
    }
    legend(ui, variants);
    let columns = 3;
    let gap = ui.spacing().item_spacing;
    let width = (ui.available_width() - gap.x * (columns as f32 - 1.0)) / columns as f32;
    let rows = CURVES.len().div_ceil(columns) as f32;
    let height = ((ui.available_height() - rows * (gap.y + 18.0)) / rows).max(80.0);
    let mut clicked = None;
    egui::Grid::new("compare_plots")
        .num_columns(columns)
        .spacing(gap)
        .show(ui, |ui| {
            for (k, (id, title, get)) in CURVES.iter().enumerate() {
                ui.vertical(|ui| {
                    ui.label(RichText::new(*title).small());
                    let plot = Plot::new(("compare_plot", *id))
                        .width(width)
                        .height(height)
                        .allow_drag(false)
                        .allow_zoom(false)
                        .allow_scroll(false)
                        .allow_boxed_zoom(false)
                        .include_x(1.0)
                        .include_x(f64::from(frames.max(2)))
                        .include_y(0.0)
                        .x_axis_label("frame")
                        // short tick labels: `0.0000001` did not fit beside a narrow plot
                        .y_axis_formatter(|mark, _| format_number(mark.value));
                    let r = plot.show(ui, |p| {
                        for (i, v) in variants.iter().enumerate() {
                            let pts: Vec<[f64; 2]> = v
                                .metrics
                                .iter()
                                .map(|m| [f64::from(m.frame), get(m)])
                                .filter(|p| p[1].is_finite())
                                .collect();
                            let line = Line::new(PlotPoints::from(pts))
                                .color(variant_color(i))
                                .width(2.0)
                                .name(&v.start.name);
                            p.line(line);
                        }
                        p.vline(VLine::new(f64::from(shown)).color(Color32::from_gray(170)));
                        let at = p.pointer_coordinate();
                        (p.response().clicked() || p.response().dragged())
                            .then_some(at)
                            .flatten()
                    });
                    if let Some(at) = r.inner {
                        clicked = Some(at.x.round().clamp(1.0, f64::from(frames)) as u32);
                    }
                });
                if k % columns == columns - 1 {
                    ui.end_row();
                }
            }
        });
    clicked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::worker::VariantStart;

    /// A variant whose metrics grow from frame 1 to 10, the divergence and the distance tiny.
    fn variant(name: &str, rms: f64) -> VariantView {
        VariantView {
            start: VariantStart {
                name: name.into(),
                overrides: vec![],
                grid: flip_core::GridSpec::new(64, 64, 1, 1.0 / 64.0),
                failure: None,
            },
            frames: vec![],
            metrics: (1..=10)
                .map(|f| FrameMetrics {
                    frame: f,
                    solve_ms: 5.0 + f64::from(f),
                    iterations: 40.0 + f64::from(f),
                    max_divergence: 1e-7 * f64::from(f),
                    volume: 0.24,
                    kinetic_energy: 300.0 * f64::from(f),
                    rms_vs_baseline: Some(rms * f64::from(f)),
                    ..Default::default()
                })
                .collect(),
        }
    }

    #[test]
    fn every_plot_names_its_x_axis_and_its_tick_labels_are_short() {
        let variants = vec![variant("a", 0.0), variant("b", 1e-4)];
        let ctx = egui::Context::default();
        let mut texts = vec![];
        for _ in 0..3 {
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(1200.0, 600.0),
                )),
                ..Default::default()
            };
            let out = ctx.run(input, |ctx| {
                egui::CentralPanel::default().show(ctx, |ui| {
                    metric_plots(ui, &variants, 3, 10);
                });
            });
            texts = (out.shapes.into_iter())
                .filter_map(|s| match s.shape {
                    egui::Shape::Text(t) => Some(t.galley.text().to_string()),
                    _ => None,
                })
                .collect();
        }
        assert_eq!(texts.iter().filter(|t| *t == "frame").count(), CURVES.len());
        let numbers = texts.iter().filter(|t| t.parse::<f64>().is_ok());
        let long: Vec<&String> = numbers.filter(|t| t.len() > 8).collect();
        assert!(
            long.is_empty(),
            "tick labels too wide for the plots: {long:?}"
        );
    }
}
