//! Volume (density) correction: an implicit density projection in the spirit of Kugelstadt et
//! al. 2019 ("Implicit density projection for volume conserving liquids").
//!
//! FLIP keeps the grid velocity divergence-free but not the particles' spacing, so particles
//! bunch up and the liquid shrinks. Once per step we measure the particle density `ρ` (kernel
//! sum per cell, solids mirrored) against the rest density `ρ₀` and look for a displacement
//! `d = −∇q` with `∇·d = s`, `s = ρ/ρ₀ − 1` (the linearised density change of moving every
//! particle by `d`; Kugelstadt eq. 9 with Δt² folded into `q`): the same Poisson operator as
//! the pressure solve (ghost-fluid `q = 0` at the liquid surface, solid faces by open fraction),
//! so any solver plugin solves it. Near the surface, where a cell's kernel support is only
//! partly liquid, only over-density counts (`s ≥ 0`), as in Kugelstadt §4.
//!
//! Spray and thin sheets hold fewer particles than their level set's volume at rest density,
//! which the local term cannot see. A global term closes the books, the volume control of Kim
//! et al. 2007 ("Practical control of bubble volume"): every liquid cell also gets the uniform
//! source `−e`, `e = (V − V_p)/V_p`, where `V` is the level set's volume and `V_p` the particles'
//! rest volume (`N` times the volume per particle measured when the rest density was), so the
//! liquid as a whole contracts or expands towards it.

use crate::advect::shift_confined;
use crate::cells::{CellGrid, CellKind};
use crate::grid::{Grid3, GridSpec};
use crate::levelset::{particle_phi_and_density, ParticlePhiScratch, Redistance};
use crate::mac::{MacGrid, MacMask};
use crate::measure::level_set_volume;
use crate::particles::Particles;
use crate::pressure::PressureSystem;
use crate::project::{apply_gradient_still_walls, assemble_operator, AssembleParams, Geometry};
use crate::solids::Solids;
use crate::transfer::Lattice;
use flip_abi::CELL_FLUID;
use rayon::prelude::*;

/// Cells whose centre lies deeper than this (in cells) are interior: their kernel support is
/// wholly liquid, so under-density there is real.
const INTERIOR_DEPTH: f32 = 1.0;
/// Cells nearer a solid than this (in cells) get no local term: the mirror images behind a
/// curved solid only approximate the missing kernel mass.
const NEAR_SOLID: f32 = 1.5;
/// Largest relative density error corrected in one step.
const MAX_ERROR: f32 = 0.5;
/// Largest particle shift per step, in cells.
pub const MAX_SHIFT: f32 = 0.5;
/// Largest global volume error corrected in one step.
const MAX_VOLUME_ERROR: f64 = 0.1;
/// Global volume errors below this are left alone (soft threshold): the level set's volume
/// wobbles by a few 1e-4 as a contact line settles, and still water must stay still.
const VOLUME_DEADBAND: f64 = 1e-3;
/// Local density errors below this are left alone (soft threshold): a settled liquid's
/// particles jiggle its density by a few per cent, and a one-sided surface term would
/// otherwise pump volume that the global term then pumps back.
const DENSITY_DEADBAND: f32 = 0.05;

/// Buffers of one correction, kept between steps.
#[derive(Debug, Default)]
pub struct VolumeScratch {
    /// Liquid signed distance of the particles being corrected.
    pub phi: Grid3<f32>,
    /// Particle density: kernel sum per cell (particles per cell).
    pub density: Grid3<f32>,
    level: ParticlePhiScratch,
    /// Cell kinds for [`assemble_correction`] (the operator needs none: all air).
    pub cells: CellGrid,
    shift: MacGrid,
    valid: MacMask,
}

/// The liquid the correction works on: its signed distance and its particle density (kernel
/// sum per cell, particles per cell), both on the cells of the grid. Either [`measure`]d here
/// or handed over by the level-set node, which computes both in its own splat.
#[derive(Clone, Copy)]
pub struct Measurement<'a> {
    /// Liquid signed distance (negative inside).
    pub phi: &'a Grid3<f32>,
    /// Particle density, particles per cell.
    pub density: &'a Grid3<f32>,
}

impl VolumeScratch {
    /// The last [`measure`] of this scratch.
    pub fn measured(&self) -> Measurement<'_> {
        Measurement {
            phi: &self.phi,
            density: &self.density,
        }
    }
}

/// What one correction measured and did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CorrectionReport {
    /// Mean `|ρ/ρ₀ − 1|` over the interior cells before the correction.
    pub mean_error: f64,
    /// Number of interior cells.
    pub interior_cells: usize,
    /// `(V − V_p)/V_p`: the level set's volume against the particles' rest volume.
    pub volume_error: f64,
    /// Largest particle shift, in cells.
    pub max_shift: f32,
}

