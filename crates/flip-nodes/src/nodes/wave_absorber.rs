//! Wave absorber: sponge layers beside the chosen side walls, so waves die there instead of
//! reflecting back into the tank ([`flip_core::absorb`]). Wired on P2G's velocity, before
//! gravity: it damps the liquid's motion, never the weight that the pressure then balances, so
//! water at rest stays at rest inside the layers.
use super::common::spec;
use crate::kinds::{TypedInputs, VELOCITY};
use crate::params::Params;
use crate::roles::{NodeRole, Traffic};
use flip_core::absorb::AbsorbingLayers;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use std::sync::Arc;

/// The side walls a layer can line, with their faces' index in `SIDE_NAMES` order.
const SIDES: [(&str, usize); 4] = [("x_min", 0), ("x_max", 1), ("z_min", 4), ("z_max", 5)];

struct WaveAbsorber {
    layers: AbsorbingLayers,
}

impl Node for WaveAbsorber {
    /// The layers are placed on the whole domain's faces, which a rank's window does not know.
    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Err(WindowRefusal::WholeDomain)
    }

    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let mut field = io.velocity("velocity")?;
        if self.layers.is_active() {
            if ctx.grid.is_2d() && (self.layers.faces[4] || self.layers.faces[5]) {
                return Err(NodeError::param(
                    if self.layers.faces[4] {
                        "z_min"
                    } else {
                        "z_max"
                    },
                    "a 2D graph has no z walls: absorb on x_min and x_max",
                ));
            }
            if let Some(dt) = ctx.force_dt() {
                let f = Arc::make_mut(&mut field);
                self.layers.apply(&ctx.grid, &mut f.vel, dt);
            }
        }
        io.set("velocity", Value::shared(VELOCITY, field));
        Ok(())
    }
}

/// Reads the node's parameters.
fn layers(p: &Params<'_>) -> Result<AbsorbingLayers, NodeError> {
    let mut faces = [false; 6];
    for (name, face) in SIDES {
        faces[face] = p.bool(name)?;
    }
    let width = p.f32("width")?;
    if !(width >= 0.0 && width.is_finite()) {
        return Err(NodeError::param(
            "width",
            format!("the layers' width must be ≥ 0 m, not {width}"),
        ));
    }
    let strength = p.f32("strength")?;
    if !(strength >= 0.0 && strength.is_finite()) {
        return Err(NodeError::param(
            "strength",
            format!("the damping rate must be ≥ 0 per second, not {strength}"),
        ));
    }
    Ok(AbsorbingLayers {
        faces,
        width,
        strength,
    })
}

/// The wave absorber node kind.
pub fn kind() -> NodeKind {
    let mut params: Vec<ParamSpec> = SIDES
        .iter()
        .map(|(name, _)| {
            ParamSpec::bool(
                name,
                &format!("Absorb at {}", name.replace('_', " ")),
                "line this side wall with an absorbing layer",
                name.starts_with('x'),
            )
        })
        .collect();
    params.push(ParamSpec::float(
        "width",
        "Layer width",
        "how far from the wall the layer reaches (m); about a wavelength absorbs best",
        0.3,
        0.0,
        1e5,
    ));
    params.push(ParamSpec::float(
        "strength",
        "Damping rate",
        "the damping rate at the wall (1/s), falling quadratically to 0 at the layer's edge",
        20.0,
        0.0,
        1e6,
    ));
    let s = spec(
        "wave_absorber",
        "Wave Absorber",
        "Forces",
        "Damps the velocity in layers beside chosen side walls (sponge layers), so waves die \
         there instead of reflecting: a tank behaves as part of a wide pond. Wire it on P2G's \
         velocity, before gravity.",
        vec![PortSpec::new("velocity", VELOCITY, "grid velocity")],
        vec![PortSpec::new("velocity", VELOCITY, "damped velocity")],
        params,
    )
    .with(NodeRole::Force)
    // every velocity component read and written
    .with(Traffic::new(0.0, 24.0));
    NodeKind::new(
        s,
        Box::new(|init| {
            Ok(Box::new(WaveAbsorber {
                layers: layers(&Params(init.params))?,
            }))
        }),
    )
}
