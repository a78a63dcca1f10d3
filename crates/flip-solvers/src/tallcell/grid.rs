//! One level of the tall-cell hierarchy: the restricted tall-cell grid (Chentanez & Müller
//! 2011) with the paper's rule that hides its structure (`lookup`), and the down-sampling of
//! H, h, the solid fractions and φ to the next coarser level.

use flip_sdk::TallGeometry;

/// What a whole-cell position holds (the paper's rule; the host's `TallGrid::lookup`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Look {
    /// Below the terrain: the column's lowest sample.
    Solid(usize),
    /// Above the column's samples: the highest sample and the distance to it in cells.
    Air(usize, f64),
    /// The mix of one or two samples (inside a tall cell: bottom and top).
    Mix([(usize, f64); 2]),
}

/// A tall-cell grid level: columns `i + nx·k`, `regular + 2` samples per column.
#[derive(Clone, Debug)]
pub struct Grid {
    /// 2 or 3.
    pub dimension: usize,
    /// Columns along x and z.
    pub columns: [usize; 2],
    /// Regular cells per column.
    pub regular: usize,
    /// The lid, in cells.
    pub height: usize,
    /// Cell size (m).
    pub dx: f64,
    /// Terrain per column (cells).
    pub terrain: Vec<usize>,
    /// Tall-cell height per column (cells, ≥ 2).
    pub tall: Vec<usize>,
    /// Solid top of x faces and z faces (cells).
    pub face_top: [Vec<f32>; 2],
    /// Level set per sample (m).
    pub phi: Vec<f32>,
}

impl Grid {
    /// The finest level, from a problem's geometry.
    pub fn from_geometry(g: &TallGeometry<'_>) -> Self {
        let whole = |v: &[u32]| v.iter().map(|&x| x as usize).collect();
        Self {
            dimension: g.dimension,
            columns: g.columns,
            regular: g.regular,
            height: g.height,
            dx: g.dx,
            terrain: whole(g.terrain),
            tall: whole(g.tall),
            face_top: [g.face_top[0].to_vec(), g.face_top[1].to_vec()],
            phi: g.phi.to_vec(),
        }
    }

    /// Samples per column.
    pub fn slots(&self) -> usize {
        self.regular + 2
    }

    /// Column index of (`i`, `k`).
    #[inline]
    pub fn column(&self, i: usize, k: usize) -> usize {
        i + self.columns[0] * k
    }

    /// Row (cells) of slot `s` of column `c`.
    #[inline]
    pub fn row(&self, c: usize, s: usize) -> usize {
        let (h0, t) = (self.terrain[c], self.tall[c]);
        match s {
            0 => h0,
            1 => h0 + t - 1,
            _ => h0 + t + s - 2,
        }
    }

    /// Column of (`i`, `k`) with both clamped into the grid.
    #[inline]
    pub fn clamped(&self, i: i64, k: i64) -> usize {
        let [nx, nz] = self.columns;
        self.column(
            i.clamp(0, nx as i64 - 1) as usize,
            k.clamp(0, nz as i64 - 1) as usize,
        )
    }

    /// The paper's rule at row `y` of column `c`.
    pub fn lookup(&self, c: usize, y: i64) -> Look {
        let base = c * self.slots();
        let (h0, t) = (self.terrain[c] as i64, self.tall[c] as i64);
        if y < h0 {
            return Look::Solid(base);
        }
        let top_tall = h0 + t - 1;
        if y <= top_tall {
            let w = (y - h0) as f64 / (top_tall - h0) as f64;
            return Look::Mix([(base, 1.0 - w), (base + 1, w)]);
        }
        let k = (y - top_tall - 1) as usize;
        if k < self.regular {
            return Look::Mix([(base + k + 2, 1.0), (base, 0.0)]);
        }
        let above = (y - top_tall - self.regular as i64) as f64;
        Look::Air(base + self.slots() - 1, above)
    }

    /// φ at `look` (outside: the lowest sample's value below, the highest plus the distance
    /// above, as the host reads its level set).
    pub fn phi_at(&self, look: Look) -> f64 {
        match look {
            Look::Mix([(a, wa), (b, wb)]) => {
                let vb = if wb == 0.0 {
                    0.0
                } else {
                    wb * f64::from(self.phi[b])
                };
                wa * f64::from(self.phi[a]) + vb
            }
            Look::Solid(b) => f64::from(self.phi[b]),
            Look::Air(t, above) => f64::from(self.phi[t]) + above * self.dx,
        }
    }

    /// Open fraction in row `y` of the face on axis `axis` (0: x, 1: z) with index `f`
    /// between columns `a` and `b` (`None` at a wall).
    pub fn open(&self, axis: usize, f: usize, sides: Option<(usize, usize)>, y: i64) -> f32 {
        let Some((a, b)) = sides else { return 0.0 };
        if y < 0 || y >= self.height as i64 {
            return 0.0;
        }
        let solid = self.terrain[a].max(self.terrain[b]) as f32;
        let top = self.face_top[axis][f].max(solid);
        (y as f32 + 1.0 - top).clamp(0.0, 1.0)
    }

    /// The side faces of column (`i`, `k`) in row `y`: `(open fraction, neighbour column)`,
    /// x− x+ then (3D) z− z+, walls left out; the first `count` entries are used.
    pub fn sides(&self, i: usize, k: usize, y: i64) -> ([(f32, usize); 4], usize) {
        let [nx, nz] = self.columns;
        let c = self.column(i, k);
        let mut out = [(0.0, 0); 4];
        let mut count = 0;
        let mut push = |axis: usize, face: usize, nb: usize, pair: (usize, usize)| {
            out[count] = (self.open(axis, face, Some(pair), y), nb);
            count += 1;
        };
        let x_face = |f: usize| f + (nx + 1) * k;
        if i > 0 {
            let l = self.column(i - 1, k);
            push(0, x_face(i), l, (l, c));
        }
        if i + 1 < nx {
            let r = self.column(i + 1, k);
            push(0, x_face(i + 1), r, (c, r));
        }
        if self.dimension == 3 && k > 0 {
            let b = self.column(i, k - 1);
            push(1, i + nx * k, b, (b, c));
        }
        if self.dimension == 3 && k + 1 < nz {
            let f = self.column(i, k + 1);
            push(1, i + nx * (k + 1), f, (c, f));
        }
        (out, count)
    }

    /// Row numbers of the unknowns (liquid samples under the lid), `u32::MAX` elsewhere.
    pub fn unknowns(&self) -> Vec<u32> {
        let mut next = 0u32;
        (0..self.phi.len())
            .map(|sample| {
                let (c, s) = (sample / self.slots(), sample % self.slots());
                if self.phi[sample] < 0.0 && self.row(c, s) < self.height {
                    next += 1;
                    next - 1
                } else {
                    u32::MAX
                }
            })
            .collect()
    }
}
