//! Seeded mutation fuzzing of graph loading, validation and node creation (issue 17). Every
//! file of the regression corpus (`tests/fuzz_corpus/`) and of `graphs/` is loaded, then
//! mutated (bytes, tokens, values, edges, settings) for a fixed time budget. Each input must be
//! refused with errors naming the file, a node or a field, or accepted, and never panic.
//!
//! `FLIPGRAPH_FUZZ_SECS` (default 20) sets the budget, `FLIPGRAPH_FUZZ_SEED` the seed,
//! `FLIPGRAPH_FUZZ_STEPS` (default 0) how many substeps each accepted graph of at most 32³
//! cells runs (a failed step is an answer; a panic, an abort or a hang is not); a
//! panicking input is written to `$CARGO_TARGET_TMPDIR/fuzz_failure_<n>.ron` for the corpus.

mod fuzz;

use fuzz::{check_input, mutate, Rng};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn corpus() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = ["fuzz_corpus", "../graphs"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).expect("corpus folder"))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    files.sort();
    assert!(files.len() >= 15, "corpus too small: {files:?}");
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("readable"))
        })
        .collect()
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn graph_inputs_never_panic_and_errors_say_where() {
    let registry = flipgraph_tests::registry();
    let out = tempfile::tempdir().unwrap();
    let budget = Duration::from_secs(env_or("FLIPGRAPH_FUZZ_SECS", 20));
    let mut rng = Rng(env_or("FLIPGRAPH_FUZZ_SEED", 0x5eed_f11b));
    let corpus = corpus();
    let mut failures = Vec::new();
    for (name, text) in &corpus {
        if let Err(e) = check_input(&registry, out.path(), name, text) {
            failures.push(format!("corpus {name}: {e}"));
        }
    }
    let (start, mut runs) = (Instant::now(), 0usize);
    while start.elapsed() < budget && failures.len() < 5 {
        let (name, text) = &corpus[rng.below(corpus.len())];
        let mutant = mutate(&mut rng, text);
        if let Err(e) = check_input(&registry, out.path(), name, &mutant) {
            let keep = Path::new(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("fuzz_failure_{}.ron", failures.len()));
            let _ = std::fs::write(&keep, &mutant);
            failures.push(format!("mutant of {name} ({}): {e}", keep.display()));
        }
        runs += 1;
    }
    println!(
        "fuzz: {} corpus files, {runs} mutants in {:?}",
        corpus.len(),
        start.elapsed()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
