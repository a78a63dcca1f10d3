//! Terrain height maps for the tall-cell grid: whole cells per column (the grid's structure)
//! and fractional heights at the x faces (their solid fractions), from a function or a PNG.

use std::path::Path;

/// Column and face heights (cells) of a terrain given in metres by `height(x)`, clamped to
/// `0..=max_cells`.
pub fn from_fn(
    columns: usize,
    dx: f32,
    max_cells: usize,
    height: impl Fn(f32) -> f32,
) -> (Vec<usize>, Vec<f32>) {
    let cells = |x: f32| (height(x) / dx).clamp(0.0, max_cells as f32);
    let whole = (0..columns)
        .map(|i| cells((i as f32 + 0.5) * dx).floor() as usize)
        .collect();
    let faces = (0..=columns).map(|f| cells(f as f32 * dx)).collect();
    (whole, faces)
}

/// A terrain read from the middle row of a greyscale PNG: black is 0 m, white `max_height`
/// metres, the image's width stretched over the columns (linear between pixels).
///
/// # Errors
/// The file cannot be read or decoded (the message names it).
pub fn from_png(
    path: &Path,
    columns: usize,
    dx: f32,
    max_cells: usize,
    max_height: f32,
) -> Result<(Vec<usize>, Vec<f32>), String> {
    let img = image::open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .into_luma16();
    let (w, h) = img.dimensions();
    if w == 0 || h == 0 {
        return Err(format!("{}: empty image", path.display()));
    }
    let row = h / 2;
    let width = columns as f32 * dx;
    let at = |x: f32| {
        let p = (x / width * w as f32 - 0.5).clamp(0.0, (w - 1) as f32);
        let (a, t) = (p.floor() as u32, p.fract());
        let b = (a + 1).min(w - 1);
        let g = |i: u32| f32::from(img.get_pixel(i, row)[0]) / 65535.0;
        (g(a) + t * (g(b) - g(a))) * max_height
    };
    Ok(from_fn(columns, dx, max_cells, at))
}
