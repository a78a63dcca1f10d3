//! Liquid surface meshes: the particle level set (Zhu & Bridson 2005, [`crate::levelset`]) or
//! the iso-surface of anisotropic kernels (Yu & Turk 2013, [`anisotropic`]) on the simulation
//! grid refined by an integer factor, clipped by the solids, polygonised by Naive
//! Surface Nets (Gibson 1998; the `fast-surface-nets` crate), optionally Taubin-smoothed (Taubin
//! 1995, λ|μ). The level set, clipping and smoothing run on rayon; the polygoniser is serial.
//! Deterministic for any thread count.

use crate::grid::{Grid3, GridSpec};
use crate::levelset::{particle_phi, ParticlePhiScratch, Redistance};
use crate::solids::Solids;
use anisotropic::KernelShape;
use glam::Vec3;

mod aniso_field;
#[cfg(test)]
mod aniso_tests;
mod anisotropic;
mod eigen;
mod polygonise;
mod smooth;
#[cfg(test)]
mod tests;
mod topology;

pub use polygonise::polygonise;
pub use smooth::{area_weighted_normals, taubin_smooth};
pub use topology::{check_closed_manifold, enclosed_volume, TopologyError};

/// An indexed triangle mesh (metres); triangles are counter-clockwise seen from outside.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriMesh {
    /// Vertex positions.
    pub positions: Vec<Vec3>,
    /// Unit vertex normals, pointing out of the liquid.
    pub normals: Vec<Vec3>,
    /// Vertex indices of each triangle.
    pub triangles: Vec<[u32; 3]>,
}

impl TriMesh {
    /// Whether the mesh has no triangle.
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }
}

/// How the liquid's level set is built from the particles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SurfaceKernel {
    /// Zhu & Bridson's particle level set (isotropic).
    #[default]
    ParticleLevelSet,
    /// Yu & Turk's anisotropic (PCA-shaped) kernels.
    Anisotropic,
}

impl SurfaceKernel {
    /// The names the surface node and the bench accept, in the order of the variants.
    pub const NAMES: [&'static str; 2] = ["particle_level_set", "anisotropic"];

    /// The kernel called `name` (one of [`Self::NAMES`]).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "particle_level_set" => Some(Self::ParticleLevelSet),
            "anisotropic" => Some(Self::Anisotropic),
            _ => None,
        }
    }
}

/// How a liquid surface is built.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceSettings {
    /// The particles' kernel.
    pub kernel: SurfaceKernel,
    /// Level-set cells per simulation cell along each axis (1 = the simulation grid).
    pub resolution: usize,
    /// Taubin smoothing iterations (0 = none).
    pub smoothing: usize,
    /// Fast-sweeping passes of the level set.
    pub sweeps: usize,
    /// Anisotropic kernel only: the kernel-centre smoothing weight `λ` (Yu & Turk use 0.9;
    /// it pulls a flat surface in by about `λ/3` of a cell, see docs/guide/exporting.md).
    pub centre_smoothing: f32,
}

impl Default for SurfaceSettings {
    fn default() -> Self {
        Self {
            kernel: SurfaceKernel::ParticleLevelSet,
            resolution: 1,
            smoothing: 2,
            sweeps: 2,
            centre_smoothing: 0.0,
        }
    }
}

/// Why no surface could be built.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SurfaceError {
    /// Surface meshes are 3D only.
    #[error("surface meshes need a 3D grid (this one has nk = 1)")]
    NotThreeD,
    /// The resolution factor is 0 or makes the grid too large.
    #[error("resolution factor {0} is out of range 1..=8")]
    Resolution(usize),
}

/// Reusable buffers of [`liquid_surface`].
#[derive(Debug, Default)]
pub struct SurfaceScratch {
    phi: ParticlePhiScratch,
    level_set: Grid3<f32>,
}

/// `spec` with `factor` times as many cells along each axis over the same box.
pub fn refined(spec: &GridSpec, factor: usize) -> GridSpec {
    let [ni, nj, nk] = spec.dims().map(|n| n * factor);
    GridSpec::new(ni, nj, nk, spec.dx / factor as f32)
}

/// Meshes the liquid of the particles at `pos`. With `solids` the surface ends at solid
/// surfaces (the level set is clipped by them: `max(φ, −φ_solid)`); on the simulation grid
/// (`resolution` 1) particles are also mirrored at solids, as in the level-set node.
pub fn liquid_surface(
    spec: &GridSpec,
    pos: &[Vec3],
    solids: Option<&Solids>,
    settings: &SurfaceSettings,
    scratch: &mut SurfaceScratch,
) -> Result<TriMesh, SurfaceError> {
    if spec.is_2d() {
        return Err(SurfaceError::NotThreeD);
    }
    if !(1..=8).contains(&settings.resolution) {
        return Err(SurfaceError::Resolution(settings.resolution));
    }
    let fine = refined(spec, settings.resolution);
    let phi = &mut scratch.level_set;
    match settings.kernel {
        SurfaceKernel::ParticleLevelSet => {
            // the solids are sampled on the simulation grid: mirror there only
            let mirror = solids.filter(|_| settings.resolution == 1);
            particle_phi(
                &fine,
                pos,
                mirror,
                Redistance::whole_grid(settings.sweeps),
                &mut scratch.phi,
                phi,
            );
        }
        SurfaceKernel::Anisotropic => {
            let shape = KernelShape {
                centre_smoothing: settings.centre_smoothing,
                anisotropic: true,
            };
            aniso_field::anisotropic_phi(spec, &fine, pos, solids, shape, settings.sweeps, phi);
        }
    }
    if let Some(solids) = solids {
        clip_by_solids(&fine, solids, phi);
    }
    let mut mesh = polygonise(&fine, phi);
    if settings.smoothing > 0 {
        taubin_smooth(&mut mesh, settings.smoothing);
        mesh.normals = area_weighted_normals(&mesh);
    }
    Ok(mesh)
}

/// `φ ← max(φ, −φ_solid)`: the liquid ends at the solids' surfaces (which lie on the
/// simulation grid's cell faces for the domain walls, whatever the refinement).
fn clip_by_solids(fine: &GridSpec, solids: &Solids, phi: &mut Grid3<f32>) {
    let same_grid = solids.phi.dims() == fine.dims() && solids.spec.dx == fine.dx;
    crate::grid::par_for_each_mut(fine.dims(), &mut phi.data, |i, j, k, p| {
        let solid = if same_grid {
            solids.phi[(i, j, k)]
        } else {
            solids.distance(fine.cell_center(i, j, k))
        };
        *p = p.max(-solid);
    });
}
