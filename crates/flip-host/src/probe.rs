//! Probing: each newly seen plugin library is first loaded and described in a child process,
//! so a library whose constructor crashes, calls `exit`, panics in its entry point or hangs is
//! reported (file, signal, exit status or timeout) and skipped instead of taking the host down.
//!
//! The child is a program of the host's choosing ([`ProbeCommand`]): `flipgraph` re-executes
//! itself with the hidden subcommand `__probe-plugin FILE`, the editor with `--probe-plugin FILE`;
//! both call [`child_main`]. The child answers with one line on stdout
//! (`flipgraph-probe: loadable` or `flipgraph-probe: refused ...`) and exits 0. Any other ending
//! is a failed probe. Verdicts are cached by the file's SHA-256 under [`default_cache_dir`]
//! (`$XDG_CACHE_HOME/flipgraph/probes`, else `$HOME/.cache/flipgraph/probes`), one small file per
//! hash; timeouts are not cached (a loaded machine may have caused them).

use sha2::{Digest, Sha256};
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The answer line of a child that loaded the library in full (whatever the verdict).
const LOADABLE: &str = "flipgraph-probe: loadable";
/// Prefix of the answer of a child whose in-process load refused the library cleanly.
const REFUSED: &str = "flipgraph-probe: refused";

/// How to start a probe child: `program args… FILE`.
#[derive(Clone, Debug)]
pub struct ProbeCommand {
    /// The program (usually the running executable).
    pub program: PathBuf,
    /// Arguments before the file.
    pub args: Vec<OsString>,
    /// Time limit of one probe.
    pub timeout: Duration,
}

impl ProbeCommand {
    /// The running executable with `args` before the file, 10 s limit.
    ///
    /// # Errors
    /// When the executable's path is unknown.
    pub fn current_exe(args: &[&str]) -> std::io::Result<Self> {
        Ok(Self {
            program: std::env::current_exe()?,
            args: args.iter().map(OsString::from).collect(),
            timeout: Duration::from_secs(10),
        })
    }
}

/// SHA-256 of a file's content, lowercase hex.
///
/// # Errors
/// I/O errors.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// The default probe cache folder.
pub fn default_cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("flipgraph").join("probes"))
}

/// The body of a probe child: loads `path` in this process, prints the verdict line, returns
/// the exit code (0). Crashes, exits and hangs of the library end the child instead.
pub fn child_main(path: &Path) -> i32 {
    match describe_all(path) {
        Ok(what) => println!("{LOADABLE} {what}"),
        Err(e) => println!("{REFUSED} {e}"),
    }
    0
}

/// Loads `path` and describes what it exports: its node suite, then its solvers.
fn describe_all(path: &Path) -> Result<String, super::PluginError> {
    let library = super::loaded::open_library(path)?;
    let mut parts = Vec::new();
    if super::node::load::has_node_entry(&library) {
        let suite =
            super::LoadedNodePlugin::from_library(library.clone(), path, String::new(), &[])?;
        parts.push(format!("{} ({} node kinds)", suite.id, suite.kinds.len()));
    }
    if parts.is_empty() || super::loaded::has_solver_entry(&library) {
        let p = super::LoadedPlugin::load(path)?;
        parts.push(format!("{} ({} algorithms)", p.id, p.algorithms.len()));
    }
    Ok(parts.join(", "))
}

/// Name of a common fatal signal.
pub(super) fn signal_name(sig: i32) -> &'static str {
    match sig {
        4 => " (SIGILL)",
        6 => " (SIGABRT)",
        7 => " (SIGBUS)",
        8 => " (SIGFPE)",
        9 => " (SIGKILL)",
        2 => " (SIGINT)",
        5 => " (SIGTRAP)",
        13 => " (SIGPIPE)",
        11 => " (SIGSEGV)",
        15 => " (SIGTERM)",
        _ => "",
    }
}

/// How the child ended, when it did not answer.
fn ending(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("was killed by signal {sig}{}", signal_name(sig));
        }
    }
    match status.code() {
        Some(0) => {
            "exited with status 0 before answering (the library ends the process while loading)"
                .into()
        }
        Some(c) => {
            format!("exited with status {c} (the library aborted or panicked while loading)")
        }
        None => "ended abnormally".into(),
    }
}

/// Runs one probe child. `Ok` when the library can be loaded in-process safely (it may still
/// be refused by the in-process checks); `Err` with a reason otherwise, and whether to cache it.
fn run_child(cmd: &ProbeCommand, path: &Path) -> Result<(), (String, bool)> {
    let mut child = Command::new(&cmd.program)
        .args(&cmd.args)
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            (
                format!(
                    "could not start {}: {e}",
                    flip_abi::text::path(&cmd.program)
                ),
                false,
            )
        })?;
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = (&mut stdout).take(1 << 16).read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > cmd.timeout => {
                let _ = child.kill();
                let _ = child.wait();
                let secs = cmd.timeout.as_secs_f64();
                return Err((
                    format!("did not finish within {secs:.1} s (the library hangs while loading)"),
                    false,
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err((e.to_string(), false)),
        }
    };
    let out = reader.join().unwrap_or_default();
    let answered = out
        .lines()
        .any(|l| l.starts_with(LOADABLE) || l.starts_with(REFUSED));
    if status.success() && answered {
        Ok(())
    } else {
        Err((ending(status), true))
    }
}

/// Probes `path` (content hash `sha256`), using and filling the cache in `cache` (discovery's
/// step; the reason becomes [`super::PluginError::ProbeFailed`]).
///
/// # Errors
/// Why the library must not be loaded in-process.
pub(crate) fn probe(
    cmd: &ProbeCommand,
    path: &Path,
    sha256: &str,
    cache: Option<&Path>,
) -> Result<(), String> {
    let entry = cache.map(|d| d.join(sha256));
    if let Some(text) = entry.as_ref().and_then(|e| std::fs::read_to_string(e).ok()) {
        return match text.strip_prefix("unsafe: ") {
            Some(reason) => Err(format!("{} (cached verdict)", reason.trim())),
            None => Ok(()),
        };
    }
    let result = run_child(cmd, path);
    let verdict = match &result {
        Ok(()) => Some("safe".to_string()),
        Err((reason, true)) => Some(format!("unsafe: {reason}")),
        Err((_, false)) => None,
    };
    if let (Some(e), Some(v)) = (entry, verdict) {
        // Best effort: a read-only cache only costs a probe next time.
        let tmp = e.with_extension(format!("tmp{}", std::process::id()));
        let _ = std::fs::create_dir_all(e.parent().unwrap_or(Path::new(".")))
            .and_then(|()| std::fs::write(&tmp, v))
            .and_then(|()| std::fs::rename(&tmp, &e));
    }
    result.map_err(|(reason, _)| reason)
}
