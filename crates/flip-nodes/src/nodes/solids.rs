//! Solids: the domain walls plus one shape (box, sphere, a PNG mask or an imported OBJ/STL
//! mesh), optionally inverted (a container) or hollow, rotated and keyframed (moving); chain
//! several nodes through `solids_in` for a union.
use super::common::spec;
use super::{keyframes, mesh_file};
use crate::kinds::SOLIDS;
use crate::params::Params;
use crate::roles::NodeRole;
use flip_core::solids::{DomainSides, Inflow, Motion, Placement, Side, SIDE_NAMES};
use flip_core::{Shape, ShapeKind, Solids};
use flip_graph::{
    EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, PortSpec, Value, WindowRefusal,
};
use glam::{Quat, Vec3};
use std::path::Path;
use std::sync::Arc;

/// Output port: the walls and shapes.
pub const SOLIDS_OUT: &str = "solids";
/// Parameter: the keyframes of a moving solid (empty for a still one).
pub const KEYFRAMES_PARAM: &str = "keyframes";

struct SolidsNode {
    shape: Option<Shape>,
    /// The point the rotation and the keyframes carry (box/sphere centre, mesh origin).
    pivot: Vec3,
    /// The `rotate` parameter.
    rest: Quat,
    motion: Option<Motion>,
    /// Largest distance from the pivot to a point of the shape (for the speed bound).
    reach: f32,
    /// The domain faces this node sets (walls where it sets none).
    sides: DomainSides,
    last_in: Option<Arc<Solids>>,
    out: Option<Arc<Solids>>,
}

/// The parameter naming the mode of domain face `side` ([`SIDE_NAMES`] order).
fn side_param(side: usize) -> String {
    format!("side_{}", SIDE_NAMES[side])
}

/// The domain faces of the parameters: `side_x_min` … `side_z_max` (`wall`, `open` or
/// `inflow`), an inflow moving at `inflow_speed` up to `inflow_height`.
fn sides(p: &Params<'_>, is_2d: bool) -> Result<DomainSides, NodeError> {
    let mut sides = DomainSides::default();
    for (s, slot) in sides.0.iter_mut().enumerate() {
        let name = side_param(s);
        let mode = p.text(&name).unwrap_or("wall");
        *slot = match mode {
            "wall" => Side::Wall,
            _ if is_2d && s >= 4 => {
                return Err(NodeError::param(
                    &name,
                    "a 2D graph has no z faces: leave them `wall`",
                ))
            }
            "open" => Side::Open,
            "inflow" => {
                let speed = p.f32("inflow_speed")?;
                if !(speed > 0.0 && speed.is_finite()) {
                    return Err(NodeError::param(
                        "inflow_speed",
                        format!("`{name}` is an inflow: its speed must be > 0 m/s, not {speed}"),
                    ));
                }
                let height = p.f32("inflow_height")?;
                if !(height >= 0.0 && height.is_finite()) {
                    return Err(NodeError::param(
                        "inflow_height",
                        format!(
                            "the inflow height must be ≥ 0 m (0: the whole face), not {height}"
                        ),
                    ));
                }
                Side::Inflow(Inflow { speed, height })
            }
            other => {
                return Err(NodeError::param(
                    &name,
                    format!("`{other}` is not a face mode: use wall, open or inflow"),
                ))
            }
        };
    }
    Ok(sides)
}

/// This node's faces over the ones upstream: a face set by both must be set the same way
/// (an inflow on a face another node opened is refused, naming the face's parameter).
fn merge_sides(upstream: &DomainSides, own: &DomainSides) -> Result<DomainSides, NodeError> {
    let mut out = *upstream;
    for (s, (up, mine)) in upstream.0.iter().zip(&own.0).enumerate() {
        match (up, mine) {
            (_, Side::Wall) => {}
            (Side::Wall, m) => out.0[s] = *m,
            (u, m) if u == m => {}
            (u, m) => {
                return Err(NodeError::param(
                    &side_param(s),
                    format!(
                        "the face is {} here but {} in the solids upstream: a face is a wall,                          open or an inflow, not two of them",
                        mode_name(m),
                        mode_name(u)
                    ),
                ))
            }
        }
    }
    Ok(out)
}

fn mode_name(s: &Side) -> &'static str {
    match s {
        Side::Wall => "a wall",
        Side::Open => "open",
        Side::Inflow(_) => "an inflow",
    }
}

/// Reads a mask image: dark pixels (luma < 128) are solid.
fn load_mask(path: &Path) -> Result<ShapeKind, String> {
    let img = image::open(path).map_err(|e| format!("cannot read mask {}: {e}", path.display()))?;
    let luma = img.to_luma8();
    let (width, height) = (luma.width() as usize, luma.height() as usize);
    let solid = luma.pixels().map(|p| p.0[0] < 128).collect();
    Ok(ShapeKind::Mask {
        solid,
        width,
        height,
    })
}

