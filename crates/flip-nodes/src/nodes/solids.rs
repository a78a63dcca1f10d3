//! Solids: the domain walls plus one shape (box, sphere, or a PNG mask), optionally inverted
//! (a container) or hollow; chain several nodes through `solids_in` for a union.
use super::common::spec;
use crate::params::Params;
use flip_core::{Shape, ShapeKind, Solids};
use flip_graph::{
    DataKind, EvalCtx, Node, NodeError, NodeInit, NodeIo, NodeKind, ParamSpec, PortSpec, Value,
};
use std::path::Path;
use std::sync::Arc;

struct SolidsNode {
    shape: Option<Shape>,
    last_in: Option<Arc<Solids>>,
    out: Option<Arc<Solids>>,
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
        });
        Ok(Self {
            shape,
            last_in: None,
            out: None,
        })
    }
}

impl Node for SolidsNode {
    fn eval(&mut self, ctx: &EvalCtx, io: &mut NodeIo) -> Result<(), NodeError> {
        let upstream = match io.take("solids_in") {
            Some(Value::Solids(s)) => Some(s),
            Some(_) => return Err(NodeError::Failed("`solids_in` must carry solids".into())),
            None => None,
        };
        let same = match (&upstream, &self.last_in) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same || self.out.is_none() {
            let mut shapes = upstream
                .as_ref()
                .map(|s| s.shapes.clone())
                .unwrap_or_default();
            shapes.extend(self.shape.clone());
            self.out = Some(Arc::new(Solids::new(ctx.grid, shapes)));
            self.last_in = upstream;
        }
        io.set(
            "solids",
            Value::Solids(self.out.clone().expect("computed above")),
        );
        Ok(())
    }
}

/// The solids node kind.
pub fn kind() -> NodeKind {
    let s = spec(
        "solids",
        "Solids",
        "Collision",
        "Domain walls (one cell thick) plus a box, a sphere (disc in 2D) or a PNG mask (dark = \
         solid, stretched over the domain). `inverted` makes a container (solid outside the \
         surface); `shell` > 0 keeps only a wall of that thickness. Chain nodes for unions.",
        vec![PortSpec::optional(
            "solids_in",
            DataKind::Solids,
            "solids to add this shape to",
        )],
        vec![PortSpec::new(
            "solids",
            DataKind::Solids,
            "walls and shapes",
        )],
        vec![
            ParamSpec::choice(
                "shape",
                "Shape",
                "solid primitive",
                &["none", "box", "sphere", "mask"],
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
        ],
    );
    NodeKind::new(s, Box::new(|init| Ok(Box::new(SolidsNode::new(init)?))))
}
