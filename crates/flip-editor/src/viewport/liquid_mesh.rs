//! The liquid mesh in the viewport: when a 3D graph has a `surface` node, every captured frame
//! is meshed with that node's settings by the same code the node exports with
//! (`flip_core::surface::liquid_surface`: particle level set, surface nets, Taubin smoothing),
//! and the viewport draws it shaded (headlight Lambert, triangles sorted back to front).

use egui::epaint::{Mesh, Vertex, WHITE_UV};
use egui::{Color32, Pos2};
use flip_core::surface::{liquid_surface, SurfaceKernel, SurfaceScratch, SurfaceSettings, TriMesh};
use flip_graph::{GraphDoc, NodeRegistry, ParamValue, Simulation};
use flip_nodes::kinds::{CarriedParticles, SOLIDS};
use flip_nodes::roles::{KindFacts, NodeRole};
use glam::Vec3;
use std::path::Path;
use std::sync::Arc;

/// Meshes frames for the viewport (nothing when the graph has no `surface` node or is 2D),
/// and holds the graph's imported solids ([`crate::viewport::solid_meshes`]).
#[derive(Default)]
pub struct Mesher {
    settings: Option<SurfaceSettings>,
    scratch: SurfaceScratch,
    solids: Arc<Vec<TriMesh>>,
}

impl Mesher {
    /// A mesher with the settings of `doc`'s first surface-mesh node (defaults from the
    /// registry's spec); `None` settings for 2D graphs and graphs without one. Imported
    /// solids are read relative to `base_dir`.
    pub fn for_doc(doc: &GraphDoc, registry: &NodeRegistry, base_dir: &Path) -> Self {
        let settings =
            surface_settings(doc, registry).filter(|_| !doc.settings.grid_spec().is_2d());
        Self {
            settings,
            scratch: SurfaceScratch::default(),
            solids: Arc::new(crate::viewport::solid_meshes::load(doc, registry, base_dir)),
        }
    }

    /// The graph's still imported solids as meshes.
    pub fn solids(&self) -> Arc<Vec<TriMesh>> {
        self.solids.clone()
    }

    /// The liquid mesh of `sim`'s current particles (the meshing errors of the surface node
    /// are its own to report; here they only mean no mesh).
    pub fn mesh(&mut self, sim: &Simulation) -> Option<Arc<TriMesh>> {
        let settings = self.settings.as_ref()?;
        let particles = sim.particles()?;
        let solids = sim
            .probed()
            .iter()
            .flatten()
            .find_map(|v| v.shared_as(SOLIDS));
        let spec = sim.settings().grid_spec();
        let mesh = liquid_surface(
            &spec,
            &particles.pos,
            solids.as_deref(),
            settings,
            &mut self.scratch,
        );
        mesh.ok().filter(|m| !m.triangles.is_empty()).map(Arc::new)
    }
}

/// The first surface-mesh node's settings, its parameters over the spec's defaults.
fn surface_settings(doc: &GraphDoc, registry: &NodeRegistry) -> Option<SurfaceSettings> {
    let spec_of = |kind: &str| registry.get(kind).map(|k| &k.spec);
    let (node, spec) = (doc.nodes.iter())
        .filter_map(|n| Some((n, spec_of(&n.kind)?)))
        .find(|(_, spec)| spec.role() == NodeRole::Surface)?;
    let value = |name: &str| {
        let default = spec
            .params
            .iter()
            .find(|p| p.name == name)
            .map(|p| &p.default);
        node.params.get(name).or(default)
    };
    let number = |name: &str| match value(name) {
        Some(ParamValue::Number(v)) if *v >= 0.0 => Some(*v),
        _ => None,
    };
    let kernel = match value("kernel") {
        Some(ParamValue::Text(name)) => SurfaceKernel::from_name(name)?,
        _ => return None,
    };
    Some(SurfaceSettings {
        kernel,
        resolution: (number("resolution")? as usize).max(1),
        smoothing: number("smoothing")? as usize,
        sweeps: number("sweeps")? as usize,
        centre_smoothing: number("centre_smoothing")? as f32,
    })
}

/// Base colour of the liquid surface.
pub const WATER: [f32; 3] = [70.0, 140.0, 220.0];
/// Base colour of imported solids.
pub const SOLID: [f32; 3] = [150.0, 150.0, 160.0];

