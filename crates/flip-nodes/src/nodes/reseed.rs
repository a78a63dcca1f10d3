//! Reseeding: a min/max particles-per-cell rule (see `flip_core::reseed`).
use super::common::{check_grid, spec};
use crate::params::Params;
use flip_core::reseed::{reseed, ReseedRule};
use flip_graph::{
    DataKind, EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value,
};
use std::sync::Arc;

struct Reseed {
    rule: ReseedRule,
}

impl Node for Reseed {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut particles = io.particles("particles")?;
        let phi = io.level_set("level_set")?;
        let vel = io.velocity("velocity")?;
        let solids = io.solids("solids")?;
        check_grid("level_set", &phi, &ctx.grid)?;
        let ps = Arc::make_mut(&mut particles);
        let seed = self.rule.seed ^ ctx.settings.seed;
        let rule = ReseedRule { seed, ..self.rule };
        let r = reseed(&ctx.grid, ps, &phi, &vel.vel, &solids, &rule, ctx.step);
        io.stat("added", r.added as f64);
        io.stat("removed", r.removed as f64);
        io.set("particles", Value::Particles(particles));
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
            PortSpec::new("particles", DataKind::Particles, "marker particles"),
            PortSpec::new("level_set", DataKind::LevelSet, "liquid signed distance"),
            PortSpec::new(
                "velocity",
                DataKind::Velocity,
                "grid velocity for new particles",
            ),
            PortSpec::new("solids", DataKind::Solids, "colliders and walls"),
        ],
        vec![PortSpec::new(
            "particles",
            DataKind::Particles,
            "reseeded particles",
        )],
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
    );
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
