//! The restricted tall-cell grid (Chentanez & Müller 2011, §3): columns on an x-z height map
//! (one row of columns along x in 2D), each holding the terrain, one tall cell and `regular`
//! cells above it. Heights are whole cells. A quantity lives at `regular + 2` samples per
//! column: slot 0 at the tall cell's bottom, slot 1 at its top, slots 2.. at the regular cells.

use super::terrain::Terrain;
use serde::{Deserialize, Serialize};

/// Where a field's samples sit in a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stagger {
    /// Cell centres (φ, pressure).
    Centre,
    /// The column's low-x face at the cell centres' heights (`u`).
    FaceX,
    /// The cells' bottom faces (`v`): slot 0 on the terrain face (closed, zero), slot 1 on the
    /// bottom face of the tall cell's top cell; between them `v` is linear, as in a column of
    /// liquid whose horizontal inflow is uniform with depth.
    FaceY,
    /// The column's low-z face at the cell centres' heights (`w`, 3D).
    FaceZ,
}

impl Stagger {
    /// The horizontal axis of a side-face stagger (0: x, 1: z).
    pub fn axis(self) -> Option<usize> {
        match self {
            Stagger::FaceX => Some(0),
            Stagger::FaceZ => Some(1),
            _ => None,
        }
    }
}

/// What the paper's rule "q(x, y, z) hides the tall-cell structure" gives at a whole-cell
/// position: flat sample indices with weights, or the value below the terrain / above the
/// regular cells.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lookup {
    /// Below the terrain, a wall or the lid; `bottom` is the column's slot 0 (flat index).
    Solid {
        /// Flat index of the column's lowest sample.
        bottom: usize,
    },
    /// Above the column's regular cells (or the domain): `top` is the highest sample, `above`
    /// the distance to it in cells.
    Air {
        /// Flat index of the column's highest sample.
        top: usize,
        /// Cells between the position and `top`.
        above: f32,
    },
    /// A linear combination of one or two stored samples (inside a tall cell: the linear
    /// interpolation between its bottom and top).
    /// Weights are `f64`: a hydrostatic pressure must cancel gravity to the last bit, and a
    /// weight like 1/18 rounded to `f32` leaves a steady force of 1e-7 relative.
    Mix([(usize, f64); 2]),
}

/// The grid: columns, terrain, tall-cell heights and the regular-layer count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TallGrid {
    /// Columns along x and z (`[nx, 1]` in 2D); column `i + nx·k`.
    pub columns: [usize; 2],
    /// Domain height in cells (the lid).
    pub height: usize,
    /// Cell size (m).
    pub dx: f32,
    /// Regular cells per column (the paper's `B_y`).
    pub regular: usize,
    /// Largest height difference of neighbouring tall cells, in cells (the paper's `D`).
    pub max_step: usize,
    /// Terrain height per column (whole cells, `H`).
    pub terrain: Vec<usize>,
    /// Terrain height at the x faces (`(nx + 1)·nz`, face `f + (nx + 1)·k`) and the z faces
    /// (`nx·(nz + 1)`, face `i + nx·k`; empty in 2D), in cells: fractional, the solid
    /// fraction of the face's lowest open cell.
    pub terrain_face: [Vec<f32>; 2],
    /// Tall-cell height per column (cells, at least 2, `h`).
    pub tall: Vec<usize>,
    /// Regular cells the re-fit keeps below the liquid surface.
    pub under_surface: usize,
    /// No re-fit: a regular grid (every tall cell two cells high).
    pub fixed: bool,
}

/// Smallest tall cell: two cells, its bottom and top samples (a tall cell of height 2 is two
/// regular cells, so a grid of them is a regular grid).
pub const MIN_TALL: usize = 2;

impl TallGrid {
    /// A grid over `terrain` with every tall cell at its minimum: `regular` layers,
    /// `max_step` = D. `regular: None` makes the regular-grid special case: enough layers to
    /// reach the lid from the lowest terrain, never re-fitted.
    ///
    /// # Errors
    /// A message naming the parameter when the terrain leaves no room or the sizes disagree.
    pub fn new(
        height: usize,
        dx: f32,
        terrain: Terrain,
        regular: Option<usize>,
        max_step: usize,
    ) -> Result<Self, String> {
        let [nx, nz] = terrain.columns;
        terrain.check().map_err(|e| e.to_string())?;
        if nx < 2 || nz == 0 {
            return Err(format!("{nx}×{nz} columns: need at least 2 along x"));
        }
        let lowest = terrain.whole.iter().copied().min().unwrap_or(0);
        if let Some(h) = terrain.whole.iter().find(|&&h| h + MIN_TALL + 1 > height) {
            return Err(format!(
                "terrain: height {h} cells leaves no room under the lid at {height} cells"
            ));
        }
        let fixed = regular.is_none();
        let regular = regular.unwrap_or(height - lowest - MIN_TALL);
        if regular < 2 {
            return Err(format!("regular_layers: {regular} is fewer than 2"));
        }
        Ok(Self {
            columns: [nx, nz],
            height,
            dx,
            regular,
            max_step: max_step.max(1),
            tall: vec![MIN_TALL; nx * nz],
            terrain: terrain.whole,
            terrain_face: terrain.face,
            under_surface: regular / 2,
            fixed,
        })
    }

    /// Whether the grid is 3D (more than one row of columns along z).
    #[inline]
    pub fn is_3d(&self) -> bool {
        self.columns[1] > 1
    }

    /// Number of columns.
    #[inline]
    pub fn column_count(&self) -> usize {
        self.columns[0] * self.columns[1]
    }

    /// Column index of (`i`, `k`).
    #[inline]
    pub fn column(&self, i: usize, k: usize) -> usize {
        i + self.columns[0] * k
    }

