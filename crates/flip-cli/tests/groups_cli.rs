//! A graph saved with node groups runs headless exactly as the flat graph does: the CLI's
//! frames are byte for byte the same.

mod common;
use common::{deps_dir, frame_hashes, root};

use flip_graph::overrides::{apply_overrides, parse_overrides};
use flip_graph::GraphDoc;
use std::path::Path;
use std::process::Command;

fn run(graph: &Path, out: &Path) {
    let o = Command::new(env!("CARGO_BIN_EXE_flipgraph"))
        .current_dir(root())
        .args(["--plugin-dir", deps_dir().to_str().unwrap(), "run"])
        .arg(graph)
        .args(["--quiet", "--frames", "3", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_grouped_graph_runs_like_the_flat_one() {
    let mut flat = GraphDoc::load(&root().join("graphs/dam_break_2d.ron")).unwrap();
    let small = ["settings.grid=[32,32,1]", "settings.cell_size=0.03125"];
    apply_overrides(&mut flat, &parse_overrides(&small).unwrap()).unwrap();
    let members = ["marker", "level_set", "extrapolate", "pressure"].map(String::from);
    let (grouped, _) = flip_graph::groups::collapse(&flat, &members, "Projection").unwrap();
    let (grouped, _) =
        flip_graph::groups::collapse(&grouped, &["g2p".into(), "advect".into()], "").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (flat_file, grouped_file) = (dir.path().join("flat.ron"), dir.path().join("grouped.ron"));
    flat.save(&flat_file).unwrap();
    grouped.save(&grouped_file).unwrap();
    let text = std::fs::read_to_string(&grouped_file).unwrap();
    assert!(
        text.contains("groups:") && text.contains("group: \"group_2\""),
        "{text}"
    );
    run(&flat_file, &dir.path().join("flat"));
    run(&grouped_file, &dir.path().join("grouped"));
    let (a, b) = (
        frame_hashes(&dir.path().join("flat")),
        frame_hashes(&dir.path().join("grouped")),
    );
    assert!(a.len() >= 3, "{a:?}");
    assert_eq!(a, b);
}
