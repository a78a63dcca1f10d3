//! Rigid bodies for Blender and Houdini: each frame's transforms as a small JSON file, and
//! each body's mesh once as OBJ in its own frame (centred on its centre of mass, angle 0), so
//! a transform places it. 2D bodies are prisms one `depth` deep about z = `depth / 2`.

use crate::rigid::{Bodies, BodyShape, BodyState, RigidBody};
use std::fmt::Write as _;
use std::path::Path;

/// Segments of a disc's outline.
const DISC_SEGMENTS: usize = 48;

/// Writes the transforms of `states` (one per body of `bodies`) at `time` (s) as JSON:
/// position (m), rotation about z (rad) and as a quaternion `[w, x, y, z]`, velocity (m/s)
/// and spin (rad/s); atomically.
///
/// # Errors
/// I/O failures.
pub fn write_bodies_json(
    path: &Path,
    bodies: &Bodies,
    states: &[BodyState],
    time: f64,
    depth: f64,
) -> std::io::Result<()> {
    let mut s = format!("{{\n  \"time\": {time},\n  \"bodies\": [");
    for (i, (b, st)) in bodies.bodies.iter().zip(states).enumerate() {
        let half = 0.5 * st.angle;
        let _ = write!(
            s,
            "{}\n    {{\"index\": {i}, \"mesh\": \"body_{i}.obj\", \"density\": {}, \
             \"position\": [{}, {}, {}], \"angle_z\": {}, \"quaternion\": [{}, 0, 0, {}], \
             \"velocity\": [{}, {}, 0], \"spin\": {}}}",
            if i == 0 { "" } else { "," },
            b.density,
            st.position[0],
            st.position[1],
            0.5 * depth,
            st.angle,
            half.cos(),
            half.sin(),
            st.velocity[0],
            st.velocity[1],
            st.spin
        );
    }
    s.push_str("\n  ]\n}\n");
    super::write_atomic(path, |tmp| std::fs::write(tmp, &s), |e| e)
}

/// Writes `body`'s shape as an OBJ prism `depth` deep about z = 0 in the body's own frame;
/// atomically.
///
/// # Errors
/// I/O failures.
pub fn write_body_obj(path: &Path, body: &RigidBody, depth: f64) -> std::io::Result<()> {
    let outline: Vec<[f64; 2]> = match body.shape {
        BodyShape::Box { size: [w, h] } => {
            vec![
                [-0.5 * w, -0.5 * h],
                [0.5 * w, -0.5 * h],
                [0.5 * w, 0.5 * h],
                [-0.5 * w, 0.5 * h],
            ]
        }
        BodyShape::Disc { radius } => (0..DISC_SEGMENTS)
            .map(|k| {
                let a = k as f64 * std::f64::consts::TAU / DISC_SEGMENTS as f64;
                [radius * a.cos(), radius * a.sin()]
            })
            .collect(),
    };
    let n = outline.len();
    let mut s = String::from("# flipgraph rigid body, in its own frame (apply the transforms)\n");
    for z in [-0.5 * depth, 0.5 * depth] {
        for p in &outline {
            let _ = writeln!(s, "v {} {} {z}", p[0], p[1]);
        }
    }
    // the two caps (OBJ faces count from 1; the back cap reversed to face out) and the sides
    let back: Vec<String> = (1..=n).rev().map(|v| v.to_string()).collect();
    let front: Vec<String> = (n + 1..=2 * n).map(|v| v.to_string()).collect();
    let _ = writeln!(s, "f {}\nf {}", back.join(" "), front.join(" "));
    for k in 0..n {
        let (a, b) = (k + 1, (k + 1) % n + 1);
        let _ = writeln!(s, "f {a} {b} {} {}", b + n, a + n);
    }
    super::write_atomic(path, |tmp| std::fs::write(tmp, &s), |e| e)
}
