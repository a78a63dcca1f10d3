//! The particle viewport: particles coloured by speed, solids, and a level-set / cell-kind
//! overlay, projected by hand into an egui painter (2D: x right, y up; 3D: orbit camera with a
//! perspective or orthographic projection). Large sets arrive subsampled (see
//! [`crate::frames::MAX_POINTS`]) and are drawn into an image of the viewport's pixels, shown
//! as one textured rectangle (see [`points_image`]).

/// What the particles are coloured by (speed, vorticity, pressure, id).
pub mod attributes;
/// The view: orbit, zoom, pan, overlay, colouring.
pub mod camera;
/// The liquid mesh in the viewport.
pub mod liquid_mesh;
/// Overlay, colouring and point size under a viewport.
pub mod options;
/// Colours of the grid overlays.
pub mod overlay_colors;
/// The viewport's particle image, kept between UI frames.
pub mod points_cache;
/// The particles drawn into an image of the viewport's pixels.
pub mod points_image;
/// Imported solids as meshes for the viewport.
pub mod solid_meshes;

use crate::frames::overlays::Slice;
use crate::frames::FrameData;
use crate::viewport::camera::{Camera, Overlay};
use crate::viewport::liquid_mesh::{shaded_mesh, SOLID, WATER};
use crate::viewport::overlay_colors::{cell_color, density_color, level_set_color};
use crate::viewport::points_cache::PointsKey;
use crate::viewport::points_image::{Dot, PointsImage};
use egui::{pos2, vec2, Color32, Mesh, Pos2, Rect, Sense, Shape, Stroke, Ui};
use flip_core::GridSpec;
use glam::Vec3;
use std::sync::Arc;

/// Maps simulation space to the screen. `depth` grows away from the viewer.
#[derive(Clone)]
struct Projector {
    spec: GridSpec,
    rect: Rect,
    scale: f32,
    rot: glam::Mat3,
    perspective: bool,
    dist: f32,
}

impl Projector {
    fn new(spec: GridSpec, rect: Rect, cam: &Camera) -> Self {
        let ext = spec.extent();
        let (scale, rot) = if spec.is_2d() {
            let s = (rect.width() / ext.x).min(rect.height() / ext.y) * 0.94;
            (s * cam.zoom, glam::Mat3::IDENTITY)
        } else {
            let radius = 0.5 * ext.length();
            let s = 0.5 * rect.width().min(rect.height()) / radius;
            let rot = glam::Mat3::from_rotation_x(cam.pitch) * glam::Mat3::from_rotation_y(cam.yaw);
            (s * cam.zoom, rot)
        };
        let rect = rect.translate(cam.pan);
        Self {
            spec,
            rect,
            scale,
            rot,
            perspective: cam.perspective,
            dist: 2.5 * ext.length(),
        }
    }

    fn project(&self, p: Vec3) -> (Pos2, f32) {
        let c = self.rect.center();
        let ext = self.spec.extent();
        if self.spec.is_2d() {
            let q = (p - 0.5 * ext) * self.scale;
            return (pos2(c.x + q.x, c.y - q.y), 0.0);
        }
        let q = self.rot * (p - 0.5 * ext);
        let f = if self.perspective {
            self.dist / (self.dist - q.z).max(1e-3)
        } else {
            1.0
        };
        let s = self.scale * f;
        (pos2(c.x + q.x * s, c.y - q.y * s), -q.z)
    }
}

