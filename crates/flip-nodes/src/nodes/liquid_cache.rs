//! Liquid Cache: a finished run's liquid, frame by frame, read from the files its
//! `export_liquid_cache` node wrote, so whitewater can be re-baked without re-simulating.
use super::common::{failed, spec, with_causes};
use super::export_liquid_cache::EXTENSION;
use super::frame_files::file_stem;
use crate::kinds::{LEVEL_SET, PARTICLES, VELOCITY};
use crate::liquid_cache::CachedFrame;
use crate::params::Params;
use crate::roles::NodeRole;
use flip_graph::{EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value};
use std::path::PathBuf;
use std::sync::Arc;

struct LiquidCache {
    folder: PathBuf,
    prefix: String,
    /// The frame last read and its values, shared by every substep of that frame.
    current: Option<(u32, [Value; 3])>,
}

impl LiquidCache {
    fn read(&self, ctx: &EvalCtx) -> Result<[Value; 3], NodeError> {
        let path = self.folder.join(format!(
            "{}.{EXTENSION}",
            file_stem(&self.prefix, ctx.frame)
        ));
        if !path.exists() {
            return Err(NodeError::param(
                "folder",
                format!(
                    "frame {} is not cached: {} does not exist (run the liquid's graph with an \
                     `export_liquid_cache` node for at least as many frames first)",
                    ctx.frame + 1,
                    path.display()
                ),
            ));
        }
        let cached = CachedFrame::read(&path).map_err(|e| failed(with_causes(&e)))?;
        if cached.grid != ctx.grid {
            return Err(failed(format!(
                "{}: cached on a grid of {:?} cells of {} m, this graph's grid is {:?} cells \
                 of {} m",
                path.display(),
                cached.grid.dims(),
                cached.grid.dx,
                ctx.grid.dims(),
                ctx.grid.dx
            )));
        }
        if cached.fps != ctx.settings.fps {
            return Err(failed(format!(
                "{}: cached at {} frames per second, this graph runs at {}",
                path.display(),
                cached.fps,
                ctx.settings.fps
            )));
        }
        Ok([
            Value::shared(PARTICLES, Arc::new(cached.particles)),
            Value::shared(VELOCITY, Arc::new(cached.velocity)),
            Value::shared(LEVEL_SET, Arc::new(cached.level_set)),
        ])
    }
}

impl Node for LiquidCache {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let values = match &self.current {
            Some((frame, values)) if *frame == ctx.frame => values.clone(),
            _ => {
                let values = self.read(ctx)?;
                self.current = Some((ctx.frame, values.clone()));
                values
            }
        };
        for (port, value) in OUTPUTS.iter().zip(values) {
            io.set(port, value);
        }
        Ok(())
    }

    fn reset(&mut self) {
        self.current = None;
    }
}

/// The output ports, in the order [`LiquidCache::read`] returns their values.
const OUTPUTS: [&str; 3] = ["particles", "velocity", "level_set"];

/// The liquid-cache source node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "liquid_cache",
        "Liquid cache",
        "Source",
        "Reads a finished run's liquid at each frame's end (particles, grid velocity, level \
         set) from the files its `export_liquid_cache` node wrote, bit for bit: wire it into \
         `whitewater` to re-bake the whitewater without simulating the liquid again. The \
         graph's grid and fps must be the cached run's.",
        vec![],
        vec![
            PortSpec::new(OUTPUTS[0], PARTICLES, "the cached liquid's particles"),
            PortSpec::new(OUTPUTS[1], VELOCITY, "the cached liquid's grid velocity"),
            PortSpec::new(OUTPUTS[2], LEVEL_SET, "the cached liquid's signed distance"),
        ],
        vec![
            ParamSpec::path(
                "folder",
                "Folder",
                "the cached run's cache folder, relative to the graph file",
                "cache",
            ),
            ParamSpec::path(
                "prefix",
                "File prefix",
                &format!("cache files are <prefix><frame:04>.{EXTENSION}"),
                "liquid_",
            ),
        ],
    )
    .with(NodeRole::LiquidCacheSource);
    NodeKind::new(
        s,
        Box::new(|init| {
            let p = Params(init.params);
            Ok(Box::new(LiquidCache {
                folder: init.base_dir.join(p.text("folder")?),
                prefix: p.text("prefix")?.to_string(),
                current: None,
            }))
        }),
    )
}
