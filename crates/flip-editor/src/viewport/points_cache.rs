//! The viewport's particle image, kept between UI frames as a texture. Building it
//! (projection, a depth sort in 3D, a pass over the particles' pixels, see
//! [`crate::viewport::points_image`]) is redone only when the shown frame, the camera, the view
//! rectangle or the colouring change, and the texture is uploaded only then. A new frame seen
//! through the same view (or the first one) is built on a thread of its own while the last
//! image (or none) stays on screen, so a large frame arriving does not stall the UI; a change of
//! view (orbit, zoom, colouring) is built at once, so the picture follows the mouse.

use crate::frames::FrameData;
use crate::viewport::attributes::ColorBy;
use crate::viewport::camera::Camera;
use crate::viewport::points_image::PointsImage;
use egui::{Rect, TextureHandle, TextureId, TextureOptions, Ui, Vec2};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// Everything the particle image depends on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointsKey {
    /// The frame's address (stable while the cache holds its `Arc`), number and wall time,
    /// so a frame that reuses a freed address is still told apart.
    frame: (usize, u32, f64),
    /// Top of the speed scale (it grows as faster frames come in).
    vmax: f32,
    rect: Rect,
    pixels_per_point: f32,
    /// Yaw, pitch, zoom, point size.
    view: [f32; 4],
    pan: Vec2,
    perspective: bool,
    color_by: ColorBy,
    /// The liquid mesh replaces the particles' colours when drawn.
    mesh: bool,
}

impl PointsKey {
    /// The key of `frame` drawn in `rect` (at `pixels_per_point`) through `cam` with speeds
    /// scaled to `vmax`.
    pub fn new(
        frame: &FrameData,
        rect: Rect,
        pixels_per_point: f32,
        cam: &Camera,
        vmax: f32,
    ) -> Self {
        Self {
            frame: (
                std::ptr::from_ref(frame) as usize,
                frame.frame,
                frame.wall_ms,
            ),
            vmax,
            rect,
            pixels_per_point,
            view: [cam.yaw, cam.pitch, cam.zoom, cam.point_size],
            pan: cam.pan,
            perspective: cam.perspective,
            color_by: cam.color_by,
            mesh: cam.mesh,
        }
    }

    /// Whether `other` looks through the same view, whatever data it shows.
    fn same_view(&self, other: &Self) -> bool {
        let data = |k: &Self| Self {
            frame: (0, 0, 0.0),
            vmax: 0.0,
            ..*k
        };
        data(self) == data(other)
    }
}

/// The particle image to draw: `texture` stretched over `rect` (points), one texel a pixel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShownPoints {
    pub texture: TextureId,
    pub rect: Rect,
}

/// Nearest texels: the image is drawn one texel per pixel, and dots keep their hard edges.
const CRISP: TextureOptions = TextureOptions::NEAREST;

/// One viewport's image on screen and the build running in the background, if any.
#[derive(Default)]
struct Slot {
    shown: Option<(PointsKey, TextureHandle, Rect)>,
    pending: Option<(PointsKey, Receiver<PointsImage>)>,
}

impl Slot {
    /// Uploads `built` for `key` into the slot's texture (made on first use) and shows it.
    fn show(&mut self, ctx: &egui::Context, key: PointsKey, built: PointsImage) -> ShownPoints {
        let texture = match self.shown.take() {
            Some((_, mut texture, _)) => {
                texture.set(built.image, CRISP);
                texture
            }
            None => ctx.load_texture("particles", built.image, CRISP),
        };
        let shown = ShownPoints {
            texture: texture.id(),
            rect: built.rect,
        };
        self.shown = Some((key, texture, built.rect));
        shown
    }

    /// Puts a finished background build on screen.
    fn collect(&mut self, ctx: &egui::Context) {
        let Some((key, rx)) = &self.pending else {
            return;
        };
        match rx.try_recv() {
            Ok(built) => {
                let key = *key;
                self.pending = None;
                self.show(ctx, key, built);
            }
            Err(TryRecvError::Empty) => {}
            Err(TryRecvError::Disconnected) => self.pending = None,
        }
    }

