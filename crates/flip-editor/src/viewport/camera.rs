//! How the viewport looks at the domain: 2D zoom/pan or a 3D orbit, point size, overlay and
//! colouring.

use crate::viewport::attributes::ColorBy;

/// Which grid overlay is drawn under the particles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlay {
    /// None.
    None,
    /// Liquid signed distance (blue inside, orange outside, white at the surface).
    LevelSet,
    /// Cell kinds (blue fluid, grey solid).
    Cells,
}

/// View state: 2D zoom/pan, 3D orbit.
#[derive(Clone, Debug)]
pub struct Camera {
    /// Rotation about the vertical axis (rad, 3D).
    pub yaw: f32,
    /// Elevation (rad, 3D).
    pub pitch: f32,
    /// Zoom factor (scroll).
    pub zoom: f32,
    /// Screen offset (2D drag).
    pub pan: egui::Vec2,
    /// Perspective (else orthographic) in 3D.
    pub perspective: bool,
    /// Particle size in pixels.
    pub point_size: f32,
    /// Overlay.
    pub overlay: Overlay,
    /// What the particles are coloured by.
    pub color_by: ColorBy,
    /// Draw the liquid mesh (when the frame has one) instead of the particles.
    pub mesh: bool,
}

impl Default for Camera {
    fn default() -> Self {
        Self {
            yaw: -0.6,
            pitch: 0.45,
            zoom: 1.0,
            pan: egui::Vec2::ZERO,
            perspective: true,
            point_size: 2.0,
            overlay: Overlay::None,
            color_by: Default::default(),
            mesh: true,
        }
    }
}
