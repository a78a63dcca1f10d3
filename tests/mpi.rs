//! Distributed pressure solves under `mpirun` (feature `mpi`; OpenMPI on loopback with
//! `--oversubscribe`): 1, 2 and 4 ranks on the dam break in 2D and 3D agree with the
//! single-rank solve within the solver tolerance, with the same iteration counts ±1 (CG,
//! Jacobi-PCG, MGPCG), policy iteration (`lcp/pi-mg`) solves the separating-wall LCP as one
//! rank does, and an algorithm without the distributed capability is refused by name.

use std::path::Path;
use std::process::Output;

/// Runs the helper on `ranks` ranks; its output.
fn mpirun(ranks: usize, args: &[&str]) -> Output {
    flipgraph_tests::mpirun(ranks)
        .arg(env!("CARGO_BIN_EXE_flipgraph-mpi-solve"))
        .args(args)
        .output()
        .expect("mpirun runs (install openmpi-bin)")
}

/// (iterations, global pressure) of one distributed solve.
fn solve(
    ranks: usize,
    scene: &str,
    dims: [usize; 3],
    algorithm: &str,
    dir: &Path,
) -> (u32, Vec<f64>) {
    let out = dir.join(format!(
        "{scene}-{ranks}-{}.bin",
        algorithm.replace('/', "_")
    ));
    let d = dims.map(|v| v.to_string());
    let args = [scene, &d[0], &d[1], &d[2], algorithm, out.to_str().unwrap()];
    let o = mpirun(ranks, &args);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{ranks} ranks failed: {text}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let iterations = text
        .split_whitespace()
        .find_map(|w| w.strip_prefix("iterations="))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no iteration count in {text:?}"));
    let bytes = std::fs::read(&out).expect("solution written");
    let p = bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (iterations, p)
}

fn agree_across_ranks(scene: &str, dims: [usize; 3], algorithm: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (n1, p1) = solve(1, scene, dims, algorithm, dir.path());
    let scale = p1.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    assert!(scale > 0.0, "the reference solve moves something");
    for ranks in [2, 4] {
        let (n, p) = solve(ranks, scene, dims, algorithm, dir.path());
        let diff = p
            .iter()
            .zip(&p1)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        eprintln!("{scene} {dims:?} {algorithm}: {ranks} ranks {n} iterations (1 rank: {n1}), max |Δp| / max |p| = {:.2e}", diff / scale);
        assert!(
            n.abs_diff(n1) <= 1,
            "{ranks} ranks: {n} iterations, 1 rank: {n1}"
        );
        assert!(
            diff <= 1e-5 * scale,
            "{ranks} ranks differ by {diff:e} (scale {scale:e})"
        );
    }
}

#[test]
fn distributed_cg_matches_one_rank_on_the_2d_dam_break() {
    agree_across_ranks("dam_break", [48, 48, 1], "pcg/cg");
    agree_across_ranks("bubbles", [48, 48, 1], "pcg/jacobi-pcg");
}

#[test]
fn distributed_cg_matches_one_rank_on_the_3d_dam_break() {
    agree_across_ranks("dam_break", [20, 20, 20], "pcg/jacobi-pcg");
}

#[test]
fn distributed_mgpcg_matches_one_rank_in_2d_and_3d() {
    agree_across_ranks("dam_break", [64, 64, 1], "multigrid/mgpcg");
    agree_across_ranks("bubbles", [64, 64, 1], "multigrid/mgpcg");
    agree_across_ranks("dam_break", [24, 24, 24], "multigrid/mgpcg");
}

#[test]
fn distributed_policy_iteration_solves_the_separating_wall_lcp_as_one_rank_does() {
    // One rank runs pi-mg with V-cycle inner solves, more ranks with distributed MGPCG ones:
    // the solutions agree within the tolerance, and 2 and 4 ranks take the same iterations.
    for dims in [[64, 64, 1], [20, 20, 20]] {
        let dir = tempfile::tempdir().unwrap();
        let (_, p1) = solve(1, "lcp_container", dims, "lcp/pi-mg", dir.path());
        let scale = p1.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let mut counts = Vec::new();
        for ranks in [2, 4] {
            let (n, p) = solve(ranks, "lcp_container", dims, "lcp/pi-mg", dir.path());
            let diff = p
                .iter()
                .zip(&p1)
                .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            eprintln!("lcp_container {dims:?} lcp/pi-mg: {ranks} ranks {n} iterations, max |Δp| / max |p| = {:.2e}", diff / scale);
            assert!(
                diff <= 1e-6 * scale,
                "{dims:?} on {ranks} ranks differs by {diff:e} (scale {scale:e})"
            );
            counts.push(n);
        }
        assert!(counts[0].abs_diff(counts[1]) <= 1, "{dims:?}: {counts:?}");
    }
}

#[test]
fn an_algorithm_without_distributed_support_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.bin");
    let o = mpirun(
        2,
        &[
            "dam_break",
            "16",
            "16",
            "1",
            "pcg/mic0-pcg",
            out.to_str().unwrap(),
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success(),
        "a sequential preconditioner must not run distributed"
    );
    assert!(
        err.contains("`mic0-pcg`") && err.contains("distributed (MPI slab)"),
        "{err}"
    );
}