/// Speed colour map (dark blue → blue → teal → yellow → red) for `t` in [0, 1].
pub fn speed_color(t: f32) -> Color32 {
    const STOPS: [(f32, [f32; 3]); 5] = [
        (0.0, [30.0, 60.0, 160.0]),
        (0.25, [50.0, 130.0, 240.0]),
        (0.5, [40.0, 220.0, 200.0]),
        (0.75, [250.0, 210.0, 50.0]),
        (1.0, [220.0, 40.0, 20.0]),
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let i = STOPS.iter().rposition(|(s, _)| *s <= t).unwrap_or(0).min(3);
    let (t0, a) = STOPS[i];
    let (t1, b) = STOPS[i + 1];
    let u = (t - t0) / (t1 - t0);
    let m = |k: usize| (a[k] + (b[k] - a[k]) * u) as u8;
    Color32::from_rgb(m(0), m(1), m(2))
}

/// A quad through four projected corners.
fn quad(mesh: &mut Mesh, p: [Pos2; 4], color: Color32) {
    let i = mesh.vertices.len() as u32;
    for q in p {
        mesh.colored_vertex(q, color);
    }
    mesh.add_triangle(i, i + 1, i + 2);
    mesh.add_triangle(i, i + 2, i + 3);
}

/// Draws a z-slice of cells with `color`.
fn slice_mesh<T: Copy>(pr: &Projector, s: &Slice<T>, color: impl Fn(T) -> Option<Color32>) -> Mesh {
    let mut mesh = Mesh::default();
    let dx = pr.spec.dx;
    let z = if pr.spec.is_2d() {
        0.0
    } else {
        (s.k as f32 + 0.5) * dx
    };
    for j in 0..s.nj {
        for i in 0..s.ni {
            let Some(c) = color(s.at(i, j)) else { continue };
            let (x0, y0) = (i as f32 * dx, j as f32 * dx);
            let corner = |x: f32, y: f32| pr.project(Vec3::new(x, y, z)).0;
            let p = [
                corner(x0, y0),
                corner(x0 + dx, y0),
                corner(x0 + dx, y0 + dx),
                corner(x0, y0 + dx),
            ];
            quad(&mut mesh, p, c);
        }
    }
    mesh
}

/// Shows the viewport for `frame` (or the empty domain); handles camera input.
pub fn show(
    ui: &mut Ui,
    spec: GridSpec,
    frame: Option<&Arc<FrameData>>,
    cam: &mut Camera,
    vmax: f32,
) {
    let (rect, resp) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, Color32::from_rgb(18, 20, 26));
    if resp.dragged() {
        let d = resp.drag_delta();
        if spec.is_2d() || ui.input(|i| i.modifiers.shift) {
            cam.pan += d;
        } else {
            cam.yaw += d.x * 0.01;
            cam.pitch = (cam.pitch + d.y * 0.01).clamp(-1.5, 1.5);
        }
    }
    if resp.hovered() {
        let dy = ui.input(|i| i.smooth_scroll_delta.y);
        cam.zoom = (cam.zoom * (dy * 0.002).exp()).clamp(0.1, 50.0);
    }
    if resp.double_clicked() {
        *cam = Camera {
            perspective: cam.perspective,
            point_size: cam.point_size,
            overlay: cam.overlay,
            color_by: cam.color_by,
            mesh: cam.mesh,
            ..Camera::default()
        };
    }
    let pr = Projector::new(spec, rect, cam);
    draw_domain(&painter, &pr);
    let Some(f) = frame else {
        return;
    };
    if f.sample.points.is_empty() && f.particles > 0 {
        let msg = "particles of this frame were dropped from the cache (memory budget)";
        let font = egui::FontId::proportional(13.0);
        painter.text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            msg,
            font,
            Color32::GRAY,
        );
    }
    if let Some(d) = &f.density {
        painter.add(Shape::mesh(slice_mesh(&pr, d, density_color)));
    }
    let overlay = match cam.overlay {
        Overlay::LevelSet => f.level_set.as_ref().map(|s| {
            let dx = spec.dx;
            slice_mesh(&pr, s, |d: f32| level_set_color(d / dx))
        }),
        Overlay::Cells => f.cells.as_ref().map(|s| slice_mesh(&pr, s, cell_color)),
        Overlay::None => None,
    };
    // 2D: under the particles; 3D: over them, else the particles hide the slice
    let (under, over) = match spec.is_2d() {
        true => (overlay, None),
        false => (None, overlay),
    };
    if let Some(m) = under {
        painter.add(Shape::mesh(m));
    }
    if spec.is_2d() {
        if let Some(solids) = &f.solids {
            let grey = Color32::from_rgb(95, 98, 110);
            let mut mesh = Mesh::default();
            let dx = spec.dx;
            for c in &solids.cells {
                let (x0, y0) = (c[0] as f32 * dx, c[1] as f32 * dx);
                let a = pr.project(Vec3::new(x0, y0, 0.0)).0;
                let b = pr.project(Vec3::new(x0 + dx, y0 + dx, 0.0)).0;
                quad(&mut mesh, [a, pos2(b.x, a.y), b, pos2(a.x, b.y)], grey);
            }
            painter.add(Shape::mesh(mesh));
        }
    }
    let surface = f.surface.as_ref().filter(|_| cam.mesh);
    let mut parts: Vec<_> = f.solid_meshes.iter().map(|m| (m, SOLID)).collect();
    parts.extend(surface.map(|m| (&**m, WATER)));
    if !parts.is_empty() {
        let shaded = shaded_mesh(&parts, |p| pr.project(p), |n| pr.rot * n);
        painter.add(Shape::mesh(shaded));
    }
    let ppp = ui.ctx().pixels_per_point();
    let key = PointsKey::new(f, rect, ppp, cam, vmax);
    let (f, color_by, size, coloured) =
        (f.clone(), cam.color_by, cam.point_size, surface.is_none());
    let points = points_cache::cached(ui, key, move || {
        let colors = crate::viewport::attributes::normalized(&f, color_by, vmax)
            .or_else(|| crate::viewport::attributes::normalized(&f, Default::default(), vmax))
            .filter(|_| coloured)
            .map_or(vec![], |(t, _, _)| t);
        PointsImage::draw(points_dots(&pr, &f, &colors, size), rect, ppp)
    });
    if let Some(points) = points {
        let uv = Rect::from_min_max(Pos2::ZERO, pos2(1.0, 1.0));
        painter.add(Shape::image(
            points.texture,
            points.rect,
            uv,
            Color32::WHITE,
        ));
    }
    if let Some(m) = over {
        painter.add(Shape::mesh(m));
    }
}

