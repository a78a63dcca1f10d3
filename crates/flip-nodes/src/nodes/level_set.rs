//! Liquid level set: from the particles (Zhu & Bridson 2005, default) or from the fluid cells
//! (Karlsson Alg. 5), reinitialised by fast sweeping (§4.2, Zhao's method).
use super::common::spec;
use crate::kinds::{TypedInputs, CELLS, LEVEL_SET, PARTICLES, SCALAR, SOLIDS};
use crate::params::Params;
use crate::roles::{MemoryModel, NodeRole, Traffic};
use crate::stats::LiquidVolume;
use flip_core::levelset::{
    close_interior, liquid_phi, particle_phi_and_density, ParticlePhiScratch, Redistance,
};
use flip_core::Grid3;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use std::sync::Arc;

/// Output port: the liquid signed distance.
pub const LEVEL_SET_OUT: &str = "level_set";

/// Where the surface comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Method {
    /// Particles when the `particles` input is wired, else cells.
    Auto,
    Particles,
    Cells,
}

struct LevelSet {
    method: Method,
    sweeps: usize,
    /// Narrow band in cells for the particle level set (0: the whole grid).
    band: usize,
    scratch: ParticlePhiScratch,
    spare: Option<Arc<Grid3<f32>>>,
    spare_density: Option<Arc<Grid3<f32>>>,
}

/// `spare` when nothing else holds it and it has the grid's size, else a new grid.
fn reuse(spare: Option<Arc<Grid3<f32>>>, g: &flip_core::GridSpec) -> Arc<Grid3<f32>> {
    match spare {
        Some(p) if Arc::strong_count(&p) == 1 && p.dims() == g.dims() => p,
        _ => Arc::new(Grid3::new(g.ni, g.nj, g.nk, 0.0)),
    }
}

impl Node for LevelSet {
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let particles = io.particles_opt("particles")?;
        let cells = io.cells_opt("cells")?;
        let solids = io.solids_opt("solids")?;
        let g = &ctx.grid;
        let mut phi = reuse(self.spare.take(), g);
        let mut density = None;
        let out = Arc::make_mut(&mut phi);
        match (self.method, particles, cells) {
            (Method::Particles | Method::Auto, Some(ps), cells) => {
                let solids = solids.as_deref();
                let mut d = reuse(self.spare_density.take(), g);
                let redistance = Redistance {
                    sweeps: self.sweeps,
                    band: self.band,
                };
                let dens = Arc::make_mut(&mut d);
                let scratch = &mut self.scratch;
                particle_phi_and_density(g, &ps.pos, solids, redistance, scratch, out, dens);
                if let Some(cells) = cells {
                    close_interior(g, &cells, out);
                }
                density = Some(d);
            }
            (Method::Cells | Method::Auto, _, Some(cells)) => {
                liquid_phi(g, &cells, self.sweeps, out)
            }
            (Method::Particles, None, _) => {
                return Err(NodeError::Failed(
                    "method `particles` needs the `particles` input wired".into(),
                ));
            }
            _ => {
                return Err(NodeError::Failed(
                    "needs the `particles` or the `cells` input wired".into(),
                ))
            }
        }
        let volume = flip_core::measure::level_set_volume(g, &phi, solids.as_deref());
        io.report(LiquidVolume(volume));
        self.spare = Some(phi.clone());
        io.set(LEVEL_SET_OUT, Value::shared(LEVEL_SET, phi));
        if let Some(d) = density {
            self.spare_density = Some(d.clone());
            io.set("density", Value::shared(SCALAR, d));
        }
        Ok(())
    }
}

/// The level-set node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "level_set",
        "Level Set",
        "Grid",
        "Signed distance to the liquid surface (negative inside). `particles`: Zhu & Bridson \
         2005 from the particles, the kernel's flat-surface profile inverted so the surface lies \
         where the particles end, mirrored at solids; `cells`: −dx/2 in fluid cells (Karlsson \
         Alg. 5), surface on cell faces; `auto`: particles when wired, else cells. Then fast \
         sweeping for |∇φ| = 1 (§4.2, Zhao's method).",
        vec![
            PortSpec::optional("particles", PARTICLES, "marker particles"),
            PortSpec::optional(
                "cells",
                CELLS,
                "cell kinds (method `cells`; with particles, closes holes inside the liquid)",
            ),
            PortSpec::optional("solids", SOLIDS, "walls the surface continues into"),
        ],
        vec![
            PortSpec::new(LEVEL_SET_OUT, LEVEL_SET, "liquid signed distance (m)"),
            PortSpec::new(
                "density",
                SCALAR,
                "particle density from the same splat: kernel sum per cell (particles per \
                 cell), solids mirrored; empty with method `cells`",
            ),
        ],
        vec![
            ParamSpec::choice(
                "method",
                "Method",
                "auto: particles when wired, else cells; particles: Zhu–Bridson; cells: voxelized",
                &["auto", "particles", "cells"],
                "auto",
            ),
            ParamSpec::int(
                "sweeps",
                "Sweeps",
                "full fast-sweeping passes (each visits all orderings)",
                2,
                1,
                16,
            ),
            ParamSpec::int(
                "band",
                "Band",
                "narrow band in cells: from particles, |φ| is computed up to this many cells from \
                 the surface and clamped beyond (0: the whole grid)",
                6,
                0,
                1000,
            ),
        ],
    )
    .with(NodeRole::LevelSet)
    // positions read; cell kinds and solid distance read, distance and density written
    .with(Traffic::new(12.0, 13.0))
    // the spare level-set and density grids it keeps, and the splat's scratch
    .with(MemoryModel::per_cell(12.0));
    NodeKind::new(
        s,
        Box::new(|init| {
            let p = Params(init.params);
            let sweeps = p.usize("sweeps")?;
            let band = p.usize("band")?;
            let method = match p.text("method").unwrap_or("auto") {
                "particles" => Method::Particles,
                "cells" => Method::Cells,
                _ => Method::Auto,
            };
            Ok(Box::new(LevelSet {
                method,
                sweeps,
                band,
                scratch: ParticlePhiScratch::default(),
                spare: None,
                spare_density: None,
            }))
        }),
    )
}
