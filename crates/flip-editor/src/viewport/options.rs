//! The view options under a viewport (run and compare modes): overlay, colouring, perspective,
//! the liquid mesh, point size and the colour legend.

use crate::frames::FrameData;
use crate::hints::Hint;
use crate::viewport::attributes::{normalized, ColorBy};
use crate::viewport::camera::{Camera, Overlay};
use crate::viewport::legend;
use egui::Ui;

/// Overlay, colouring, perspective, point size and the colour legend under a viewport
/// (`frame`: the shown frame, for the legend's range).
pub(crate) fn view_options(
    ui: &mut Ui,
    cam: &mut Camera,
    is_2d: bool,
    vmax: f32,
    frame: Option<&FrameData>,
) {
    ui.horizontal(|ui| {
        ui.label("overlay");
        egui::ComboBox::from_id_salt("overlay")
            .selected_text(match cam.overlay {
                Overlay::None => "none",
                Overlay::LevelSet => "level set",
                Overlay::Cells => "cell kinds",
            })
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut cam.overlay, Overlay::None, "none");
                ui.selectable_value(&mut cam.overlay, Overlay::LevelSet, "level set");
                ui.selectable_value(&mut cam.overlay, Overlay::Cells, "cell kinds");
            });
        if !is_2d {
            ui.checkbox(&mut cam.perspective, "perspective");
            if frame.is_some_and(|f| f.surface.is_some()) {
                ui.checkbox(&mut cam.mesh, "mesh")
                    .hint("the liquid surface of the graph's surface node, shaded");
            }
        }
        ui.add(egui::Slider::new(&mut cam.point_size, 1.0..=6.0).text("px"));
    });
    ui.horizontal(|ui| {
        ui.label("colour");
        egui::ComboBox::from_id_salt("color_by")
            .selected_text(cam.color_by.label())
            .show_ui(ui, |ui| {
                for c in ColorBy::ALL {
                    ui.selectable_value(&mut cam.color_by, c, c.label());
                }
            })
            .response
            .hint("what the particles are coloured by");
        let range = frame.and_then(|f| normalized(f, cam.color_by, vmax));
        match range {
            Some((_, lo, hi)) => legend(ui, lo, hi, cam.color_by.unit()),
            None => legend(ui, 0.0, vmax, ColorBy::Speed.unit()),
        }
    })
    .response
    .hint(if is_2d {
        "drag: pan · scroll: zoom · double-click: reset view"
    } else {
        "drag: rotate · shift-drag: pan · scroll: zoom · double-click: reset view"
    });
}