/// Particles (and in 3D the solid surface cells) as dots in drawing order: in 3D far to near,
/// so the nearest is on top.
fn points_dots(pr: &Projector, f: &FrameData, colors: &[f32], size: f32) -> Vec<Dot> {
    let mut items: Vec<(f32, Dot)> = Vec::with_capacity(f.sample.points.len());
    let mut add = |p: Vec3, color: Color32, size: f32| {
        let (centre, depth) = pr.project(p);
        items.push((
            depth,
            Dot {
                centre,
                color,
                size,
            },
        ));
    };
    for (p, t) in f.sample.points.iter().zip(colors) {
        add(Vec3::from_array(*p), speed_color(*t), size);
    }
    // whitewater in white, smaller than the liquid's particles (2D: drawn over them)
    for p in &f.diffuse {
        let white = Color32::from_rgb(245, 248, 255);
        add(Vec3::from_array(*p), white, (0.6 * size).max(1.0));
    }
    if !pr.spec.is_2d() {
        if let Some(solids) = &f.solids {
            let dx = pr.spec.dx;
            let px = (dx * pr.scale).max(2.0);
            for c in &solids.cells {
                let p = (Vec3::new(c[0] as f32, c[1] as f32, c[2] as f32) + 0.5) * dx;
                add(p, Color32::from_rgb(110, 112, 125), px);
            }
        }
        items.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
    }
    items.into_iter().map(|(_, dot)| dot).collect()
}

/// The domain outline (a box in 3D).
fn draw_domain(painter: &egui::Painter, pr: &Projector) {
    let e = pr.spec.extent();
    let stroke = Stroke::new(1.0, Color32::from_rgb(90, 95, 110));
    if pr.spec.is_2d() {
        let a = pr.project(Vec3::ZERO).0;
        let b = pr.project(Vec3::new(e.x, e.y, 0.0)).0;
        painter.rect_stroke(Rect::from_two_pos(a, b), 0.0, stroke);
        return;
    }
    let corner = |i: usize| {
        let c = Vec3::new(
            if i & 1 != 0 { e.x } else { 0.0 },
            if i & 2 != 0 { e.y } else { 0.0 },
            if i & 4 != 0 { e.z } else { 0.0 },
        );
        pr.project(c).0
    };
    for a in 0..8 {
        for bit in [1, 2, 4] {
            if a & bit == 0 {
                painter.line_segment([corner(a), corner(a | bit)], stroke);
            }
        }
    }
}

/// A legend end: three significant digits or so.
fn legend_number(x: f32) -> String {
    match x.abs() {
        a if (100.0..1e6).contains(&a) => format!("{x:.0}"),
        a if (1.0..100.0).contains(&a) => format!("{x:.2}"),
        _ => crate::graph::params_ui::format_number(f64::from(x)),
    }
}

/// A horizontal colour bar for values `lo..hi` in `unit`.
pub fn legend(ui: &mut Ui, lo: f32, hi: f32, unit: &str) {
    ui.horizontal(|ui| {
        ui.label(legend_number(lo));
        let (rect, _) = ui.allocate_exact_size(vec2(120.0, 12.0), Sense::hover());
        let mut mesh = Mesh::default();
        let n = 24;
        for k in 0..n {
            let t0 = k as f32 / n as f32;
            let x0 = rect.left() + rect.width() * t0;
            let x1 = rect.left() + rect.width() * (k + 1) as f32 / n as f32;
            let p = [
                pos2(x0, rect.top()),
                pos2(x1, rect.top()),
                pos2(x1, rect.bottom()),
                pos2(x0, rect.bottom()),
            ];
            quad(&mut mesh, p, speed_color(t0 + 0.5 / n as f32));
        }
        ui.painter().add(Shape::mesh(mesh));
        ui.label(format!("{} {unit}", legend_number(hi)));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colormap_ends() {
        assert_eq!(speed_color(0.0), Color32::from_rgb(30, 60, 160));
        assert_eq!(speed_color(1.0), Color32::from_rgb(220, 40, 20));
        assert_eq!(speed_color(f32::NAN), speed_color(0.0));
    }

    #[test]
    fn projection_2d_is_y_up() {
        let spec = GridSpec::new(10, 10, 1, 0.1);
        let rect = Rect::from_min_size(Pos2::ZERO, vec2(100.0, 100.0));
        let pr = Projector::new(spec, rect, &Camera::default());
        let low = pr.project(Vec3::new(0.5, 0.1, 0.0)).0;
        let high = pr.project(Vec3::new(0.5, 0.9, 0.0)).0;
        assert!(high.y < low.y);
    }
}
