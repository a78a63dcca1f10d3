//! Graph compatibility: every graph written by an earlier `main` still loads and compiles with
//! the shipped node registry and plugins. Each `tests/compat/graphs-<date>/` folder is a frozen
//! corpus (a copy of that day's `graphs/*.ron`, never edited); `tests/compat/README.md` says how
//! a change of the RON form adds a migration and a new corpus.

use flip_graph::{compile, GraphDoc};
use flipgraph_tests::registry;
use std::path::{Path, PathBuf};

/// Every `.ron` file of every corpus folder, sorted.
fn corpus() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("compat");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/compat")
        .flatten()
        .map(|e| e.path())
        .filter(|d| d.is_dir())
        .flat_map(|d| std::fs::read_dir(d).expect("corpus folder").flatten())
        .map(|e| e.path())
        .filter(|f| f.extension().is_some_and(|e| e == "ron"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_graph_of_every_corpus_loads_and_compiles() {
    let files = corpus();
    assert!(files.len() >= 16, "corpus missing: {files:?}");
    let registry = registry();
    let mut failures = Vec::new();
    for file in &files {
        let doc = match GraphDoc::load(file) {
            Ok(doc) => doc,
            Err(e) => {
                failures.push(e.to_string());
                continue;
            }
        };
        if let Err(errors) = compile(&doc, &registry) {
            let origin = file.display().to_string();
            failures.extend(errors.into_iter().map(|e| e.in_file(&origin).to_string()));
        }
    }
    assert!(
        failures.is_empty(),
        "graphs written by an earlier main stopped loading (add a migration, see \
         tests/compat/README.md):\n  {}",
        failures.join("\n  ")
    );
}
