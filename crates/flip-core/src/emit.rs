//! Particle emission (Karlsson Alg. 1) on a jittered stratified sub-grid.

use crate::grid::GridSpec;
use crate::particles::Particles;
use crate::solids::Solids;
use glam::Vec3;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Region to fill with liquid. In 2D z is ignored (spheres are discs).
#[derive(Clone, Debug, PartialEq)]
pub enum EmitShape {
    /// Axis-aligned box.
    Box {
        /// Minimum corner (m).
        min: Vec3,
        /// Maximum corner (m).
        max: Vec3,
    },
    /// Sphere.
    Sphere {
        /// Centre (m).
        center: Vec3,
        /// Radius (m).
        radius: f32,
    },
    /// Lower half of a sphere (`y <= center.y`), e.g. a bowl of liquid.
    HalfSphere {
        /// Centre (m).
        center: Vec3,
        /// Radius (m).
        radius: f32,
    },
    /// Inside an imported mesh (its generalised winding number; 2D cuts it at the middle of
    /// its bounds).
    Mesh(crate::solids::MeshShape),
}

impl EmitShape {
    /// Whether `p` lies inside the shape (z ignored when `is_2d`).
    pub fn contains(&self, p: Vec3, is_2d: bool) -> bool {
        let flat = |v: Vec3| if is_2d { Vec3::new(v.x, v.y, 0.0) } else { v };
        match self {
            EmitShape::Box { min, max } => {
                let (p, lo, hi) = (flat(p), flat(*min), flat(*max));
                p.cmpge(lo).all() && p.cmple(hi).all()
            }
            EmitShape::Sphere { center, radius } => {
                flat(p - *center).length_squared() <= radius * radius
            }
            EmitShape::HalfSphere { center, radius } => {
                p.y <= center.y && flat(p - *center).length_squared() <= radius * radius
            }
            EmitShape::Mesh(mesh) => mesh.distance(p, is_2d) < 0.0,
        }
    }
    /// Axis-aligned bounding box `(min, max)`.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        match self {
            EmitShape::Box { min, max } => (min.min(*max), max.max(*min)),
            EmitShape::Sphere { center, radius } => (*center - *radius, *center + *radius),
            EmitShape::HalfSphere { center, radius } => (
                *center - *radius,
                Vec3::new(center.x + radius, center.y, center.z + radius),
            ),
            EmitShape::Mesh(mesh) => mesh.0.bounds(),
        }
    }
}

/// What to emit.
#[derive(Clone, Debug, PartialEq)]
pub struct EmitParams {
    /// Region to fill.
    pub shape: EmitShape,
    /// Particles per fully covered cell (Karlsson's `c_p`: 4 in 2D, 8 in 3D).
    pub per_cell: usize,
    /// Initial velocity (m/s; z ignored in 2D).
    pub velocity: Vec3,
    /// Jitter in `[0, 1]` of a sub-cell: 0 = sub-cell centres, 1 = anywhere in the sub-cell.
    pub jitter: f32,
    /// Continuous source: only fill cells of the shape holding fewer than half the particles
    /// they would be seeded with (`per_cell / 2` for cells fully inside the shape), counted in
    /// `particles` before emitting.
    pub top_up: bool,
}

/// Alg. 1: seeds `per_cell` jittered samples in every non-solid cell overlapping the shape, on
/// a stratified sub-grid of `m^d` sub-cells (`m = ⌈per_cell^{1/d}⌉`: 2×2 for 4 in 2D, 2×2×2
/// for 8 in 3D; when `per_cell` is not a power, a random subset of the sub-cells), keeping the
/// samples inside the shape and outside solids (`solids.distance(p) > 0`). With `top_up` only
/// cells holding fewer than half of their samples (`per_cell / 2` inside the shape) are
/// filled. Deterministic for `seed`: every cell draws from its own PCG-64 stream, keyed by the
/// cell, so a window of the domain emits exactly the particles of its cells. Particles are
/// appended in cell order (x fastest). Returns the number appended.
pub fn emit(
    spec: &GridSpec,
    solids: &Solids,
    params: &EmitParams,
    seed: u64,
    particles: &mut Particles,
) -> usize {
    let cells = WindowCells {
        offset: [0; 3],
        axis: 2,
        layers: 0..spec.nk,
    };
    emit_in(spec, solids, params, seed, &cells, particles)
}

/// Which cells of a window of the domain emit: the window's first cell is the domain's cell
/// `offset`, and only cells whose index along `axis` lies in `layers` (window layers) emit.
#[derive(Clone, Debug)]
pub struct WindowCells {
    /// The domain cell at the window's first cell.
    pub offset: [usize; 3],
    /// The axis `layers` counts along.
    pub axis: usize,
    /// Window layers that emit.
    pub layers: std::ops::Range<usize>,
}

