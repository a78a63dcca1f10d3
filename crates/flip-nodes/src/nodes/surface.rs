//! Surface: at the end of each exported frame, meshes the liquid (particle level set, refined
//! by a resolution factor, clipped by the solids; Naive Surface Nets; Taubin smoothing) and
//! writes it as OBJ and/or binary PLY with a velocity vertex attribute, atomically. In a
//! decomposed run rank 0 meshes the particles and velocity gathered from every rank.
use super::common::{failed, spec, DomainSolids};
use super::frame_files::FrameFiles;
use crate::decomposed::gather_owned;
use crate::kinds::{TypedInputs, PARTICLES, SOLIDS, VELOCITY};
use crate::params::Params;
use crate::roles::NodeRole;
use crate::stats::SurfaceStats;
use flip_core::export::{write_mesh_obj, write_mesh_ply};
use flip_core::surface::{
    enclosed_volume, liquid_surface, SurfaceKernel, SurfaceScratch, SurfaceSettings,
};
use flip_core::transfer::sample_velocity;
use flip_core::{GridSpec, MacGrid, Particles, Solids};
use flip_graph::window::gather_mac;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, PortSpec, WindowRefusal,
};
use glam::Vec3;
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::Arc;

/// What the mesh is made from: the node's inputs, or the whole domain's gathered on rank 0.
struct Inputs<'a> {
    grid: GridSpec,
    particles: Arc<Particles>,
    solids: Option<Arc<Solids>>,
    velocity: Option<Cow<'a, MacGrid>>,
}

struct Surface {
    files: FrameFiles,
    obj: bool,
    ply: bool,
    settings: SurfaceSettings,
    scratch: SurfaceScratch,
    domain_solids: DomainSolids,
}

impl Surface {
    fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let p = Params(init.params);
        let kernel = p.text("kernel")?;
        let kernel = SurfaceKernel::from_name(kernel)
            .ok_or_else(|| failed(format!("unknown surface kernel `{kernel}`")))?;
        Ok(Self {
            files: FrameFiles::new(init)?,
            obj: p.bool("obj")?,
            ply: p.bool("ply")?,
            settings: SurfaceSettings {
                kernel,
                centre_smoothing: p.f32("centre_smoothing")?,
                resolution: p.usize("resolution")?,
                smoothing: p.usize("smoothing")?,
                sweeps: p.usize("sweeps")?,
            },
            scratch: SurfaceScratch::default(),
            domain_solids: DomainSolids::default(),
        })
    }
}

impl Node for Surface {
    /// Rank 0 meshes what every rank owns (gathered each exported frame).
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let particles = io.particles_opt("particles")?;
        let particles = particles.ok_or_else(|| NodeError::MissingInput("particles".into()))?;
        let solids = io.solids_opt("solids")?;
        let velocity = io.velocity_opt("velocity")?;
        if !self.files.due(ctx) {
            return Ok(());
        }
        let velocity = velocity.as_deref().map(|v| &v.vel);
        let domain_solids = &mut self.domain_solids;
        let Some(inputs) = gathered(ctx, particles, solids, velocity, domain_solids) else {
            return Ok(()); // another rank's frame: rank 0 writes it
        };
        self.write(ctx, io, &inputs)
    }
}

/// The inputs as a single-domain run holds them: unchanged, or in a decomposed run gathered to
/// rank 0 (`None` on the other ranks). Collective in a decomposed run.
fn gathered<'a>(
    ctx: &EvalCtx,
    particles: Arc<Particles>,
    solids: Option<Arc<Solids>>,
    velocity: Option<&'a MacGrid>,
    domain_solids: &mut DomainSolids,
) -> Option<Inputs<'a>> {
    let Some(w) = &ctx.window else {
        return Some(Inputs {
            grid: ctx.grid,
            particles,
            solids,
            velocity: velocity.map(Cow::Borrowed),
        });
    };
    let all = gather_owned(w, &particles);
    let velocity = velocity.map(|v| gather_mac(w, v));
    let particles = Arc::new(all?);
    Some(Inputs {
        grid: w.global,
        particles,
        solids: solids.map(|s| domain_solids.of(w, &s)),
        velocity: velocity.flatten().map(Cow::Owned),
    })
}

