//! Rigid bodies: boxes and discs of a density that float, sink and are pushed by the liquid
//! (2D). Each substep the node takes the bodies' states carried from the last one (or, on the
//! first, those of its `bodies` parameter), advances them under gravity with contacts against
//! the walls, the scene's boxes and spheres and each other (rapier), and hands the liquid the
//! scene with the bodies added as moving solids. The pressure node couples them to the liquid
//! (Batty, Bertails & Bridson 2007, §4) and passes them on to `step_output`.

use super::common::spec;
use crate::kinds::{TypedInputs, BODIES, SOLIDS};
use crate::params::Params;
use crate::roles::NodeRole;
use flip_core::rigid::{contact, Bodies, BodyShape, BodyState, ContactParams, RigidBody};
use flip_core::Solids;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use std::sync::Arc;

/// Parameter: the bodies at the start, `;`-separated.
pub const BODIES_PARAM: &str = "bodies";

struct RigidBodiesNode {
    initial: Vec<RigidBody>,
    contact: ContactParams,
}

/// Parses one body: `box W H | disc R`, then `at X Y`, `density D` and optionally
/// `angle DEGREES`, `velocity VX VY`, `spin RAD_PER_S`.
fn parse_body(text: &str) -> Result<RigidBody, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let numbers = |n: usize, what: &str, at: &mut usize| -> Result<Vec<f64>, String> {
        let got: Result<Vec<f64>, _> = words
            .get(*at..*at + n)
            .ok_or_else(|| format!("`{what}` needs {n} number(s)"))?
            .iter()
            .map(|w| w.parse::<f64>())
            .collect();
        *at += n;
        let got = got.map_err(|_| format!("`{what}` needs {n} number(s)"))?;
        if got.iter().all(|x| x.is_finite()) {
            Ok(got)
        } else {
            Err(format!("`{what}` must be finite"))
        }
    };
    let mut at = 1;
    let shape = match words.first().copied() {
        Some("box") => {
            let s = numbers(2, "box", &mut at)?;
            BodyShape::Box { size: [s[0], s[1]] }
        }
        Some("disc") => BodyShape::Disc {
            radius: numbers(1, "disc", &mut at)?[0],
        },
        _ => return Err("a body starts with `box W H` or `disc R`".into()),
    };
    if !shape.is_valid() {
        return Err("a body's size must be > 0".into());
    }
    let (mut state, mut density, mut placed) = (BodyState::default(), None, false);
    while let Some(&key) = words.get(at) {
        at += 1;
        match key {
            "at" => {
                let p = numbers(2, key, &mut at)?;
                state.position = [p[0], p[1]];
                placed = true;
            }
            "density" => density = Some(numbers(1, key, &mut at)?[0]),
            "angle" => state.angle = numbers(1, key, &mut at)?[0].to_radians(),
            "velocity" => {
                let v = numbers(2, key, &mut at)?;
                state.velocity = [v[0], v[1]];
            }
            "spin" => state.spin = numbers(1, key, &mut at)?[0],
            other => {
                return Err(format!(
                    "`{other}` is not a body property: use at, density, angle, velocity, spin"
                ))
            }
        }
    }
    let density = density.ok_or("a body needs `density D` (kg/m³)")?;
    if density <= 0.0 {
        return Err("a body's density must be > 0 kg/m³".into());
    }
    if !placed {
        return Err("a body needs `at X Y` (its centre, m)".into());
    }
    Ok(RigidBody {
        shape,
        density,
        state,
    })
}

/// Parses the `bodies` parameter: bodies separated by `;` or new lines.
fn parse_bodies(text: &str) -> Result<Vec<RigidBody>, NodeError> {
    text.split([';', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .enumerate()
        .map(|(i, s)| {
            parse_body(s)
                .map_err(|e| NodeError::param(BODIES_PARAM, format!("body {}: {e}", i + 1)))
        })
        .collect()
}

impl RigidBodiesNode {
    fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let p = Params(init.params);
        if !init.settings.grid_spec().is_2d() {
            return Err(NodeError::param(
                BODIES_PARAM,
                "rigid bodies are coupled in 2D graphs only (3D is not built yet)",
            ));
        }
        let g = p.vec3("gravity")?;
        let contact = ContactParams {
            friction: f64::from(p.f32("friction")?),
            restitution: f64::from(p.f32("restitution")?),
            gravity: [f64::from(g.x), f64::from(g.y)],
        };
        Ok(Self {
            initial: parse_bodies(p.text(BODIES_PARAM)?)?,
            contact,
        })
    }
}

impl Node for RigidBodiesNode {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let carried = io.bodies_opt("bodies")?;
        let scene = io.solids("solids")?;
        let (mut bodies, start) = match &carried {
            Some(b) => (b.bodies.clone(), b.next_states()),
            None => {
                let start = self.initial.iter().map(|b| b.state).collect();
                (self.initial.clone(), start)
            }
        };
        // where the previous pressure solve left the bodies (at rest before the first solve)
        let solved = match &carried {
            Some(_) => start.iter().map(BodyState::dof).collect(),
            None => vec![],
        };
        let dt = f64::from(ctx.dt);
        // symplectic Euler: the pose moves at the velocity the pressure left (contacts
        // resolved, no gravity yet), then gravity and the contacts give the velocity the
        // liquid sees the body move at, and where it heads by the substep's end
        let free = ContactParams {
            gravity: [0.0, 0.0],
            ..self.contact
        };
        let moved = contact::advance(&bodies, &start, &scene, &free, dt);
        let end = contact::advance(&bodies, &moved, &scene, &self.contact, dt);
        for ((b, m), e) in bodies.iter_mut().zip(&moved).zip(&end) {
            b.state = BodyState {
                velocity: e.velocity,
                spin: e.spin,
                ..*m
            };
        }
        let solids = with_bodies(&scene, &bodies, &end);
        io.set("solids", Value::shared(SOLIDS, Arc::new(solids)));
        io.set(
            "bodies",
            Value::new(
                BODIES,
                Bodies {
                    bodies,
                    end,
                    solved,
                },
            ),
        );
        Ok(())
    }

    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Err(WindowRefusal::WholeDomain)
    }
}

