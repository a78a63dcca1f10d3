//! Trilinear hat-weight stencils on the MAC grid, shared by P2G, G2P and advection so that
//! splatting and interpolation use identical weights.

use crate::grid::GridSpec;
use crate::mac::MacGrid;
use glam::Vec3;

/// Lower sample index `b`, fraction `t` and index step `s` of a point along one axis.
#[derive(Clone, Copy, Debug)]
struct Axis {
    b: usize,
    t: f32,
    s: usize,
}

/// Limits of one axis of samples: largest coordinate, largest lower index, step (0 when the
/// axis has a single sample, e.g. z of `u` in 2D).
#[derive(Clone, Copy, Debug)]
struct Limits {
    hi: f32,
    max_b: u32,
    s: usize,
}

impl Limits {
    fn new(n: usize) -> Self {
        let n = n.min(u32::MAX as usize);
        Self {
            hi: n.saturating_sub(1) as f32,
            max_b: n.saturating_sub(2) as u32,
            s: usize::from(n >= 2),
        }
    }
    /// Axis data for `g` in sample units, clamped to the grid (NaN becomes 0).
    #[inline(always)]
    fn axis(&self, g: f32) -> Axis {
        let g = g.max(0.0).min(self.hi);
        let b = (g as u32).min(self.max_b); // g >= 0: truncation is floor
        Axis {
            b: b as usize,
            t: g - b as f32,
            s: self.s,
        }
    }
}

/// Per-grid constants of the stencils, computed once per kernel call.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lattice {
    inv_dx: f32,
    dims: [usize; 3],
    /// Face-aligned limits (`n + 1` samples) per axis.
    face: [Limits; 3],
    /// Centre-aligned limits (`n` samples) per axis.
    centre: [Limits; 3],
    is_2d: bool,
}

/// Interpolation data of one point for all three MAC components: along each axis, relative to
/// the faces (`q`) and to the cell centres (`q − ½`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stencil {
    face: [Axis; 3],
    centre: [Axis; 3],
    dims: [usize; 3],
}

/// The 2×2×2 block of one component around a point: corner index, steps and fractions.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Block {
    /// Linear index of the lower corner.
    pub base: usize,
    /// Index steps along x, y, z (0 on a single-layer axis).
    pub off: [usize; 3],
    /// Fractions along x, y, z.
    pub t: [f32; 3],
}

#[inline(always)]
fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + t * (b - a)
}

impl Lattice {
    /// The constants of `spec`.
    pub fn new(spec: &GridSpec) -> Self {
        let dims = spec.dims();
        Self {
            inv_dx: 1.0 / spec.dx,
            dims,
            face: [
                Limits::new(dims[0] + 1),
                Limits::new(dims[1] + 1),
                Limits::new(dims[2] + 1),
            ],
            centre: [
                Limits::new(dims[0]),
                Limits::new(dims[1]),
                Limits::new(dims[2]),
            ],
            is_2d: spec.is_2d(),
        }
    }
    /// The cell size.
    #[inline(always)]
    pub fn dx(&self) -> f32 {
        1.0 / self.inv_dx
    }
    /// The stencil of `p`.
    #[inline(always)]
    pub fn stencil(&self, p: Vec3) -> Stencil {
        let q = p * self.inv_dx;
        let (f, c) = (&self.face, &self.centre);
        Stencil {
            face: [f[0].axis(q.x), f[1].axis(q.y), f[2].axis(q.z)],
            centre: [
                c[0].axis(q.x - 0.5),
                c[1].axis(q.y - 0.5),
                c[2].axis(q.z - 0.5),
            ],
            dims: self.dims,
        }
    }
    /// Trilinear interpolation of `vel` at `p` (`w` = 0 in 2D).
    #[inline(always)]
    pub fn sample(&self, vel: &MacGrid, p: Vec3) -> Vec3 {
        let st = self.stencil(p);
        let u = st.block::<0>().sample(&vel.u.data);
        let v = st.block::<1>().sample(&vel.v.data);
        let w = if self.is_2d {
            0.0
        } else {
            st.block::<2>().sample(&vel.w.data)
        };
        Vec3::new(u, v, w)
    }
}

