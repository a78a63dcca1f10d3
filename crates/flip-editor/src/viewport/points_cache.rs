//! The viewport's particle quads, kept between UI frames. Building them (projection, a depth
//! sort in 3D, about 100 bytes per particle) every frame made each UI frame take hundreds of
//! milliseconds with a few hundred thousand 3D particles; they are now rebuilt only when the
//! shown frame, the camera, the view rectangle or the colouring change. A new frame seen
//! through the same view (or the first one) is built on a thread of its own while the last
//! quads (or none) stay on screen, so a large frame arriving does not stall the UI; a change of
//! view (orbit, zoom, colouring) is built at once, so the picture follows the mouse.

use crate::frames::FrameData;
use crate::viewport::attributes::ColorBy;
use crate::viewport::camera::Camera;
use egui::{Mesh, Rect, Ui, Vec2};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::sync::{Arc, Mutex, PoisonError};

/// Everything the particle quads depend on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointsKey {
    /// The frame's address (stable while the cache holds its `Arc`), number and wall time,
    /// so a frame that reuses a freed address is still told apart.
    frame: (usize, u32, f64),
    /// Top of the speed scale (it grows as faster frames come in).
    vmax: f32,
    rect: Rect,
    /// Yaw, pitch, zoom, point size.
    view: [f32; 4],
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
            vmax,
            rect,
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

/// One viewport's quads on screen and the build running in the background, if any.
#[derive(Default)]
struct Slot {
    shown: Option<(PointsKey, Mesh)>,
    pending: Option<(PointsKey, Receiver<Mesh>)>,
}

impl Slot {
    /// Puts a finished background build on screen.
    fn collect(&mut self) {
        let Some((key, rx)) = &self.pending else {
            return;
        };
        match rx.try_recv() {
            Ok(mesh) => {
                self.shown = Some((*key, mesh));
                self.pending = None;
            }
            Err(TryRecvError::Empty) => {}
            Err(TryRecvError::Disconnected) => self.pending = None,
        }
    }

    /// Starts building the quads of `key` on a thread of their own, which repaints `ctx` when
    /// they are ready.
    fn start(
        &mut self,
        key: PointsKey,
        ctx: egui::Context,
        build: impl FnOnce() -> Mesh + Send + 'static,
    ) {
        let (tx, rx) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("particle quads".into())
            .spawn(move || {
                let _ = tx.send(build());
                ctx.request_repaint();
            });
        if spawned.is_ok() {
            self.pending = Some((key, rx));
        }
    }
}

/// A viewport's slot, shared between UI frames through egui's temporary data.
type SharedSlot = Arc<Mutex<Slot>>;

