//! The plugin author's guide's example (`examples/sor-plugin`), built out of tree as a newcomer
//! builds it (its own workspace, `cargo build --release`), then loaded from its target folder
//! and run on the shipped dam break in place of the bundled solver.

use flip_graph::ParamValue;
use flip_host::{LoadOptions, PluginSet};
use flipgraph_tests::{graph, set, simulation, solve};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

#[test]
fn the_guides_sor_plugin_builds_out_of_tree_loads_and_solves_the_dam_break() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/sor-plugin");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sor-plugin");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--release", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "the example does not build:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let plugins = PluginSet::load(&LoadOptions::with_user_dirs(&[target.join("release")]));
    assert!(plugins.refused.is_empty(), "refused: {:?}", plugins.refused);
    let sor = plugins
        .plugins
        .iter()
        .find(|p| p.id == "sor")
        .expect("libflipgraph_sor.so is found by its name");
    assert!(sor.algorithms.iter().any(|a| a.name == "rb-sor"));

    let registry = flip_nodes::builtin_registry(Arc::new(plugins));
    let mut doc = graph("dam_break_2d.ron");
    doc.settings.frames = 1;
    set(
        &mut doc,
        "pressure",
        "solver",
        ParamValue::Text("sor/rb-sor".into()),
    );
    let (mut sim, _out) = simulation(&doc, &registry);
    let reports = sim.advance_frame().unwrap_or_else(|e| panic!("{e}"));
    assert!(!reports.is_empty());
    for report in &reports {
        let residual = solve(&sim, report, "pressure").residual;
        assert!(residual.is_finite(), "residual {residual}");
        assert!(solve(&sim, report, "pressure").converged);
    }
}