impl SolidsNode {
    fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let p = Params(init.params);
        let center = p.vec3("center")?;
        let half = 0.5 * p.vec3("size")?;
        let grid = init.settings.grid_spec();
        let mut pivot = center;
        let kind = match p.text("shape")? {
            "none" => None,
            "box" => Some(ShapeKind::Box {
                min: center - half,
                max: center + half,
            }),
            "sphere" => Some(ShapeKind::Sphere {
                center,
                radius: p.f32("radius")?,
            }),
            "mesh" => {
                pivot = p.vec3("translate")?;
                Some(ShapeKind::Mesh(mesh_file::load(init)?))
            }
            _ => {
                let rel = p.text("mask")?;
                if rel.is_empty() {
                    return Err(NodeError::param(
                        "mask",
                        "shape `mask` needs the `mask` parameter (a PNG path)",
                    ));
                }
                Some(load_mask(&init.base_dir.join(rel)).map_err(|e| NodeError::param("mask", e))?)
            }
        };
        let shape = kind.map(|kind| Shape {
            kind,
            inverted: p.bool("inverted").unwrap_or(false),
            shell: p.f32("shell").unwrap_or(0.0),
            subtract: p.text("operation").is_ok_and(|o| o == "subtract"),
            placement: None,
        });
        let rotate = p.vec3("rotate")?;
        if grid.is_2d() && (rotate.x != 0.0 || rotate.y != 0.0) {
            return Err(NodeError::param(
                "rotate",
                "a 2D graph rotates about z only",
            ));
        }
        let fps = init.settings.fps;
        let motion = keyframes::parse(p.text(KEYFRAMES_PARAM)?, fps, grid.is_2d())?;
        let reach = shape.as_ref().map_or(0.0, |s| reach(&s.kind, pivot, &grid));
        Ok(Self {
            sides: sides(&p, grid.is_2d())?,
            shape,
            pivot,
            rest: keyframes::euler_degrees(rotate),
            motion,
            reach,
            last_in: None,
            out: None,
        })
    }

    /// The shape placed at time `at`, moving at its velocity over the substep `[t, t + dt]`.
    fn placed(&self, at: f64, t: f64, dt: f64) -> Option<Shape> {
        let mut shape = self.shape.clone()?;
        shape.placement = match &self.motion {
            Some(m) => Some(m.placement(self.pivot, self.rest, at, t + 0.5 * dt)),
            None if self.rest != Quat::IDENTITY => Some(Placement {
                rotation: self.rest,
                ..Placement::fixed(self.pivot)
            }),
            None => None,
        };
        Some(shape)
    }
}

/// Largest distance from `pivot` to a point of the shape.
fn reach(kind: &ShapeKind, pivot: Vec3, grid: &flip_core::GridSpec) -> f32 {
    let corners = |lo: Vec3, hi: Vec3| {
        (0..8)
            .map(|c| {
                let pick = |bit: usize, a: f32, b: f32| if c & bit == 0 { a } else { b };
                Vec3::new(
                    pick(1, lo.x, hi.x),
                    pick(2, lo.y, hi.y),
                    pick(4, lo.z, hi.z),
                )
            })
            .map(|v| v.distance(pivot))
            .fold(0.0, f32::max)
    };
    match kind {
        ShapeKind::Box { min, max } => corners(*min, *max),
        ShapeKind::Sphere { center, radius } => center.distance(pivot) + radius,
        ShapeKind::Mask { .. } => corners(Vec3::ZERO, grid.extent()),
        ShapeKind::Mesh(m) => {
            let (lo, hi) = m.0.bounds();
            corners(lo, hi)
        }
    }
}

impl Node for SolidsNode {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let upstream = match io.take("solids_in") {
            Some(v) if v.kind() == SOLIDS => v.into_shared().ok(),
            Some(_) => return Err(NodeError::Failed("`solids_in` must carry solids".into())),
            None => None,
        };
        let same = match (&upstream, &self.last_in) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same || self.out.is_none() || self.motion.is_some() {
            // the pressure solve sees the solids at the substep's start, moving; advected
            // particles are pushed out of them where they are at its end
            let (t, dt) = (ctx.time, f64::from(ctx.dt));
            let mut start = upstream.as_ref().map_or(Vec::new(), |s| s.shapes.clone());
            let mut end = upstream
                .as_ref()
                .map_or(Vec::new(), |s| s.at_end().shapes.clone());
            start.extend(self.placed(t, t, dt));
            end.extend(self.placed(t + dt, t, dt));
            let (origin, domain) = ctx
                .window
                .as_ref()
                .map_or((Vec3::ZERO, ctx.grid), |w| (w.origin(), w.global));
            let up_sides = upstream
                .as_ref()
                .map_or(DomainSides::default(), |s| s.sides);
            let sides = merge_sides(&up_sides, &self.sides)?;
            let solids = Solids::moving_with_sides(ctx.grid, start, end, origin, domain, sides);
            self.out = Some(Arc::new(solids));
            self.last_in = upstream;
        }
        io.set(
            SOLIDS_OUT,
            Value::shared(SOLIDS, self.out.clone().expect("computed above")),
        );
        Ok(())
    }

    fn window_reach(&self) -> Result<usize, WindowRefusal> {
        if !self.sides.all_walls() {
            // open and inflow faces are the domain's, not a window's
            return Err(WindowRefusal::WholeDomain);
        }
        Ok(0)
    }

    fn solid_speed_hint(&self) -> f32 {
        self.motion
            .as_ref()
            .map_or(0.0, |m| m.max_speed(self.reach))
    }
}