/// Measures the particles' level set and density into `scratch` (see
/// [`particle_phi_and_density`]).
pub fn measure(spec: &GridSpec, pos: &[glam::Vec3], solids: &Solids, scratch: &mut VolumeScratch) {
    let VolumeScratch {
        phi,
        density,
        level,
        ..
    } = scratch;
    // no redistancing: the correction needs φ's sign, θ at the surface and whether a cell is
    // more than a cell deep, all of which the surface band and the far values (±) give
    particle_phi_and_density(
        spec,
        pos,
        Some(solids),
        Redistance::whole_grid(0),
        level,
        phi,
        density,
    );
}

/// Mean density over the interior cells of the last [`measure`], or `None` if there are none:
/// the rest density of a freshly seeded liquid.
pub fn interior_density(spec: &GridSpec, m: Measurement<'_>) -> Option<f32> {
    let (sum, n) = interior_sums(spec, m);
    (n > 0).then(|| (sum / n as f64) as f32)
}

/// `(Σ ρ, count)` over the interior cells of the last [`measure`]: [`interior_density`]'s
/// parts, for summing over the windows of a decomposed run.
pub fn interior_density_sums(spec: &GridSpec, m: Measurement<'_>) -> (f64, usize) {
    interior_sums(spec, m)
}

/// `(Σ ρ, count)` over interior cells, summed by fixed chunks (the same on any number of
/// threads).
fn interior_sums(spec: &GridSpec, m: Measurement<'_>) -> (f64, usize) {
    let deep = -INTERIOR_DEPTH * spec.dx;
    let chunks = m.phi.data.par_chunks(SUM_CHUNK);
    let partial: Vec<(f64, usize)> = chunks
        .zip(m.density.data.par_chunks(SUM_CHUNK))
        .map(|(phi, density)| {
            let cells = phi.iter().zip(density).filter(|(&p, _)| p < deep);
            cells.fold((0.0, 0), |(s, n), (_, &d)| (s + f64::from(d), n + 1))
        })
        .collect();
    sum_pairs(&partial)
}

/// Cells per chunk of a deterministic parallel sum.
const SUM_CHUNK: usize = 1 << 14;

/// The chunks' `(sum, count)` added in order.
fn sum_pairs(partial: &[(f64, usize)]) -> (f64, usize) {
    partial
        .iter()
        .fold((0.0, 0), |(s, n), &(ps, pn)| (s + ps, n + pn))
}

/// Volume of the measured liquid (solid cells left out).
pub fn liquid_volume(spec: &GridSpec, solids: &Solids, m: Measurement<'_>) -> f64 {
    level_set_volume(spec, m.phi, Some(solids))
}

/// What the correction steers towards.
#[derive(Clone, Copy, Debug)]
pub struct CorrectionTarget {
    /// The particles' rest volume `V_p` (0: no global term).
    pub rest_volume: f64,
    /// The measured liquid volume ([`liquid_volume`], summed over the windows of a
    /// decomposed run).
    pub volume: f64,
    /// Rest density `ρ₀`, particles per cell.
    pub rest: f32,
    /// Share of the error corrected per step, in `[0, 1]`.
    pub strength: f32,
}