/// Lambert shade of `base` on a face with unit normal `n` (camera space, +z towards the
/// viewer) under a headlight slightly above the eye, with some ambient light.
pub fn shade(n: Vec3, base: [f32; 3]) -> Color32 {
    let light = Vec3::new(0.3, 0.5, 1.0).normalize();
    let k = 0.25 + 0.75 * n.dot(light).abs();
    let c = base.map(|v| (v * k).round().clamp(0.0, 255.0) as u8);
    Color32::from_rgb(c[0], c[1], c[2])
}

/// Shaded triangles of all `parts` (a mesh and its base colour), depth-sorted together.
/// `project` maps a point to the screen and its depth (growing away from the viewer);
/// `rotate` turns a normal into camera space.
pub fn shaded_mesh(
    parts: &[(&TriMesh, [f32; 3])],
    project: impl Fn(Vec3) -> (Pos2, f32),
    rotate: impl Fn(Vec3) -> Vec3,
) -> Mesh {
    let screen: Vec<Vec<(Pos2, f32)>> = parts
        .iter()
        .map(|(m, _)| m.positions.iter().map(|p| project(*p)).collect())
        .collect();
    let mut order: Vec<(f32, usize, usize)> = vec![];
    for (k, (m, _)) in parts.iter().enumerate() {
        for (i, t) in m.triangles.iter().enumerate() {
            let depth = t.iter().map(|v| screen[k][*v as usize].1).sum::<f32>();
            order.push((depth, k, i));
        }
    }
    order.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut out = Mesh::default();
    out.reserve_vertices(order.len() * 3);
    out.reserve_triangles(order.len());
    for (_, k, i) in order {
        let (mesh, base) = parts[k];
        let t = mesh.triangles[i];
        let [a, b, c] = t.map(|v| mesh.positions[v as usize]);
        let normal = (b - a).cross(c - a).normalize_or_zero();
        let color = shade(rotate(normal), base);
        let first = out.vertices.len() as u32;
        for v in t {
            let pos = screen[k][v as usize].0;
            out.vertices.push(Vertex {
                pos,
                uv: WHITE_UV,
                color,
            });
        }
        out.add_triangle(first, first + 1, first + 2);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{shade, shaded_mesh, SOLID, WATER};
    use egui::pos2;
    use flip_core::surface::TriMesh;
    use glam::Vec3;

    #[test]
    fn faces_towards_the_light_are_brighter_and_far_triangles_come_first() {
        let lit = shade(Vec3::new(0.3, 0.5, 1.0).normalize(), WATER);
        let grazing = shade(Vec3::new(1.0, -0.6, 0.0).normalize(), WATER);
        assert!(lit.b() > grazing.b(), "{lit:?} {grazing:?}");
        let mesh = TriMesh {
            positions: vec![
                Vec3::ZERO,
                Vec3::X,
                Vec3::Y,
                Vec3::new(0.0, 0.0, 5.0),
                Vec3::new(1.0, 0.0, 5.0),
                Vec3::new(0.0, 1.0, 5.0),
            ],
            normals: vec![Vec3::Z; 6],
            triangles: vec![[0, 1, 2], [3, 4, 5]],
        };
        // depth = z (the far triangle is drawn first), screen x shifted by z to tell them apart
        let m = shaded_mesh(&[(&mesh, WATER)], |p| (pos2(p.x + p.z, p.y), p.z), |n| n);
        assert_eq!((m.indices.len(), m.vertices.len()), (6, 6));
        assert_eq!(m.vertices[0].pos, pos2(5.0, 0.0));
        assert_eq!(m.vertices[3].pos, pos2(0.0, 0.0));
        assert_eq!(m.vertices[0].color, shade(Vec3::Z, WATER));
        // two meshes sort together: a solid between the water triangles goes between them
        let mut solid = mesh.clone();
        solid.positions.iter_mut().for_each(|p| p.z += 2.0);
        solid.triangles.truncate(1);
        let m = shaded_mesh(
            &[(&mesh, WATER), (&solid, SOLID)],
            |p| (pos2(p.x, p.y), p.z),
            |n| n,
        );
        let colors: Vec<_> = m.vertices.iter().step_by(3).map(|v| v.color).collect();
        assert_eq!(
            colors,
            [
                shade(Vec3::Z, WATER),
                shade(Vec3::Z, SOLID),
                shade(Vec3::Z, WATER)
            ]
        );
    }
}