impl Surface {
    fn write(
        &mut self,
        ctx: &EvalCtx,
        io: &mut NodeIo,
        inputs: &Inputs<'_>,
    ) -> Result<(), NodeError> {
        let g = &inputs.grid;
        let mesh = liquid_surface(
            g,
            &inputs.particles.pos,
            inputs.solids.as_deref(),
            &self.settings,
            &mut self.scratch,
        )
        .map_err(failed)?;
        io.report(SurfaceStats {
            vertices: mesh.positions.len(),
            triangles: mesh.triangles.len(),
            volume: enclosed_volume(&mesh),
        });
        let file = self.files.frame(ctx)?;
        if self.obj {
            let path = file("obj");
            write_mesh_obj(&path, &mesh).map_err(|e| failed(format!("{}: {e}", path.display())))?;
            io.wrote(path);
        }
        if self.ply {
            let vertex_velocity: Option<Vec<Vec3>> = inputs.velocity.as_deref().map(|v| {
                let at = |p: &Vec3| sample_velocity(g, v, *p);
                mesh.positions.par_iter().map(at).collect()
            });
            let path = file("ply");
            write_mesh_ply(&path, &mesh, vertex_velocity.as_deref())
                .map_err(|e| failed(format!("{}: {e}", path.display())))?;
            io.wrote(path);
        }
        Ok(())
    }
}

/// The surface node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "surface",
        "Surface Mesh",
        "Output",
        "Meshes the liquid at the end of each exported frame: the particle level set (Zhu & \
         Bridson 2005) or anisotropic kernels (Yu & Turk 2013) on the grid refined by \
         `resolution`, clipped by the solids, polygonised \
         by Naive Surface Nets (closed meshes), Taubin-smoothed; writes <prefix><frame:04>.obj \
         (normals) and .ply (binary; normals, and velocity vx vy vz when wired), atomically. 3D \
         only.",
        vec![
            PortSpec::new("particles", PARTICLES, "liquid particles"),
            PortSpec::optional("solids", SOLIDS, "the surface ends at solids"),
            PortSpec::optional(
                "velocity",
                VELOCITY,
                "grid velocity, sampled at the vertices for the PLY (wire the extrapolated one)",
            ),
        ],
        vec![],
        FrameFiles::params("frames", "surface_", "obj/.ply", "mesh")
            .into_iter()
            .chain([
                ParamSpec::choice(
                    "kernel",
                    "Kernel",
                    "particle_level_set: Zhu & Bridson (isotropic); anisotropic: Yu & Turk's \
                     PCA-shaped kernels (flatter sheets, sharper edges; over 10x slower)",
                    &SurfaceKernel::NAMES,
                    "particle_level_set",
                ),
                ParamSpec::float(
                    "centre_smoothing",
                    "Centre smoothing",
                    "anisotropic kernel: Laplacian smoothing weight of the kernel centres (Yu & \
                     Turk use 0.9; it pulls flat surfaces in by ~0.3 cells)",
                    0.0,
                    0.0,
                    1.0,
                ),
                ParamSpec::int(
                    "resolution",
                    "Resolution",
                    "level-set cells per simulation cell along each axis",
                    1,
                    1,
                    8,
                ),
                ParamSpec::int(
                    "smoothing",
                    "Smoothing",
                    "Taubin smoothing iterations (0 = none)",
                    2,
                    0,
                    100,
                ),
                ParamSpec::int(
                    "sweeps",
                    "Sweeps",
                    "fast-sweeping passes of the level set",
                    2,
                    1,
                    16,
                ),
                ParamSpec::bool("obj", "OBJ", "write the mesh as Wavefront OBJ", true),
                ParamSpec::bool("ply", "PLY", "write the mesh as binary PLY", true),
            ])
            .collect(),
    )
    .with(NodeRole::Surface);
    NodeKind::new(s, Box::new(|init| Ok(Box::new(Surface::new(init)?))))
}
