//! Grid to particles: PIC/FLIP blend (Karlsson eq. 22) or APIC (Jiang et al. 2015).
use super::common::spec;
use crate::kinds::{TypedInputs, PARTICLES, VELOCITY};
use crate::params::Params;
use crate::roles::{NodeRole, Traffic};
use flip_core::transfer::{g2p, g2p_apic};
use flip_graph::{
    EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use std::sync::Arc;

/// Input port: the projected grid velocity.
pub const VELOCITY_IN: &str = "velocity";

struct G2p {
    flip_ratio: f32,
    apic: bool,
}

impl Node for G2p {
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Ok(0)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut particles = io.particles("particles")?;
        let new = io.velocity(VELOCITY_IN)?;
        let old = io.velocity("velocity_old")?;
        let transfer = if self.apic { g2p_apic } else { g2p };
        transfer(
            &ctx.grid,
            Arc::make_mut(&mut particles),
            &new.vel,
            &old.vel,
            self.flip_ratio,
        );
        io.set("particles", Value::shared(PARTICLES, particles));
        Ok(())
    }
}

/// The G2P node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "g2p",
        "Grid to Particles",
        "Transfer",
        "Updates particle velocities from the grid. `flip`: (1-r)·PIC + r·FLIP with FLIP ratio r \
         (Karlsson eq. 22); r = 0 is pure PIC (damped), r = 1 pure FLIP (noisy). `apic`: the \
         particles also keep the velocity gradient around them (APIC, Jiang et al. 2015), which \
         P2G hands back, so rotation survives without FLIP noise; r > 0 blends in FLIP.",
        vec![
            PortSpec::new("particles", PARTICLES, "marker particles"),
            PortSpec::new(VELOCITY_IN, VELOCITY, "projected grid velocity"),
            PortSpec::new("velocity_old", VELOCITY, "grid velocity right after P2G"),
        ],
        vec![PortSpec::new(
            "particles",
            PARTICLES,
            "particles with new velocities",
        )],
        vec![
            ParamSpec::choice(
                "transfer",
                "Transfer",
                "flip: PIC/FLIP blend; apic: affine particle-in-cell (+ FLIP share r)",
                &["flip", "apic"],
                "flip",
            ),
            ParamSpec::float(
                "flip_ratio",
                "FLIP ratio",
                "share of FLIP in the blend (use 0 for pure APIC)",
                0.95,
                0.0,
                1.0,
            ),
        ],
    )
    .with(NodeRole::GridToParticle)
    // positions and velocities read, velocities written; two velocity grids read
    .with(Traffic::new(36.0, 24.0))
    .with_live_params(&["flip_ratio"]);
    NodeKind::new(
        s,
        Box::new(|init| {
            let p = Params(init.params);
            let flip_ratio = p.f32("flip_ratio")?;
            let apic = p.text("transfer")? == "apic";
            Ok(Box::new(G2p { flip_ratio, apic }))
        }),
    )
}
