use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Geometry of the simulation grid: cells per axis and cell size. The domain is the box
/// `[0, n·dx]` on each axis. 2D grids have `nk == 1` and ignore z.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridSpec {
    /// Cells along x.
    pub ni: usize,
    /// Cells along y.
    pub nj: usize,
    /// Cells along z (1 in 2D).
    pub nk: usize,
    /// Cell size in metres.
    pub dx: f32,
}

impl GridSpec {
    /// A grid of `dims` cells of size `dx`.
    pub fn new(ni: usize, nj: usize, nk: usize, dx: f32) -> Self {
        Self { ni, nj, nk, dx }
    }
    /// Whether this is a 2D grid (`nk == 1`).
    pub fn is_2d(&self) -> bool {
        self.nk == 1
    }
    /// 2 or 3.
    pub fn dimension(&self) -> usize {
        if self.is_2d() {
            2
        } else {
            3
        }
    }
    /// Number of cells.
    pub fn cell_count(&self) -> usize {
        self.ni * self.nj * self.nk
    }
    /// `[ni, nj, nk]`.
    pub fn dims(&self) -> [usize; 3] {
        [self.ni, self.nj, self.nk]
    }
    /// Domain extent in metres (z extent is `dx` in 2D).
    pub fn extent(&self) -> glam::Vec3 {
        glam::Vec3::new(self.ni as f32, self.nj as f32, self.nk as f32) * self.dx
    }
    /// Centre of cell `(i, j, k)` (z is `dx/2` in 2D).
    pub fn cell_center(&self, i: usize, j: usize, k: usize) -> glam::Vec3 {
        (glam::Vec3::new(i as f32, j as f32, k as f32) + 0.5) * self.dx
    }
    /// Centre of face `(i, j, k)` of the `axis` component of a MAC grid (the face below cell
    /// `(i, j, k)` along `axis`).
    pub fn face_center(&self, axis: usize, i: usize, j: usize, k: usize) -> glam::Vec3 {
        let mut p = self.cell_center(i, j, k);
        p[axis] -= 0.5 * self.dx;
        p
    }
    /// Cell containing `p`, clamped into the grid.
    pub fn cell_of(&self, p: glam::Vec3) -> [usize; 3] {
        let f = p / self.dx;
        [
            clamp_index(f.x, self.ni),
            clamp_index(f.y, self.nj),
            clamp_index(f.z, self.nk),
        ]
    }
}

#[inline]
fn clamp_index(x: f32, n: usize) -> usize {
    // max(0) first: truncation is then floor, without a libm call (NaN maps to 0)
    (x.max(0.0) as u32 as usize).min(n - 1)
}

/// A dense 3D array, x fastest: `index = i + ni * (j + nj * k)`. 2D arrays have `nk == 1`.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Grid3<T> {
    /// Size along x.
    pub ni: usize,
    /// Size along y.
    pub nj: usize,
    /// Size along z.
    pub nk: usize,
    /// Values.
    pub data: Vec<T>,
}

impl<T: Clone> Grid3<T> {
    /// A grid filled with `value`.
    pub fn new(ni: usize, nj: usize, nk: usize, value: T) -> Self {
        Self {
            ni,
            nj,
            nk,
            data: vec![value; ni * nj * nk],
        }
    }
    /// Sets every value to `value`, keeping the allocation.
    pub fn fill(&mut self, value: T) {
        self.data.fill(value);
    }
    /// Resizes (keeping the allocation when it is big enough) and fills with `value`.
    pub fn reset(&mut self, ni: usize, nj: usize, nk: usize, value: T) {
        self.ni = ni;
        self.nj = nj;
        self.nk = nk;
        self.data.clear();
        self.data.resize(ni * nj * nk, value);
    }
}

impl<T> Grid3<T> {
    /// Linear index of `(i, j, k)`.
    #[inline(always)]
    pub fn index(&self, i: usize, j: usize, k: usize) -> usize {
        debug_assert!(
            i < self.ni && j < self.nj && k < self.nk,
            "({i},{j},{k}) outside grid"
        );
        i + self.ni * (j + self.nj * k)
    }
    /// `[ni, nj, nk]`.
    pub fn dims(&self) -> [usize; 3] {
        [self.ni, self.nj, self.nk]
    }
    /// Number of values.
    pub fn len(&self) -> usize {
        self.data.len()
    }
    /// Whether the grid holds no values.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    /// Whether `(i, j, k)` (signed) lies inside.
    #[inline(always)]
    pub fn contains(&self, i: isize, j: isize, k: isize) -> bool {
        i >= 0
            && j >= 0
            && k >= 0
            && (i as usize) < self.ni
            && (j as usize) < self.nj
            && (k as usize) < self.nk
    }
}

impl<T> std::ops::Index<(usize, usize, usize)> for Grid3<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, (i, j, k): (usize, usize, usize)) -> &T {
        &self.data[self.index(i, j, k)]
    }
}

impl<T> std::ops::IndexMut<(usize, usize, usize)> for Grid3<T> {
    #[inline(always)]
    fn index_mut(&mut self, (i, j, k): (usize, usize, usize)) -> &mut T {
        let idx = self.index(i, j, k);
        &mut self.data[idx]
    }
}

/// Runs `f(i, j, k, &mut value)` over a dense x-fastest array of `dims` in parallel (one task per
/// x-row). The loop helper behind the kernels (STYLE G4).
pub fn par_for_each_mut<T, F>(dims: [usize; 3], data: &mut [T], f: F)
where
    T: Send,
    F: Fn(usize, usize, usize, &mut T) + Sync + Send,
{
    let [ni, nj, nk] = dims;
    assert_eq!(
        data.len(),
        ni * nj * nk,
        "array does not match dims {dims:?}"
    );
    if ni == 0 {
        return;
    }
    data.par_chunks_mut(ni).enumerate().for_each(|(row, line)| {
        let (j, k) = (row % nj, row / nj);
        for (i, value) in line.iter_mut().enumerate() {
            f(i, j, k, value);
        }
    });
}
