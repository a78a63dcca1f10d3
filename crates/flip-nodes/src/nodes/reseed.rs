//! Reseeding: a min/max particles-per-cell rule (see `flip_core::reseed`).
use super::common::{check_grid, spec};
use crate::decomposed::{number_new_particles, GHOST_ID_BIT};
use crate::kinds::{TypedInputs, LEVEL_SET, PARTICLES, SOLIDS, VELOCITY};
use crate::params::Params;
use crate::roles::NodeRole;
use crate::stats::ReseedStats;
use flip_core::reseed::{reseed_in, ReseedFields, ReseedRule, ReseedScope};
use flip_graph::{
    EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use std::sync::Arc;

struct Reseed {
    rule: ReseedRule,
}

impl Node for Reseed {
    /// Cells are counted with their neighbours (one cell), ghost particles included; each rank
    /// removes its own particles of the draw and tops up its owned cells.
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(1)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut particles = io.particles("particles")?;
        let phi = io.level_set("level_set")?;
        let vel = io.velocity("velocity")?;
        let solids = io.solids("solids")?;
        check_grid("level_set", &phi, &ctx.grid)?;
        let ps = Arc::make_mut(&mut particles);
        let seed = self.rule.seed ^ ctx.settings.seed;
        let rule = ReseedRule { seed, ..self.rule };
        let fields = ReseedFields {
            phi: &phi,
            vel: &vel.vel,
            solids: &solids,
        };
        let scope = match &ctx.window {
            Some(w) => ReseedScope {
                first_cell: w.first_cell(),
                fill: w.owned_cell_range(),
                foreign_bit: GHOST_ID_BIT,
            },
            None => ReseedScope::whole(&ctx.grid),
        };
        let r = reseed_in(&ctx.grid, ps, fields, &rule, ctx.step, &scope);
        if let Some(w) = &ctx.window {
            number_new_particles(w, ps, r.added);
        }
        io.report(ReseedStats {
            added: r.added,
            removed: r.removed,
        });
        io.set("particles", Value::shared(PARTICLES, particles));
        Ok(())
    }
}

/// The reseed node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "reseed",
        "Reseed",
        "Motion",
        "Keeps the particles per cell between a minimum and a maximum: crowded cells lose their \
         surplus, sparse cells inside the liquid get new particles (inside the level set, \
         outside solids) with the grid velocity. Seeded and deterministic.",
        vec![
            PortSpec::new("particles", PARTICLES, "marker particles"),
            PortSpec::new("level_set", LEVEL_SET, "liquid signed distance"),
            PortSpec::new("velocity", VELOCITY, "grid velocity for new particles"),
            PortSpec::new("solids", SOLIDS, "colliders and walls"),
        ],
        vec![PortSpec::new("particles", PARTICLES, "reseeded particles")],
        vec![
            ParamSpec::int(
                "min_per_cell",
                "Min per cell",
                "cells inside the liquid with fewer particles get new ones (0 = never)",
                2,
                0,
                1000,
            ),
            ParamSpec::int(
                "max_per_cell",
                "Max per cell",
                "cells with more particles lose the surplus (0 = never)",
                16,
                0,
                1000,
            ),
            ParamSpec::int("seed", "Seed", "mixed with the graph's seed", 0, 0, 1 << 30),
        ],
    )
    .with(NodeRole::Reseed);
    NodeKind::new(
        s,
        Box::new(|init| {
            let p = Params(init.params);
            let read = |n: &str| p.usize(n);
            let (min, max) = (read("min_per_cell")?, read("max_per_cell")?);
            if max > 0 && min > max {
                return Err(NodeError::param(
                    "min_per_cell",
                    format!("{min} exceeds `max_per_cell` ({max})"),
                ));
            }
            let rule = ReseedRule {
                min_per_cell: min,
                max_per_cell: max,
                seed: read("seed")? as u64,
            };
            Ok(Box::new(Reseed { rule }))
        }),
    )
}
