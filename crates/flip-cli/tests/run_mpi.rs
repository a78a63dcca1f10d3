//! `flipgraph run --mpi` under `mpirun` on loopback (`--oversubscribe`), against the
//! single-process run of the same graph: on 1, 2 and 4 ranks, the 2D dam break, the 3D drop and
//! Lai et al.'s circle with separating walls (policy iteration) write the same particles (every id once, none lost or duplicated in migration) within a
//! small distance of the single-process positions; a run is reproducible for a rank count;
//! rank 0's `run.json` verifies; a graph with a node that needs the whole domain, or with a
//! solver that cannot run distributed, is refused naming it; a run resumed from its per-rank checkpoints writes the frames of a run that never
//! stopped, and refuses another rank count; `export_vdb` writes the whole domain's grids.

mod common;
use common::{dam_64, flipgraph, mpirun, text};
use std::collections::HashMap;
use std::path::Path;
use std::process::Output;

/// Largest offset (cells) from the single-process positions after the frames run here (see
/// `tests/decomposed.rs` in the workspace for what moves particles by ~1e-2 cells).
const AGREE: f32 = 0.05;

/// Particles of a PLY frame by id: position.
fn read_ply(path: &Path) -> HashMap<u32, [f32; 3]> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let end = bytes
        .windows(11)
        .position(|w| w == b"end_header\n")
        .expect("a PLY header")
        + 11;
    let header = String::from_utf8_lossy(&bytes[..end]);
    assert!(header.contains("property uint id"), "{header}");
    let body = &bytes[end..];
    let f = |r: &[u8], k: usize| f32::from_le_bytes(r[4 * k..4 * k + 4].try_into().unwrap());
    let mut out = HashMap::new();
    for r in body.chunks_exact(28) {
        let id = u32::from_le_bytes(r[24..28].try_into().unwrap());
        assert!(
            out.insert(id, [f(r, 0), f(r, 1), f(r, 2)]).is_none(),
            "id {id} twice"
        );
    }
    out
}

