//! Export: at the end of each frame, particles as binary PLY (optionally VTK poly data) and a PNG
//! preview (smoke: a PNG of the density), written atomically (temp file + rename) so an
//! interrupted run never leaves a torn frame.
use super::common::{check_grid, failed, spec, DomainSolids};
use super::frame_files::FrameFiles;
use crate::decomposed::gather_owned;
use crate::kinds::{TypedInputs, PARTICLES, SCALAR, SOLIDS};
use crate::params::Params;
use crate::roles::{FrameWrites, MemoryModel, NodeRole};
use crate::stats::ExportStats;
use flip_core::export::{write_density_png, write_particles_vtp, write_ply, write_png};
use flip_core::{Grid3, Solids};
use flip_graph::window::gather_cells;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, PortSpec, Window,
    WindowRefusal,
};
use std::sync::Arc;

struct Export {
    files: FrameFiles,
    ply: bool,
    vtp: bool,
    png: bool,
    width: u32,
    domain_solids: DomainSolids,
}

impl Export {
    fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let p = Params(init.params);
        Ok(Self {
            files: FrameFiles::new(init)?,
            ply: p.bool("ply")?,
            vtp: p.bool("vtp")?,
            png: p.bool("png")?,
            width: p.usize("png_width")? as u32,
            domain_solids: DomainSolids::default(),
        })
    }
}

impl Node for Export {
    /// In a decomposed run rank 0 writes the gathered particles, or the gathered smoke density.
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let particles = io.particles_opt("particles")?;
        let density = io.scalar_opt("density")?;
        if particles.is_none() && density.is_none() {
            return Err(NodeError::MissingInput("particles or density".into()));
        }
        if let Some(d) = &density {
            check_grid("density", d, &ctx.grid)?;
        }
        if !self.files.due(ctx) {
            return Ok(());
        }
        let solids = io.solids_opt("solids").ok().flatten();
        let (particles, density, grid, solids) = match &ctx.window {
            // rank 0 writes what a single-rank run would: every owned particle (or the smoke's
            // density over the domain), domain solids
            Some(w) => {
                let (particles, density) = match (particles.as_deref(), density.as_deref()) {
                    (Some(p), _) => (gather_owned(w, p).map(Arc::new), None),
                    (None, Some(d)) => (None, gather_density(w, d)),
                    (None, None) => unreachable!("checked above"),
                };
                if particles.is_none() && density.is_none() {
                    return Ok(()); // not rank 0
                }
                let domain = solids
                    .filter(|_| self.png)
                    .map(|s| self.domain_solids.of(w, &s));
                (particles, density, w.global, domain)
            }
            None => (particles, density, ctx.grid, solids),
        };
        let file = self.files.frame(ctx)?;
        if let Some(particles) = particles.as_deref().filter(|_| self.ply) {
            let path = file("ply");
            write_ply(&path, particles).map_err(|e| failed(format!("{}: {e}", path.display())))?;
            io.wrote(path);
        }
        if let Some(particles) = particles.as_deref().filter(|_| self.vtp) {
            let path = file("vtp");
            write_particles_vtp(&path, particles)
                .map_err(|e| failed(format!("{}: {e}", path.display())))?;
            io.wrote(path);
        }
        if self.png {
            let solids = solids.unwrap_or_else(|| Arc::new(Solids::walls(grid)));
            let path = file("png");
            match (&particles, &density) {
                (Some(p), _) => write_png(&path, &grid, p, &solids, self.width),
                (None, Some(d)) => write_density_png(&path, &grid, d, &solids, self.width),
                (None, None) => unreachable!("checked above"),
            }
            .map_err(|e| failed(format!("{}: {e}", path.display())))?;
            io.wrote(path);
        }
        io.report(ExportStats::Frame);
        Ok(())
    }
}

/// Rank 0 receives the density of the whole domain from the ranks' owned cells (collective).
fn gather_density(w: &Window, d: &Grid3<f32>) -> Option<Arc<Grid3<f32>>> {
    let g = w.global;
    gather_cells(w, &d.data, 1).map(|data| {
        Arc::new(Grid3 {
            ni: g.ni,
            nj: g.nj,
            nk: g.nk,
            data,
        })
    })
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
            PortSpec::optional("particles", PARTICLES, "particles to write"),
            PortSpec::optional("density", SCALAR, "smoke density (PNG only)"),
            PortSpec::optional("solids", SOLIDS, "drawn grey in the preview"),
        ],
        vec![],
        FrameFiles::params("frames", "frame_", "ply/.vtp/.png", "write")
            .into_iter()
            .chain([
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
            ])
            .collect(),
    )
    .with(NodeRole::ParticleExport)
    .with(MemoryModel::writes(FrameWrites::ParticlesAndPreview));
    NodeKind::new(s, Box::new(|init| Ok(Box::new(Export::new(init)?))))
}
