//! `flipgraph verify OUT`: checks the frames of a run against its manifest and names every
//! file that is missing, torn (shorter than written) or changed by someone else.

use crate::exit::{fail, ExitStatus};
use crate::manifest::{sha256_hex, FileRecord, Manifest, RunStatus};
use anyhow::Result;
use std::path::Path;

/// What is wrong with one recorded file, if anything.
fn check(out: &Path, f: &FileRecord) -> Option<String> {
    let path = out.join(&f.path); // absolute paths (forks) stay as they are
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some("missing".into()),
        Err(e) => return Some(format!("unreadable: {e}")),
    };
    let len = bytes.len() as u64;
    if len < f.bytes {
        Some(format!("torn: {len} of {} bytes", f.bytes))
    } else if len != f.bytes || sha256_hex(&bytes) != f.sha256 {
        Some("changed since it was written (SHA-256 differs)".into())
    } else {
        None
    }
}

/// Verifies `out`; fails (exit 1) when any frame is missing, torn or changed.
pub fn verify(out: &Path) -> Result<()> {
    let m = Manifest::read(out).map_err(|e| fail(ExitStatus::Usage, format!("{e:#}")))?;
    let (mut problems, mut files) = (Vec::new(), 0usize);
    for r in &m.frame_records {
        for f in &r.files {
            files += 1;
            if let Some(why) = check(out, f) {
                problems.push(format!("frame {}: {}: {why}", r.frame, f.path.display()));
            }
        }
    }
    let recorded = m.frame_records.len() as u32;
    if m.status == RunStatus::Done && recorded < m.frames {
        problems.push(format!(
            "frames {}..={} are missing from the manifest",
            recorded + 1,
            m.frames
        ));
    }
    println!(
        "{}: {recorded} frames, {files} files recorded; run {:?}",
        out.display(),
        m.status
    );
    if problems.is_empty() {
        println!("all files match the manifest");
        return Ok(());
    }
    for p in &problems {
        println!("  {p}");
    }
    Err(fail(
        ExitStatus::GraphInvalid,
        format!("{} problem(s) in {}", problems.len(), out.display()),
    ))
}
