//! Loading the fixture meshes of `tests/fixtures/meshes` (written by its `make_meshes.py`).

use super::*;
use crate::solids::MeshSdf;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/meshes")
        .join(name)
}

fn load(name: &str) -> Result<ImportedMesh, MeshImportError> {
    load_mesh(&fixture(name), Vec3::ONE, Vec3::ZERO)
}

/// `mesh` as a binary STL: 80-byte header, count, 50 bytes per triangle.
fn binary_stl(mesh: &TriMesh) -> Vec<u8> {
    let mut b = vec![0u8; 80];
    b.extend((mesh.triangles.len() as u32).to_le_bytes());
    for t in &mesh.triangles {
        b.extend([0u8; 12]); // normal: readers recompute it
        for &v in t {
            for x in mesh.positions[v as usize].to_array() {
                b.extend(x.to_le_bytes());
            }
        }
        b.extend([0u8; 2]);
    }
    b
}

#[test]
fn the_cup_loads_closed_from_obj_and_ascii_stl_alike() {
    let obj = load("cup.obj").expect("cup.obj");
    assert!(obj.warnings.is_empty(), "{:?}", obj.warnings);
    assert_eq!(
        (obj.mesh.positions.len(), obj.mesh.triangles.len()),
        (16, 28)
    );
    // outer 16 × 12 × 16 minus the cavity 14 × 11 × 14
    let volume = enclosed_volume(&obj.mesh);
    assert!(
        (volume - (16.0 * 12.0 * 16.0 - 14.0 * 11.0 * 14.0)).abs() < 1e-6,
        "{volume}"
    );
    let stl = load("cup_ascii.stl").expect("cup_ascii.stl");
    assert!(stl.warnings.is_empty(), "{:?}", stl.warnings);
    let (a, b) = (MeshSdf::new(&obj.mesh), MeshSdf::new(&stl.mesh));
    for p in [
        Vec3::new(0.0, 5.0, 0.0),
        Vec3::new(7.5, 5.0, 0.0),
        Vec3::new(0.0, 0.5, 3.0),
    ] {
        assert_eq!(a.distance(p), b.distance(p), "at {p}");
    }
    // the wall at x ∈ [7, 8]: 0.5 inside at its middle, 0.5 outside it, 3 above the floor
    assert!((a.distance(Vec3::new(7.5, 5.0, 0.0)) + 0.5).abs() < 1e-6);
    assert!((a.distance(Vec3::new(8.5, 5.0, 0.0)) - 0.5).abs() < 1e-6);
    assert!((a.distance(Vec3::new(0.0, 4.0, 0.0)) - 3.0).abs() < 1e-6);
}

#[test]
fn a_binary_stl_loads_and_a_wrong_triangle_count_is_refused() {
    let cup = load("cup.obj").unwrap().mesh;
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("cup.stl");
    std::fs::write(&good, binary_stl(&cup)).unwrap();
    let read = load_mesh(&good, Vec3::splat(2.0), Vec3::X).expect("binary STL");
    assert_eq!(read.mesh.triangles.len(), 28);
    let volume = enclosed_volume(&read.mesh);
    assert!(
        (volume - 8.0 * enclosed_volume(&cup)).abs() < 1e-3,
        "scaled by 2: {volume}"
    );

    let mut bytes = binary_stl(&cup);
    bytes[80..84].copy_from_slice(&29u32.to_le_bytes());
    let bad = dir.path().join("bad_count.stl");
    std::fs::write(&bad, &bytes).unwrap();
    let e = load_mesh(&bad, Vec3::ONE, Vec3::ZERO).unwrap_err();
    let text = e.to_string();
    assert!(
        matches!(
            e,
            MeshImportError::StlCount {
                count: 29,
                actual: 1484,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        text.contains("bad_count.stl") && text.contains("29 triangles"),
        "{text}"
    );
}

#[test]
fn empty_and_non_manifold_meshes_are_refused_by_name() {
    let e = load("empty.obj").unwrap_err();
    assert!(matches!(e, MeshImportError::Empty { .. }), "{e:?}");
    assert!(
        e.to_string().contains("empty.obj: the mesh is empty"),
        "{e}"
    );
    let e = load("non_manifold.obj").unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, MeshImportError::NonManifold { .. }), "{e:?}");
    assert!(
        text.contains("non_manifold.obj: non-manifold mesh"),
        "{text}"
    );
    assert!(text.contains("shared by 3 triangles"), "{text}");
    let e = load("missing.obj").unwrap_err();
    assert!(e.to_string().contains("missing.obj: cannot read"), "{e}");
}