    /// Starts building the image of `key` on a thread of its own, which asks `ctx` for a
    /// repaint [`show_delay`] after it is ready.
    fn start(
        &mut self,
        key: PointsKey,
        ctx: egui::Context,
        build: impl FnOnce() -> PointsImage + Send + 'static,
    ) {
        let (tx, rx) = mpsc::channel();
        let delay = show_delay(&ctx);
        let spawned = std::thread::Builder::new()
            .name("particle image".into())
            .spawn(move || {
                let _ = tx.send(build());
                ctx.request_repaint_after(delay);
            });
        if spawned.is_ok() {
            self.pending = Some((key, rx));
        }
    }
}

/// A viewport's slot, shared between UI frames through egui's temporary data.
type SharedSlot = Arc<Mutex<Slot>>;

/// Where [`set_show_delay`] keeps its delay in egui's temporary data.
fn show_delay_id() -> egui::Id {
    egui::Id::new("particle_image_show_delay")
}

/// Sets how long after a background build lands the UI repaints to show it: the app's pace
/// for new frames (its repaint gap), so one paced UI frame shows an image and starts the
/// next instead of a second, unpaced one. Until set: at once.
pub fn set_show_delay(ctx: &egui::Context, delay: Duration) {
    ctx.data_mut(|d| d.insert_temp(show_delay_id(), delay));
}

/// The delay [`set_show_delay`] set, zero if none.
fn show_delay(ctx: &egui::Context) -> Duration {
    ctx.data(|d| d.get_temp(show_delay_id()))
        .unwrap_or_default()
}