/// The quads for `key`: kept ones when nothing changed; while a new frame seen through the same
/// view (or the first frame) is built in the background, the last ones (or none); else
/// `build()`'s, built at once.
pub fn cached(ui: &Ui, key: PointsKey, build: impl FnOnce() -> Mesh + Send + 'static) -> Mesh {
    let id = ui.id().with("particle_quads");
    let slot = ui
        .ctx()
        .data_mut(|d| d.get_temp_mut_or_default::<SharedSlot>(id).clone());
    let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
    slot.collect();
    let meanwhile = match &slot.shown {
        Some((shown, mesh)) if *shown == key => return mesh.clone(),
        Some((shown, mesh)) if shown.same_view(&key) => Some(mesh.clone()),
        Some(_) => None,
        None => Some(Mesh::default()),
    };
    if let Some(meanwhile) = meanwhile {
        // The build in flight (this one, or an older frame's) repaints when it lands: the next
        // UI frame shows it and starts the newest frame's if it was older. (Polling for it
        // instead cost a whole UI frame every few milliseconds, tens of milliseconds each with
        // software GL, taken from the simulation.)
        if slot.pending.is_none() {
            slot.start(key, ui.ctx().clone(), build);
        }
        return meanwhile;
    }
    let mesh = build();
    // a build in flight was for the old view
    slot.pending = None;
    slot.shown = Some((key, mesh.clone()));
    mesh
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

    /// One UI frame of a viewport showing `key`; returns the quads' vertex count.
    fn show(
        ctx: &egui::Context,
        key: PointsKey,
        build: impl FnOnce() -> Mesh + Send + 'static,
    ) -> usize {
        let (mut shown, mut build) = (0, Some(build));
        let _ = ctx.run(Default::default(), |ctx| {
            egui::CentralPanel::default().show(ctx, |ui| {
                if let Some(build) = build.take() {
                    shown = cached(ui, key, build).vertices.len();
                }
            });
        });
        shown
    }

    /// A mesh of `n` vertices, told apart by its size.
    fn mesh_of(n: usize) -> Mesh {
        let mut m = Mesh::default();
        m.vertices.resize(n, Default::default());
        m
    }

    /// UI frames showing `key` until the quads on screen have `n` vertices (a background
    /// build landed); returns the count on screen at the end.
    fn until_shown(ctx: &egui::Context, key: PointsKey, n: usize) -> usize {
        let mut shown = usize::MAX;
        for _ in 0..1000 {
            shown = show(ctx, key, || mesh_of(99));
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
            let key = PointsKey::new(frame, rect(), cam, 1.0);
            show(&ctx, key, move || {
                count.fetch_add(1, Ordering::SeqCst);
                mesh_of(1)
            });
            assert_eq!(until_shown(&ctx, key, 1), 1);
        }
        n.load(Ordering::SeqCst)
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
    fn a_new_frame_is_built_in_the_background_while_the_last_one_stays() {
        let (a, b) = (test_frame(3), test_frame(3));
        let cam = Camera::default();
        let ctx = egui::Context::default();
        let (key_a, key_b) = (
            PointsKey::new(&a, rect(), &cam, 1.0),
            PointsKey::new(&b, rect(), &cam, 1.0),
        );
        assert_eq!(
            show(&ctx, key_a, || mesh_of(1)),
            0,
            "the first frame too is built apart"
        );
        assert_eq!(until_shown(&ctx, key_a, 1), 1);
        // b's build waits until the test lets it go: a UI frame meanwhile must not
        let (go, wait) = mpsc::channel::<()>();
        let slow = move || {
            let _ = wait.recv_timeout(Duration::from_secs(10));
            mesh_of(2)
        };
        assert_eq!(
            show(&ctx, key_b, slow),
            1,
            "a's quads stay while b's are built"
        );
        assert_eq!(show(&ctx, key_b, || mesh_of(99)), 1, "one build at a time");
        go.send(()).unwrap();
        let shown = until_shown(&ctx, key_b, 2);
        assert_eq!(shown, 2, "b's quads come on screen when they are ready");
    }

    #[test]
    fn the_quads_are_a_primitive_of_their_own() {
        // 50 particles a few pixels apart (the viewport draws coinciding ones once)
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
        // the first frame's quads are built in the background: draw until they are there
        let mut sizes = vec![];
        for _ in 0..1000 {
            let out = ctx.run(input.clone(), |ctx| {
                egui::CentralPanel::default().show(ctx, |ui| {
                    crate::viewport::show(ui, spec, Some(&frame), &mut cam, 1.0);
                });
            });
            sizes = primitive_sizes(&ctx, out);
            if sizes.contains(&(4 * 50)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        // moved whole into the output, not appended to the viewport's other shapes
        assert!(
            sizes.contains(&(4 * 50)),
            "primitives of {sizes:?} vertices"
        );
    }

    /// Vertex counts of the tessellated meshes of a UI frame's output.
    fn primitive_sizes(ctx: &egui::Context, out: egui::FullOutput) -> Vec<usize> {
        ctx.tessellate(out.shapes, out.pixels_per_point)
            .into_iter()
            .filter_map(|p| match p.primitive {
                egui::epaint::Primitive::Mesh(m) => Some(m.vertices.len()),
                egui::epaint::Primitive::Callback(_) => None,
            })
            .collect()
    }
}
