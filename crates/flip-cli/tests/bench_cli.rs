//! `bench step` on a small grid: the table has a row per node with its time and, for the
//! stages whose kinds declare their least traffic, the roofline columns.

mod common;
use common::{faulty_plugin_dir, flipgraph, text};

#[test]
fn bench_step_prints_the_roofline_of_every_stage_that_declares_its_traffic() {
    let out = tempfile::tempdir().unwrap();
    let o = flipgraph(&[
        "bench",
        "step",
        "--size",
        "20",
        "--steps",
        "2",
        "--warmup",
        "1",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    let printed = text(&o);
    assert!(o.status.success(), "{printed}");
    assert!(
        printed.contains("GB/s, this machine's parallel copy"),
        "{printed}"
    );
    let csv = std::fs::read_to_string(out.path().join("step_3d_20.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (floor, share) = (column("floor MB"), column("% of bandwidth"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let row = |kind: &str| rows.iter().find(|r| r[1] == kind).unwrap().clone();
    // "bench step: 3D 20 cells/axis, N particles, …"
    let particles: f64 = printed
        .split(" particles,")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the title names the particle count");
    assert!(particles > 1000.0, "{particles}");
    let p2g_floor: f64 = row("p2g")[floor].parse().unwrap();
    let expected = (24.0 * particles + 15.0 * 8000.0) / 1e6;
    assert!(
        (p2g_floor - expected).abs() <= 0.006,
        "{p2g_floor} vs {expected}"
    );
    for kind in [
        "p2g",
        "g2p",
        "advect",
        "level_set",
        "pressure",
        "volume_correction",
    ] {
        let s: f64 = row(kind)[share].parse().unwrap_or(f64::NAN);
        assert!(s.is_finite() && s > 0.0, "{kind}: {:?}", row(kind));
    }
    assert_eq!(
        row("solids")[share],
        "–",
        "a kind without a declared traffic"
    );
}

/// The bundled algorithms (of the plugins these tests build) that take the coupled kind.
const COUPLED_SOLVERS: [&str; 6] = [
    "pcg/cg",
    "pcg/jacobi-pcg",
    "pcg/ic0-pcg",
    "pcg/mic0-pcg",
    "pcg/rbssor-pcg",
    "multigrid/mgpcg",
];
/// A grid algorithm that does not take the coupled kind.
const STRUCTURED_ONLY: &str = "multigrid/mg-vcycle";

/// `run GRAPH --frames 1` with `pressure.dump_problems` and `sets` into `out`: its dumps.
fn dumps_of(graph: &str, sets: &[&str], out: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut args = vec!["run", graph, "--quiet", "--frames", "1"];
    args.extend(["--out", out.to_str().unwrap()]);
    for s in sets.iter().chain(&["pressure.dump_problems=true"]) {
        args.extend(["--set", s]);
    }
    let o = flipgraph(&args);
    assert!(o.status.success(), "{}", text(&o));
    let mut files: Vec<_> = std::fs::read_dir(out.join("pressure_problems"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// The rows of a bench table's CSV, each a map from column to cell.
fn csv_rows(path: &std::path::Path) -> Vec<std::collections::HashMap<String, String>> {
    let csv = std::fs::read_to_string(path).unwrap();
    let mut lines = csv.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect()
}

/// `bench problems --dumps` on the coupled dumps of the shipped floating boxes (128², one
/// frame) and one structured dump of a dam break: every coupled-capable solver converges on
/// each coupled dump with a small residual of the coupled operator; a grid solver that does
/// not take the kind solves the structured dump and is refused by name on the coupled ones,
/// in the cold table and in `--sequence`; a solver that ignores the bodies is caught by the
/// coupled residual.
#[test]
fn bench_problems_solves_coupled_dumps_and_refuses_solvers_without_the_kind_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let coupled = dumps_of(
        "graphs/floating_boxes_2d.ron",
        &[],
        &tmp.path().join("boxes"),
    );
    let dam = dumps_of(
        "graphs/dam_break_2d.ron",
        &["settings.grid=[32,32,1]", "settings.cell_size=0.03125"],
        &tmp.path().join("dam"),
    );
    let folder = tmp.path().join("boxes/pressure_problems");
    let bench = |solvers: &[&str], extra: &[&str]| {
        let mut args = vec!["bench", "problems", "--repeats", "1"];
        args.extend(["--dumps", folder.to_str().unwrap()]);
        args.extend(["--out", tmp.path().to_str().unwrap()]);
        for s in solvers {
            args.extend(["--solver", s]);
        }
        args.extend(extra);
        flipgraph(&args)
    };
    // the grid alone solved, its residual claimed: refused on the coupled residual
    let faulty = faulty_plugin_dir();
    let o = bench(
        &["faulty/ignores-bodies"],
        &["--plugin-dir", faulty.path().to_str().unwrap()],
    );
    let printed = text(&o);
    assert!(!o.status.success(), "{printed}");
    let wrong = "`ignores-bodies` returned a wrong result: it reports residual";
    assert!(printed.contains(wrong), "{printed}");

    std::fs::copy(&dam[0], folder.join("dam_step_000000.fgprob")).unwrap();
    let solvers: Vec<&str> = COUPLED_SOLVERS
        .into_iter()
        .chain([STRUCTURED_ONLY])
        .collect();
    let o = bench(&solvers, &[]);
    let printed = text(&o);
    assert!(o.status.success(), "{printed}");
    let refusal =
        "plugin `multigrid` algorithm `mg-vcycle` does not accept coupled (rigid bodies) problems";
    assert!(
        printed.contains(&format!("refused: {refusal}")),
        "{printed}"
    );
    let rows = csv_rows(&tmp.path().join("problems_dumps.csv"));
    assert_eq!(
        rows.len(),
        (coupled.len() + 1) * (COUPLED_SOLVERS.len() + 1)
    );
    for r in &rows {
        let (problem, solver) = (&r["problem"], r["solver"].as_str());
        let refused = solver == STRUCTURED_ONLY && problem.ends_with("(coupled)");
        if refused {
            assert_eq!(r["converged"], "refused", "{r:?}");
            continue;
        }
        assert_eq!(r["converged"], "yes", "{r:?}");
        // the host's residual of the returned pressure on the coupled operator (max |rhs| of
        // these dumps 0.1..0.5; the solvers leave about 4e-7)
        let residual: f64 = r["check residual"].parse().unwrap();
        assert!(residual < 1e-5, "{r:?}");
    }
    let coupled_rows = rows.iter().filter(|r| r["problem"].ends_with("(coupled)"));
    assert_eq!(
        coupled_rows.count(),
        coupled.len() * (COUPLED_SOLVERS.len() + 1)
    );

    let o = bench(&solvers, &["--sequence"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains(refusal), "{}", text(&o));
    for r in csv_rows(&tmp.path().join("problems_sequence.csv")) {
        let refused = if r["solver"] == STRUCTURED_ONLY {
            coupled.len()
        } else {
            0
        };
        assert_eq!(r["refused"], refused.to_string(), "{r:?}");
        assert_eq!(r["not converged"], "0", "{r:?}");
    }
}
