//! `docs/ARCHITECTURE.md` against the workspace as Cargo sees it: the crate table names every
//! package with its workspace dependencies, and the layering the table promises holds (the
//! contract crate has no dependencies; the numerics and the scheduler never link the plugin
//! host or its loader).

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::process::Command;

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
}

/// `cargo metadata` of the workspace (with the resolved graph unless `no_deps`).
fn metadata(no_deps: bool) -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["metadata", "--format-version", "1"])
        .arg("--manifest-path")
        .arg(workspace_root().join("Cargo.toml"));
    if no_deps {
        cmd.arg("--no-deps");
    }
    let out = cmd.output().expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

/// Each workspace package with the workspace packages it depends on (normal and build
/// dependencies, optional ones included; not dev-dependencies).
fn workspace_graph(meta: &Value) -> BTreeMap<String, BTreeSet<String>> {
    let packages = meta["packages"].as_array().expect("packages");
    let names: BTreeSet<String> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].as_str() != Some("dev"))
                .filter_map(|d| d["name"].as_str())
                .filter(|n| names.contains(*n))
                .map(str::to_owned)
                .collect();
            (p["name"].as_str().unwrap().to_owned(), deps)
        })
        .collect()
}

/// The crate table of ARCHITECTURE.md: crate → the crates in its "depends on" column.
fn documented_graph() -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(workspace_root().join("docs/ARCHITECTURE.md"))
        .expect("docs/ARCHITECTURE.md");
    let ticked = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    };
    text.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').collect();
            let name = ticked(cells[0]).remove(0);
            let deps = ticked(cells.last().unwrap()).into_iter().collect();
            (name, deps)
        })
        .collect()
}

#[test]
fn the_crate_table_matches_cargo_metadata() {
    let actual = workspace_graph(&metadata(true));
    let documented = documented_graph();
    let missing: Vec<_> = actual
        .keys()
        .filter(|k| !documented.contains_key(*k))
        .collect();
    let extra: Vec<_> = documented
        .keys()
        .filter(|k| !actual.contains_key(*k))
        .collect();
    assert!(missing.is_empty(), "packages without a row: {missing:?}");
    assert!(extra.is_empty(), "rows naming no package: {extra:?}");
    for (name, deps) in &actual {
        assert_eq!(
            &documented[name], deps,
            "ARCHITECTURE.md's dependencies of `{name}` (left) are not Cargo's (right)"
        );
    }
}

/// Every package reachable from `root` through normal and build dependencies.
fn closure(meta: &Value, root: &str) -> BTreeSet<String> {
    let nodes = meta["resolve"]["nodes"].as_array().expect("resolve graph");
    let name_of: HashMap<&str, &str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let edges: HashMap<&str, Vec<&str>> = nodes
        .iter()
        .map(|n| {
            let deps = n["deps"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| {
                    d["dep_kinds"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|k| k["kind"].as_str() != Some("dev"))
                })
                .map(|d| d["pkg"].as_str().unwrap())
                .collect();
            (n["id"].as_str().unwrap(), deps)
        })
        .collect();
    let start = name_of
        .iter()
        .find(|(_, n)| **n == root)
        .map(|(id, _)| *id)
        .expect("root package");
    let mut seen = BTreeSet::new();
    let mut todo = vec![start];
    while let Some(id) = todo.pop() {
        for dep in edges.get(id).into_iter().flatten() {
            if seen.insert(name_of[dep].to_owned()) {
                todo.push(dep);
            }
        }
    }
    seen
}

#[test]
fn the_contract_has_no_dependencies_and_the_numerics_and_scheduler_never_link_the_host() {
    let meta = metadata(false);
    assert!(
        closure(&meta, "flip-abi").is_empty(),
        "flip-abi depends on nothing"
    );
    for root in ["flip-core", "flip-graph"] {
        let linked = closure(&meta, root);
        for host_only in ["flip-host", "libloading", "memmap2"] {
            assert!(!linked.contains(host_only), "`{root}` links `{host_only}`");
        }
    }
    assert!(closure(&meta, "flip-graph").contains("flip-comm"));
}
