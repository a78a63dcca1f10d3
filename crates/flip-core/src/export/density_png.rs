//! PNG previews of smoke: density as white smoke over the dark background, solids grey; 3D
//! scenes as the smoke's opacity along z (`1 − exp(−4·Σ s·dx / depth)`, so a column of
//! density 1 is nearly opaque).

use super::png::{canvas, save};
use super::ExportError;
use crate::grid::{Grid3, GridSpec};
use crate::solids::Solids;
use image::RgbImage;
use rayon::prelude::*;
use std::path::Path;

const SMOKE: [f32; 3] = [235.0, 235.0, 240.0];

/// Writes a `width`-pixel-wide PNG of `density` (height from the grid's aspect ratio). Atomic.
pub fn write_density_png(
    path: &Path,
    spec: &GridSpec,
    density: &Grid3<f32>,
    solids: &Solids,
    width: u32,
) -> Result<(), ExportError> {
    save(path, &render_density(spec, density, solids, width))
}

/// Opacity per (i, j) column.
fn opacity(spec: &GridSpec, density: &Grid3<f32>) -> Vec<f32> {
    let mut out = vec![0.0f32; spec.ni * spec.nj];
    let depth = spec.nk as f32;
    out.par_iter_mut().enumerate().for_each(|(c, o)| {
        let (i, j) = (c % spec.ni, c / spec.ni);
        *o = if spec.is_2d() {
            density[(i, j, 0)].clamp(0.0, 1.0)
        } else {
            let sum: f32 = (0..spec.nk).map(|k| density[(i, j, k)].max(0.0)).sum();
            1.0 - (-4.0 * sum / depth).exp()
        };
    });
    out
}

/// Renders the preview image.
pub(crate) fn render_density(
    spec: &GridSpec,
    density: &Grid3<f32>,
    solids: &Solids,
    width: u32,
) -> RgbImage {
    let (mut img, scale) = canvas(spec, solids, width);
    let e = spec.extent();
    let alpha = opacity(spec, density);
    for (x, y, px) in img.enumerate_pixels_mut() {
        let (fx, fy) = ((x as f32 + 0.5) / scale, e.y - (y as f32 + 0.5) / scale);
        let i = ((fx / spec.dx) as usize).min(spec.ni - 1);
        let j = ((fy.max(0.0) / spec.dx) as usize).min(spec.nj - 1);
        let a = alpha[i + spec.ni * j];
        if a > 0.0 && a.is_finite() {
            px.0 = [0, 1, 2].map(|c| (px.0[c] as f32 + a * (SMOKE[c] - px.0[c] as f32)) as u8);
        }
    }
    img
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke_is_white_where_dense_and_absent_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        for nk in [1, 8] {
            let spec = GridSpec::new(16, 16, nk, 1.0 / 16.0);
            let mut d = Grid3::new(16, 16, nk, 0.0f32);
            crate::smoke::fill_box(
                &spec,
                &mut d,
                glam::Vec3::new(0.3, 0.3, 0.0),
                glam::Vec3::new(0.7, 0.7, 1.0),
                1.0,
            );
            let path = dir.path().join(format!("d{nk}.png"));
            write_density_png(&path, &spec, &d, &Solids::walls(spec), 64).unwrap();
            let img = image::open(&path).unwrap().to_rgb8();
            assert_eq!(img.dimensions(), (64, 64));
            let centre = img.get_pixel(32, 32).0;
            assert!(centre.iter().all(|&c| c > 200), "{centre:?}");
            assert_eq!(img.get_pixel(12, 12).0, super::super::png::BACKGROUND);
        }
    }
}
