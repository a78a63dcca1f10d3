//! Preview PNGs of tall-cell water at the end of each frame (every `every`-th), written
//! atomically: in 2D the side view (terrain, liquid in tall cells dark and regular cells
//! light), in 3D the top-down map (water shaded by depth over the terrain).
use crate::kinds::TypedInputs;
use crate::nodes::common::{failed, spec};
use crate::nodes::frame_files::FrameFiles;
use crate::params::Params;
use crate::roles::NodeRole;
use crate::stats::LiquidVolume;
use flip_core::export::write_tallcell_png;
use flip_graph::{EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec};

struct Export {
    files: FrameFiles,
    scale: u32,
}

impl Export {
    fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let p = Params(init.params);
        Ok(Self {
            files: FrameFiles::new(init)?,
            scale: p.usize("scale")?.max(1) as u32,
        })
    }
}

impl Node for Export {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let liquid = io.tall_liquid("tall_liquid")?;
        if !self.files.due(ctx) {
            return Ok(());
        }
        let path = self.files.frame(ctx)?("png");
        write_tallcell_png(&path, &liquid, self.scale)
            .map_err(|e| failed(format!("{}: {e}", path.display())))?;
        io.report(LiquidVolume(liquid.volume()));
        io.wrote(path);
        Ok(())
    }
}

/// The tall-cell export node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "tallcell_export",
        "Tall-Cell Export",
        "Tall cells",
        "At the end of each frame writes <folder>/<prefix><frame:04>.png: in 2D the side view \
         (terrain, liquid in tall cells dark and in regular cells light, `scale` pixels per \
         cell), in 3D the top-down map (water shaded by depth, dry terrain by height, `scale` \
         pixels per column); reports the liquid volume (m² in 2D, m³ in 3D).",
        vec![super::port("the liquid")],
        vec![],
        FrameFiles::params("frames", "tallcell_", "png", "write")
            .into_iter()
            .chain([ParamSpec::int(
                "scale",
                "Scale",
                "pixels per cell (3D: per column)",
                4,
                1,
                64,
            )])
            .collect(),
    )
    .with(NodeRole::FieldExport);
    NodeKind::new(s, Box::new(|init| Ok(Box::new(Export::new(init)?))))
}
