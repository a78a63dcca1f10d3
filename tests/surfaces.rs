//! Surfaces and interchange on a graph: the meshed drop (`graphs/drop_mesh_3d.ron`) writes,
//! per frame, a closed OBJ/PLY mesh holding the liquid's volume and an OpenVDB file.

use flip_core::surface::{check_closed_manifold, enclosed_volume, TriMesh};
use flip_graph::ParamValue::Text;
use flip_nodes::stats::SurfaceStats;
use flipgraph_tests::{graph, registry, set, simulation, stats};
use glam::Vec3;
use std::path::Path;

/// Positions, normals and triangles of a flipgraph OBJ (`v`, `vn`, `f a//a b//b c//c`).
fn read_obj(path: &Path) -> TriMesh {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut mesh = TriMesh::default();
    let floats = |rest: &str| {
        let v: Vec<f32> = rest.split(' ').map(|x| x.parse().unwrap()).collect();
        Vec3::new(v[0], v[1], v[2])
    };
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("v ") {
            mesh.positions.push(floats(rest));
        } else if let Some(rest) = line.strip_prefix("vn ") {
            mesh.normals.push(floats(rest));
        } else if let Some(rest) = line.strip_prefix("f ") {
            let idx: Vec<u32> = rest
                .split(' ')
                .map(|c| c.split("//").next().unwrap().parse::<u32>().unwrap() - 1)
                .collect();
            mesh.triangles.push([idx[0], idx[1], idx[2]]);
        }
    }
    mesh
}

#[test]
fn meshed_drop_writes_closed_meshes_with_velocity_and_a_vdb_per_frame() {
    let mut doc = graph("drop_mesh_3d.ron");
    let n = 24;
    doc.settings.grid = [n, n, n];
    doc.settings.cell_size = 1.0 / n as f32;
    let registry = registry();
    let (mut sim, out) = simulation(&doc, &registry);
    let reports = sim.advance_frame().expect("first frame");
    let last = reports.last().unwrap();
    let frames = out.path().join("frames");
    let mesh = read_obj(&frames.join("surface_0001.obj"));
    let surface = stats::<SurfaceStats>(&sim, last, "surface").unwrap();
    assert_eq!(mesh.triangles.len(), surface.triangles);
    assert_eq!(mesh.normals.len(), mesh.positions.len());
    check_closed_manifold(&mesh).expect("a closed, manifold mesh");
    // the pool inside the one-cell walls plus the ball; on 24³ the ball's radius is 3.6 cells
    // (7.2 level-set cells), so the kernel's curvature bias takes a few percent of its volume
    let dx = 1.0 / n as f64;
    let pool = (1.0 - 2.0 * dx).powi(2) * (0.25 - dx);
    let ball = 4.0 / 3.0 * std::f64::consts::PI * 0.15f64.powi(3);
    let volume = enclosed_volume(&mesh);
    println!("mesh volume {volume:.5}, liquid {:.5}", pool + ball);
    assert!(
        (volume / (pool + ball) - 1.0).abs() < 0.05,
        "volume {volume}"
    );
    assert_eq!(surface.volume, volume);

    // the PLY: the same vertices with normals and the falling ball's velocity
    let ply = std::fs::read(frames.join("surface_0001.ply")).unwrap();
    let end = ply.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
    let header = std::str::from_utf8(&ply[..end]).unwrap();
    let (v, f) = (mesh.positions.len(), mesh.triangles.len());
    assert!(
        header.contains(&format!("element vertex {v}\n")),
        "{header}"
    );
    assert!(header.contains(&format!("element face {f}\n")), "{header}");
    assert!(header.contains("property float vx\nproperty float vy\nproperty float vz\n"));
    assert_eq!(ply.len(), end + v * 36 + f * 13);
    let float = |at: usize| f32::from_le_bytes(ply[at..at + 4].try_into().unwrap());
    let fastest_fall = (0..v).map(|i| float(end + 36 * i + 28)).fold(0.0, f32::min);
    assert!(fastest_fall < -0.2, "vertex velocities: {fastest_fall}");
    assert_eq!(float(end), mesh.positions[0].x);

    // the particles as VTK poly data (read back by vtkio in flip-core's tests)
    let vtp = std::fs::read_to_string(frames.join("frame_0001.vtp")).unwrap();
    assert!(
        vtp.contains("<PolyData>") && vtp.contains("Name=\"velocity\""),
        "{}",
        &vtp[..200]
    );

    // the OpenVDB file with its three grids (read back by OpenVDB in flip-core's tests)
    let vdb = std::fs::read(out.path().join("fields/fields_0001.vdb")).unwrap();
    assert_eq!(&vdb[..8], &0x5644_4220i64.to_le_bytes());
    for name in [&b"surface"[..], b"velocity", b"pressure"] {
        assert!(vdb.windows(name.len()).any(|w| w == name));
    }
}

#[test]
fn the_anisotropic_kernel_meshes_the_drop_closed_with_its_volume() {
    let mut doc = graph("drop_mesh_3d.ron");
    let n = 24;
    doc.settings.grid = [n, n, n];
    doc.settings.cell_size = 1.0 / n as f32;
    set(&mut doc, "surface", "kernel", Text("anisotropic".into()));
    let registry = registry();
    let (mut sim, out) = simulation(&doc, &registry);
    let reports = sim.advance_frame().expect("first frame");
    let mesh = read_obj(&out.path().join("frames/surface_0001.obj"));
    check_closed_manifold(&mesh).expect("a closed, manifold mesh");
    let dx = 1.0 / n as f64;
    let liquid =
        (1.0 - 2.0 * dx).powi(2) * (0.25 - dx) + 4.0 / 3.0 * std::f64::consts::PI * 0.15f64.powi(3);
    let volume = enclosed_volume(&mesh);
    println!("anisotropic: mesh volume {volume:.5}, liquid {liquid:.5}");
    assert!((volume / liquid - 1.0).abs() < 0.03, "volume {volume}");
    let last = reports.last().unwrap();
    let surface = stats::<SurfaceStats>(&sim, last, "surface");
    assert_eq!(surface.map(|s| s.volume), Some(volume));
}
