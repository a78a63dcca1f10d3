use super::*;
use crate::rigid::BodyShape;

/// A box of side lengths `size` as 12 outward triangles, turned by `turn` and centred at
/// `centre` (file coordinates).
fn box_mesh(size: [f64; 3], turn: DQuat, centre: DVec3) -> TriMesh {
    let half = 0.5 * DVec3::from_array(size);
    let positions = (0..8)
        .map(|c| {
            let s = DVec3::new(
                if c & 1 == 0 { -1.0 } else { 1.0 },
                if c & 2 == 0 { -1.0 } else { 1.0 },
                if c & 4 == 0 { -1.0 } else { 1.0 },
            );
            (centre + turn * (s * half)).as_vec3()
        })
        .collect();
    // each face as two triangles, counter-clockwise seen from outside
    let quads = [
        [0, 2, 3, 1], // z = -
        [4, 5, 7, 6], // z = +
        [0, 1, 5, 4], // y = -
        [2, 6, 7, 3], // y = +
        [0, 4, 6, 2], // x = -
        [1, 3, 7, 5], // x = +
    ];
    let triangles = quads
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    TriMesh {
        positions,
        normals: Vec::new(),
        triangles,
    }
}

fn sorted(mut v: [f64; 3]) -> [f64; 3] {
    v.sort_by(f64::total_cmp);
    v
}

#[test]
fn a_box_mesh_has_the_mass_properties_and_centre_of_the_box() {
    let size = [0.3, 0.1, 0.2];
    let turn = DQuat::from_euler(glam::EulerRot::ZYX, 0.4, -0.3, 0.2);
    let centre = DVec3::new(0.6, 0.35, 0.45);
    let (mesh, frame) = BodyMesh::from_file_mesh(&box_mesh(size, turn, centre), 0.01).unwrap();
    let exact = BodyShape::Box { size };
    assert!((mesh.volume() - exact.volume()).abs() < 1e-6 * exact.volume());
    let (got, want) = (sorted(mesh.moments()), sorted(exact.principal_moments()));
    for k in 0..3 {
        assert!(
            (got[k] - want[k]).abs() < 1e-6 * want[2],
            "{got:?} {want:?}"
        );
    }
    assert!(
        (frame.centre - centre).length() < 1e-6,
        "{:?}",
        frame.centre
    );
    // the vertices in the body frame are the box's corners along the principal axes
    let reach = 0.5 * DVec3::from_array(size).length();
    assert!((mesh.reach() - reach).abs() < 1e-6);
}

#[test]
fn the_distance_is_negative_inside_and_the_file_pose_is_recovered() {
    let size = [0.2, 0.1, 0.1];
    let turn = DQuat::from_rotation_z(0.5);
    let centre = DVec3::new(0.5, 0.5, 0.5);
    let (mesh, frame) = BodyMesh::from_file_mesh(&box_mesh(size, turn, centre), 0.005).unwrap();
    // within a third of the cache's spacing where the distance is read from the cache
    assert!((mesh.distance(DVec3::ZERO) + 0.05).abs() < 2e-3);
    // a point of the file's box 1 cm inside its long end, seen in the body's frame
    let file_point = centre + turn * DVec3::new(0.09, 0.0, 0.0);
    let local = frame.axes.inverse() * (file_point - frame.centre);
    assert!(
        (mesh.distance(local) + 0.01).abs() < 1e-3,
        "{}",
        mesh.distance(local)
    );
    let outside =
        frame.axes.inverse() * (centre + turn * DVec3::new(0.0, 0.08, 0.0) - frame.centre);
    assert!((mesh.distance(outside) - 0.03).abs() < 1e-3);
}

#[test]
fn an_inside_out_or_open_mesh_is_refused() {
    let mut inside_out = box_mesh([0.1; 3], DQuat::IDENTITY, DVec3::splat(0.5));
    for t in &mut inside_out.triangles {
        t.swap(1, 2);
    }
    assert!(matches!(
        BodyMesh::from_file_mesh(&inside_out, 0.01),
        Err(MeshBodyError::NoVolume { .. })
    ));
    let mut open = box_mesh([0.1; 3], DQuat::IDENTITY, DVec3::splat(0.5));
    open.triangles.truncate(2);
    assert!(BodyMesh::from_file_mesh(&open, 0.01).is_err());
}

#[test]
fn a_mesh_body_survives_a_checkpoint_round_trip() {
    let (mesh, _) = BodyMesh::from_file_mesh(
        &box_mesh([0.1, 0.2, 0.3], DQuat::IDENTITY, DVec3::ZERO),
        0.01,
    )
    .unwrap();
    let bytes = postcard::to_allocvec(&mesh).unwrap();
    let back: BodyMesh = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(back, mesh);
    assert_eq!(back.moments(), mesh.moments());
    assert_eq!(
        back.distance(DVec3::splat(0.01)),
        mesh.distance(DVec3::splat(0.01))
    );
}