impl Stencil {
    /// The block of component `C` (0 = u, 1 = v, 2 = w): face-aligned along `C`, centred
    /// along the other axes (Karlsson §2.2's staggering).
    #[inline(always)]
    pub fn block<const C: usize>(&self) -> Block {
        let ax = |a: usize| if a == C { self.face[a] } else { self.centre[a] };
        let (x, y, z) = (ax(0), ax(1), ax(2));
        let ni = self.dims[0] + usize::from(C == 0);
        let nj = self.dims[1] + usize::from(C == 1);
        Block {
            base: x.b + ni * (y.b + nj * z.b),
            off: [x.s, y.s * ni, z.s * ni * nj],
            t: [x.t, y.t, z.t],
        }
    }
}

impl Stencil {
    /// The block of a cell-centred field (centred along every axis).
    #[inline(always)]
    pub fn cell_block(&self) -> Block {
        let (x, y, z) = (self.centre[0], self.centre[1], self.centre[2]);
        let [ni, nj, _] = self.dims;
        Block {
            base: x.b + ni * (y.b + nj * z.b),
            off: [x.s, y.s * ni, z.s * ni * nj],
            t: [x.t, y.t, z.t],
        }
    }
}

impl Block {
    /// Trilinear interpolation of `d` (bilinear on a single-layer axis).
    #[inline(always)]
    pub fn sample(&self, d: &[f32]) -> f32 {
        let ([ox, oy, oz], [tx, ty, tz], b) = (self.off, self.t, self.base);
        let row = |b: usize| {
            let r = &d[b..=b + ox]; // one bounds check per row
            lerp(r[0], r[ox], tx)
        };
        let l0 = lerp(row(b), row(b + oy), ty);
        if oz == 0 {
            return l0;
        }
        lerp(l0, lerp(row(b + oz), row(b + oy + oz), ty), tz)
    }
    /// Gradient of the trilinear interpolant of `d`, per sample spacing (0 along a
    /// single-layer axis, whose two "corners" are one sample).
    #[inline(always)]
    pub fn gradient(&self, d: &[f32]) -> Vec3 {
        let ([ox, oy, oz], [tx, ty, tz], b) = (self.off, self.t, self.base);
        let c = |x: usize, y: usize, z: usize| d[b + x * ox + y * oy + z * oz];
        let (c000, c100, c010, c110) = (c(0, 0, 0), c(1, 0, 0), c(0, 1, 0), c(1, 1, 0));
        let (c001, c101, c011, c111) = (c(0, 0, 1), c(1, 0, 1), c(0, 1, 1), c(1, 1, 1));
        let gx = lerp(
            lerp(c100 - c000, c110 - c010, ty),
            lerp(c101 - c001, c111 - c011, ty),
            tz,
        );
        let gy = lerp(
            lerp(c010 - c000, c110 - c100, tx),
            lerp(c011 - c001, c111 - c101, tx),
            tz,
        );
        let gz = lerp(
            lerp(c001 - c000, c101 - c100, tx),
            lerp(c011 - c010, c111 - c110, tx),
            ty,
        );
        Vec3::new(gx, gy, gz)
    }
    /// The indices of the 8 corners, in the order of [`Self::weights`].
    #[inline(always)]
    pub fn corners(&self) -> [usize; 8] {
        let ([ox, oy, oz], b) = (self.off, self.base);
        [
            b,
            b + ox,
            b + oy,
            b + ox + oy,
            b + oz,
            b + ox + oz,
            b + oy + oz,
            b + ox + oy + oz,
        ]
    }
    /// The weights of the 8 corners, x fastest then y then z.
    #[inline(always)]
    pub fn weights(&self) -> [f32; 8] {
        let [tx, ty, tz] = self.t;
        let (ux, uy, uz) = (1.0 - tx, 1.0 - ty, 1.0 - tz);
        let yz = [uy * uz, ty * uz, uy * tz, ty * tz];
        [
            ux * yz[0],
            tx * yz[0],
            ux * yz[1],
            tx * yz[1],
            ux * yz[2],
            tx * yz[2],
            ux * yz[3],
            tx * yz[3],
        ]
    }
}

/// Whether the components of `vel` have the sizes of `spec`'s MAC grid.
pub fn matches_spec(spec: &GridSpec, vel: &MacGrid) -> bool {
    let (ni, nj, nk) = (spec.ni, spec.nj, spec.nk);
    vel.u.dims() == [ni + 1, nj, nk]
        && vel.v.dims() == [ni, nj + 1, nk]
        && vel.w.dims() == [ni, nj, nk + 1]
}