#[test]
fn holes_warn_and_an_inside_out_mesh_is_flipped() {
    let cup = load("cup.obj").unwrap().mesh;
    let dir = tempfile::tempdir().unwrap();
    // drop the two triangles of the floor inside: a hole
    let mut holed = cup.clone();
    holed.triangles.drain(2..4);
    let path = dir.path().join("holed.stl");
    std::fs::write(&path, binary_stl(&holed)).unwrap();
    let read = load_mesh(&path, Vec3::ONE, Vec3::ZERO).expect("a hole is accepted");
    assert!(
        read.warnings[0].contains("not closed (4 open edges)"),
        "{:?}",
        read.warnings
    );
    let mut inverted = cup;
    inverted.triangles.iter_mut().for_each(|t| t.swap(0, 1));
    let path = dir.path().join("inverted.stl");
    std::fs::write(&path, binary_stl(&inverted)).unwrap();
    let read = load_mesh(&path, Vec3::ONE, Vec3::ZERO).unwrap();
    assert!(read.warnings[0].contains("flipped"), "{:?}", read.warnings);
    assert!(enclosed_volume(&read.mesh) > 0.0);
}

#[test]
fn box_mesh_distance_matches_the_analytic_box() {
    // the cup's outer box: bottom square (y = 0) then top square (y = 12), as in make_meshes.py
    let square = [(-8.0, -8.0), (8.0, -8.0), (8.0, 8.0), (-8.0, 8.0)];
    let mut cube = TriMesh::default();
    for y in [0.0, 12.0] {
        cube.positions
            .extend(square.map(|(x, z)| Vec3::new(x, y, z)));
    }
    let quads = [
        [0, 1, 2, 3],
        [4, 7, 6, 5],
        [0, 4, 5, 1],
        [1, 5, 6, 2],
        [2, 6, 7, 3],
        [3, 7, 4, 0],
    ];
    for [a, b, c, d] in quads {
        cube.triangles.extend([[a, b, c], [a, c, d]]);
    }
    check_closed_manifold(&cube).expect("closed cube");
    let sdf = MeshSdf::new(&cube);
    let exact = |p: Vec3| {
        let q = (p - Vec3::new(0.0, 6.0, 0.0)).abs() - Vec3::new(8.0, 6.0, 8.0);
        q.max(Vec3::ZERO).length() + q.max_element().min(0.0)
    };
    let mut worst = 0.0f32;
    for i in 0..=12 {
        for j in 0..=12 {
            for k in 0..=6 {
                let p = Vec3::new(
                    i as f32 * 2.0 - 12.0,
                    j as f32 * 1.5 - 3.0,
                    k as f32 * 3.7 - 11.0,
                );
                let (d, e) = (sdf.distance(p), exact(p));
                if e.abs() > 1e-4 {
                    assert_eq!(d < 0.0, e < 0.0, "sign at {p}: {d} vs {e}");
                }
                worst = worst.max((d - e).abs());
            }
        }
    }
    assert!(worst < 1e-4, "largest error {worst}");
}

#[test]
fn the_cached_cup_distance_agrees_with_the_exact_one() {
    // cup_pour_3d.ron: the cup scaled by dx = 0.025 in a 40³ domain, cached at dx/2
    let dx = 0.025;
    let cup = load_mesh(
        &fixture("cup.obj"),
        Vec3::splat(dx),
        Vec3::new(0.5125, 0.0625, 0.5125),
    )
    .unwrap()
    .mesh;
    let h = 0.5 * dx;
    let sdf = MeshSdf::cached(&cup, (Vec3::ZERO, Vec3::splat(40.0 * dx)), h, false);
    let grids = sdf.caches();
    assert_eq!(grids.len(), 2);
    let cached = |p: Vec3| grids.iter().any(|g| g.sample(p).is_some());
    let (mut worst, mut from_cache, n) = (0.0f32, 0usize, 60usize);
    for i in 0..n * n * n {
        // points off the cache's nodes, all through the domain
        let t = Vec3::new((i % n) as f32, (i / n % n) as f32, (i / (n * n)) as f32) + 0.37;
        let p = t * (1.0 / n as f32);
        let (d, e) = (sdf.distance(p), sdf.exact_distance(p));
        from_cache += usize::from(cached(p));
        if e.abs() > 1e-5 {
            assert_eq!(d < 0.0, e < 0.0, "sign at {p}: {d} vs {e}");
        }
        worst = worst.max((d - e).abs());
    }
    assert!(
        worst <= h * 3f32.sqrt(),
        "largest error {worst} (bound {})",
        h * 3f32.sqrt()
    );
    let share = from_cache as f64 / (n * n * n) as f64;
    assert!(share > 0.8, "the cache answers most queries: {share}");
    // within the fine grid's cell diagonal of the walls every query is exact
    let wall = Vec3::new(0.5125 - 8.0 * dx + 0.2 * dx, 0.2, 0.5125);
    assert!(!cached(wall));
    // three quarters of a cell off the wall only the fine grid can answer
    let near = Vec3::new(0.5125, 0.2, 0.5125 - 7.0 * dx + 0.75 * dx);
    assert_eq!(grids[1].sample(near), None);
    assert!(grids[0].sample(near).is_some());
    assert_eq!(sdf.distance(wall), sdf.exact_distance(wall));
}
