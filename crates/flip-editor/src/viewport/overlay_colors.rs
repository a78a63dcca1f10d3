//! Colours of the viewport's grid overlays (level set, smoke density, cell kinds).

use egui::Color32;

/// Level set colour for a signed distance in cells: blue inside (darker deeper), white at the
/// surface, orange just outside fading out within four cells.
pub(crate) fn level_set_color(d_cells: f32) -> Option<Color32> {
    if d_cells.abs() < 0.5 {
        return Some(Color32::from_rgba_unmultiplied(240, 240, 240, 170));
    }
    if d_cells < 0.0 {
        let t = (-d_cells / 8.0).min(1.0);
        let a = (70.0 + 100.0 * t) as u8;
        return Some(Color32::from_rgba_unmultiplied(
            30,
            (110.0 - 60.0 * t) as u8,
            230,
            a,
        ));
    }
    let t = 1.0 - d_cells / 4.0;
    (t > 0.0).then(|| Color32::from_rgba_unmultiplied(245, 150, 40, (120.0 * t) as u8))
}

/// Smoke: white, as opaque as the density (1 and above opaque).
pub(crate) fn density_color(s: f32) -> Option<Color32> {
    let a = (s.clamp(0.0, 1.0) * 235.0) as u8;
    (a > 2).then(|| Color32::from_rgba_unmultiplied(235, 235, 240, a))
}

/// Cell kinds: liquid blue, solid grey, air clear.
pub(crate) fn cell_color(kind: u8) -> Option<Color32> {
    match kind {
        0 => Some(Color32::from_rgba_unmultiplied(40, 110, 240, 110)),
        2 => Some(Color32::from_rgba_unmultiplied(150, 150, 160, 110)),
        _ => None,
    }
}