/// The particle image for `key`: the kept one when nothing changed; while a new frame seen
/// through the same view (or the first frame) is built in the background, the last one (or
/// none); else `build()`'s, built at once.
pub fn cached(
    ui: &Ui,
    key: PointsKey,
    build: impl FnOnce() -> PointsImage + Send + 'static,
) -> Option<ShownPoints> {
    let id = ui.id().with("particle_image");
    let ctx = ui.ctx();
    let slot = ctx.data_mut(|d| d.get_temp_mut_or_default::<SharedSlot>(id).clone());
    let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
    slot.collect(ctx);
    let on_screen = |(_, texture, rect): &(PointsKey, TextureHandle, Rect)| ShownPoints {
        texture: texture.id(),
        rect: *rect,
    };
    let meanwhile = match &slot.shown {
        Some(shown) if shown.0 == key => return Some(on_screen(shown)),
        Some(shown) if shown.0.same_view(&key) => Some(Some(on_screen(shown))),
        Some(_) => None,
        None => Some(None),
    };
    if let Some(meanwhile) = meanwhile {
        // The build in flight (this one, or an older frame's) asks for a repaint when it lands:
        // that UI frame shows it and starts the newest frame's if it was older. (Polling for it
        // instead cost a whole UI frame every few milliseconds, tens of milliseconds each with
        // software GL, taken from the simulation.)
        if slot.pending.is_none() {
            slot.start(key, ctx.clone(), build);
        }
        return meanwhile;
    }
    // a build in flight was for the old view
    slot.pending = None;
    Some(slot.show(ctx, key, build()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::test_frame;
    use egui::{pos2, Pos2};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    fn rect() -> Rect {
        Rect::from_min_max(Pos2::ZERO, pos2(100.0, 100.0))
    }

    /// One UI frame of a viewport showing `key`; returns the width of the image on screen
    /// (builds are told apart by it), 0 for none.
    fn show(
        ctx: &egui::Context,
        key: PointsKey,
        build: impl FnOnce() -> PointsImage + Send + 'static,
    ) -> usize {
        let (mut shown, mut build) = (0, Some(build));
        let _ = ctx.run(Default::default(), |ctx| {
            egui::CentralPanel::default().show(ctx, |ui| {
                if let Some(build) = build.take() {
                    shown = cached(ui, key, build).map_or(0, |s| s.rect.width() as usize);
                }
            });
        });
        shown
    }

    /// An image `n` points wide, told apart by its width.
    fn image_of(n: usize) -> PointsImage {
        PointsImage {
            rect: Rect::from_min_size(Pos2::ZERO, egui::vec2(n as f32, 1.0)),
            image: egui::ColorImage::new([n, 1], egui::Color32::TRANSPARENT),
        }
    }

    /// UI frames showing `key` until the image on screen is `n` wide (a background
    /// build landed); returns the count on screen at the end.
    fn until_shown(ctx: &egui::Context, key: PointsKey, n: usize) -> usize {
        let mut shown = usize::MAX;
        for _ in 0..1000 {
            shown = show(ctx, key, || image_of(99));
            if shown == n {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        shown
    }

    /// Builds drawn for each camera, one UI frame per camera (and the frames a background
    /// build takes to land), in one viewport.
    fn builds(frame: &FrameData, cams: &[Camera]) -> usize {
        let ctx = egui::Context::default();
        let n = Arc::new(AtomicUsize::new(0));
        for cam in cams {
            let count = n.clone();
            let key = PointsKey::new(frame, rect(), 1.0, cam, 1.0);
            show(&ctx, key, move || {
                count.fetch_add(1, Ordering::SeqCst);
                image_of(1)
            });
            assert_eq!(until_shown(&ctx, key, 1), 1);
        }
        n.load(Ordering::SeqCst)
    }

    #[test]
    fn the_image_is_rebuilt_only_when_the_view_changes() {
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
    fn a_new_frame_is_built_in_the_background_while_the_last_one_stays() {
        let (a, b) = (test_frame(3), test_frame(3));
        let cam = Camera::default();
        let ctx = egui::Context::default();
        let (key_a, key_b) = (
            PointsKey::new(&a, rect(), 1.0, &cam, 1.0),
            PointsKey::new(&b, rect(), 1.0, &cam, 1.0),
        );
        assert_eq!(
            show(&ctx, key_a, || image_of(1)),
            0,
            "the first frame too is built apart"
        );
        assert_eq!(until_shown(&ctx, key_a, 1), 1);
        // b's build waits until the test lets it go: a UI frame meanwhile must not
        let (go, wait) = mpsc::channel::<()>();
        let slow = move || {
            let _ = wait.recv_timeout(Duration::from_secs(10));
            image_of(2)
        };
        assert_eq!(
            show(&ctx, key_b, slow),
            1,
            "a's image stays while b's is built"
        );
        assert_eq!(show(&ctx, key_b, || image_of(99)), 1, "one build at a time");
        go.send(()).unwrap();
        let shown = until_shown(&ctx, key_b, 2);
        assert_eq!(shown, 2, "b's image comes on screen when it is ready");
    }

    #[test]
    fn the_particles_are_one_textured_rectangle() {
        // 50 particles a few pixels apart
        let mut frame = test_frame(50);
        for (i, p) in frame.sample.points.iter_mut().enumerate() {
            *p = [0.1 + i as f32 * 0.016, 0.5, 0.5];
        }
        let frame = Arc::new(frame);
        let spec = flip_core::GridSpec::new(8, 8, 8, 0.125);
        let ctx = egui::Context::default();
        let mut cam = Camera::default();
        let input = egui::RawInput {
            screen_rect: Some(Rect::from_min_max(Pos2::ZERO, pos2(400.0, 400.0))),
            ..Default::default()
        };
        // the first frame's image is built in the background: draw until it is there
        let mut textured = vec![];
        let mut uploaded = 0;
        for _ in 0..1000 {
            let out = ctx.run(input.clone(), |ctx| {
                egui::CentralPanel::default().show(ctx, |ui| {
                    crate::viewport::show(ui, spec, Some(&frame), &mut cam, 1.0);
                });
            });
            uploaded += (out.textures_delta.set.iter())
                .filter(|(_, delta)| lit_pixels(&delta.image) > 0)
                .count();
            textured = textured_meshes(&ctx, out);
            if !textured.is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        // one rectangle (4 corners) of the particles' texture, uploaded once with them in it
        assert_eq!(textured, [4], "meshes with a texture of their own");
        assert_eq!(uploaded, 1);
    }

    /// Pixels of an uploaded image that are not transparent.
    fn lit_pixels(image: &egui::ImageData) -> usize {
        match image {
            egui::ImageData::Color(c) => c
                .pixels
                .iter()
                .filter(|p| **p != egui::Color32::TRANSPARENT)
                .count(),
            egui::ImageData::Font(_) => 0,
        }
    }

    /// Vertex counts of the meshes of a UI frame's output drawn with a texture other than the fonts'.
    fn textured_meshes(ctx: &egui::Context, out: egui::FullOutput) -> Vec<usize> {
        ctx.tessellate(out.shapes, out.pixels_per_point)
            .into_iter()
            .filter_map(|p| match p.primitive {
                egui::epaint::Primitive::Mesh(m) => Some(m),
                egui::epaint::Primitive::Callback(_) => None,
            })
            .filter(|m| m.texture_id != egui::TextureId::default())
            .map(|m| m.vertices.len())
            .collect()
    }
}
