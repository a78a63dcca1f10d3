//! Export: at the end of each frame, particles as binary PLY (optionally VTK poly data) and a PNG
//! preview (smoke: a PNG of the density), written atomically (temp file + rename) so an
//! interrupted run never leaves a torn frame.
use super::common::{check_grid, failed, output_folder, spec};
use crate::params::Params;
use flip_core::export::{write_density_png, write_particles_vtp, write_ply, write_png};
use flip_core::Solids;
use flip_graph::{
    DataKind, EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, PortSpec, Value,
};
use std::path::PathBuf;

struct Export {
    folder: PathBuf,
    prefix: String,
    ply: bool,
    vtp: bool,
    png: bool,
    width: u32,
    every: u32,
}

impl Export {
    fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let p = Params(init.params);
        Ok(Self {
            folder: output_folder(init, "folder")?,
            prefix: p.text("prefix")?.to_string(),
            ply: p.bool("ply")?,
            vtp: p.bool("vtp")?,
            png: p.bool("png")?,
            width: p.usize("png_width")? as u32,
            every: p.usize("every")?.max(1) as u32,
        })
    }
}

impl Node for Export {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let particles = io.particles_opt("particles")?;
        let density = io.scalar_opt("density")?;
        if particles.is_none() && density.is_none() {
            return Err(NodeError::MissingInput("particles or density".into()));
        }
        if let Some(d) = &density {
            check_grid("density", d, &ctx.grid)?;
        }
        if !ctx.frame_end || !ctx.frame.is_multiple_of(self.every) {
            return Ok(());
        }
        std::fs::create_dir_all(&self.folder).map_err(|e| {
            NodeError::Failed(format!("cannot create {}: {e}", self.folder.display()))
        })?;
        let stem = format!("{}{:04}", self.prefix, ctx.frame + 1);
        if let Some(particles) = particles.as_deref().filter(|_| self.ply) {
            let path = self.folder.join(format!("{stem}.ply"));
            write_ply(&path, particles).map_err(|e| failed(format!("{}: {e}", path.display())))?;
            io.wrote(path);
        }
        if let Some(particles) = particles.as_deref().filter(|_| self.vtp) {
            let path = self.folder.join(format!("{stem}.vtp"));
            write_particles_vtp(&path, particles)
                .map_err(|e| failed(format!("{}: {e}", path.display())))?;
        }
        if self.png {
            let solids = match io.take("solids") {
                Some(Value::Solids(s)) => s,
                _ => std::sync::Arc::new(Solids::walls(ctx.grid)),
            };
            let path = self.folder.join(format!("{stem}.png"));
            match (&particles, &density) {
                (Some(p), _) => write_png(&path, &ctx.grid, p, &solids, self.width),
                (None, Some(d)) => write_density_png(&path, &ctx.grid, d, &solids, self.width),
                (None, None) => unreachable!("checked above"),
            }
            .map_err(|e| failed(format!("{}: {e}", path.display())))?;
            io.wrote(path);
        }
        io.stat("frames_written", 1.0);
        Ok(())
    }
}

/// The export node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "export",
        "Export",
        "Output",
        "Writes each frame's particles as binary PLY (Blender, Houdini, ParaView), optionally as \
         VTK poly data (.vtp, ParaView), and a PNG \
         preview coloured by speed (3D: orthographic view along z), or for smoke a PNG of the \
         density (3D: opacity along z); atomically.",
        vec![
            PortSpec::optional("particles", DataKind::Particles, "particles to write"),
            PortSpec::optional("density", DataKind::Scalar, "smoke density (PNG only)"),
            PortSpec::optional("solids", DataKind::Solids, "drawn grey in the preview"),
        ],
        vec![],
        vec![
            ParamSpec::path(
                "folder",
                "Folder",
                "output folder, relative to the run's output directory",
                "frames",
            ),
            ParamSpec::path(
                "prefix",
                "File prefix",
                "file names are <prefix><frame:04>.ply/.vtp/.png",
                "frame_",
            ),
            ParamSpec::bool("ply", "PLY", "write particles as binary PLY", true),
            ParamSpec::bool(
                "vtp",
                "VTK",
                "write particles as VTK poly data (.vtp, velocity as point data) for ParaView",
                false,
            ),
            ParamSpec::bool("png", "PNG", "write a preview image", true),
            ParamSpec::int(
                "png_width",
                "PNG width",
                "preview width in pixels",
                512,
                16,
                8192,
            ),
            ParamSpec::int("every", "Every", "write every n-th frame", 1, 1, 100_000),
        ],
    );
    NodeKind::new(s, Box::new(|init| Ok(Box::new(Export::new(init)?))))
}
