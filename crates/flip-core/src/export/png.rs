//! PNG previews: particles as dots coloured by speed (viridis), solids grey, on a dark
//! background; 3D scenes as an orthographic view along −z (x right, y up), nearest particle
//! on top.

use super::{write_atomic, ExportError};
use crate::grid::GridSpec;
use crate::particles::Particles;
use crate::solids::Solids;
use image::{ImageFormat, Rgb, RgbImage};
use rayon::prelude::*;
use std::path::Path;

pub(crate) const BACKGROUND: [u8; 3] = [18, 18, 24];
const SOLID: [u8; 3] = [110, 110, 115];

/// Viridis at 9 evenly spaced stops.
const VIRIDIS: [[u8; 3]; 9] = [
    [68, 1, 84],
    [71, 44, 122],
    [59, 81, 139],
    [44, 113, 142],
    [33, 144, 141],
    [39, 173, 129],
    [92, 200, 99],
    [170, 220, 50],
    [253, 231, 37],
];

/// Viridis colour of `t` in `[0, 1]` (piecewise linear between the stops).
pub(crate) fn viridis(t: f32) -> [f32; 3] {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = t * (VIRIDIS.len() - 1) as f32;
    let i = (x as usize).min(VIRIDIS.len() - 2);
    let f = x - i as f32;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    [0, 1, 2].map(|c| a[c] as f32 + f * (b[c] as f32 - a[c] as f32))
}

/// Writes a `width`-pixel-wide PNG preview (height from the grid's aspect ratio): solid cells
/// grey (in 3D shaded by the fraction of the interior depth that is solid), particles as dots
/// coloured by speed relative to the fastest particle; in 3D an orthographic projection along
/// z, nearer particles (larger z) drawn over farther ones and slightly brighter. Atomic.
pub fn write_png(
    path: &Path,
    spec: &GridSpec,
    particles: &Particles,
    solids: &Solids,
    width: u32,
) -> Result<(), ExportError> {
    save(path, &render(spec, particles, solids, width))
}

/// Writes `img` to `path` as PNG, atomically.
pub(crate) fn save(path: &Path, img: &RgbImage) -> Result<(), ExportError> {
    let err_path = path.to_path_buf();
    write_atomic(
        path,
        |tmp| {
            img.save_with_format(tmp, ImageFormat::Png)
                .map_err(|source| ExportError::Image {
                    path: err_path.clone(),
                    source,
                })
        },
        |source| ExportError::Io {
            path: path.to_path_buf(),
            source,
        },
    )
}

/// A `width`-pixel-wide image of the domain (height from its aspect ratio) with the solids
/// drawn, and its scale in pixels per metre.
pub(crate) fn canvas(spec: &GridSpec, solids: &Solids, width: u32) -> (RgbImage, f32) {
    let width = width.max(1);
    let e = spec.extent();
    let height = ((width as f32 * e.y / e.x).round() as u32).max(1);
    let scale = width as f32 / e.x;
    let mut img = RgbImage::from_pixel(width, height, Rgb(BACKGROUND));
    draw_solids(spec, solids, &mut img, scale);
    (img, scale)
}

/// Renders the preview image.
pub(crate) fn render(
    spec: &GridSpec,
    particles: &Particles,
    solids: &Solids,
    width: u32,
) -> RgbImage {
    let (mut img, scale) = canvas(spec, solids, width);
    let (width, height) = img.dimensions();
    let e = spec.extent();
    let max_speed = particles.max_speed().max(1e-6);
    let radius = (0.3 * spec.dx * scale).clamp(0.5, 4.0);
    let r_px = radius.ceil() as i64;
    let mut depth = vec![f32::NEG_INFINITY; (width * height) as usize];
    for (p, v) in particles.pos.iter().zip(&particles.vel) {
        if !p.is_finite() {
            continue;
        }
        let shade = if spec.is_2d() {
            1.0
        } else {
            0.6 + 0.4 * (p.z / e.z).clamp(0.0, 1.0)
        };
        let c = viridis(v.length() / max_speed).map(|x| (x * shade) as u8);
        let (cx, cy) = (p.x * scale, (e.y - p.y) * scale);
        for dy in -r_px..=r_px {
            for dx in -r_px..=r_px {
                let (px, py) = (cx.floor() as i64 + dx, cy.floor() as i64 + dy);
                if px < 0 || py < 0 || px >= width as i64 || py >= height as i64 {
                    continue;
                }
                let (ox, oy) = (px as f32 + 0.5 - cx, py as f32 + 0.5 - cy);
                let at = py as usize * width as usize + px as usize;
                if ox * ox + oy * oy <= radius * radius && p.z >= depth[at] {
                    depth[at] = p.z;
                    img.put_pixel(px as u32, py as u32, Rgb(c));
                }
            }
        }
    }
    img
}