/// [`emit`] on the cells `cells` of a window of the domain: `spec`, `solids` and `particles`
/// are the window's (window coordinates), the shape and the random streams the domain's.
pub fn emit_in(
    spec: &GridSpec,
    solids: &Solids,
    params: &EmitParams,
    seed: u64,
    cells: &WindowCells,
    particles: &mut Particles,
) -> usize {
    let offset = cells.offset;
    let n = params.per_cell;
    let is_2d = spec.is_2d();
    let origin = Vec3::new(offset[0] as f32, offset[1] as f32, offset[2] as f32) * spec.dx;
    let (bmin, bmax) = params.shape.bounds();
    let (bmin, bmax) = (bmin - origin, bmax - origin);
    if n == 0 || (0..spec.dimension()).any(|a| bmax[a] < 0.0 || bmin[a] > spec.extent()[a]) {
        return 0;
    }
    let (lo, hi) = (spec.cell_of(bmin), spec.cell_of(bmax));
    let (mut lo, mut hi) = if is_2d {
        ([lo[0], lo[1], 0], [hi[0], hi[1], 0])
    } else {
        (lo, hi)
    };
    let a = cells.axis;
    (lo[a], hi[a]) = (
        lo[a].max(cells.layers.start),
        hi[a].min(cells.layers.end.saturating_sub(1)),
    );
    if cells.layers.is_empty() || lo[a] > hi[a] {
        return 0;
    }
    let counts = params.top_up.then(|| count_in_box(spec, particles, lo, hi));
    let strata = Strata::new(n, spec.dimension());
    let vel = if is_2d {
        params.velocity * Vec3::new(1.0, 1.0, 0.0)
    } else {
        params.velocity
    };
    let jitter = params.jitter.clamp(0.0, 1.0);
    let sub = spec.dx / strata.m as f32;
    let mut chosen = Vec::with_capacity(strata.total);
    let mut samples = Vec::with_capacity(strata.total);
    let mut added = 0;
    for k in lo[2]..=hi[2] {
        for j in lo[1]..=hi[1] {
            for i in lo[0]..=hi[0] {
                if solids.is_closed_cell(i, j, k) {
                    continue;
                }
                let global = [i + offset[0], j + offset[1], k + offset[2]];
                let mut rng = Pcg64::seed_from_u64(cell_seed(seed, global));
                strata.pick(&mut rng, &mut chosen);
                let corner =
                    Vec3::new(global[0] as f32, global[1] as f32, global[2] as f32) * spec.dx;
                samples.clear();
                for &s in &chosen {
                    let r = Vec3::new(rng.gen(), rng.gen(), rng.gen()) - 0.5;
                    let mut p = corner + (strata.cell(s) + 0.5 + jitter * r) * sub;
                    if is_2d {
                        p.z = 0.5 * spec.dx;
                    }
                    if params.shape.contains(p, is_2d) && solids.distance(p - origin) > 0.0 {
                        samples.push(p - origin);
                    }
                }
                if let Some(c) = &counts {
                    // top up a cell holding fewer than half of what it would be seeded with
                    let at = (i - lo[0])
                        + (hi[0] - lo[0] + 1) * ((j - lo[1]) + (hi[1] - lo[1] + 1) * (k - lo[2]));
                    if 2 * c[at] as usize >= samples.len() {
                        continue;
                    }
                }
                for &p in &samples {
                    particles.push(p, vel);
                }
                added += samples.len();
            }
        }
    }
    added
}

/// The random stream of domain cell `cell` for an emission seeded with `seed`.
fn cell_seed(seed: u64, cell: [usize; 3]) -> u64 {
    crate::random::stream_seed(seed, cell.map(|c| c as u64))
}

/// Particles per cell of the cell box `[lo, hi]` (x fastest).
fn count_in_box(
    spec: &GridSpec,
    particles: &Particles,
    lo: [usize; 3],
    hi: [usize; 3],
) -> Vec<u32> {
    let d = [hi[0] - lo[0] + 1, hi[1] - lo[1] + 1, hi[2] - lo[2] + 1];
    let mut counts = vec![0u32; d[0] * d[1] * d[2]];
    for &p in &particles.pos {
        let c = spec.cell_of(p);
        if (0..3).all(|a| c[a] >= lo[a] && c[a] <= hi[a]) {
            counts[(c[0] - lo[0]) + d[0] * ((c[1] - lo[1]) + d[1] * (c[2] - lo[2]))] += 1;
        }
    }
    counts
}

/// The stratified sub-grid of one cell: `m` sub-cells per axis, `total = m^d`.
struct Strata {
    n: usize,
    m: usize,
    dim: usize,
    total: usize,
}

