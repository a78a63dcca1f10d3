//! The exports of a decomposed run (`flipgraph run --mpi` under `mpirun` on loopback,
//! `--oversubscribe`) against the single-process run of the same graph: `surface` meshes the
//! whole liquid on rank 0 (the same vertices, enclosed volume and velocity), and `export_vdb`
//! writes the whole domain's grids (read back with OpenVDB).

mod common;
use common::{as_str, flipgraph, mpirun, text};
use std::path::Path;

/// A surface mesh PLY (`x y z nx ny nz vx vy vz` floats, triangles): its vertex count,
/// enclosed volume (divergence theorem) and mean vertex velocity.
fn read_mesh_ply(path: &Path) -> (usize, f64, [f64; 3]) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let end = bytes
        .windows(11)
        .position(|w| w == b"end_header\n")
        .unwrap()
        + 11;
    let header = String::from_utf8_lossy(&bytes[..end]).to_string();
    assert!(header.contains("property float vx"), "{header}");
    let count = |what: &str| -> usize {
        let line = header.lines().find(|l| l.starts_with(what)).unwrap();
        line.rsplit(' ').next().unwrap().parse().unwrap()
    };
    let (nv, nf) = (count("element vertex"), count("element face"));
    let f = |at: usize| f64::from(f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()));
    let vertex = |i: usize, k: usize| f(end + 36 * i + 4 * k);
    let mut mean = [0.0; 3];
    for i in 0..nv {
        (0..3).for_each(|k| mean[k] += vertex(i, 6 + k) / nv as f64);
    }
    let faces = end + 36 * nv;
    let mut volume = 0.0;
    for t in 0..nf {
        let at = faces + 13 * t + 1;
        let idx = |c: usize| {
            i32::from_le_bytes(bytes[at + 4 * c..at + 4 * c + 4].try_into().unwrap()) as usize
        };
        let p = |c: usize| [0, 1, 2].map(|k| vertex(idx(c), k));
        let (a, b, c) = (p(0), p(1), p(2));
        volume += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0]))
            / 6.0;
    }
    (nv, volume, mean)
}

