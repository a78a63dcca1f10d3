//! A body of any closed triangle mesh (an imported OBJ/STL). Its mass properties come from the
//! mesh by the divergence theorem (parry's sums over the tetrahedra the triangles span with the
//! centre of mass); its own frame is the centre of mass with the principal axes along x, y and
//! z, so its inertia is diagonal like a primitive's; its signed distance is the solids' mesh
//! distance (winding-number sign, cached near the mesh). 3D only.

use crate::solids::{MeshSdf, MeshShape};
use crate::surface::TriMesh;
use glam::{DQuat, DVec3, Vec3};
use rapier3d_f64::parry::mass_properties::MassProperties;
use rapier3d_f64::parry::shape::SharedShape;
use rapier3d_f64::prelude::Vector;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Why a mesh cannot be a body.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum MeshBodyError {
    /// The mesh encloses no volume (open, flat, or inside out).
    #[error("the mesh encloses no volume ({volume:.3e} m³): a body needs a closed mesh")]
    NoVolume {
        /// The signed volume found (m³).
        volume: f64,
    },
    /// An edge does not join exactly two triangles that agree on their orientation.
    #[error(
        "the mesh is not closed: {open} edge(s) do not join two triangles facing the same way"
    )]
    Open {
        /// Directed edges without their reverse.
        open: usize,
    },
    /// Its vertices span no solid, so contacts have no hull.
    #[error("the mesh's vertices are flat: contacts need a convex hull with volume")]
    Flat,
    /// A vertex is not finite.
    #[error("a vertex of the mesh is not finite")]
    NotFinite,
}

/// What a mesh body is stored as (checkpoints): its triangles in the body's own frame and the
/// spacing of its distance cache; the rest follows from them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeshData {
    /// Vertices in the body's own frame (m).
    pub vertices: Vec<[f64; 3]>,
    /// Vertex indices of each triangle, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
    /// Node spacing of the distance cache (m).
    pub spacing: f32,
}

/// The mesh and what follows from it.
#[derive(Debug)]
struct Prepared {
    data: MeshData,
    /// Volume (m³).
    volume: f64,
    /// Principal second moments over the density (m⁵).
    moments: [f64; 3],
    /// Largest distance of a vertex from the centre of mass (m).
    reach: f64,
    sdf: MeshShape,
}

/// A closed mesh in its own frame: centre of mass at the origin, principal axes along x, y, z.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(into = "MeshData", try_from = "MeshData")]
pub struct BodyMesh(Arc<Prepared>);

/// Where a mesh in file coordinates puts its body: the centre of mass and the rotation from
/// the body's own frame to the file's axes.
#[derive(Clone, Copy, Debug)]
pub struct MeshFrame {
    /// Centre of mass in file coordinates (m).
    pub centre: DVec3,
    /// The principal axes in file coordinates.
    pub axes: DQuat,
}

fn vector(v: DVec3) -> Vector {
    Vector::new(v.x, v.y, v.z)
}

impl BodyMesh {
    /// The body of `mesh` (file coordinates, metres), with a distance cache of node spacing
    /// `spacing`, and where its frame lies in the file's coordinates.
    ///
    /// # Errors
    /// A mesh without volume, with flat vertices or a non-finite vertex.
    pub fn from_file_mesh(
        mesh: &TriMesh,
        spacing: f32,
    ) -> Result<(Self, MeshFrame), MeshBodyError> {
        let points: Vec<DVec3> = mesh.positions.iter().map(|p| p.as_dvec3()).collect();
        if !points.iter().all(|p| p.is_finite()) {
            return Err(MeshBodyError::NotFinite);
        }
        let parry_points: Vec<Vector> = points.iter().map(|&p| vector(p)).collect();
        let unit = MassProperties::from_trimesh(1.0, &parry_points, &mesh.triangles);
        let c = unit.local_com;
        let q = unit.principal_inertia_local_frame;
        let frame = MeshFrame {
            centre: DVec3::new(c.x, c.y, c.z),
            axes: DQuat::from_xyzw(q.x, q.y, q.z, q.w).normalize(),
        };
        let to_body = frame.axes.inverse();
        let data = MeshData {
            vertices: points
                .iter()
                .map(|&p| (to_body * (p - frame.centre)).to_array())
                .collect(),
            triangles: mesh.triangles.clone(),
            spacing,
        };
        Ok((Self::prepare(data)?, frame))
    }

