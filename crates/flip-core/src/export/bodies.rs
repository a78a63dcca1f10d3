//! Rigid bodies for Blender and Houdini: each frame's transforms as a small JSON file, and
//! each body's mesh once as OBJ in its own frame (centred on its centre of mass, unturned), so
//! a transform places it. 2D bodies are prisms one `depth` deep about z = `depth / 2`.

use crate::rigid::{Bodies, BodyShape, BodyState, RigidBody};
use std::fmt::Write as _;
use std::path::Path;

/// Segments of a disc's outline, and of a ball's parallels.
const ROUND_SEGMENTS: usize = 48;
/// Rings of a ball's mesh from pole to pole.
const BALL_RINGS: usize = 24;

/// Writes the transforms of `states` (one per body of `bodies`) at `time` (s) as JSON:
/// position (m), rotation as a quaternion `[w, x, y, z]` (and in 2D also as the angle about z,
/// rad), velocity (m/s) and angular velocity (rad/s, world axes); atomically. `depth` is a 2D
/// run's depth (the cell size; the bodies sit at z = `depth / 2`), `None` in 3D.
///
/// # Errors
/// I/O failures.
pub fn write_bodies_json(
    path: &Path,
    bodies: &Bodies,
    states: &[BodyState],
    time: f64,
    depth: Option<f64>,
) -> std::io::Result<()> {
    let mut s = format!("{{\n  \"time\": {time},\n  \"bodies\": [");
    for (i, (b, st)) in bodies.bodies.iter().zip(states).enumerate() {
        let [x, y, z] = st.position;
        let z = depth.map_or(z, |d| 0.5 * d);
        let [qw, qx, qy, qz] = st.orientation;
        let [vx, vy, vz] = st.velocity;
        let [wx, wy, wz] = st.spin;
        let angle = match depth {
            Some(_) => format!("\"angle_z\": {}, ", st.angle_z()),
            None => String::new(),
        };
        let _ = write!(
            s,
            "{}\n    {{\"index\": {i}, \"mesh\": \"body_{i}.obj\", \"density\": {}, \
             \"position\": [{x}, {y}, {z}], {angle}\"quaternion\": [{qw}, {qx}, {qy}, {qz}], \
             \"velocity\": [{vx}, {vy}, {vz}], \"spin\": [{wx}, {wy}, {wz}]}}",
            if i == 0 { "" } else { "," },
            b.density,
        );
    }
    s.push_str("\n  ]\n}\n");
    super::write_atomic(path, |tmp| std::fs::write(tmp, &s), |e| e)
}

/// Writes `body`'s shape as OBJ in the body's own frame; atomically. In 2D (`depth` given) a
/// prism `depth` deep about z = 0; in 3D the box or the ball.
///
/// # Errors
/// I/O failures.
pub fn write_body_obj(path: &Path, body: &RigidBody, depth: Option<f64>) -> std::io::Result<()> {
    let (vertices, faces) = match depth {
        Some(depth) => prism(body, depth),
        None => solid(body),
    };
    let mut s = String::from("# flipgraph rigid body, in its own frame (apply the transforms)\n");
    for v in &vertices {
        let _ = writeln!(s, "v {} {} {}", v[0], v[1], v[2]);
    }
    // OBJ vertices count from 1
    for f in &faces {
        let f: Vec<String> = f.iter().map(|v| (v + 1).to_string()).collect();
        let _ = writeln!(s, "f {}", f.join(" "));
    }
    super::write_atomic(path, |tmp| std::fs::write(tmp, &s), |e| e)
}

type Mesh = (Vec<[f64; 3]>, Vec<Vec<usize>>);

/// A 2D body's outline pulled `depth` deep about z = 0: two caps and the sides, facing out.
fn prism(body: &RigidBody, depth: f64) -> Mesh {
    let outline: Vec<[f64; 2]> = match body.shape {
        BodyShape::Box { size: [w, h, _] } => vec![
            [-0.5 * w, -0.5 * h],
            [0.5 * w, -0.5 * h],
            [0.5 * w, 0.5 * h],
            [-0.5 * w, 0.5 * h],
        ],
        BodyShape::Disc { radius } | BodyShape::Sphere { radius } => (0..ROUND_SEGMENTS)
            .map(|k| {
                let a = k as f64 * std::f64::consts::TAU / ROUND_SEGMENTS as f64;
                [radius * a.cos(), radius * a.sin()]
            })
            .collect(),
        BodyShape::Mesh(ref mesh) => outline_along_z(mesh),
    };
    let n = outline.len();
    let vertices = [-0.5 * depth, 0.5 * depth]
        .iter()
        .flat_map(|&z| outline.iter().map(move |p| [p[0], p[1], z]))
        .collect();
    let mut faces = vec![(0..n).rev().collect(), (n..2 * n).collect()];
    faces.extend((0..n).map(|k| {
        let (a, b) = (k, (k + 1) % n);
        vec![a, b, b + n, a + n]
    }));
    (vertices, faces)
}

