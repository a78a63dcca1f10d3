//! Export Liquid Cache: at each frame's end, what the whitewater node reads from the liquid
//! (particles, grid velocity, level set), losslessly, for `liquid_cache` re-bakes.
use super::common::{check_grid, failed, spec, with_causes};
use super::frame_files::FrameFiles;
use crate::kinds::{TypedInputs, LEVEL_SET, PARTICLES, VELOCITY};
use crate::liquid_cache::CachedFrame;
use crate::roles::NodeRole;
use crate::stats::ExportStats;
use flip_graph::{EvalCtx, Node, NodeError, NodeIo, NodeKind, PortSpec};

/// Extension of cache files.
pub const EXTENSION: &str = "flc";

struct ExportLiquidCache {
    files: FrameFiles,
}

impl Node for ExportLiquidCache {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let particles = io.particles("particles")?;
        let velocity = io.velocity("velocity")?;
        let level_set = io.level_set("level_set")?;
        if !self.files.due(ctx) {
            return Ok(());
        }
        check_grid("level_set", &level_set, &ctx.grid)?;
        let frame = CachedFrame {
            grid: ctx.grid,
            fps: ctx.settings.fps,
            frame: ctx.frame,
            particles: (*particles).clone(),
            velocity: (*velocity).clone(),
            level_set: (*level_set).clone(),
        };
        let path = self.files.frame(ctx)?(EXTENSION);
        frame.write(&path).map_err(|e| failed(with_causes(&e)))?;
        io.wrote(path);
        io.report(ExportStats::Frame);
        Ok(())
    }
}

/// The liquid-cache export node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "export_liquid_cache",
        "Export liquid cache",
        "Output",
        "Writes, at each frame's end, the liquid's particles, grid velocity and level set \
         losslessly (<prefix><frame>.flc), so `liquid_cache` can re-bake the whitewater of \
         this run without simulating the liquid again; atomically.",
        vec![
            PortSpec::new(
                "particles",
                PARTICLES,
                "the liquid's particles, as whitewater reads them",
            ),
            PortSpec::new(
                "velocity",
                VELOCITY,
                "the liquid's grid velocity, as whitewater reads it",
            ),
            PortSpec::new("level_set", LEVEL_SET, "the liquid's signed distance"),
        ],
        vec![],
        FrameFiles::location_params("cache", "liquid_", EXTENSION).to_vec(),
    )
    .with(NodeRole::LiquidCacheExport);
    NodeKind::new(
        s,
        Box::new(|init| {
            Ok(Box::new(ExportLiquidCache {
                files: FrameFiles::each_frame(init)?,
            }))
        }),
    )
}
