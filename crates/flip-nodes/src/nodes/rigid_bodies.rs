//! Rigid bodies: boxes and discs (2D) or boxes and spheres (3D) of a density that float, sink
//! and are pushed by the liquid. Each substep the node takes the bodies' states carried from the last one (or, on the
//! first, those of its `bodies` parameter), advances them under gravity with contacts against
//! the walls, the scene's boxes and spheres and each other (rapier), and hands the liquid the
//! scene with the bodies added as moving solids. The pressure node couples them to the liquid
//! (Batty, Bertails & Bridson 2007, §4) and passes them on to `step_output`.

use super::common::spec;
use crate::kinds::{TypedInputs, BODIES, SOLIDS};
use crate::params::Params;
use crate::roles::NodeRole;
use flip_core::rigid::{
    contact, resting, with_body_faces, Bodies, BodyShape, BodyState, ContactParams, RigidBody,
};
use flip_core::Solids;
use flip_graph::{
    EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use glam::{DQuat, EulerRot};
use mesh::MeshSource;
use std::sync::Arc;

mod mesh;

/// Parameter: the bodies at the start, `;`-separated.
pub const BODIES_PARAM: &str = "bodies";

struct RigidBodiesNode {
    initial: Vec<RigidBody>,
    contact: ContactParams,
}

/// What the `bodies` parameter is read in: the grid's dimension (2 or 3) and where meshes
/// come from.
struct BodyContext<'a> {
    dimension: usize,
    meshes: MeshSource<'a>,
}

/// A body's shape as the text gives it: ready, or a mesh file read once its `scale` is known.
enum Described<'a> {
    Ready(BodyShape),
    Mesh(&'a str),
}

/// Parses one body. In 2D: `box W H | disc R`, then `at X Y`, `density D` and optionally
/// `angle DEGREES`, `velocity VX VY`, `spin RAD_PER_S`. In 3D: `box W H D | sphere R |
/// mesh PATH`, then `at X Y Z` (a mesh's centre of mass), `density D` and optionally
/// `angle RX RY RZ` (degrees about the world x, then y, then z axis), `velocity VX VY VZ`,
/// `spin WX WY WZ` (rad/s about the world axes), and for a mesh `scale S` (file units to m).
fn parse_body(text: &str, ctx: &BodyContext<'_>) -> Result<RigidBody, String> {
    let dimension = ctx.dimension;
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
    // a vector of the grid's dimension, z = 0 in 2D
    let vector = |what: &str, at: &mut usize| -> Result<[f64; 3], String> {
        let v = numbers(dimension, what, at)?;
        Ok([v[0], v[1], v.get(2).copied().unwrap_or(0.0)])
    };
    let mut at = 1;
    let described = match (words.first().copied(), dimension) {
        (Some("box"), 2) => {
            let s = numbers(2, "box", &mut at)?;
            // one metre deep: mass and inertia per metre of depth
            Described::Ready(BodyShape::Box {
                size: [s[0], s[1], 1.0],
            })
        }
        (Some("box"), _) => Described::Ready(BodyShape::Box {
            size: vector("box", &mut at)?,
        }),
        (Some("disc"), 2) => Described::Ready(BodyShape::Disc {
            radius: numbers(1, "disc", &mut at)?[0],
        }),
        (Some("sphere"), 3) => Described::Ready(BodyShape::Sphere {
            radius: numbers(1, "sphere", &mut at)?[0],
        }),
        (Some("mesh"), 3) => {
            let path = words.get(at).ok_or("`mesh` needs a file (OBJ or STL)")?;
            at += 1;
            Described::Mesh(path)
        }
        (_, 2) => return Err("a 2D body starts with `box W H` or `disc R`".into()),
        _ => return Err("a 3D body starts with `box W H D`, `sphere R` or `mesh PATH`".into()),
    };
    if matches!(&described, Described::Ready(s) if !s.is_valid()) {
        return Err("a body's size must be > 0".into());
    }
    let is_mesh = matches!(described, Described::Mesh(_));
    let (mut state, mut density, mut placed) = (BodyState::default(), None, false);
    let mut scale = 1.0;
    while let Some(&key) = words.get(at) {
        at += 1;
        match key {
            "at" => {
                state.position = vector(key, &mut at)?;
                placed = true;
            }
            "density" => density = Some(numbers(1, key, &mut at)?[0]),
            "angle" if dimension == 2 => {
                let a = numbers(1, key, &mut at)?[0].to_radians();
                state.set_rotation(DQuat::from_rotation_z(a));
            }
            "angle" => {
                let [x, y, z] = vector(key, &mut at)?.map(f64::to_radians);
                // about x first, then y, then z (world axes)
                state.set_rotation(DQuat::from_euler(EulerRot::ZYX, z, y, x));
            }
            "velocity" => state.velocity = vector(key, &mut at)?,
            "spin" if dimension == 2 => state.spin = [0.0, 0.0, numbers(1, key, &mut at)?[0]],
            "spin" => state.spin = vector(key, &mut at)?,
            "scale" if is_mesh => scale = numbers(1, key, &mut at)?[0],
            other => {
                return Err(format!(
                    "`{other}` is not a body property: use at, density, angle, velocity, spin{}",
                    if is_mesh { ", scale" } else { "" }
                ))
            }
        }
    }
    let density = density.ok_or("a body needs `density D` (kg/m³)")?;
    if density <= 0.0 {
        return Err("a body's density must be > 0 kg/m³".into());
    }
    if !placed {
        return Err(if dimension == 2 {
            "a body needs `at X Y` (its centre, m)".into()
        } else {
            "a body needs `at X Y Z` (its centre, m)".into()
        });
    }
    let shape = match described {
        Described::Ready(shape) => shape,
        Described::Mesh(path) => {
            let (mesh, frame) = mesh::load(&ctx.meshes, path, scale)?;
            // the mesh lies as in its file, turned by `angle` about its centre of mass
            state.set_rotation(state.rotation() * frame.axes);
            BodyShape::Mesh(mesh)
        }
    };
    Ok(RigidBody {
        shape,
        density,
        state,
    })
}