/// Grey for solid cells: in 2D solid or not; in 3D by the solid fraction of the column's
/// interior cells (the front and back walls excluded), side walls fully grey.
fn draw_solids(spec: &GridSpec, solids: &Solids, img: &mut RgbImage, scale: f32) {
    let e = spec.extent();
    let (k0, k1) = if spec.nk > 2 {
        (1, spec.nk - 1)
    } else {
        (0, spec.nk)
    };
    let mut cover = vec![0.0f32; spec.ni * spec.nj];
    cover.par_iter_mut().enumerate().for_each(|(c, f)| {
        let (i, j) = (c % spec.ni, c / spec.ni);
        let solid = (k0..k1).filter(|&k| solids.phi[(i, j, k)] < 0.0).count();
        *f = solid as f32 / (k1 - k0) as f32;
    });
    for (x, y, px) in img.enumerate_pixels_mut() {
        let (fx, fy) = ((x as f32 + 0.5) / scale, e.y - (y as f32 + 0.5) / scale);
        let i = ((fx / spec.dx) as usize).min(spec.ni - 1);
        let j = ((fy.max(0.0) / spec.dx) as usize).min(spec.nj - 1);
        let f = cover[i + spec.ni * j];
        if f > 0.0 {
            *px = Rgb([0, 1, 2].map(|c| {
                (BACKGROUND[c] as f32 + f * (SOLID[c] as f32 - BACKGROUND[c] as f32)) as u8
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn png_decodes_with_the_right_size_and_colours() {
        let dir = tempfile::tempdir().unwrap();
        for (spec, w, h) in [
            (GridSpec::new(32, 16, 1, 0.1), 320, 160),
            (GridSpec::new(10, 20, 8, 0.1), 50, 100),
        ] {
            let solids = Solids::walls(spec);
            let mut ps = Particles::default();
            ps.push(Vec3::new(1.0, 0.5, 0.05), Vec3::new(2.0, 0.0, 0.0));
            ps.push(Vec3::new(0.5, 0.6, 0.05), Vec3::ZERO);
            let path = dir.path().join(format!("f{}.png", spec.nk));
            write_png(&path, &spec, &ps, &solids, w).unwrap();
            let img = image::open(&path).unwrap().to_rgb8();
            assert_eq!(img.dimensions(), (w, h));
            assert_eq!(img.get_pixel(0, 0).0, SOLID, "corner is wall");
            assert_eq!(img.get_pixel(w / 2, h / 3).0, BACKGROUND);
            if spec.is_2d() {
                // the fast particle is yellow, the slow one purple
                let fast = img.get_pixel(100, 110).0;
                let slow = img.get_pixel(50, 100).0;
                assert!(fast[0] > 200 && fast[1] > 200, "{fast:?}");
                assert_eq!(slow, VIRIDIS[0]);
            }
        }
        let bad = dir.path().join("missing").join("x.png");
        let spec = GridSpec::new(4, 4, 1, 1.0);
        assert!(write_png(&bad, &spec, &Particles::default(), &Solids::walls(spec), 8).is_err());
    }

    #[test]
    fn colormap_ends() {
        assert_eq!(viridis(0.0), VIRIDIS[0].map(f32::from));
        assert_eq!(viridis(1.0), VIRIDIS[8].map(f32::from));
        assert_eq!(viridis(f32::NAN), VIRIDIS[0].map(f32::from));
    }
}