impl Strata {
    fn new(n: usize, dim: usize) -> Self {
        let mut m = 1usize;
        while m.pow(dim as u32) < n {
            m += 1;
        }
        Self {
            n,
            m,
            dim,
            total: m.pow(dim as u32),
        }
    }
    /// Fills `out` with the sub-cells to sample: all of them when `n = m^d`, else `n` distinct
    /// ones drawn at random (partial Fisher-Yates).
    fn pick(&self, rng: &mut Pcg64, out: &mut Vec<usize>) {
        out.clear();
        out.extend(0..self.total);
        if self.n < self.total {
            for s in 0..self.n {
                let t = rng.gen_range(s..self.total);
                out.swap(s, t);
            }
            out.truncate(self.n);
        } else {
            // more samples than sub-cells can only happen for n > m^d, which `new` excludes
            debug_assert_eq!(self.n, self.total);
        }
    }
    /// Integer sub-cell coordinates of sub-cell `s`.
    fn cell(&self, s: usize) -> Vec3 {
        let m = self.m;
        let z = if self.dim == 3 {
            (s / (m * m)) as f32
        } else {
            0.0
        };
        Vec3::new((s % m) as f32, ((s / m) % m) as f32, z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solids::{Shape, ShapeKind};

    fn box_params(min: Vec3, max: Vec3, per_cell: usize) -> EmitParams {
        EmitParams {
            shape: EmitShape::Box { min, max },
            per_cell,
            velocity: Vec3::new(1.0, -2.0, 3.0),
            jitter: 1.0,
            top_up: false,
        }
    }

    #[test]
    fn box_away_from_walls_gets_per_cell_times_cells() {
        for (spec, per_cell, cells) in [
            (GridSpec::new(16, 16, 1, 1.0 / 16.0), 4, 4 * 8),
            (GridSpec::new(16, 16, 16, 1.0 / 16.0), 8, 4 * 8 * 4),
            (GridSpec::new(16, 16, 1, 1.0 / 16.0), 5, 4 * 8),
        ] {
            let solids = Solids::walls(spec);
            let params = box_params(
                Vec3::new(0.25, 0.25, 0.25),
                Vec3::new(0.5, 0.75, 0.5),
                per_cell,
            );
            let mut ps = Particles::default();
            let added = emit(&spec, &solids, &params, 42, &mut ps);
            assert_eq!(added, per_cell * cells);
            assert_eq!(ps.len(), added);
            for (p, v) in ps.pos.iter().zip(&ps.vel) {
                assert!(params.shape.contains(*p, spec.is_2d()));
                if spec.is_2d() {
                    assert_eq!((p.z, v.z), (0.5 * spec.dx, 0.0));
                }
            }
            // stratified: every cell holds exactly per_cell particles, one per chosen sub-cell
            let mut per = std::collections::HashMap::new();
            for p in &ps.pos {
                *per.entry(spec.cell_of(*p)).or_insert(0) += 1;
            }
            assert!(per.values().all(|&c| c == per_cell));
        }
    }

    #[test]
    fn never_inside_solids_and_deterministic() {
        let spec = GridSpec::new(20, 20, 20, 0.05);
        let ball = Shape {
            kind: ShapeKind::Sphere {
                center: Vec3::splat(0.5),
                radius: 0.2,
            },
            inverted: false,
            shell: 0.0,
            subtract: false,
            placement: None,
        };
        let solids = Solids::new(spec, vec![ball]);
        let params = box_params(Vec3::ZERO, Vec3::ONE, 8);
        let mut a = Particles::default();
        let n = emit(&spec, &solids, &params, 7, &mut a);
        assert!(n > 0);
        assert!(a.pos.iter().all(|&p| solids.distance(p) > 0.0));
        let mut b = Particles::default();
        emit(&spec, &solids, &params, 7, &mut b);
        assert_eq!(a, b);
        let mut c = Particles::default();
        emit(&spec, &solids, &params, 8, &mut c);
        assert_ne!(a.pos, c.pos);
    }

    #[test]
    fn spheres_are_discs_in_2d_and_top_up_refills_only_sparse_cells() {
        let spec = GridSpec::new(32, 32, 1, 1.0 / 32.0);
        let solids = Solids::walls(spec);
        let mut params = box_params(Vec3::ZERO, Vec3::ZERO, 4);
        params.shape = EmitShape::HalfSphere {
            center: Vec3::new(0.5, 0.5, 123.0),
            radius: 0.25,
        };
        params.jitter = 0.0; // same samples for every seed: top-up finds nothing to add
        let mut ps = Particles::default();
        let n = emit(&spec, &solids, &params, 1, &mut ps);
        let area = 0.5 * std::f32::consts::PI * 0.25 * 0.25 / (spec.dx * spec.dx) * 4.0;
        assert!((n as f32 - area).abs() < 0.05 * area, "{n} vs {area}");
        assert!(ps.pos.iter().all(|p| p.y <= 0.5));
        params.top_up = true;
        assert_eq!(
            emit(&spec, &solids, &params, 2, &mut ps),
            0,
            "full cells are not topped up"
        );
        // empty the cells left of x = 0.4: only those are refilled
        let before = ps.len();
        let keep: Vec<bool> = ps.pos.iter().map(|p| p.x >= 0.4).collect();
        let removed = keep.iter().filter(|k| !**k).count();
        ps.retain_mask(&keep);
        let refilled = emit(&spec, &solids, &params, 3, &mut ps);
        assert!(
            refilled >= removed && refilled <= removed + 4 * 32,
            "{refilled} vs {removed}"
        );
        assert!(ps.len() >= before);
    }
}
