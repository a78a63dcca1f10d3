//! Helpers shared by the CLI's end-to-end tests (each test file uses a part of them).
#![allow(dead_code)]

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The repository root (graphs are named relative to it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `target/<profile>/deps`, where the test plugins are built.
pub fn deps_dir() -> PathBuf {
    std::env::current_exe().unwrap().parent().unwrap().into()
}

/// Runs the `flipgraph` binary in the repository root with the bundled plugins of this build.
pub fn flipgraph(args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_flipgraph"))
        .current_dir(root())
        .args(["--plugin-dir", deps_dir().to_str().unwrap()])
        .args(args)
        .output()
        .expect("flipgraph runs")
}

/// A folder holding the faulty test plugin under a plugin's file name (its `faulty/...`
/// solvers load with `--plugin-dir`).
pub fn faulty_plugin_dir() -> tempfile::TempDir {
    let lib = |name: &str| {
        let (prefix, suffix) = (std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX);
        format!("{prefix}{name}{suffix}")
    };
    let dir = tempfile::tempdir().unwrap();
    let faulty = deps_dir().join(lib("fixture_faulty"));
    std::fs::copy(faulty, dir.path().join(lib("flipgraph_faulty"))).unwrap();
    dir
}

/// A process's stdout and stderr together.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// SHA-256 of every file under `dir/frames`, by file name.
pub fn frame_hashes(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir.join("frames")).unwrap() {
        let e = e.unwrap();
        let hash = Sha256::digest(std::fs::read(e.path()).unwrap());
        out.insert(e.file_name().to_string_lossy().into(), format!("{hash:x}"));
    }
    out
}

/// The command `flipgraph ARGS` on `ranks` ranks of mpirun.
pub fn mpirun_command(ranks: usize, args: &[&str]) -> std::process::Command {
    let mut c = flipgraph_tests::mpirun(ranks);
    c.current_dir(root())
        .arg(env!("CARGO_BIN_EXE_flipgraph"))
        .args(["--plugin-dir", deps_dir().to_str().unwrap()])
        .args(args);
    c
}

/// `flipgraph ARGS` on `ranks` ranks of mpirun, run to its end.
pub fn mpirun(ranks: usize, args: &[&str]) -> Output {
    mpirun_command(ranks, args)
        .output()
        .expect("mpirun runs (install openmpi-bin)")
}

/// `run` of the 64² dam break with MGPCG, quiet, decomposed with `mpi`.
pub fn dam_64(mpi: bool) -> Vec<&'static str> {
    let mut a = vec!["run", "graphs/dam_break_2d.ron", "--quiet"];
    a.extend(mpi.then_some("--mpi"));
    for s in [
        "settings.grid=[64,64,1]",
        "settings.cell_size=0.015625",
        "pressure.solver=multigrid/mgpcg",
    ] {
        a.extend(["--set", s]);
    }
    a
}

/// Borrowed views of owned arguments.
pub fn as_str(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}