    /// (`i`, `k`) of column `c`.
    #[inline]
    pub fn ik(&self, c: usize) -> (usize, usize) {
        (c % self.columns[0], c / self.columns[0])
    }

    /// Samples per column.
    pub fn slots(&self) -> usize {
        self.regular + 2
    }

    /// Samples in all.
    pub fn sample_count(&self) -> usize {
        self.column_count() * self.slots()
    }

    /// Flat index of slot `s` of column `c`.
    #[inline]
    pub fn index(&self, c: usize, s: usize) -> usize {
        c * self.slots() + s
    }

    /// Row (whole cells) of slot `s` of column `c` for `stagger`: the cell for centres and
    /// side faces, the face for y faces.
    #[inline]
    pub fn row(&self, stagger: Stagger, c: usize, s: usize) -> usize {
        let (h0, t) = (self.terrain[c], self.tall[c]);
        match (stagger.axis(), s) {
            (Some(axis), 0) => self.face_bottom(axis, c),
            (_, 0) => h0,
            (_, 1) => h0 + t - 1,
            _ => h0 + t + s - 2,
        }
    }

    /// The column on the low side of column `c` along `axis` (0: x, 1: z), if any.
    #[inline]
    pub fn low_neighbour(&self, axis: usize, c: usize) -> Option<usize> {
        let (i, k) = self.ik(c);
        match axis {
            0 => (i > 0).then(|| c - 1),
            _ => (k > 0).then(|| c - self.columns[0]),
        }
    }

    /// Row of the low face of column `c` along `axis`, slot 0: its lowest open row (above
    /// both columns' terrain), at most the tall cell's top row; the face's velocity is linear
    /// from there to the top.
    #[inline]
    pub fn face_bottom(&self, axis: usize, c: usize) -> usize {
        let top = self.terrain[c] + self.tall[c] - 1;
        let open = match self.low_neighbour(axis, c) {
            Some(n) => self.terrain[n].max(self.terrain[c]),
            None => self.terrain[c],
        };
        open.min(top)
    }

    /// Whether y-face slot `s` of column `c` is closed: the terrain face or the lid.
    #[inline]
    pub fn closed_y(&self, c: usize, s: usize) -> bool {
        s == 0 || self.row(Stagger::FaceY, c, s) >= self.height
    }

    /// Solid top (cells) of the face on `axis` at face position (`i`, `k`) (the x face
    /// between columns `i − 1` and `i`, or the z face between rows `k − 1` and `k`); `None`
    /// at the domain walls.
    pub fn face_top(&self, axis: usize, (i, k): (usize, usize)) -> Option<f32> {
        let [nx, nz] = self.columns;
        let (c, n, face) = match axis {
            0 if i == 0 || i >= nx || k >= nz => return None,
            0 => (self.column(i, k), self.column(i - 1, k), i + (nx + 1) * k),
            _ if k == 0 || k >= nz || i >= nx => return None,
            _ => (self.column(i, k), self.column(i, k - 1), i + nx * k),
        };
        let solid = self.terrain[n].max(self.terrain[c]) as f32;
        Some(self.terrain_face[axis][face].max(solid))
    }

    /// Open fraction of the face on `axis` at (`i`, `k`) in cell row `y`: the part above the
    /// terrain there and above both columns' solid cells; walls are closed.
    #[inline]
    pub fn open(&self, axis: usize, ik: (usize, usize), y: i64) -> f32 {
        if y < 0 || y >= self.height as i64 {
            return 0.0;
        }
        self.face_top(axis, ik)
            .map_or(0.0, |top| (y as f32 + 1.0 - top).clamp(0.0, 1.0))
    }

    /// The paper's rule at whole-cell position (`i`, `k`, `y`) of a field staggered as
    /// `stagger` (`i`, `k` a column, or a face position for the side faces, up to `nx`/`nz`).
    pub fn lookup(&self, stagger: Stagger, (i, k): (usize, usize), y: i64) -> Lookup {
        let [nx, nz] = self.columns;
        let col = self.column(i.min(nx - 1), k.min(nz - 1));
        let bottom = self.index(col, 0);
        let solid = Lookup::Solid { bottom };
        let (h0, t) = (self.terrain[col] as i64, self.tall[col] as i64);
        let lowest = match (stagger, stagger.axis()) {
            (_, Some(axis)) if self.open(axis, (i, k), y) <= 0.0 => return solid,
            (_, Some(axis)) => self.face_bottom(axis, col) as i64,
            (Stagger::FaceY, _) if y >= self.height as i64 => return solid,
            _ => h0,
        };
        if y < lowest {
            return solid;
        }
        let top_tall = h0 + t - 1;
        if y <= top_tall {
            let (s0, s1) = (self.index(col, 0), self.index(col, 1));
            if top_tall == lowest {
                return Lookup::Mix([(s1, 1.0), (s0, 0.0)]);
            }
            let w = (y - lowest) as f64 / (top_tall - lowest) as f64;
            return Lookup::Mix([(s0, 1.0 - w), (s1, w)]);
        }
        let r = (y - top_tall - 1) as usize;
        if r < self.regular {
            return Lookup::Mix([(self.index(col, r + 2), 1.0), (bottom, 0.0)]);
        }
        let top = self.index(col, self.slots() - 1);
        Lookup::Air {
            top,
            above: (y - (top_tall + self.regular as i64)) as f32,
        }
    }

    /// Unknowns a regular grid of the same columns and height would have above the terrain.
    pub fn regular_grid_cells(&self) -> usize {
        self.terrain
            .iter()
            .map(|&h| self.height.saturating_sub(h))
            .sum()
    }
}
