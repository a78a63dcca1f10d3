//! Eulerian smoke under `flipgraph run --mpi` (mpirun on loopback, `--oversubscribe`): the
//! plume of `graphs/smoke_plume_2d.ron` (48×72 cells, 72 frames) on 2 and 4 ranks writes the
//! density, temperature and velocity of the single-process run after rising through the ranks'
//! boundaries, and so does its 3D version on 2 ranks; a decomposed smoke run resumes from its
//! ranks' checkpoints as if never stopped; a closed gas domain, whose pressure the distributed
//! solve cannot pin, is refused.

mod common;
use common::{flipgraph, mpirun, text};
use flip_graph::{EdgeDoc, NodeDoc};
use std::path::{Path, PathBuf};
use vtkio::model::{Attribute, DataArray, DataSet, IOBuffer, Piece, Vtk};

const FRAMES: u32 = 72;
const GRID: [&str; 4] = [
    "--set",
    "settings.grid=[48,72,1]",
    "--set",
    "settings.cell_size=0.0208333333",
];

/// The plume with an `export_fields` node writing its density, temperature and velocity.
fn plume_graph(dir: &Path) -> PathBuf {
    let mut doc = flipgraph_tests::graph("smoke_plume_2d.ron");
    doc.nodes.push(NodeDoc::new("fields", "export_fields"));
    for (from, port) in [
        ("advect.density", "density"),
        ("advect.temperature", "temperature"),
        ("pressure.velocity", "velocity"),
    ] {
        doc.edges.push(EdgeDoc::new(from, format!("fields.{port}")));
    }
    let path = dir.join("plume_fields.ron");
    std::fs::write(&path, doc.to_ron()).unwrap();
    path
}

/// Runs `frames` frames of `graph` (on `ranks` ranks of mpirun, or in one process) into `out`,
/// with the overrides `sets` (the grid among them).
fn run(
    graph: &Path,
    out: &Path,
    ranks: Option<usize>,
    frames: u32,
    sets: &[&str],
) -> std::process::Output {
    let frames = frames.to_string();
    let mut a = vec!["run", graph.to_str().unwrap(), "--quiet"];
    a.extend(["--frames", &frames]);
    a.extend(sets);
    a.extend(["--out", out.to_str().unwrap()]);
    match ranks {
        Some(n) => mpirun(n, &[&a[..], &["--mpi"]].concat()),
        None => flipgraph(&a),
    }
}

