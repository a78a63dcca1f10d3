//! `flipgraph run --mpi` under `mpirun` on loopback (`--oversubscribe`), against the
//! single-process run of the same graph: on 1, 2 and 4 ranks, the 2D dam break, the 3D drop and
//! Lai et al.'s circle with separating walls (policy iteration) write the same particles (every id once, none lost or duplicated in migration) within a
//! small distance of the single-process positions; a run is reproducible for a rank count;
//! rank 0's `run.json` verifies; a graph with a node that needs the whole domain, or with a
//! solver that cannot run distributed, is refused naming it; a run resumed from its per-rank checkpoints writes the frames of a run that never
//! stopped, and refuses another rank count (the exports of the whole domain are in
//! `run_mpi_exports`).

mod common;
use common::{as_str, dam_64, flipgraph, mpirun, text};
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

/// `run --mpi` of one frame of the shipped dam break on 2 ranks into `out`, with `more`
/// arguments.
fn one_dam_break_frame_on_2_ranks(out: &Path, more: &[&str]) -> Output {
    let out = out.to_str().unwrap();
    let run = [
        "run",
        "graphs/dam_break_2d.ron",
        "--mpi",
        "--frames",
        "1",
        "--out",
        out,
    ];
    mpirun(2, &[&run[..], more].concat())
}

#[test]
fn a_solver_that_cannot_run_distributed_is_refused_before_the_run_starts() {
    // The shipped dam break uses MIC(0)-PCG, a sequential preconditioner: refused up front,
    // naming the node, the solver and the ones that would do, with nothing simulated.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = one_dam_break_frame_on_2_ranks(&out, &[]);
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
fn a_decomposed_run_that_blows_up_names_the_graph() {
    // 1e30 fits f32, so the run starts; its first frame blows up on every rank.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let sets = [
        "--set",
        "pressure.solver=multigrid/mgpcg",
        "--set",
        "settings.grid=32",
        "--set",
        "gravity.gravity=[0, -1e30, 0]",
    ];
    let o = one_dam_break_frame_on_2_ranks(&out, &sets);
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(
        t.contains("graphs/dam_break_2d.ron: simulation blew up at frame 1"),
        "{t}"
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
