//! Export of rigid bodies: each frame's transforms as `<prefix><frame>.json`, and every body's
//! mesh once as `body_<i>.obj` in the same folder (Blender, Houdini: place the mesh by the
//! transform).
use super::common::{failed, spec};
use super::frame_files::FrameFiles;
use crate::kinds::{TypedInputs, BODIES};
use crate::roles::NodeRole;
use crate::stats::ExportStats;
use flip_core::export::{write_bodies_json, write_body_obj};
use flip_graph::{EvalCtx, Node, NodeError, NodeIo, NodeKind, PortSpec};

struct ExportBodies {
    files: FrameFiles,
    meshes_written: bool,
}

impl Node for ExportBodies {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let bodies = io.bodies("bodies")?;
        if !self.files.due(ctx) {
            return Ok(());
        }
        let name = self.files.frame(ctx)?;
        let depth = ctx.grid.is_2d().then_some(f64::from(ctx.grid.dx));
        if !self.meshes_written {
            let folder = name("json").parent().map(std::path::Path::to_path_buf);
            let folder = folder.unwrap_or_default();
            for (i, b) in bodies.bodies.iter().enumerate() {
                let path = folder.join(format!("body_{i}.obj"));
                write_body_obj(&path, b, depth)
                    .map_err(|e| failed(format!("{}: {e}", path.display())))?;
                io.wrote(path);
            }
            self.meshes_written = true;
        }
        let path = name("json");
        // the frame ends where the substep ends: the bodies' end states
        let time = ctx.time + f64::from(ctx.dt);
        write_bodies_json(&path, &bodies, &bodies.next_states(), time, depth)
            .map_err(|e| failed(format!("{}: {e}", path.display())))?;
        io.wrote(path);
        io.report(ExportStats::Frame);
        Ok(())
    }
}

/// The rigid-bodies export node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "export_bodies",
        "Export bodies",
        "Output",
        "Writes each frame's rigid-body transforms as JSON (position, rotation as a quaternion \
         and in 2D as an angle, velocity, angular velocity) and each body's mesh once as OBJ in its own frame \
         (`body_<i>.obj`; 2D bodies as prisms one cell deep), for Blender and Houdini; \
         atomically.",
        vec![PortSpec::new(
            "bodies",
            BODIES,
            "the bodies after the pressure solve",
        )],
        vec![],
        FrameFiles::params("bodies", "bodies_", "json", "write").to_vec(),
    )
    .with(NodeRole::BodyExport);
    NodeKind::new(
        s,
        Box::new(|init| {
            Ok(Box::new(ExportBodies {
                files: FrameFiles::new(init)?,
                meshes_written: false,
            }))
        }),
    )
}