#[test]
fn a_decomposed_run_meshes_the_whole_liquid() {
    let dir = tempfile::tempdir().unwrap();
    let sets = [
        "settings.grid=[32,32,32]",
        "settings.cell_size=0.03125",
        "pressure.solver=multigrid/mgpcg",
    ];
    let args = |out: &Path| {
        let mut a = vec!["run", "graphs/drop_mesh_3d.ron", "--quiet", "--frames", "2"];
        a.extend(sets.iter().flat_map(|s| ["--set", *s]));
        a.extend(["--out", out.to_str().unwrap()]);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let single = dir.path().join("single");
    let o = flipgraph(&as_str(&args(&single)));
    assert!(o.status.success(), "{}", text(&o));
    let decomposed = dir.path().join("ranks2");
    let mut a = args(&decomposed);
    a.push("--mpi".into());
    let o = mpirun(2, &as_str(&a));
    assert!(o.status.success(), "{}", text(&o));
    let mesh = |d: &Path| read_mesh_ply(&d.join("frames/surface_0002.ply"));
    let ((n1, vol1, v1), (n2, vol2, v2)) = (mesh(&single), mesh(&decomposed));
    eprintln!("one process: {n1} vertices, volume {vol1:.6}, mean velocity {v1:?}");
    eprintln!("2 ranks:     {n2} vertices, volume {vol2:.6}, mean velocity {v2:?}");
    assert!(n1.abs_diff(n2) * 100 <= n1, "vertex counts {n1} and {n2}");
    assert!(
        (vol1 - vol2).abs() <= 1e-3 * vol1,
        "volumes {vol1} and {vol2}"
    );
    let speed = v1.iter().map(|x| x * x).sum::<f64>().sqrt();
    let diff = (0..3).map(|k| (v1[k] - v2[k]).powi(2)).sum::<f64>().sqrt();
    assert!(
        speed > 0.1 && diff <= 1e-3 * speed,
        "mean velocities {v1:?} and {v2:?}"
    );
    let o = flipgraph(&["verify", decomposed.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
}

/// Reads two VDB files with OpenVDB and prints, per grid, the largest difference relative to
/// the grid's largest magnitude (the level set's in cells); exits 3 when the reader is missing.
const VDB_DIFF: &str = r#"
import sys
try:
    import pyopenvdb as vdb
except ImportError:
    try:
        import openvdb as vdb
    except ImportError:
        sys.exit(3)
import numpy as np
a, b, dx = sys.argv[1], sys.argv[2], float(sys.argv[3])
dims = tuple(map(int, sys.argv[4:7]))
def dense(g):
    shape = dims + ((3,) if g.valueTypeName == "vec3s" else ())
    out = np.zeros(shape, dtype=np.float32)
    g.copyToArray(out, ijk=(0, 0, 0))
    return out
ga = {g.name: g for g in vdb.readAll(a)[0]}
gb = {g.name: g for g in vdb.readAll(b)[0]}
assert sorted(ga) == sorted(gb), (sorted(ga), sorted(gb))
for name in sorted(ga):
    x, y = dense(ga[name]), dense(gb[name])
    scale = dx if name == "surface" else max(np.abs(y).max(), 1e-30)
    print(name, np.abs(x - y).max() / scale)
"#;

#[test]
fn a_decomposed_run_writes_the_vdb_of_the_whole_domain() {
    use flip_graph::{EdgeDoc, NodeDoc, ParamValue};
    let dir = tempfile::tempdir().unwrap();
    let mut doc = flipgraph_tests::graph("drop_3d.ron");
    let mut vdb = NodeDoc::new("vdb", "export_vdb");
    vdb.params
        .insert("compression".into(), ParamValue::Text("none".into()));
    doc.nodes.push(vdb);
    for (from, port) in [
        ("level_set.level_set", "level_set"),
        ("pressure.velocity", "velocity"),
        ("pressure.pressure", "pressure"),
    ] {
        doc.edges.push(EdgeDoc::new(from, format!("vdb.{port}")));
    }
    let graph = dir.path().join("drop_vdb.ron");
    std::fs::write(&graph, doc.to_ron()).unwrap();
    let dx = 0.03125;
    let run = |out: &str, mpi: bool| {
        let out = dir.path().join(out);
        let mut a = vec!["run", graph.to_str().unwrap(), "--quiet", "--frames", "2"];
        a.extend(["--set", "settings.grid=[32,32,40]"]);
        a.extend(["--set", "settings.cell_size=0.03125"]);
        a.extend(["--set", "pressure.solver=multigrid/mgpcg"]);
        a.extend(["--out", out.to_str().unwrap()]);
        let o = if mpi {
            mpirun(2, &[&a[..], &["--mpi"]].concat())
        } else {
            flipgraph(&a)
        };
        assert!(o.status.success(), "{}", text(&o));
        out.join("fields/fields_0002.vdb")
    };
    let (single, ranks) = (run("single", false), run("ranks2", true));
    let o = std::process::Command::new("/usr/bin/python3")
        .args(["-c", VDB_DIFF])
        .args([&single, &ranks].map(|p| p.to_str().unwrap().to_string()))
        .args([dx.to_string(), "32".into(), "32".into(), "40".into()])
        .output()
        .unwrap();
    if o.status.code() == Some(3) {
        eprintln!("\n!!!!!!!!!! SKIPPED: no OpenVDB reader (apt-get install -y python3-openvdb) !!!!!!!!!!\n");
        return;
    }
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    eprintln!("2 ranks against one process, largest relative difference per grid:\n{out}");
    let grids: Vec<(&str, f64)> = out
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(n, v)| (n, v.trim().parse().unwrap()))
        .collect();
    assert_eq!(grids.len(), 3, "{out}");
    assert!(grids.iter().all(|&(_, d)| d < 1e-3), "{out}");
}