/// Poses the correction for the measured liquid `m`: the pressure operator of the liquid in
/// `m.phi` with `rhs = strength · dx · (s − e)` (solved units: outflow over a cell, see
/// [`crate::pressure`]) and a zero initial guess. `cells` is scratch for the operator.
pub fn assemble_correction(
    spec: &GridSpec,
    solids: &Solids,
    m: Measurement<'_>,
    target: CorrectionTarget,
    cells: &mut CellGrid,
    sys: &mut PressureSystem,
) -> CorrectionReport {
    let CorrectionTarget {
        rest_volume,
        volume,
        rest,
        strength,
    } = target;
    let params = AssembleParams {
        density: 1.0,
        dt: 1.0,
        separating: false,
        geometry: Geometry::Variational,
    };
    if cells.dims() != spec.dims() {
        *cells = CellGrid::new(spec.ni, spec.nj, spec.nk, CellKind::Air);
    }
    assemble_operator(spec, cells, m.phi, solids, &params, sys);
    let inv_rest = 1.0 / rest.max(1e-6);
    let volume_error = if rest_volume > 0.0 {
        (volume / rest_volume - 1.0).clamp(-MAX_VOLUME_ERROR, MAX_VOLUME_ERROR)
    } else {
        0.0
    };
    let local = LocalSource {
        deep: -INTERIOR_DEPTH * spec.dx,
        near_solid: NEAR_SOLID * spec.dx,
        global: soft_threshold(volume_error as f32, VOLUME_DEADBAND as f32),
        scale: strength,
        dx: f64::from(spec.dx),
    };
    let (phi, density, solid) = (&m.phi.data, &m.density.data, &solids.phi.data);
    let p = &mut sys.problem;
    // the right-hand side and, in the same pass, the interior cells' error
    let partial: Vec<(f64, usize)> = p
        .rhs
        .par_chunks_mut(SUM_CHUNK)
        .zip(p.pressure.par_chunks_mut(SUM_CHUNK))
        .enumerate()
        .map(|(n, (rhs, q))| {
            q.fill(0.0);
            let at = n * SUM_CHUNK;
            let mut err = (0.0, 0);
            for (i, r) in rhs.iter_mut().enumerate() {
                let c = at + i;
                let rho = density[c] * inv_rest;
                if phi[c] < local.deep {
                    err = (err.0 + f64::from((rho - 1.0).abs()), err.1 + 1);
                }
                *r = if p.cell_kind[c] == CELL_FLUID {
                    local.rhs(rho, phi[c], solid[c])
                } else {
                    0.0
                };
            }
            err
        })
        .collect();
    let (err, n) = sum_pairs(&partial);
    CorrectionReport {
        mean_error: if n > 0 { err / n as f64 } else { 0.0 },
        interior_cells: n,
        volume_error,
        max_shift: 0.0,
    }
}

/// The correction's source per fluid cell.
struct LocalSource {
    /// φ below which a cell is interior.
    deep: f32,
    /// Solid distance below which a cell gets no local term.
    near_solid: f32,
    /// The uniform (volume) term `e`, thresholded.
    global: f32,
    scale: f32,
    dx: f64,
}

impl LocalSource {
    /// `strength · dx · (s − e)` for a fluid cell of relative density `rho` (ρ/ρ₀).
    #[inline]
    fn rhs(&self, rho: f32, phi: f32, solid: f32) -> f64 {
        let mut s = soft_threshold(rho - 1.0, DENSITY_DEADBAND).clamp(-MAX_ERROR, MAX_ERROR);
        if solid < self.near_solid {
            s = 0.0;
        } else if phi >= self.deep {
            s = s.max(0.0);
        }
        f64::from(self.scale * (s - self.global)) * self.dx
    }
}

/// `x` moved towards 0 by `band` (0 inside the band).
fn soft_threshold(x: f32, band: f32) -> f32 {
    x.signum() * (x.abs() - band).max(0.0)
}

/// Writes the solved correction's displacement `d = −∇q` (metres) into the faces of `shift`
/// (`valid` is scratch) and returns a bound on the largest shift a particle can get from it
/// (the largest face component), in cells. Interpolated at a particle, its length is clamped
/// to [`MAX_SHIFT`] cells ([`crate::advect::advect_shifted`], [`displace`]).
pub fn displacement(
    spec: &GridSpec,
    sys: &PressureSystem,
    shift: &mut MacGrid,
    valid: &mut MacMask,
) -> f32 {
    if crate::transfer::matches_spec(spec, shift) && valid.u.dims() == shift.u.dims() {
        shift.axes_mut().into_iter().for_each(|g| g.fill(0.0));
    } else {
        *shift = MacGrid::zeros(spec);
        *valid = MacMask::zeros(spec);
    }
    apply_gradient_still_walls(spec, sys, shift, valid);
    // interpolation never exceeds the largest face value
    let largest = |g: &Grid3<f32>| g.data.par_iter().map(|d| d.abs()).reduce(|| 0.0, f32::max);
    let max = shift.axes().into_iter().map(largest).fold(0.0, f32::max);
    max.min(MAX_SHIFT * spec.dx) / spec.dx
}

/// Moves the particles by the solved correction's displacement (see [`displacement`]),
/// keeping them in the domain and out of solids. Returns a bound on the largest shift, in
/// cells.
pub fn displace(
    spec: &GridSpec,
    particles: &mut Particles,
    solids: &Solids,
    sys: &PressureSystem,
    scratch: &mut VolumeScratch,
) -> f32 {
    let VolumeScratch { shift, valid, .. } = scratch;
    let max = displacement(spec, sys, shift, valid);
    let (shift, limit) = (&*shift, MAX_SHIFT * spec.dx);
    let lattice = Lattice::new(spec);
    let step = |x: glam::Vec3| lattice.sample(shift, x).clamp_length_max(limit);
    shift_confined(spec, solids, &mut particles.pos, step);
    max
}