/// The domain-face parameters.
fn side_params() -> Vec<ParamSpec> {
    let mut v: Vec<ParamSpec> = (0..6)
        .map(|s| {
            ParamSpec::choice(
                &side_param(s),
                &format!("Face {}", SIDE_NAMES[s].replace('_', " ")),
                "wall (closed), open (liquid leaves: pressure 0 in the outer cell layer) or \
                 inflow (liquid enters at the inflow speed)",
                &["wall", "open", "inflow"],
                "wall",
            )
        })
        .collect();
    v.push(ParamSpec::float(
        "inflow_speed",
        "Inflow speed",
        "speed of the liquid entering through inflow faces, normal to the face (m/s)",
        1.0,
        0.0,
        1e3,
    ));
    v.push(ParamSpec::float(
        "inflow_height",
        "Inflow height",
        "inflow faces on x and z let liquid in only below this height (y, m); 0 = the whole face",
        0.0,
        0.0,
        1e5,
    ));
    v
}

/// The solids node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "solids",
        "Solids",
        "Collision",
        "Domain walls (one cell thick) plus a box, a sphere (disc in 2D), a PNG mask (dark = \
         solid, stretched over the domain) or an OBJ/STL mesh (inside by its generalised \
         winding number; 2D cuts it at the middle of its bounds). `inverted` makes a container \
         (solid outside the surface); `shell` > 0 keeps only a wall of that thickness; \
         `rotate` and `keyframes` place and move it. Chain nodes for unions. Each face of the \
         domain (`side_x_min` … `side_z_max`) is a `wall`, `open` (pressure 0 in its outer \
         cell layer; liquid leaves and is counted) or an `inflow` (liquid enters normal to the \
         face at `inflow_speed`, below `inflow_height`).",
        vec![PortSpec::optional(
            "solids_in",
            SOLIDS,
            "solids to add this shape to",
        )],
        vec![PortSpec::new(SOLIDS_OUT, SOLIDS, "walls and shapes")],
        vec![
            ParamSpec::choice(
                "shape",
                "Shape",
                "solid primitive",
                &["none", "box", "sphere", "mask", "mesh"],
                "none",
            ),
            ParamSpec::vec3("center", "Center", "centre (m)", [0.5, 0.5, 0.5]),
            ParamSpec::vec3("size", "Size", "box size (m)", [0.2, 0.2, 0.2]),
            ParamSpec::float("radius", "Radius", "sphere radius (m)", 0.45, 0.0, 1e3),
            ParamSpec::choice(
                "operation",
                "Operation",
                "add the shape to the solids before it, or carve it out of them (holes)",
                &["union", "subtract"],
                "union",
            ),
            ParamSpec::bool(
                "inverted",
                "Inverted",
                "solid outside the surface (a container)",
                false,
            ),
            ParamSpec::float(
                "shell",
                "Shell",
                "wall thickness for hollow shapes (0 = filled, m)",
                0.0,
                0.0,
                1e3,
            ),
            ParamSpec::path(
                "mask",
                "Mask",
                "PNG whose dark pixels are solid (relative to the graph file)",
                "",
            ),
            ParamSpec::vec3(
                "rotate",
                "Rotate",
                "rotation about the centre (mesh: about `translate`), XYZ Euler degrees",
                [0.0, 0.0, 0.0],
            ),
            ParamSpec::text(
                KEYFRAMES_PARAM,
                "Keyframes",
                "moving solid: `FRAME: x y z [/ rx ry rz]; …` places the centre (mesh: origin) \
                 at x y z rotated by rx ry rz degrees; linear/slerp between keys (empty = still)",
                "",
            ),
        ]
        .into_iter()
        .chain(mesh_file::params())
        .chain(side_params())
        .collect(),
    )
    .with(NodeRole::Solids);
    NodeKind::new(s, Box::new(|init| Ok(Box::new(SolidsNode::new(init)?))))
}