    /// Mass properties, hull check and distance cache of a mesh already in its own frame.
    fn prepare(data: MeshData) -> Result<Self, MeshBodyError> {
        let points: Vec<Vector> = data
            .vertices
            .iter()
            .map(|&v| vector(DVec3::from_array(v)))
            .collect();
        if !points.iter().all(|p| p.is_finite()) {
            return Err(MeshBodyError::NotFinite);
        }
        let open = open_edges(&data.triangles);
        if open > 0 {
            return Err(MeshBodyError::Open { open });
        }
        let unit = MassProperties::from_trimesh(1.0, &points, &data.triangles);
        let volume = unit.mass();
        // parry takes the magnitude: an inside-out mesh is refused by its signed volume
        let signed = signed_volume(&data);
        if !(volume.is_finite() && volume > 0.0 && signed > 0.0) {
            return Err(MeshBodyError::NoVolume { volume: signed });
        }
        if SharedShape::convex_hull(&points).is_none() {
            return Err(MeshBodyError::Flat);
        }
        let i = unit.principal_inertia();
        let reach = data
            .vertices
            .iter()
            .map(|&v| DVec3::from_array(v).length())
            .fold(0.0, f64::max);
        let sdf = distance_cache(&data, reach);
        Ok(Self(Arc::new(Prepared {
            volume,
            moments: [i.x, i.y, i.z],
            reach,
            sdf,
            data,
        })))
    }

    /// Volume (m³).
    pub fn volume(&self) -> f64 {
        self.0.volume
    }

    /// Principal second moments of the volume about the centre of mass (m⁵).
    pub fn moments(&self) -> [f64; 3] {
        self.0.moments
    }

    /// Largest distance from the centre of mass to a vertex (m).
    pub fn reach(&self) -> f64 {
        self.0.reach
    }

    /// The vertices in the body's own frame (m).
    pub fn vertices(&self) -> &[[f64; 3]] {
        &self.0.data.vertices
    }

    /// Vertex indices of each triangle.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.0.data.triangles
    }

    /// The mesh as a solid shape in its own frame.
    pub fn solid(&self) -> MeshShape {
        self.0.sdf.clone()
    }

    /// Signed distance of `local` (own frame) to the mesh (negative inside).
    pub fn distance(&self, local: DVec3) -> f64 {
        f64::from(self.0.sdf.distance(local.as_vec3(), false))
    }
}

/// Directed edges that are not matched by exactly one reverse edge: zero for a closed,
/// consistently oriented mesh (the divergence theorem's volume needs one).
fn open_edges(triangles: &[[u32; 3]]) -> usize {
    let mut count = std::collections::HashMap::<(u32, u32), i32>::new();
    for t in triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            // +1 for a → b, −1 for its reverse: a closed mesh sums to zero on every edge
            let (key, sign) = if a < b { ((a, b), 1) } else { ((b, a), -1) };
            *count.entry(key).or_default() += sign;
        }
    }
    count.values().filter(|&&c| c != 0).count()
}

/// The signed volume the triangles enclose (positive when they face outwards).
fn signed_volume(data: &MeshData) -> f64 {
    let v = |i: u32| DVec3::from_array(data.vertices[i as usize]);
    data.triangles
        .iter()
        .map(|t| v(t[0]).dot(v(t[1]).cross(v(t[2]))) / 6.0)
        .sum()
}

/// The mesh's distance, cached over its bounds grown by its reach (the covered-face and particle
/// queries all fall within a few cells of the surface).
fn distance_cache(data: &MeshData, reach: f64) -> MeshShape {
    let mesh = TriMesh {
        positions: data
            .vertices
            .iter()
            .map(|&v| DVec3::from_array(v).as_vec3())
            .collect(),
        normals: Vec::new(),
        triangles: data.triangles.clone(),
    };
    let r = reach as f32 + 4.0 * data.spacing;
    let sdf = MeshSdf::cached(
        &mesh,
        (Vec3::splat(-r), Vec3::splat(r)),
        data.spacing,
        false,
    );
    MeshShape(Arc::new(sdf))
}

impl PartialEq for BodyMesh {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.data == other.0.data
    }
}

impl From<BodyMesh> for MeshData {
    fn from(m: BodyMesh) -> Self {
        m.0.data.clone()
    }
}

impl TryFrom<MeshData> for BodyMesh {
    type Error = MeshBodyError;
    fn try_from(data: MeshData) -> Result<Self, Self::Error> {
        Self::prepare(data)
    }
}

#[cfg(test)]
#[path = "mesh_body_tests.rs"]
mod tests;
