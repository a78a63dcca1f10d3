//! Surface: at the end of each exported frame, meshes the liquid (particle level set, refined
//! by a resolution factor, clipped by the solids; Naive Surface Nets; Taubin smoothing) and
//! writes it as OBJ and/or binary PLY with a velocity vertex attribute, atomically.
use super::common::{failed, spec};
use crate::params::Params;
use flip_core::export::{write_mesh_obj, write_mesh_ply};
use flip_core::surface::{enclosed_volume, liquid_surface, SurfaceScratch, SurfaceSettings};
use flip_core::transfer::sample_velocity;
use flip_graph::{
    DataKind, EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, PortSpec,
};
use glam::Vec3;
use rayon::prelude::*;
use std::path::PathBuf;

struct Surface {
    folder: PathBuf,
    prefix: String,
    obj: bool,
    ply: bool,
    every: u32,
    settings: SurfaceSettings,
    scratch: SurfaceScratch,
}

impl Surface {
    fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let p = Params(init.params);
        Ok(Self {
            folder: init.out_dir.join(p.text("folder")?),
            prefix: p.text("prefix")?.to_string(),
            obj: p.bool("obj")?,
            ply: p.bool("ply")?,
            every: p.usize("every")?.max(1) as u32,
            settings: SurfaceSettings {
                resolution: p.usize("resolution")?,
                smoothing: p.usize("smoothing")?,
                sweeps: p.usize("sweeps")?,
            },
            scratch: SurfaceScratch::default(),
        })
    }
}

impl Node for Surface {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let particles = io.particles_opt("particles")?;
        let particles = particles.ok_or_else(|| NodeError::MissingInput("particles".into()))?;
        let solids = io.solids_opt("solids")?;
        let velocity = io.velocity_opt("velocity")?;
        if !ctx.frame_end || !ctx.frame.is_multiple_of(self.every) {
            return Ok(());
        }
        let g = &ctx.grid;
        let mesh = liquid_surface(
            g,
            &particles.pos,
            solids.as_deref(),
            &self.settings,
            &mut self.scratch,
        )
        .map_err(failed)?;
        io.stat("mesh_vertices", mesh.positions.len() as f64);
        io.stat("mesh_triangles", mesh.triangles.len() as f64);
        io.stat("mesh_volume", enclosed_volume(&mesh));
        std::fs::create_dir_all(&self.folder).map_err(|e| {
            NodeError::Failed(format!("cannot create {}: {e}", self.folder.display()))
        })?;
        let stem = format!("{}{:04}", self.prefix, ctx.frame + 1);
        if self.obj {
            let path = self.folder.join(format!("{stem}.obj"));
            write_mesh_obj(&path, &mesh).map_err(|e| failed(format!("{}: {e}", path.display())))?;
        }
        if self.ply {
            let vertex_velocity: Option<Vec<Vec3>> = velocity.as_deref().map(|v| {
                let at = |p: &Vec3| sample_velocity(g, &v.vel, *p);
                mesh.positions.par_iter().map(at).collect()
            });
            let path = self.folder.join(format!("{stem}.ply"));
            write_mesh_ply(&path, &mesh, vertex_velocity.as_deref())
                .map_err(|e| failed(format!("{}: {e}", path.display())))?;
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
         Bridson 2005) on the grid refined by `resolution`, clipped by the solids, polygonised \
         by Naive Surface Nets (closed meshes), Taubin-smoothed; writes <prefix><frame:04>.obj \
         (normals) and .ply (binary; normals, and velocity vx vy vz when wired), atomically. 3D \
         only.",
        vec![
            PortSpec::new("particles", DataKind::Particles, "liquid particles"),
            PortSpec::optional("solids", DataKind::Solids, "the surface ends at solids"),
            PortSpec::optional(
                "velocity",
                DataKind::Velocity,
                "grid velocity, sampled at the vertices for the PLY (wire the extrapolated one)",
            ),
        ],
        vec![],
        vec![
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
            ParamSpec::path(
                "folder",
                "Folder",
                "output folder, relative to the run's output directory",
                "frames",
            ),
            ParamSpec::path(
                "prefix",
                "File prefix",
                "file names are <prefix><frame:04>.obj/.ply",
                "surface_",
            ),
            ParamSpec::bool("obj", "OBJ", "write the mesh as Wavefront OBJ", true),
            ParamSpec::bool("ply", "PLY", "write the mesh as binary PLY", true),
            ParamSpec::int("every", "Every", "mesh every n-th frame", 1, 1, 100_000),
        ],
    );
    NodeKind::new(
        s,
        Box::new(|init| Ok(Box::new(Surface::new(init).map_err(|e| e.to_string())?))),
    )
}