/// A mesh seen along z: the convex hull of its vertices in x and y, counter-clockwise.
fn outline_along_z(mesh: &crate::rigid::BodyMesh) -> Vec<[f64; 2]> {
    use rapier2d_f64::parry::transformation::convex_hull;
    use rapier2d_f64::prelude::Vector;
    let points: Vec<Vector> = (mesh.vertices().iter())
        .map(|v| Vector::new(v[0], v[1]))
        .collect();
    convex_hull(&points).iter().map(|p| [p.x, p.y]).collect()
}

/// A 3D body's surface: a box's six faces, a ball of latitude rings, or a mesh's own
/// triangles, facing out.
fn solid(body: &RigidBody) -> Mesh {
    match body.shape {
        BodyShape::Mesh(ref mesh) => (
            mesh.vertices().to_vec(),
            (mesh.triangles().iter())
                .map(|t| t.iter().map(|&v| v as usize).collect())
                .collect(),
        ),
        BodyShape::Box { size } => {
            let vertices = (0..8)
                .map(|c| std::array::from_fn(|a| size[a] * (((c >> a) & 1) as f64 - 0.5)))
                .collect();
            // corners numbered by bits x = 1, y = 2, z = 4; each face counter-clockwise seen
            // from outside
            let faces = [
                [0, 4, 6, 2],
                [1, 3, 7, 5],
                [0, 1, 5, 4],
                [2, 6, 7, 3],
                [0, 2, 3, 1],
                [4, 5, 7, 6],
            ];
            (vertices, faces.iter().map(|f| f.to_vec()).collect())
        }
        BodyShape::Disc { radius } | BodyShape::Sphere { radius } => {
            use std::f64::consts::{PI, TAU};
            let (rings, segments) = (BALL_RINGS, ROUND_SEGMENTS);
            let mut vertices = vec![[0.0, -radius, 0.0]];
            for r in 1..rings {
                let (sin, cos) = (PI * r as f64 / rings as f64 - 0.5 * PI).sin_cos();
                vertices.extend((0..segments).map(|s| {
                    let (sa, ca) = (TAU * s as f64 / segments as f64).sin_cos();
                    [radius * cos * ca, radius * sin, -radius * cos * sa]
                }));
            }
            vertices.push([0.0, radius, 0.0]);
            let top = vertices.len() - 1;
            let at = |r: usize, s: usize| 1 + (r - 1) * segments + s % segments;
            let mut faces = vec![];
            for s in 0..segments {
                faces.push(vec![0, at(1, s + 1), at(1, s)]);
                for r in 1..rings - 1 {
                    faces.push(vec![at(r, s), at(r, s + 1), at(r + 1, s + 1), at(r + 1, s)]);
                }
                faces.push(vec![at(rings - 1, s), at(rings - 1, s + 1), top]);
            }
            (vertices, faces)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The volume enclosed by a mesh (divergence theorem over fan triangles): positive when
    /// every face faces out.
    fn volume((v, faces): &Mesh) -> f64 {
        let mut vol = 0.0;
        for f in faces {
            for k in 1..f.len() - 1 {
                let (a, b, c) = (v[f[0]], v[f[k]], v[f[k + 1]]);
                vol += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                    + a[2] * (b[0] * c[1] - b[1] * c[0]))
                    / 6.0;
            }
        }
        vol
    }

    #[test]
    fn meshes_enclose_the_bodies_volume_facing_out() {
        let body = |shape| RigidBody {
            shape,
            density: 1.0,
            state: BodyState::default(),
        };
        let b = body(BodyShape::Box {
            size: [0.2, 0.1, 0.3],
        });
        assert!((volume(&solid(&b)) - 0.006).abs() < 1e-12);
        let s = body(BodyShape::Sphere { radius: 0.1 });
        let exact = s.shape.volume();
        assert!((volume(&solid(&s)) - exact).abs() < 0.02 * exact);
        let flat = body(BodyShape::Box {
            size: [0.2, 0.1, 1.0],
        });
        assert!((volume(&prism(&flat, 0.01)) - 0.2 * 0.1 * 0.01).abs() < 1e-12);
    }
}
