//! Terrain height maps for the tall-cell grid: whole cells per column (the grid's structure)
//! and fractional heights at the side faces (their solid fractions), from a function or a PNG.

use std::path::Path;

/// A terrain on `nx × nz` columns (`nz = 1` in 2D), heights in cells.
#[derive(Clone, Debug, PartialEq)]
pub struct Terrain {
    /// Columns along x and z.
    pub columns: [usize; 2],
    /// Whole cells per column `i + nx·k` (`H`).
    pub whole: Vec<usize>,
    /// Fractional heights at the x faces (`(nx + 1)·nz`) and z faces (`nx·(nz + 1)`, empty in
    /// 2D), laid out as `TallGrid::terrain_face`.
    pub face: [Vec<f32>; 2],
}

/// A terrain array whose length does not fit the column counts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("terrain: {len} {array} heights for {}×{} columns, expected {expected}", .columns[0], .columns[1])]
pub struct TerrainLengthError {
    /// The array: `columns`, `x faces` or `z faces`.
    pub array: &'static str,
    /// Its length.
    pub len: usize,
    /// Columns along x and z.
    pub columns: [usize; 2],
    /// The length the columns need.
    pub expected: usize,
}

impl Terrain {
    /// Checks the array lengths against the column counts.
    ///
    /// # Errors
    /// [`TerrainLengthError`] naming the array that does not fit.
    pub fn check(&self) -> Result<(), TerrainLengthError> {
        let [nx, nz] = self.columns;
        let faces_z = if nz > 1 { nx * (nz + 1) } else { 0 };
        let lens = [
            ("columns", self.whole.len(), nx * nz),
            ("x faces", self.face[0].len(), (nx + 1) * nz),
            ("z faces", self.face[1].len(), faces_z),
        ];
        match lens.iter().find(|(_, len, want)| len != want) {
            Some(&(array, len, expected)) => Err(TerrainLengthError {
                array,
                len,
                columns: self.columns,
                expected,
            }),
            None => Ok(()),
        }
    }
}

/// Column and face heights (cells) of a 2D terrain given in metres by `height(x)`, clamped to
/// `0..=max_cells`.
pub fn from_fn(columns: usize, dx: f32, max_cells: usize, height: impl Fn(f32) -> f32) -> Terrain {
    from_map([columns, 1], dx, max_cells, |x, _| height(x))
}

/// Column and face heights (cells) of a terrain given in metres by `height(x, z)` over
/// `nx × nz` columns, clamped to `0..=max_cells` (z faces only in 3D).
pub fn from_map(
    [nx, nz]: [usize; 2],
    dx: f32,
    max_cells: usize,
    height: impl Fn(f32, f32) -> f32,
) -> Terrain {
    let cells = |x: f32, z: f32| (height(x, z) / dx).clamp(0.0, max_cells as f32);
    let centre = |i: usize| (i as f32 + 0.5) * dx;
    let whole = (0..nx * nz)
        .map(|c| cells(centre(c % nx), centre(c / nx)).floor() as usize)
        .collect();
    let x = (0..(nx + 1) * nz)
        .map(|f| cells((f % (nx + 1)) as f32 * dx, centre(f / (nx + 1))))
        .collect();
    let z = if nz > 1 {
        (0..nx * (nz + 1))
            .map(|f| cells(centre(f % nx), (f / nx) as f32 * dx))
            .collect()
    } else {
        Vec::new()
    };
    Terrain {
        columns: [nx, nz],
        whole,
        face: [x, z],
    }
}

/// A terrain read from a greyscale PNG: black is 0 m, white `max_height` metres, the image
/// stretched over the columns (bilinear between pixels). In 2D (`nz = 1`) the image's middle
/// row is the profile along x.
///
/// # Errors
/// The file cannot be read or decoded (the message names it).
pub fn from_png(
    path: &Path,
    [nx, nz]: [usize; 2],
    dx: f32,
    max_cells: usize,
    max_height: f32,
) -> Result<Terrain, String> {
    let img = image::open(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .into_luma16();
    let (w, h) = img.dimensions();
    if w == 0 || h == 0 {
        return Err(format!("{}: empty image", path.display()));
    }
    let (width, depth) = (nx as f32 * dx, nz as f32 * dx);
    let pixel = |i: u32, j: u32| f32::from(img.get_pixel(i, j)[0]) / 65535.0;
    let axis = |t: f32, n: u32| {
        let p = t.clamp(0.0, (n - 1) as f32);
        let a = p.floor() as u32;
        (a, (a + 1).min(n - 1), p.fract())
    };
    let at = |x: f32, z: f32| {
        let (a, b, tx) = axis(x / width * w as f32 - 0.5, w);
        let row = |j: u32| pixel(a, j) + tx * (pixel(b, j) - pixel(a, j));
        let grey = if nz == 1 {
            row(h / 2)
        } else {
            let (c, d, tz) = axis(z / depth * h as f32 - 0.5, h);
            row(c) + tz * (row(d) - row(c))
        };
        grey * max_height
    };
    Ok(from_map([nx, nz], dx, max_cells, at))
}
