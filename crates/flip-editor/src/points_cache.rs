//! The viewport's particle quads, kept between UI frames. Building them (projection, a depth
//! sort in 3D, about 100 bytes per particle) every frame made each UI frame take hundreds of
//! milliseconds with a few hundred thousand 3D particles; they are now rebuilt only when the
//! shown frame, the camera, the view rectangle or the colouring change.

use crate::attributes::ColorBy;
use crate::frames::FrameData;
use crate::viewport::Camera;
use egui::{Mesh, Rect, Ui, Vec2};
use std::sync::Arc;

/// Everything the particle quads depend on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointsKey {
    /// The frame's address (stable while the cache holds its `Arc`), number and wall time,
    /// so a frame that reuses a freed address is still told apart.
    frame: (usize, u32, f64),
    rect: Rect,
    /// Yaw, pitch, zoom, point size, top of the speed scale.
    view: [f32; 5],
    pan: Vec2,
    perspective: bool,
    color_by: ColorBy,
    /// The liquid mesh replaces the particles' colours when drawn.
    mesh: bool,
}

impl PointsKey {
    /// The key of `frame` drawn in `rect` through `cam` with speeds scaled to `vmax`.
    pub fn new(frame: &FrameData, rect: Rect, cam: &Camera, vmax: f32) -> Self {
        Self {
            frame: (
                std::ptr::from_ref(frame) as usize,
                frame.frame,
                frame.wall_ms,
            ),
            rect,
            view: [cam.yaw, cam.pitch, cam.zoom, cam.point_size, vmax],
            pan: cam.pan,
            perspective: cam.perspective,
            color_by: cam.color_by,
            mesh: cam.mesh,
        }
    }
}

/// The quads for `key`: the ones built for the same key on an earlier UI frame of this
/// viewport (`ui`'s id), else `build()`'s, which are kept for the next frames.
pub fn cached(ui: &Ui, key: PointsKey, build: impl FnOnce() -> Mesh) -> Mesh {
    let id = ui.id().with("particle_quads");
    let kept = ui
        .ctx()
        .data(|d| d.get_temp::<Arc<(PointsKey, Mesh)>>(id))
        .filter(|k| k.0 == key);
    let entry = kept.unwrap_or_else(|| {
        let fresh = Arc::new((key, build()));
        ui.ctx().data_mut(|d| d.insert_temp(id, fresh.clone()));
        fresh
    });
    entry.1.clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::test_frame;
    use egui::{pos2, Pos2};

    /// Builds drawn for each camera, one UI frame per camera, in one viewport.
    fn builds(frame: &FrameData, cams: &[Camera]) -> usize {
        let ctx = egui::Context::default();
        let rect = Rect::from_min_max(Pos2::ZERO, pos2(100.0, 100.0));
        let mut n = 0;
        for cam in cams {
            let _ = ctx.run(Default::default(), |ctx| {
                egui::CentralPanel::default().show(ctx, |ui| {
                    let key = PointsKey::new(frame, rect, cam, 1.0);
                    cached(ui, key, || {
                        n += 1;
                        Mesh::default()
                    });
                });
            });
        }
        n
    }

    #[test]
    fn the_quads_are_rebuilt_only_when_the_view_changes() {
        let frame = test_frame(3);
        let cam = Camera::default();
        assert_eq!(builds(&frame, &[cam.clone(), cam.clone(), cam.clone()]), 1);
        let turned = Camera {
            yaw: cam.yaw + 0.1,
            ..cam.clone()
        };
        assert_eq!(builds(&frame, &[cam.clone(), turned, cam.clone()]), 3);
        let by_id = Camera {
            color_by: ColorBy::ParticleId,
            ..cam.clone()
        };
        assert_eq!(builds(&frame, &[cam, by_id]), 2);
    }

    #[test]
    fn another_frame_is_drawn_afresh() {
        let (a, b) = (test_frame(3), test_frame(3));
        let cam = Camera::default();
        let ctx = egui::Context::default();
        let rect = Rect::from_min_max(Pos2::ZERO, pos2(100.0, 100.0));
        let mut n = 0;
        for f in [&a, &a, &b] {
            let _ = ctx.run(Default::default(), |ctx| {
                egui::CentralPanel::default().show(ctx, |ui| {
                    cached(ui, PointsKey::new(f, rect, &cam, 1.0), || {
                        n += 1;
                        Mesh::default()
                    });
                });
            });
        }
        assert_eq!(n, 2);
    }

    #[test]
    fn the_quads_are_a_primitive_of_their_own() {
        let frame = test_frame(50);
        let spec = flip_core::GridSpec::new(8, 8, 8, 0.125);
        let ctx = egui::Context::default();
        let mut cam = Camera::default();
        let input = egui::RawInput {
            screen_rect: Some(Rect::from_min_max(Pos2::ZERO, pos2(400.0, 400.0))),
            ..Default::default()
        };
        let out = ctx.run(input, |ctx| {
            egui::CentralPanel::default().show(ctx, |ui| {
                crate::viewport::show(ui, spec, Some(&frame), &mut cam, 1.0);
            });
        });
        let sizes: Vec<usize> = ctx
            .tessellate(out.shapes, out.pixels_per_point)
            .into_iter()
            .filter_map(|p| match p.primitive {
                egui::epaint::Primitive::Mesh(m) => Some(m.vertices.len()),
                egui::epaint::Primitive::Callback(_) => None,
            })
            .collect();
        // moved whole into the output, not appended to the viewport's other shapes
        assert!(
            sizes.contains(&(4 * 50)),
            "primitives of {sizes:?} vertices"
        );
    }
}