/// Parses the `bodies` parameter (in a grid of `dimension` 2 or 3): bodies separated by `;` or
/// new lines.
fn parse_bodies(text: &str, ctx: &BodyContext<'_>) -> Result<Vec<RigidBody>, NodeError> {
    text.split([';', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .enumerate()
        .map(|(i, s)| {
            parse_body(s, ctx)
                .map_err(|e| NodeError::param(BODIES_PARAM, format!("body {}: {e}", i + 1)))
        })
        .collect()
}

impl RigidBodiesNode {
    fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let p = Params(init.params);
        let g = p.vec3("gravity")?;
        let contact = ContactParams {
            friction: f64::from(p.f32("friction")?),
            restitution: f64::from(p.f32("restitution")?),
            gravity: g.as_dvec3().to_array(),
        };
        let spec = init.settings.grid_spec();
        let ctx = BodyContext {
            dimension: spec.dimension(),
            meshes: MeshSource {
                base_dir: init.base_dir,
                dx: spec.dx,
            },
        };
        Ok(Self {
            initial: parse_bodies(p.text(BODIES_PARAM)?, &ctx)?,
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
            Some(_) => start.iter().map(BodyState::twist).collect(),
            None => vec![],
        };
        let dt = f64::from(ctx.dt);
        // symplectic Euler: the pose moves at the velocity the pressure left (contacts
        // resolved, no gravity yet), then gravity and the contacts give the velocity the
        // liquid sees the body move at, and where it heads by the substep's end
        let free = ContactParams {
            gravity: [0.0; 3],
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
        let contacts = (bodies.iter())
            .map(|b| resting::contact_rows(&scene, b))
            .collect();
        let resting = carried.as_ref().map_or(vec![], |b| b.resting.clone());
        io.set("solids", Value::shared(SOLIDS, Arc::new(solids)));
        io.set(
            "bodies",
            Value::new(
                BODIES,
                Bodies {
                    bodies,
                    end,
                    solved,
                    contacts,
                    resting,
                },
            ),
        );
        Ok(())
    }

    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        Err(WindowRefusal::WholeDomain)
    }
}

/// `scene` with the bodies added: placed at their start moving with them (their faces' open
/// fractions those the coupled solve uses), and at `end`.
fn with_bodies(
    scene: &Solids,
    bodies: &[RigidBody],
    end: &[flip_core::rigid::BodyState],
) -> Solids {
    let mut start = scene.shapes.clone();
    let mut at_end = scene.at_end().shapes.clone();
    start.extend(bodies.iter().map(|b| b.solid(&b.state)));
    at_end.extend(bodies.iter().zip(end).map(|(b, e)| b.solid(e)));
    let mut solids = Solids::moving_with_sides(
        scene.spec,
        start,
        at_end,
        scene.origin,
        scene.domain,
        scene.sides,
    );
    with_body_faces(&mut solids, scene, bodies);
    solids
}

/// The rigid-bodies node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "rigid_bodies",
        "Rigid Bodies",
        "Collision",
        "Boxes and discs (2D) or boxes, spheres and imported meshes (3D) that float, sink and \
         are carried by the liquid. `bodies` lists them, `;`-separated. 2D: `box W H` or \
         `disc R`, then `at X Y` (centre, m), `density D` (kg/m³; water is 1000), optionally \
         `angle DEGREES`, `velocity VX VY`, `spin RAD/S`. 3D: `box W H D`, `sphere R` or \
         `mesh PATH` (a closed OBJ/STL relative to the graph file, optionally `scale S`; `at` \
         places its centre of mass, contacts see its convex hull), `at X Y Z`, `density D`, \
         optionally `angle RX RY RZ` (degrees about the world x, then y, then z), \
         `velocity VX VY VZ`, `spin WX WY WZ` (rad/s). \
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
                "2D: `box W H | disc R at X Y density D [angle DEG] [velocity VX VY] [spin W]`; \
                 3D: `box W H D | sphere R | mesh PATH [scale S] at X Y Z density D \
                 [angle RX RY RZ] [velocity VX VY VZ] [spin WX WY WZ]`; `;`-separated",
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
    use std::path::Path;

    fn context(dimension: usize) -> BodyContext<'static> {
        BodyContext {
            dimension,
            meshes: MeshSource {
                base_dir: Path::new("."),
                dx: 1.0 / 48.0,
            },
        }
    }

    #[test]
    fn a_mesh_body_is_read_relative_to_the_graph_scaled_and_placed_by_its_centre_of_mass() {
        // the test crate's unit cube, centred at (3, 1, 2) in its file
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
        let ctx = BodyContext {
            meshes: MeshSource {
                base_dir: &fixtures,
                dx: 1.0 / 48.0,
            },
            ..context(3)
        };
        let b = parse_bodies(
            "mesh meshes/unit_cube.obj scale 0.1 at 0.5 0.6 0.4 density 500",
            &ctx,
        )
        .unwrap();
        // a 0.1 m cube of 500 kg/m³, its centre of mass where `at` puts it
        assert!((b[0].mass() - 0.5).abs() < 1e-6, "{}", b[0].mass());
        assert_eq!(b[0].state.position, [0.5, 0.6, 0.4]);
        assert!(b[0].distance(&b[0].state, [0.5, 0.6, 0.4]) < -0.045);
        assert!(b[0].distance(&b[0].state, [0.5, 0.66, 0.4]) > 0.005);
        let e = parse_bodies("mesh missing.obj at 0.5 0.5 0.5 density 500", &ctx)
            .unwrap_err()
            .to_string();
        assert!(e.contains("body 1") && e.contains("missing.obj"), "{e}");
        let e = parse_bodies(
            "mesh meshes/unit_cube.obj scale 0 at 0.5 0.5 0.5 density 500",
            &ctx,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("scale"), "{e}");
        let e = parse_bodies(
            "mesh meshes/unit_cube.obj at 0.5 0.5 density 500",
            &context(2),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("`box W H` or `disc R`"), "{e}");
    }

    #[test]
    fn parses_bodies_and_names_what_is_wrong() {
        let b = parse_bodies("box 0.2 0.1 at 0.5 0.7 density 500 angle 90; disc 0.05 at 0.3 0.8 density 1200 velocity 1 0", &context(2))
            .unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!(
            b[0].shape,
            BodyShape::Box {
                size: [0.2, 0.1, 1.0]
            }
        );
        assert!((b[0].state.angle_z() - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        assert_eq!(b[1].state.velocity, [1.0, 0.0, 0.0]);
        let e = parse_bodies("disc 0.1 at 0.5 0.5", &context(2))
            .unwrap_err()
            .to_string();
        assert!(e.contains("body 1") && e.contains("density"), "{e}");
        let e = parse_bodies("box 0.1 at 0.5 0.5 density 1", &context(2))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`box` needs 2"), "{e}");
        let e = parse_bodies("disc 0.1 at 0.5 0.5 density 1 colour red", &context(2))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`colour` is not"), "{e}");
    }

    #[test]
    fn parses_3d_bodies_with_euler_angles_in_degrees() {
        let b = parse_bodies(
            "box 0.2 0.1 0.3 at 0.5 0.7 0.4 density 500 angle 90 0 90 spin 0 1 0; \
             sphere 0.05 at 0.3 0.8 0.5 density 1200 velocity 1 0 2",
            &context(3),
        )
        .unwrap();
        assert_eq!(
            b[0].shape,
            BodyShape::Box {
                size: [0.2, 0.1, 0.3]
            }
        );
        assert_eq!(b[0].state.position, [0.5, 0.7, 0.4]);
        assert_eq!(b[0].state.spin, [0.0, 1.0, 0.0]);
        // 90° about x takes the body's y to z; then 90° about z leaves z: y → z, and x → y
        let q = b[0].state.rotation();
        let y = q * glam::DVec3::Y;
        let x = q * glam::DVec3::X;
        assert!((y - glam::DVec3::Z).length() < 1e-12, "{y}");
        assert!((x - glam::DVec3::Y).length() < 1e-12, "{x}");
        assert_eq!(b[1].shape, BodyShape::Sphere { radius: 0.05 });
        assert_eq!(b[1].state.velocity, [1.0, 0.0, 2.0]);
        let e = parse_bodies("disc 0.1 at 0.5 0.5 0.5 density 1", &context(3))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`box W H D`, `sphere R` or `mesh PATH`"), "{e}");
        let e = parse_bodies("box 0.1 0.1 0.1 at 0.5 0.5 density 1", &context(3))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`at` needs 3"), "{e}");
    }
}
