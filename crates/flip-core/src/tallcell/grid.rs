//! The restricted tall-cell grid in 2D (Chentanez & Müller 2011, §3): each column holds the
//! terrain, one tall cell and `regular` cells above it. Heights are whole cells. A quantity
//! lives at `regular + 2` samples per column: slot 0 at the tall cell's bottom, slot 1 at its
//! top, slots 2.. at the regular cells.

use serde::{Deserialize, Serialize};

/// Where a field's samples sit in a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stagger {
    /// Cell centres (φ, pressure).
    Centre,
    /// The column's left face at the cell centres' heights (`u`).
    FaceX,
    /// The cells' bottom faces (`v`): slot 0 on the terrain face (closed, zero), slot 1 on the
    /// bottom face of the tall cell's top cell; between them `v` is linear, as in a column of
    /// liquid whose horizontal inflow is uniform with depth.
    FaceY,
}

/// What the paper's rule "q(x, y) hides the tall-cell structure" gives at a whole-cell
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
    /// Columns (x cells).
    pub columns: usize,
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
    /// Terrain height at each x face, in cells (fractional: the solid fraction of the face's
    /// lowest open cell), `columns + 1` entries.
    pub terrain_face: Vec<f32>,
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
    /// A grid over `terrain` (whole cells per column; `terrain_face` fractional per x face)
    /// with every tall cell at its minimum: `regular` layers, `max_step` = D. `regular: None`
    /// makes the regular-grid special case: enough layers to reach the lid from the lowest
    /// terrain, never re-fitted.
    ///
    /// # Errors
    /// A message naming the parameter when the terrain leaves no room or the sizes disagree.
    pub fn new(
        height: usize,
        dx: f32,
        (terrain, terrain_face): (Vec<usize>, Vec<f32>),
        regular: Option<usize>,
        max_step: usize,
    ) -> Result<Self, String> {
        let columns = terrain.len();
        if columns < 2 || terrain_face.len() != columns + 1 {
            return Err(format!(
                "{columns} columns with {} face heights: need at least 2 columns",
                terrain_face.len()
            ));
        }
        let lowest = terrain.iter().copied().min().unwrap_or(0);
        if let Some(h) = terrain.iter().find(|&&h| h + MIN_TALL + 1 > height) {
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
            columns,
            height,
            dx,
            regular,
            max_step: max_step.max(1),
            tall: vec![MIN_TALL; columns],
            terrain,
            terrain_face,
            under_surface: regular / 2,
            fixed,
        })
    }

    /// Samples per column.
    pub fn slots(&self) -> usize {
        self.regular + 2
    }

    /// Samples in all.
    pub fn sample_count(&self) -> usize {
        self.columns * self.slots()
    }

    /// Flat index of slot `s` of column `i`.
    #[inline]
    pub fn index(&self, i: usize, s: usize) -> usize {
        i * self.slots() + s
    }

    /// Row (whole cells) of slot `s` of column `i` for `stagger`: the cell for centres and x
    /// faces, the face for y faces.
    #[inline]
    pub fn row(&self, stagger: Stagger, i: usize, s: usize) -> usize {
        let (h0, t) = (self.terrain[i], self.tall[i]);
        match (stagger, s) {
            (Stagger::FaceX, 0) => self.face_bottom(i),
            (_, 0) => h0,
            (_, 1) => h0 + t - 1,
            _ => h0 + t + s - 2,
        }
    }

    /// Row of x face `f`'s slot 0: its lowest open row (above both columns' terrain), at
    /// most the tall cell's top row; the face's velocity is linear from there to the top.
    #[inline]
    pub fn face_bottom(&self, f: usize) -> usize {
        let top = self.terrain[f] + self.tall[f] - 1;
        let open = if f == 0 {
            self.terrain[0]
        } else {
            self.terrain[f - 1].max(self.terrain[f])
        };
        open.min(top)
    }

    /// Whether y-face slot `s` of column `i` is closed: the terrain face or the lid.
    #[inline]
    pub fn closed_y(&self, i: usize, s: usize) -> bool {
        s == 0 || self.row(Stagger::FaceY, i, s) >= self.height
    }

    /// Open fraction of x face `f` (between columns `f − 1` and `f`) in cell row `y`: the
    /// part above the terrain there and above both columns' solid cells; walls are closed.
    pub fn open_x(&self, f: usize, y: i64) -> f32 {
        if f == 0 || f >= self.columns || y < 0 || y >= self.height as i64 {
            return 0.0;
        }
        let solid = self.terrain[f - 1].max(self.terrain[f]) as f32;
        let top = self.terrain_face[f].max(solid);
        (y as f32 + 1.0 - top).clamp(0.0, 1.0)
    }

    /// The paper's rule at whole-cell position (`i`, `y`) of a field staggered as `stagger`
    /// (`i` is a column, or an x face for [`Stagger::FaceX`]).
    pub fn lookup(&self, stagger: Stagger, i: usize, y: i64) -> Lookup {
        let col = i.min(self.columns - 1);
        let bottom = self.index(col, 0);
        let solid = Lookup::Solid { bottom };
        let (h0, t) = (self.terrain[col] as i64, self.tall[col] as i64);
        let lowest = match stagger {
            Stagger::Centre => h0,
            Stagger::FaceX if self.open_x(i, y) <= 0.0 => return solid,
            Stagger::FaceX => self.face_bottom(col) as i64,
            Stagger::FaceY if y >= self.height as i64 => return solid,
            Stagger::FaceY => h0,
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
        let k = (y - top_tall - 1) as usize;
        if k < self.regular {
            return Lookup::Mix([(self.index(col, k + 2), 1.0), (bottom, 0.0)]);
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