/// `scene` with the bodies added: placed at their start moving with them, and at `end`.
fn with_bodies(
    scene: &Solids,
    bodies: &[RigidBody],
    end: &[flip_core::rigid::BodyState],
) -> Solids {
    let mut start = scene.shapes.clone();
    let mut at_end = scene.at_end().shapes.clone();
    start.extend(bodies.iter().map(|b| b.solid(&b.state)));
    at_end.extend(bodies.iter().zip(end).map(|(b, e)| b.solid(e)));
    Solids::moving_with_sides(
        scene.spec,
        start,
        at_end,
        scene.origin,
        scene.domain,
        scene.sides,
    )
}

/// The rigid-bodies node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "rigid_bodies",
        "Rigid Bodies",
        "Collision",
        "Boxes and discs that float, sink and are carried by the liquid (2D). `bodies` lists \
         them, `;`-separated: `box W H` or `disc R`, then `at X Y` (centre, m), `density D` \
         (kg/m³; water is 1000), optionally `angle DEGREES`, `velocity VX VY`, `spin RAD/S`. \
         Each substep they fall under `gravity` and collide with the walls, the scene's boxes \
         and spheres and each other (rapier); the liquid sees them as moving solids, and the \
         pressure node couples them to it (Batty, Bertails & Bridson 2007): wire its `bodies` \
         input from here and its output to `step_output`.",
        vec![
            PortSpec::optional("bodies", BODIES, "the bodies carried from the last substep"),
            PortSpec::new("solids", SOLIDS, "the scene: walls and static solids"),
        ],
        vec![
            PortSpec::new("bodies", BODIES, "the bodies, advanced over the substep"),
            PortSpec::new(
                "solids",
                SOLIDS,
                "the scene with the bodies as moving solids",
            ),
        ],
        vec![
            ParamSpec::text(
                BODIES_PARAM,
                "Bodies",
                "`box W H | disc R at X Y density D [angle DEG] [velocity VX VY] [spin W]`, \
                 `;`-separated",
                "box 0.2 0.1 at 0.5 0.7 density 500",
            ),
            ParamSpec::vec3(
                "gravity",
                "Gravity",
                "acceleration on the bodies (m/s²)",
                [0.0, -9.81, 0.0],
            ),
            ParamSpec::float(
                "friction",
                "Friction",
                "Coulomb friction of contacts",
                0.5,
                0.0,
                10.0,
            ),
            ParamSpec::float(
                "restitution",
                "Restitution",
                "bounciness of contacts (0: none)",
                0.0,
                0.0,
                1.0,
            ),
        ],
    )
    .with(NodeRole::RigidBodies);
    NodeKind::new(
        s,
        Box::new(|init| Ok(Box::new(RigidBodiesNode::new(init)?))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bodies_and_names_what_is_wrong() {
        let b = parse_bodies("box 0.2 0.1 at 0.5 0.7 density 500 angle 90; disc 0.05 at 0.3 0.8 density 1200 velocity 1 0")
            .unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].shape, BodyShape::Box { size: [0.2, 0.1] });
        assert!((b[0].state.angle - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        assert_eq!(b[1].state.velocity, [1.0, 0.0]);
        let e = parse_bodies("disc 0.1 at 0.5 0.5").unwrap_err().to_string();
        assert!(e.contains("body 1") && e.contains("density"), "{e}");
        let e = parse_bodies("box 0.1 at 0.5 0.5 density 1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`box` needs 2"), "{e}");
        let e = parse_bodies("disc 0.1 at 0.5 0.5 density 1 colour red")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`colour` is not"), "{e}");
    }
}
