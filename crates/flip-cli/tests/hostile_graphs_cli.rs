//! The binary against hostile graphs: `validate` finds what `run` refuses (node creation),
//! errors come one per line with escapes neutralised, and export folders stay inside `--out`.

mod common;
use common::{root, text};

use std::path::Path;
use std::process::{Command, Output};

/// `command` (`run` or `compare`) on one frame of the 2D dam break at 32² into `out`, with
/// `--set set` and then `more` arguments.
fn dam_break(command: &str, out: &Path, set: &str, more: &[&str], cache: &Path) -> Output {
    let out = out.to_str().unwrap();
    let mut args = vec![
        command,
        "graphs/dam_break_2d.ron",
        "--frames",
        "1",
        "--out",
        out,
    ];
    args.extend(["--set", "settings.grid=32", "--set", set]);
    args.extend(more);
    if command == "run" {
        args.push("--quiet");
    }
    flipgraph(&args, cache)
}

fn flipgraph(args: &[&str], cache: &Path) -> Output {
    // target/<profile>/deps holds the freshly built plugins on a clean checkout.
    let deps = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    Command::new(env!("CARGO_BIN_EXE_flipgraph"))
        .current_dir(root())
        .env("XDG_CACHE_HOME", cache)
        .args(["--plugin-dir", deps.to_str().unwrap()])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn validate_creates_nodes_and_names_file_node_and_field() {
    let cache = tempfile::tempdir().unwrap();
    let o = flipgraph(
        &["validate", "tests/fuzz_corpus/missing_mask.ron"],
        cache.path(),
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains("missing_mask.ron: node `walls`, `mask`: cannot read mask"),
        "{t}"
    );
    let o = flipgraph(
        &[
            "validate",
            "graphs/dam_break_2d.ron",
            "--set",
            "settings.frames=-1",
        ],
        cache.path(),
    );
    assert!(
        text(&o).contains("`settings.frames` needs a whole number from 1 to"),
        "{}",
        text(&o)
    );
}

#[test]
fn escapes_in_graph_text_are_neutralised_and_errors_keep_one_per_line() {
    let cache = tempfile::tempdir().unwrap();
    let o = flipgraph(
        &["validate", "tests/fuzz_corpus/escape_sequences.ron"],
        cache.path(),
    );
    let t = text(&o);
    assert!(!t.contains('\u{1b}'), "raw escape: {t:?}");
    assert!(t.contains("node `advect\\e[31m`: node ids use"), "{t}");
    let problems = t
        .lines()
        .filter(|l| l.contains("escape_sequences.ron: "))
        .count();
    assert!(problems >= 2, "one problem a line: {t}");
}

#[test]
fn export_folders_outside_the_output_need_the_flag() {
    let cache = tempfile::tempdir().unwrap();
    let graph = "tests/fuzz_corpus/escaping_export.ron";
    let o = flipgraph(&["validate", graph], cache.path());
    assert!(
        text(&o).contains("node `export`, `folder`: `../../escape` leaves"),
        "{}",
        text(&o)
    );
    let out = tempfile::tempdir().unwrap();
    let out_dir = out.path().join("a/b");
    let o = flipgraph(
        &[
            "validate",
            graph,
            "--allow-outside-out",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        cache.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
}

// Issue 36: saved variants, every refusal naming the file, escaping prefixes, options of
// features this build lacks, validation whose cost the input sets, compare's failed variants.

/// `graphs/<name>` with `from` replaced by `to`, written into `dir` (under the same name, so
/// the graph's relative paths are kept by `dir` standing in for graphs/).
fn edited_graph(dir: &Path, name: &str, edits: &[(&str, &str)]) -> std::path::PathBuf {
    let mut text = std::fs::read_to_string(root().join("graphs").join(name)).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{from} not in {name}");
        text = text.replace(from, to);
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn saved_variants_are_validated_as_if_applied() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let graph = edited_graph(
        dir.path(),
        "lcp_circle_2d.ron",
        &[
            ("pressure.solver=lcp/pi-mg", "pressure.solver=nope/x"),
            (
                "\"pressure.solver=pcg/mic0-pcg\", ",
                "\"pressure.solver=pcg/mic0-pcg\", \"ghost.flip_ratio=1\", \
                 \"g2p.flip_ratio=7\", \"g2p.nosuch=1\", ",
            ),
        ],
    );
    let o = flipgraph(&["validate", graph.to_str().unwrap()], cache.path());
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    for line in [
        "lcp_circle_2d.ron: variant `pi-mg`: node `pressure`, `solver`: ",
        "lcp_circle_2d.ron: variant `standard-mic0`: node `ghost`, `flip_ratio`: ",
        "lcp_circle_2d.ron: variant `standard-mic0`: node `g2p`, `flip_ratio`: 7 is outside",
        "lcp_circle_2d.ron: variant `standard-mic0`: node `g2p`, `nosuch`: unknown parameter",
    ] {
        assert!(t.contains(line), "`{line}` missing from:\n{t}");
    }
    assert!(!t.contains("`fas-mg`"), "the good variants pass: {t}");
    // the shipped graph's variants are fine
    let o = flipgraph(&["validate", "graphs/lcp_circle_2d.ron"], cache.path());
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn every_refusal_names_the_graph_file() {
    let cache = tempfile::tempdir().unwrap();
    // The memory refusal, under a 2 GiB address-space limit.
    let exe = env!("CARGO_BIN_EXE_flipgraph");
    let deps = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let o = Command::new("sh")
        .current_dir(root())
        .env("XDG_CACHE_HOME", cache.path())
        .args(["-c", "ulimit -v 2097152 && exec \"$0\" \"$@\""])
        .args([exe, "--plugin-dir", deps.to_str().unwrap()])
        .args(["run", "graphs/drop_3d.ron", "--quiet"])
        .args(["--set", "settings.grid=[512, 512, 512]"])
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(5), "{t}");
    assert!(
        t.contains("graphs/drop_3d.ron: this run needs about"),
        "{t}"
    );
    // A run that blows up names it too (1e30 is finite in f32: not refused before the run).
    let out = tempfile::tempdir().unwrap();
    let o = dam_break(
        "run",
        out.path(),
        "gravity.gravity=[0, -1e30, 0]",
        &[],
        cache.path(),
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(4), "{t}");
    assert!(
        t.contains("graphs/dam_break_2d.ron: simulation blew up at frame 1"),
        "{t}"
    );
}

#[test]
fn export_prefixes_stay_inside_the_output_folder() {
    let cache = tempfile::tempdir().unwrap();
    let root_dir = tempfile::tempdir().unwrap();
    let out = root_dir.path().join("a/out");
    let o = dam_break(
        "run",
        &out,
        "export.prefix=../../escape_prefix",
        &[],
        cache.path(),
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("node `export`, `prefix`: "), "{t}");
    assert!(
        !root_dir.path().join("a/escape_prefix0001.ply").exists()
            && !root_dir.path().join("escape_prefix0001.ply").exists(),
        "written outside --out"
    );
}

#[cfg(not(feature = "mpi"))]
#[test]
fn options_of_a_feature_this_build_lacks_say_how_to_build_one() {
    let cache = tempfile::tempdir().unwrap();
    for args in [
        &["run", "graphs/dam_break_2d.ron", "--mpi"][..],
        &["bench", "step", "--mpi"],
        &["bench", "mpi", "--size", "32"],
    ] {
        let o = flipgraph(args, cache.path());
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {t}");
        assert!(
            t.contains("this flipgraph was built without MPI support")
                && t.contains("cargo build --release -p flip-cli --features mpi"),
            "{args:?}: {t}"
        );
    }
}

#[test]
fn validation_of_a_grid_of_tiny_cells_answers_with_the_cheap_refusal() {
    let cache = tempfile::tempdir().unwrap();
    let o = flipgraph(
        &[
            "validate",
            "graphs/cup_pour_3d.ron",
            "--set",
            "settings.cell_size=0.000001",
        ],
        cache.path(),
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains("cup_pour_3d.ron: node `pool`, `center`: the shape"),
        "{t}"
    );
}

#[test]
fn compare_fails_when_a_variant_fails_and_shows_na() {
    let cache = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let variants = [
        "--variant",
        "good:pressure.solver=pcg/mic0-pcg",
        "--variant",
        "bad:pressure.solver=nope/x",
    ];
    let o = dam_break(
        "compare",
        out.path(),
        "export.png=false",
        &variants,
        cache.path(),
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(6), "{t}");
    assert!(t.contains("variant `bad` failed"), "{t}");
    assert!(t.contains("nope/x"), "{t}");
    let row = t
        .lines()
        .find(|l| l.starts_with("bad "))
        .unwrap_or_else(|| panic!("no row for `bad`: {t}"));
    assert!(!row.contains("0.00e0") && !row.contains("NaN"), "{row}");
    assert!(row.matches("n/a").count() >= 6, "{row}");
    assert!(
        out.path().join("summary.json").exists(),
        "the report is written"
    );
}
