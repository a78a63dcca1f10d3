//! The finest level in grid layout, for fast smoothing (after the linear multigrid's `level`):
//! cells split by colour `(i + j + k) mod 2` (red-black, the Gauss-Seidel ordering of the
//! fine level), each colour stored row by row over a padded grid. Cell `ip = 2h + e` of padded
//! row `r = kp · py + jp` is entry `r · half + h` of its colour's array (`e` the row's parity);
//! its x-neighbours are entries `h − 1 + e` and `h + e` of the other colour's same row, its y-
//! and z-neighbours entry `h` of the other colour's rows `r ± 1` and `r ± py`. Kernels then read
//! contiguous slices, without index arrays. Vectors of this layout hold red then black; cells
//! that are not unknowns hold `x = 0`.

/// Geometry of the padded, colour-split layout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Cells per axis (unpadded).
    pub dims: [usize; 3],
    /// Padded rows per z plane (`nj + 2`).
    pub py: usize,
    /// Padded z planes (`nk + 2` in 3D, 1 in 2D).
    pub pz: usize,
    /// Entries per colour row (half the padded, even x extent).
    pub half: usize,
}

impl Layout {
    /// The layout of a grid of `dims` cells (`dims[2] == 1` in 2D).
    pub fn new(dims: [usize; 3], dimension: usize) -> Self {
        Self {
            dims,
            py: dims[1] + 2,
            pz: if dimension == 3 { dims[2] + 2 } else { 1 },
            half: (dims[0] + 2).div_ceil(2),
        }
    }

    /// Whether there is a z axis.
    pub fn three_d(&self) -> bool {
        self.pz > 1
    }

    /// Padded rows per colour.
    pub fn rows(&self) -> usize {
        self.py * self.pz
    }

    /// Entries per colour.
    pub fn colour_len(&self) -> usize {
        self.rows() * self.half
    }

    /// Length of a vector in this layout.
    pub fn len(&self) -> usize {
        2 * self.colour_len()
    }

    /// Parity `e` of the first cell of row `r` of colour `c` (`ip = 2h + e`).
    #[inline]
    pub fn parity(&self, c: usize, r: usize) -> usize {
        (c + r % self.py + r / self.py) & 1
    }
}

/// The fine level's matrix in the layout, and the map from unknowns to positions.
#[derive(Clone, Debug, Default)]
pub(crate) struct GridLevel {
    /// Geometry.
    pub layout: Layout,
    /// `A[c][c]` at unknowns, 0 elsewhere.
    pub diag: Vec<f64>,
    /// The coupling of every pair of neighbouring unknowns, when they are all equal.
    pub uniform: Option<f64>,
    /// Otherwise the couplings to the +x, +y, +z neighbours (0 unless both are unknowns).
    pub off: [Vec<f64>; 3],
    /// Per colour row (`c · rows + r`): the range of `h` holding its unknowns.
    pub spans: Vec<(u32, u32)>,
    /// Unknown → position (increasing: unknowns are numbered in layout order).
    pub pos: Vec<u32>,
}

impl GridLevel {
    /// Writes compact values (per unknown) into a vector of the layout (0 elsewhere).
    pub fn spread(&self, compact: &[f64], out: &mut Vec<f64>) {
        out.clear();
        out.resize(self.layout.len(), 0.0);
        for (&p, &v) in self.pos.iter().zip(compact) {
            out[p as usize] = v;
        }
    }

    /// Reads the unknowns of a vector of the layout.
    pub fn gather(&self, v: &[f64], compact: &mut Vec<f64>) {
        compact.clear();
        compact.extend(self.pos.iter().map(|&p| v[p as usize]));
    }
}
