//! Grid data drawn over or next to the particles: middle z-slices of the level set, cell kinds
//! and smoke density, and the solid cells worth drawing, extracted from a simulation's probed
//! values.

use flip_core::whitewater::Diffuse;
use flip_core::{CellGrid, CellKind, Grid3, GridSpec, Solids};
use flip_graph::Value;
use flip_nodes::kinds::{CELLS, DIFFUSE, LEVEL_SET, SCALAR, SOLIDS, VELOCITY};
use std::sync::Arc;

/// The last solids seen and their drawable cells (rebuilt only when the solids change).
pub type SolidsCache = Option<(Arc<Solids>, Arc<SolidsDraw>)>;

/// One z-slice of a cell grid (2D: the grid itself; 3D: the middle slice).
#[derive(Clone, Debug, PartialEq)]
pub struct Slice<T> {
    /// Cells along x.
    pub ni: usize,
    /// Cells along y.
    pub nj: usize,
    /// The slice's k index.
    pub k: usize,
    /// `ni * nj` values, x fastest.
    pub data: Vec<T>,
}

impl<T: Copy> Slice<T> {
    /// The middle z-slice of `grid`.
    pub fn middle(grid: &Grid3<T>) -> Self {
        let k = grid.nk / 2;
        let start = grid.ni * grid.nj * k;
        Self {
            ni: grid.ni,
            nj: grid.nj,
            k,
            data: grid.data[start..start + grid.ni * grid.nj].to_vec(),
        }
    }
    /// Value at `(i, j)`.
    pub fn at(&self, i: usize, j: usize) -> T {
        self.data[i + self.ni * j]
    }
}

/// Solid cells worth drawing: every solid cell in 2D; in 3D the solid cells next to open
/// cells, without the domain walls (drawn as a box outline instead).
#[derive(Debug)]
pub struct SolidsDraw {
    /// Grid of the cells.
    pub spec: GridSpec,
    /// Cell indices.
    pub cells: Vec<[u32; 3]>,
}

impl SolidsDraw {
    /// Extracts the cells to draw.
    pub fn new(solids: &Solids) -> Self {
        let spec = solids.spec;
        let [ni, nj, nk] = spec.dims();
        let mut cells = Vec::new();
        let solid = |i: usize, j: usize, k: usize| solids.phi[(i, j, k)] < 0.0;
        for k in 0..nk {
            for j in 0..nj {
                for i in 0..ni {
                    if !solid(i, j, k) {
                        continue;
                    }
                    if spec.is_2d() {
                        cells.push([i as u32, j as u32, 0]);
                        continue;
                    }
                    let wall =
                        i == 0 || j == 0 || k == 0 || i == ni - 1 || j == nj - 1 || k == nk - 1;
                    let open = [(1, 0, 0), (0, 1, 0), (0, 0, 1)].iter().any(|&(a, b, c)| {
                        let (i2, j2, k2) = (i + a, j + b, k + c);
                        let below = i >= a && j >= b && k >= c && !solid(i - a, j - b, k - c);
                        let above = i2 < ni && j2 < nj && k2 < nk && !solid(i2, j2, k2);
                        below || above
                    });
                    if !wall && open {
                        cells.push([i as u32, j as u32, k as u32]);
                    }
                }
            }
        }
        Self { spec, cells }
    }
}

/// Cell kinds as bytes.
pub fn cell_slice(cells: &CellGrid) -> Slice<u8> {
    let s = Slice::middle(cells);
    Slice {
        ni: s.ni,
        nj: s.nj,
        k: s.k,
        data: s
            .data
            .iter()
            .map(|c| match c {
                CellKind::Fluid => 0,
                CellKind::Air => 1,
                CellKind::Solid => 2,
            })
            .collect(),
    }
}

/// Overlay slices and solids of one frame.
#[derive(Default)]
pub struct Overlays {
    /// Liquid level set slice.
    pub level_set: Option<Slice<f32>>,
    /// Cell kind slice.
    pub cells: Option<Slice<u8>>,
    /// Smoke density slice.
    pub density: Option<Slice<f32>>,
    /// Solids to draw.
    pub solids: Option<Arc<SolidsDraw>>,
    /// Positions of the diffuse (whitewater) particles, subsampled to
    /// [`crate::frames::MAX_POINTS`].
    pub diffuse: Vec<[f32; 3]>,
}

/// Positions of the diffuse particles, an even subsample of at most
/// [`crate::frames::MAX_POINTS`].
fn diffuse_points(d: &Diffuse) -> Vec<[f32; 3]> {
    let stride = d.len().div_ceil(crate::frames::MAX_POINTS).max(1);
    d.pos.iter().step_by(stride).map(|p| p.to_array()).collect()
}

/// Overlay slices and the solids out of probed values; `last_solids` is reused when the solids
/// did not change (same `Arc`).
pub fn overlays(probed: &[Option<Value>], last_solids: &mut SolidsCache) -> Overlays {
    let mut o = Overlays::default();
    // A liquid graph's probes include the velocity G2P reads; its scalar is the pressure
    // (coloured at the particles), a smoke graph's the density (drawn as a field).
    let liquid = probed.iter().flatten().any(|v| v.kind() == VELOCITY);
    for v in probed.iter().flatten() {
        let kind = v.kind();
        if kind == LEVEL_SET {
            o.level_set = v.get().map(Slice::middle);
        } else if kind == CELLS {
            o.cells = v.get().map(cell_slice);
        } else if kind == DIFFUSE {
            o.diffuse = v.get().map(diffuse_points).unwrap_or_default();
        } else if kind == SCALAR && !liquid {
            o.density = v.get().map(Slice::middle);
        } else if let Some(s) = v.shared_as::<Solids>(SOLIDS) {
            let same = last_solids
                .as_ref()
                .is_some_and(|(a, _)| Arc::ptr_eq(a, &s));
            if !same {
                *last_solids = Some((s.clone(), Arc::new(SolidsDraw::new(&s))));
            }
            o.solids = last_solids.as_ref().map(|(_, d)| d.clone());
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solids_2d_draws_the_walls() {
        let spec = GridSpec::new(8, 6, 1, 0.1);
        let d = SolidsDraw::new(&Solids::walls(spec));
        assert_eq!(d.cells.len(), 2 * 8 + 2 * 4);
    }

    #[test]
    fn solids_3d_skips_the_walls() {
        let spec = GridSpec::new(6, 6, 6, 0.1);
        assert!(SolidsDraw::new(&Solids::walls(spec)).cells.is_empty());
    }

    #[test]
    fn middle_slice_of_3d_grid() {
        let mut g = Grid3::new(2, 2, 3, 0.0f32);
        g[(1, 1, 1)] = 5.0;
        let s = Slice::middle(&g);
        assert_eq!((s.k, s.at(1, 1)), (1, 5.0));
    }
}
