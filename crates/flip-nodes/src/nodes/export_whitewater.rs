//! Export of diffuse particles: one binary PLY per frame with `type` and `lifetime`.
use super::common::{failed, spec};
use super::frame_files::FrameFiles;
use crate::kinds::{TypedInputs, DIFFUSE};
use crate::roles::NodeRole;
use crate::stats::ExportStats;
use flip_core::export::write_diffuse_ply;
use flip_graph::{EvalCtx, Node, NodeError, NodeIo, NodeKind, PortSpec};

struct ExportWhitewater {
    files: FrameFiles,
}

impl Node for ExportWhitewater {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let diffuse = io.diffuse("diffuse")?;
        if !self.files.due(ctx) {
            return Ok(());
        }
        let path = self.files.frame(ctx)?("ply");
        write_diffuse_ply(&path, &diffuse)
            .map_err(|e| failed(format!("{}: {e}", path.display())))?;
        io.wrote(path);
        io.report(ExportStats::Frame);
        Ok(())
    }
}

/// The whitewater export node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "export_whitewater",
        "Export whitewater",
        "Output",
        "Writes each frame's diffuse particles as binary PLY with `type` (0 spray, 1 foam, \
         2 bubble) and `lifetime` attributes (Blender, Houdini, ParaView); atomically.",
        vec![PortSpec::new(
            "diffuse",
            DIFFUSE,
            "diffuse particles to write",
        )],
        vec![],
        FrameFiles::params("whitewater", "diffuse_", "ply", "write").to_vec(),
    )
    .with(NodeRole::DiffuseExport);
    NodeKind::new(
        s,
        Box::new(|init| {
            Ok(Box::new(ExportWhitewater {
                files: FrameFiles::new(init)?,
            }))
        }),
    )
}
