//! The graph's settings (grid, cell size, fps, …) and description, edited in the stats panel.

use crate::graph::convert::EditorDoc;
use crate::graph::params_ui::parse_finite;
use crate::hints::Hint;
use egui::{DragValue, Ui};

/// The graph's settings and description as widgets; returns whether any changed.
pub fn settings_ui(ui: &mut Ui, doc: &mut EditorDoc) -> bool {
    let s = &mut doc.settings;
    let mut changed = false;
    egui::Grid::new("settings").num_columns(2).show(ui, |ui| {
        ui.label("grid (ni, nj, nk)")
            .hint("nk = 1 makes a 2D simulation");
        ui.horizontal(|ui| {
            for (axis, n) in s.grid.iter_mut().enumerate() {
                let min = if axis == 2 { 1 } else { 4 };
                let before = *n;
                if ui
                    .add(
                        DragValue::new(n)
                            .range(min..=512)
                            .custom_parser(parse_finite),
                    )
                    .changed()
                {
                    *n = valid_cells(axis, before, *n);
                    changed = true;
                }
            }
        });
        ui.end_row();
        let mut row = |ui: &mut Ui, label: &str, v: &mut f32, speed: f64| {
            ui.label(label);
            changed |= ui
                .add(
                    DragValue::new(v)
                        .speed(speed)
                        .range(0.0..=1e6)
                        .custom_parser(parse_finite),
                )
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
            .add(
                DragValue::new(&mut s.frames)
                    .range(1..=100_000)
                    .custom_parser(parse_finite),
            )
            .changed();
        ui.end_row();
        ui.label("max substeps");
        changed |= ui
            .add(
                DragValue::new(&mut s.max_substeps)
                    .range(1..=10_000)
                    .custom_parser(parse_finite),
            )
            .changed();
        ui.end_row();
        ui.label("seed");
        changed |= ui
            .add(DragValue::new(&mut s.seed).custom_parser(parse_finite))
            .changed();
        ui.end_row();
        ui.label("description");
        changed |= ui.text_edit_singleline(&mut doc.description).changed();
        ui.end_row();
    });
    changed
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