/// The named cell arrays of a `.vti` file.
fn read_fields(path: &Path) -> impl Fn(&str) -> Vec<f32> {
    let vtk = Vtk::import(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let DataSet::ImageData { pieces, .. } = vtk.data else {
        panic!("image data")
    };
    let Some(Piece::Inline(piece)) = pieces.into_iter().next() else {
        panic!("inline piece")
    };
    move |name: &str| {
        piece
            .data
            .cell
            .iter()
            .find_map(|a| match a {
                Attribute::DataArray(DataArray { name: n, data, .. }) if n == name => {
                    Some(match data.clone() {
                        IOBuffer::F32(v) => v,
                        other => other.cast_into::<f32>().expect("numbers"),
                    })
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("no array {name}"))
    }
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn decomposed_smoke_writes_the_single_process_fields() {
    let dir = tempfile::tempdir().unwrap();
    let graph = plume_graph(dir.path());
    let last = format!("fields/fields_{FRAMES:04}.vti");
    let single = dir.path().join("single");
    let o = run(&graph, &single, None, FRAMES, &GRID);
    assert!(o.status.success(), "{}", text(&o));
    let reference = read_fields(&single.join(&last));
    let density = reference("density");
    // the plume has risen past the 2-rank boundary (layer 36 of 72): the test crosses it
    let above: f32 = density[48 * 40..].iter().copied().fold(0.0, f32::max);
    assert!(above > 0.1, "the plume stays below layer 40 ({above})");
    let speed = max_diff(&reference("velocity"), &vec![0.0; 48 * 72 * 3]);
    for ranks in [2, 4] {
        let out = dir.path().join(format!("ranks{ranks}"));
        let o = run(&graph, &out, Some(ranks), FRAMES, &GRID);
        assert!(o.status.success(), "{ranks} ranks: {}", text(&o));
        let got = read_fields(&out.join(&last));
        let (d, t) = (
            max_diff(&got("density"), &density),
            max_diff(&got("temperature"), &reference("temperature")),
        );
        let v = max_diff(&got("velocity"), &reference("velocity")) / speed;
        eprintln!(
            "{ranks} ranks, frame {FRAMES}: largest difference density {d:.2e}, temperature \
             {t:.2e}, velocity {v:.2e} of the largest speed {speed:.3} m/s"
        );
        // the source holds density and temperature at 1; the solver's tolerance is 1e-6
        assert!(d < 1e-3 && t < 1e-3 && v < 1e-3, "{ranks} ranks differ");
        assert!(out.join("frames/frame_0072.png").is_file());
    }
}

/// The same plume in 3D (24×36×24 cells): the slabs cut z, across the plume's middle.
#[test]
fn decomposed_3d_smoke_writes_the_single_process_fields() {
    let dir = tempfile::tempdir().unwrap();
    let graph = plume_graph(dir.path());
    let sets = [
        "--set",
        "settings.grid=[24,36,24]",
        "--set",
        "settings.cell_size=0.041666667",
    ];
    let last = "fields/fields_0024.vti";
    let single = dir.path().join("single");
    let o = run(&graph, &single, None, 24, &sets);
    assert!(o.status.success(), "{}", text(&o));
    let reference = read_fields(&single.join(last));
    let speed = max_diff(&reference("velocity"), &vec![0.0; 24 * 36 * 24 * 3]);
    let out = dir.path().join("ranks2");
    let o = run(&graph, &out, Some(2), 24, &sets);
    assert!(o.status.success(), "{}", text(&o));
    let got = read_fields(&out.join(last));
    let d = max_diff(&got("density"), &reference("density"));
    let v = max_diff(&got("velocity"), &reference("velocity")) / speed;
    eprintln!("3D, 2 ranks, frame 24: density {d:.2e}, velocity {v:.2e} of {speed:.3} m/s");
    assert!(d < 1e-3 && v < 1e-3, "2 ranks differ in 3D");
}

#[test]
fn a_closed_gas_domain_is_refused_under_mpi() {
    let dir = tempfile::tempdir().unwrap();
    let graph = plume_graph(dir.path());
    let out = dir.path().join("closed");
    let o = run(
        &graph,
        &out,
        Some(2),
        1,
        &[&GRID[..], &["--set", "domain.open_top=false"]].concat(),
    );
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(
        t.contains("`domain`") && t.contains("closed gas domain") && t.contains("--mpi"),
        "{t}"
    );
}

/// The ranks' checkpoints hold the windows' fields, ghost layers included.
#[test]
fn a_decomposed_smoke_run_resumes_as_if_never_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let graph = plume_graph(dir.path());
    let (whole, stopped) = (dir.path().join("whole"), dir.path().join("stopped"));
    let o = run(&graph, &whole, Some(2), 20, &GRID);
    assert!(o.status.success(), "{}", text(&o));
    let o = run(
        &graph,
        &stopped,
        Some(2),
        10,
        &[&GRID[..], &["--checkpoint-every", "5"]].concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let resume = [
        "run",
        "--mpi",
        "--quiet",
        "--resume",
        stopped.to_str().unwrap(),
    ];
    let o = mpirun(2, &[&resume[..], &["--frames", "20"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let frame = |d: &Path| std::fs::read(d.join("fields/fields_0020.vti")).unwrap();
    assert!(frame(&stopped) == frame(&whole), "the resumed run differs");
}