/// Largest distance (cells) between the same particles of two frames; panics unless both
/// hold the same ids.
fn max_offset(a: &HashMap<u32, [f32; 3]>, b: &HashMap<u32, [f32; 3]>, dx: f32) -> f32 {
    assert_eq!(a.len(), b.len(), "particle counts differ");
    a.iter()
        .map(|(id, p)| {
            let q = b.get(id).unwrap_or_else(|| panic!("particle {id} lost"));
            (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f32>().sqrt() / dx
        })
        .fold(0.0, f32::max)
}

/// Asserts that the command failed saying `says`.
fn assert_refused(o: &Output, says: &str) {
    assert!(!o.status.success() && text(o).contains(says), "{}", text(o));
}

fn as_str(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn compare(graph: &str, sets: &[&str], frames: u32, dx: f32) {
    let dir = tempfile::tempdir().unwrap();
    let args = |out: &Path, mpi: bool| {
        let mut a = vec!["run", graph, "--quiet", "--out", out.to_str().unwrap()];
        a.extend_from_slice(sets);
        a.extend(mpi.then_some("--mpi"));
        let mut a: Vec<String> = a.into_iter().map(String::from).collect();
        a.extend(["--frames".into(), frames.to_string()]);
        a
    };
    let single = dir.path().join("single");
    let o = flipgraph(&as_str(&args(&single, false)));
    assert!(o.status.success(), "{}", text(&o));
    let last = format!("frames/frame_{frames:04}.ply");
    let reference = read_ply(&single.join(&last));
    for ranks in [1, 2, 4] {
        let out = dir.path().join(format!("ranks{ranks}"));
        let o = mpirun(ranks, &as_str(&args(&out, true)));
        assert!(o.status.success(), "{ranks} ranks: {}", text(&o));
        let got = read_ply(&out.join(&last));
        let off = max_offset(&got, &reference, dx);
        eprintln!(
            "{graph}: {ranks} ranks, {} particles, largest offset {off:.2e} cells",
            got.len()
        );
        assert!(off < AGREE, "{graph} on {ranks} ranks: {off} cells off");
    }
    // rank 0's run.json lists every frame's files with their hashes
    let ranks2 = dir.path().join("ranks2");
    let o = flipgraph(&["verify", ranks2.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    // reproducible for a rank count
    let again = dir.path().join("ranks2_again");
    let o = mpirun(2, &as_str(&args(&again, true)));
    assert!(o.status.success(), "{}", text(&o));
    let first = std::fs::read(dir.path().join("ranks2").join(&last)).unwrap();
    assert!(
        std::fs::read(again.join(&last)).unwrap() == first,
        "two 2-rank runs differ"
    );
}

#[test]
fn the_2d_dam_break_on_1_2_4_ranks_writes_the_single_process_particles() {
    let sets = [
        "--set",
        "settings.grid=[64,64,1]",
        "--set",
        "settings.cell_size=0.015625",
        "--set",
        "pressure.solver=multigrid/mgpcg",
    ];
    compare("graphs/dam_break_2d.ron", &sets, 8, 0.015625);
}

#[test]
fn the_3d_drop_on_1_2_4_ranks_writes_the_single_process_particles() {
    let sets = [
        "--set",
        "settings.grid=[32,32,40]",
        "--set",
        "settings.cell_size=0.03125",
        "--set",
        "pressure.solver=multigrid/mgpcg",
    ];
    compare("graphs/drop_3d.ron", &sets, 4, 0.03125);
}

#[test]
fn separating_walls_on_1_2_4_ranks_write_the_single_process_particles() {
    // Lai et al.'s circle (the LCP of separating walls), policy iteration on the slabs.
    let sets = [
        "--set",
        "settings.grid=[64,64,1]",
        "--set",
        "settings.cell_size=0.015625",
        "--set",
        "pressure.solver=lcp/pi-mg",
    ];
    compare("graphs/lcp_circle_2d.ron", &sets, 8, 0.015625);
}

#[test]
fn a_node_that_needs_the_whole_domain_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = mpirun(
        2,
        &[
            "run",
            "graphs/tallcell_tank_2d.ron",
            "--mpi",
            "--frames",
            "1",
            "--out",
            out,
        ],
    );
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(
        t.contains("cannot run with --mpi") && t.contains("cannot run decomposed"),
        "{t}"
    );
}

#[test]
fn a_solver_that_cannot_run_distributed_is_refused_before_the_run_starts() {
    // The shipped dam break uses MIC(0)-PCG, a sequential preconditioner: refused up front,
    // naming the node, the solver and the ones that would do, with nothing simulated.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = mpirun(
        2,
        &[
            "run",
            "graphs/dam_break_2d.ron",
            "--mpi",
            "--frames",
            "1",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    for says in [
        "cannot run with --mpi",
        "node `pressure` (pressure) cannot run decomposed: solver `pcg/mic0-pcg` does not solve distributed",
        "multigrid/mgpcg",
    ] {
        assert!(t.contains(says), "missing {says:?} in {t}");
    }
    assert!(
        !out.join("frames").join("frame_0001.ply").exists(),
        "a frame was simulated"
    );
}

#[test]
fn a_decomposed_run_resumes_from_its_rank_checkpoints_as_if_never_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let run = |out: &Path, frames: &str, ranks: usize| {
        let mut a = dam_64(true);
        a.extend(["--frames", frames, "--checkpoint-every", "2"]);
        a.extend(["--out", out.to_str().unwrap()]);
        mpirun(ranks, &a)
    };
    let whole = dir.path().join("whole");
    let o = run(&whole, "4", 2);
    assert!(o.status.success(), "{}", text(&o));
    let stopped = dir.path().join("stopped");
    let o = run(&stopped, "3", 2);
    assert!(o.status.success(), "{}", text(&o));
    let ck = stopped.join("checkpoints/frame_000003.rank_1_of_2.fgck");
    assert!(ck.is_file(), "rank 1's checkpoint after the last frame");
    let first = stopped.join("frames/frame_0001.ply");
    let written = std::fs::metadata(&first).unwrap().modified().unwrap();
    let resume = ["run", "--mpi", "--resume", stopped.to_str().unwrap()];
    let o = mpirun(2, &[&resume[..], &["--frames", "4"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let after = std::fs::metadata(&first).unwrap().modified().unwrap();
    assert_eq!(written, after, "the resume simulated frame 1 again");
    let frame = |d: &Path| std::fs::read(d.join("frames/frame_0004.ply")).unwrap();
    assert!(
        frame(&stopped) == frame(&whole),
        "the resumed frame differs"
    );
    let o = flipgraph(&["verify", stopped.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    // another rank count, or one process, is refused, naming the run's rank count
    let o = mpirun(3, &[&resume[..], &["--frames", "6"]].concat());
    assert_refused(&o, "made on 2 ranks");
    let o = flipgraph(&["run", "--resume", stopped.to_str().unwrap()]);
    assert_refused(&o, "mpirun -np 2");
}

#[test]
fn a_decomposed_run_forks_on_as_many_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let mut a = dam_64(true);
    let parent = path("parent");
    let p = parent.to_str().unwrap();
    a.extend(["--frames", "4", "--checkpoint-every", "2", "--out", p]);
    let o = mpirun(2, &a);
    assert!(o.status.success(), "{}", text(&o));
    let fork = |out: &Path, ranks: usize, sets: &[&str]| {
        let mut a = vec!["run", "--mpi", "--quiet", "--from", p, "--frame", "2"];
        a.extend(["--out", out.to_str().unwrap()]);
        a.extend(sets.iter().flat_map(|s| ["--set", *s]));
        mpirun(ranks, &a)
    };
    let frame = |d: &Path, n: u32| std::fs::read(d.join(format!("frames/frame_{n:04}.ply")));
    // unchanged, the fork simulates frames 3 and 4 exactly as the parent did
    let same = path("same");
    let o = fork(&same, 2, &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(frame(&same, 2).is_err(), "the fork simulated frame 2 again");
    assert!(frame(&same, 4).unwrap() == frame(&parent, 4).unwrap());
    assert!(same
        .join("checkpoints/frame_000002.rank_1_of_2.fgck")
        .is_file());
    let o = flipgraph(&["verify", same.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    // with a changed parameter it goes its own way
    let weaker = path("weaker");
    let o = fork(&weaker, 2, &["gravity.gravity=[0.0,-2.0,0.0]"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(frame(&weaker, 4).unwrap() != frame(&parent, 4).unwrap());
    // on another rank count, or in one process, it is refused, naming the parent's ranks
    let o = fork(&path("three"), 3, &[]);
    assert_refused(&o, "made on 2 ranks");
    let single = path("single");
    let s = single.to_str().unwrap();
    let o = flipgraph(&["run", "--from", p, "--frame", "2", "--out", s]);
    assert_refused(&o, "mpirun -np 2");
    // and a run made in one process does not fork decomposed
    let mut a = dam_64(false);
    a.extend(["--frames", "2", "--checkpoint-every", "2", "--out", s]);
    let o = flipgraph(&a);
    assert!(o.status.success(), "{}", text(&o));
    let o = mpirun(
        2,
        &["run", "--mpi", "--from", s, "--frame", "2", "--out", p],
    );
    assert_refused(&o, "made on one process");
}

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
