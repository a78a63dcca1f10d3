//! Liquid level set: from the particles (Zhu & Bridson 2005, default) or from the fluid cells
//! (Karlsson Alg. 5), reinitialised by fast sweeping (§4.2, Zhao's method).
use super::common::spec;
use crate::params::Params;
use flip_core::levelset::{close_interior, liquid_phi, particle_phi, ParticlePhiScratch};
use flip_core::Grid3;
use flip_graph::{
    DataKind, EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value,
};
use std::sync::Arc;

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
    scratch: ParticlePhiScratch,
    spare: Option<Arc<Grid3<f32>>>,
}

impl Node for LevelSet {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let particles = io.particles_opt("particles")?;
        let cells = io.cells_opt("cells")?;
        let solids = io.solids_opt("solids")?;
        let g = &ctx.grid;
        let mut phi = match self.spare.take() {
            Some(p) if Arc::strong_count(&p) == 1 && p.dims() == g.dims() => p,
            _ => Arc::new(Grid3::new(g.ni, g.nj, g.nk, 0.0)),
        };
        let out = Arc::make_mut(&mut phi);
        match (self.method, particles, cells) {
            (Method::Particles | Method::Auto, Some(ps), cells) => {
                let solids = solids.as_deref();
                particle_phi(g, &ps.pos, solids, self.sweeps, &mut self.scratch, out);
                if let Some(cells) = cells {
                    close_interior(g, &cells, out);
                }
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
        io.stat("liquid_volume", volume);
        self.spare = Some(phi.clone());
        io.set("level_set", Value::LevelSet(phi));
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
            PortSpec::optional("particles", DataKind::Particles, "marker particles"),
            PortSpec::optional(
                "cells",
                DataKind::Cells,
                "cell kinds (method `cells`; with particles, closes holes inside the liquid)",
            ),
            PortSpec::optional(
                "solids",
                DataKind::Solids,
                "walls the surface continues into",
            ),
        ],
        vec![PortSpec::new(
            "level_set",
            DataKind::LevelSet,
            "liquid signed distance (m)",
        )],
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
        ],
    );
    NodeKind::new(
        s,
        Box::new(|init| {
            let p = Params(init.params);
            let sweeps = p.usize("sweeps")?;
            let method = match p.text("method").unwrap_or("auto") {
                "particles" => Method::Particles,
                "cells" => Method::Cells,
                _ => Method::Auto,
            };
            Ok(Box::new(LevelSet {
                method,
                sweeps,
                scratch: ParticlePhiScratch::default(),
                spare: None,
            }))
        }),
    )
}
