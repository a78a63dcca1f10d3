//! Preview PNGs of tall-cell water at the end of each frame (every `every`-th), written
//! atomically: terrain, liquid in tall cells (dark) and regular cells (light).
use crate::nodes::common::{failed, output_folder, spec};
use crate::params::Params;
use flip_core::export::write_tallcell_png;
use flip_graph::{EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec};
use std::path::PathBuf;

struct Export {
    folder: PathBuf,
    prefix: String,
    every: u32,
    scale: u32,
}

impl Export {
    fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let p = Params(init.params);
        Ok(Self {
            folder: output_folder(init, "folder")?,
            prefix: p.text("prefix")?.to_string(),
            every: p.usize("every")?.max(1) as u32,
            scale: p.usize("scale")?.max(1) as u32,
        })
    }
}

impl Node for Export {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let liquid = io.tall_liquid("tall_liquid")?;
        if !ctx.frame_end || !ctx.frame.is_multiple_of(self.every) {
            return Ok(());
        }
        std::fs::create_dir_all(&self.folder).map_err(|e| {
            NodeError::Failed(format!("cannot create {}: {e}", self.folder.display()))
        })?;
        let path = self
            .folder
            .join(format!("{}{:04}.png", self.prefix, ctx.frame + 1));
        write_tallcell_png(&path, &liquid, self.scale)
            .map_err(|e| failed(format!("{}: {e}", path.display())))?;
        io.stat("liquid_volume", liquid.volume());
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
        "At the end of each frame writes <folder>/<prefix><frame:04>.png: terrain, liquid in \
         tall cells (dark) and in regular cells (light), `scale` pixels per cell; reports the \
         liquid volume (m², 2D).",
        vec![super::port("the liquid")],
        vec![],
        vec![
            ParamSpec::path(
                "folder",
                "Folder",
                "output folder inside the run's output",
                "frames",
            ),
            ParamSpec::path(
                "prefix",
                "File prefix",
                "file names are <prefix><frame:04>.png",
                "tallcell_",
            ),
            ParamSpec::int("every", "Every", "write every n-th frame", 1, 1, 100_000),
            ParamSpec::int("scale", "Scale", "pixels per cell", 4, 1, 64),
        ],
    );
    NodeKind::new(s, Box::new(|init| Ok(Box::new(Export::new(init)?))))
}
