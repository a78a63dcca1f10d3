//! PNG preview of tall-cell water. 2D: the side view of terrain, the liquid in its tall cells
//! (darker) and in the regular cells, `scale` pixels per cell. 3D: the top-down map, `scale`
//! pixels per column: water shaded by its depth, dry terrain by its height and slope.

use super::png::{save, BACKGROUND};
use super::ExportError;
use crate::tallcell::sample::{at, Outside};
use crate::tallcell::{Stagger, TallLiquid};
use image::{Rgb, RgbImage};
use std::path::Path;

const TERRAIN: [u8; 3] = [120, 96, 70];
const TALL: [u8; 3] = [30, 80, 160];
const REGULAR: [u8; 3] = [70, 150, 230];

/// Writes the preview of `liquid` to `path`, atomically.
///
/// # Errors
/// [`ExportError`] naming the file.
pub fn write_tallcell_png(path: &Path, liquid: &TallLiquid, scale: u32) -> Result<(), ExportError> {
    let scale = scale.max(1);
    let img = if liquid.grid.is_3d() {
        super::tallcell_map::render_map(liquid, scale)
    } else {
        render(liquid, scale)
    };
    save(path, &img)
}

/// The colour of whole cell (`i`, `y`), if not background.
fn colour(liquid: &TallLiquid, i: usize, y: usize) -> Option<[u8; 3]> {
    let g = &liquid.grid;
    if y < g.terrain[i] {
        return Some(TERRAIN);
    }
    let ik = [i as i64, 0];
    let phi = at(
        g,
        &liquid.phi,
        Stagger::Centre,
        ik,
        y as i64,
        Outside::LevelSet,
    );
    let tall = y < g.terrain[i] + g.tall[i];
    (phi < 0.0).then_some(if tall { TALL } else { REGULAR })
}

fn render(liquid: &TallLiquid, scale: u32) -> RgbImage {
    let g = &liquid.grid;
    let (w, h) = (g.columns[0] as u32 * scale, g.height as u32 * scale);
    let mut img = RgbImage::from_pixel(w, h, Rgb(BACKGROUND));
    for i in 0..g.columns[0] {
        for y in 0..g.height {
            let Some(c) = colour(liquid, i, y) else {
                continue;
            };
            let top = (g.height - 1 - y) as u32 * scale;
            for py in top..top + scale {
                for px in i as u32 * scale..(i as u32 + 1) * scale {
                    img.put_pixel(px, py, Rgb(c));
                }
            }
        }
    }
    img
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tallcell::{terrain, TallGrid};

    #[test]
    fn the_preview_shows_terrain_tall_cells_and_regular_water() {
        let t = terrain::from_fn(16, 0.1, 12, |_| 0.2);
        let grid = TallGrid::new(16, 0.1, t, Some(4), 2).expect("grid");
        let liquid = TallLiquid::below(grid, |_| 1.05);
        let img = render(&liquid, 2);
        assert_eq!(img.dimensions(), (32, 32));
        let row = |y: u32| img.get_pixel(5, 31 - 2 * y).0;
        assert_eq!(row(0), TERRAIN);
        assert_eq!(row(3), TALL);
        assert_eq!(row(9), REGULAR);
        assert_eq!(row(12), BACKGROUND);
    }
}
