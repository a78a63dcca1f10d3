//! The data kinds of flipgraph's graphs, each with what the runner needs from its values
//! ([`flip_graph::KindOps`]): particles, the MAC velocity, cell kinds, level sets, solids,
//! scalar fields and the tall-cell liquid. Nodes read them through [`TypedInputs`] and build
//! them with [`Value::shared`](flip_graph::Value::shared) and the kind's constant.

use flip_graph::{DataKind, KindDesc, KindOps, StateSlot, Value};

mod access;
mod bodies;
mod fields;
mod particles;
mod tall_liquid;
pub use access::{CarriedParticles, TypedInputs};
pub use fields::VelocityField;

/// Marker particles ([`flip_core::Particles`]).
pub const PARTICLES: DataKind = DataKind::new(&KindDesc {
    id: "particles",
    name: "particles",
    ops: &particles::ParticleOps,
});
/// MAC velocity with its valid-face mask ([`VelocityField`]).
pub const VELOCITY: DataKind = DataKind::new(&KindDesc {
    id: "velocity",
    name: "velocity",
    ops: &fields::VelocityOps,
});
/// Cell kinds: fluid, air, solid ([`flip_core::CellGrid`]).
pub const CELLS: DataKind = DataKind::new(&KindDesc {
    id: "cells",
    name: "cells",
    ops: &Inert,
});
/// Liquid signed distance on cells (`Grid3<f32>`).
pub const LEVEL_SET: DataKind = DataKind::new(&KindDesc {
    id: "level_set",
    name: "level set",
    ops: &fields::LevelSetOps,
});
/// Solid geometry ([`flip_core::Solids`]).
pub const SOLIDS: DataKind = DataKind::new(&KindDesc {
    id: "solids",
    name: "solids",
    ops: &Inert,
});
/// A scalar field on cells (`Grid3<f32>`: pressure in Pa, a smoke's density or temperature).
pub const SCALAR: DataKind = DataKind::new(&KindDesc {
    id: "scalar",
    name: "scalar field",
    ops: &fields::ScalarOps,
});
/// Eulerian liquid on a tall-cell grid ([`flip_core::tallcell::TallLiquid`]).
pub const TALL_LIQUID: DataKind = DataKind::new(&KindDesc {
    id: "tall_liquid",
    name: "tall-cell liquid",
    ops: &tall_liquid::TallLiquidOps,
});

/// Diffuse whitewater particles: spray, foam, bubbles ([`flip_core::whitewater::Diffuse`]).
pub const DIFFUSE: DataKind = DataKind::new(&KindDesc {
    id: "diffuse",
    name: "diffuse particles",
    ops: &Inert,
});

/// Rigid bodies floating in the liquid ([`flip_core::rigid::Bodies`]).
pub const BODIES: DataKind = DataKind::new(&KindDesc {
    id: "bodies",
    name: "rigid bodies",
    ops: &bodies::BodiesOps,
});

/// Every kind, for palettes.
pub const ALL: [DataKind; 9] = [
    PARTICLES,
    VELOCITY,
    CELLS,
    LEVEL_SET,
    SOLIDS,
    SCALAR,
    TALL_LIQUID,
    DIFFUSE,
    BODIES,
];

/// What the step pair carries: liquids their particles (empty at the start); Eulerian smoke
/// its velocity, density and temperature; tall-cell water its liquid; floating rigid bodies
/// their states.
pub fn state_slots() -> Vec<StateSlot> {
    let slot = |name, kind| StateSlot {
        name,
        kind,
        start: None,
    };
    vec![
        StateSlot {
            start: Some(|| Value::new(PARTICLES, flip_core::Particles::default())),
            ..slot("particles", PARTICLES)
        },
        slot("velocity", VELOCITY),
        slot("density", SCALAR),
        slot("temperature", SCALAR),
        slot("tall_liquid", TALL_LIQUID),
        slot("bodies", BODIES),
    ]
}

/// Kinds never carried between steps: nothing to check, save or exchange.
struct Inert;

impl KindOps for Inert {}
