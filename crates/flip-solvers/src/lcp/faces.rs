//! Open face fractions on every level of the LCP hierarchy: the problem's variational faces
//! (Batty, Bertails & Bridson 2007) on the fine level, their average over the fine faces of
//! each coarse face below (Chentanez & Müller 2011's averaged weights). They close the faces a
//! one-sided interpolation must not cross (Lai et al. §4.3, Fig. 4.3) and weight the directly
//! discretised coarse matrices.

use super::level::Level;
use flip_abi::CELL_SOLID;
use flip_sdk::Problem;

/// Sets `level.open` from `p.face_open`: the fraction of each face towards `+a`, 0 at a solid
/// cell or the grid boundary.
pub(crate) fn fine_open(p: &Problem<'_>, level: &mut Level) {
    let dims = p.dims;
    let strides = [1, dims[0], dims[0] * dims[1]];
    let n = p.cell_count();
    for a in 0..3 {
        let open = &mut level.open[a];
        open.clear();
        open.extend((0..n).map(|c| {
            let pos = [c % dims[0], (c / dims[0]) % dims[1], c / strides[2]];
            let inside = a < p.dimension && pos[a] + 1 < dims[a];
            let both =
                inside && p.cell_kind[c] != CELL_SOLID && p.cell_kind[c + strides[a]] != CELL_SOLID;
            if both {
                p.face_open[a][c].clamp(0.0, 1.0)
            } else {
                0.0
            }
        }));
    }
}

/// Sets `coarse.open` (its `dims` set) to the mean open fraction of the `2^{d−1}` fine faces
/// under each coarse face (missing fine faces at an odd boundary count as closed).
pub(crate) fn coarse_open(fine: &Level, coarse: &mut Level) {
    let (cd, fd) = (coarse.dims, fine.dims);
    let nominal = (1usize << (fine.dimension - 1)) as f32;
    let n = cd[0] * cd[1] * cd[2];
    let nk = if fine.dimension == 3 { 2 } else { 1 };
    for a in 0..3 {
        let open = &mut coarse.open[a];
        open.clear();
        open.resize(n, 0.0);
        if a >= fine.dimension || fine.open[a].is_empty() {
            continue;
        }
        for (c, o) in open.iter_mut().enumerate() {
            let cc = [c % cd[0], (c / cd[0]) % cd[1], c / (cd[0] * cd[1])];
            if cc[a] + 1 >= cd[a] {
                continue;
            }
            let mut sum = 0.0;
            for dk in 0..nk {
                for dj in 0..2 {
                    for di in 0..2 {
                        let mut f = [2 * cc[0] + di, 2 * cc[1] + dj, nk * cc[2] + dk];
                        f[a] = 2 * cc[a] + 1; // the fine cells just below the coarse face
                        if (0..3).all(|b| f[b] < fd[b]) && [di, dj, dk][a] == 0 {
                            sum += fine.open[a][f[0] + fd[0] * (f[1] + fd[1] * f[2])];
                        }
                    }
                }
            }
            *o = sum / nominal;
        }
    }
}

impl Level {
    /// Open fraction of the face of cell `c` towards `dir` (±1) along axis `a`; 0 outside the
    /// grid. Without face data (a level built before any), faces count as open.
    pub fn open_face(&self, c: [isize; 3], a: usize, dir: isize) -> f32 {
        let mut lo = c;
        if dir < 0 {
            lo[a] -= 1;
        }
        match self.index(lo) {
            Some(i) if !self.open[a].is_empty() => self.open[a][i],
            Some(_) => 1.0,
            None => 0.0,
        }
    }
}
