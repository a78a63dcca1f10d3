//! Top-down PNG preview of 3D tall-cell water: one block of `scale` pixels per column, water
//! shaded from light (shallow) to dark blue (deep), dry terrain from dark to light by its
//! height with a simple hill shade (light from the −x, −z corner).

use crate::tallcell::refit::surface_heights;
use crate::tallcell::TallLiquid;
use image::{Rgb, RgbImage};

/// Shallow and deep water.
const SHALLOW: [f32; 3] = [120.0, 190.0, 240.0];
const DEEP: [f32; 3] = [10.0, 40.0, 120.0];
/// Low and high terrain.
const LOW: [f32; 3] = [90.0, 75.0, 55.0];
const HIGH: [f32; 3] = [215.0, 200.0, 170.0];
/// Depth (cells) below which a column counts as dry.
const WET: f32 = 0.5;

fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [u8; 3] {
    let t = t.clamp(0.0, 1.0);
    std::array::from_fn(|n| (a[n] + t * (b[n] - a[n])).round().clamp(0.0, 255.0) as u8)
}

/// The colour of each column, `i + nx·k`.
pub(super) fn column_colours(liquid: &TallLiquid) -> Vec<[u8; 3]> {
    let g = &liquid.grid;
    let [nx, nz] = g.columns;
    let surface = surface_heights(g, &liquid.phi);
    let ground = |i: usize, k: usize| g.terrain[g.column(i.min(nx - 1), k.min(nz - 1))] as f32;
    let deepest = (0..g.column_count())
        .map(|c| surface[c] - g.terrain[c] as f32)
        .fold(WET, f32::max);
    let top = g.terrain.iter().copied().max().unwrap_or(1).max(1) as f32;
    (0..g.column_count())
        .map(|c| {
            let (i, k) = g.ik(c);
            let depth = surface[c] - g.terrain[c] as f32;
            if depth >= WET {
                return mix(SHALLOW, DEEP, depth / deepest);
            }
            let slope = ground(i + 1, k) - ground(i.saturating_sub(1), k) + ground(i, k + 1)
                - ground(i, k.saturating_sub(1));
            let shade = g.terrain[c] as f32 / top + 0.08 * slope;
            mix(LOW, HIGH, shade)
        })
        .collect()
}

/// The map, `scale` pixels per column, z downwards.
pub(super) fn render_map(liquid: &TallLiquid, scale: u32) -> RgbImage {
    let [nx, nz] = liquid.grid.columns;
    let colours = column_colours(liquid);
    RgbImage::from_fn(nx as u32 * scale, nz as u32 * scale, |px, py| {
        let (i, k) = ((px / scale) as usize, (py / scale) as usize);
        Rgb(colours[i + nx * k])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tallcell::{terrain, TallGrid};

    #[test]
    fn the_map_shows_water_where_it_is_and_dry_terrain_elsewhere() {
        let t = terrain::from_map([8, 6], 0.1, 12, |x, _| 0.1 + 0.1 * x);
        let grid = TallGrid::new(16, 0.1, t, Some(4), 2).expect("grid");
        let liquid = TallLiquid::from_level_set(grid, |[x, y, _]| (y - 0.6).max(x - 0.35));
        let img = render_map(&liquid, 2);
        assert_eq!(img.dimensions(), (16, 12));
        let wet = img.get_pixel(1, 5).0;
        let dry = img.get_pixel(15, 5).0;
        assert!(wet[2] > wet[0] + 50, "water is blue: {wet:?}");
        assert!(dry[0] > dry[2], "terrain is brown: {dry:?}");
    }
}
