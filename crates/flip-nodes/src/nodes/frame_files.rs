//! Where the output nodes write: a folder inside the run's output folder, a file prefix, and
//! every n-th frame. One home for the three parameters, their checks and the file names.
use super::common::output_location;
use crate::params::Params;
use flip_graph::{EvalCtx, NodeError, NodeInit, ParamSpec};
use std::path::PathBuf;

/// The per-frame files of one output node: `<folder>/<prefix><frame:04>.<ext>`.
pub(crate) struct FrameFiles {
    folder: PathBuf,
    prefix: String,
    every: u32,
}

impl FrameFiles {
    /// Reads `folder` and `prefix` (checked by [`output_location`]) and `every`.
    pub fn new(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let (folder, prefix) = output_location(init, "folder", "prefix")?;
        Ok(Self {
            folder,
            prefix,
            every: Params(init.params).usize("every")?.max(1) as u32,
        })
    }

    /// Reads `folder` and `prefix` for files that every frame needs (no `every`).
    pub fn each_frame(init: &NodeInit<'_>) -> Result<Self, NodeError> {
        let (folder, prefix) = output_location(init, "folder", "prefix")?;
        Ok(Self {
            folder,
            prefix,
            every: 1,
        })
    }

    /// Whether this substep ends a frame that gets files.
    pub fn due(&self, ctx: &EvalCtx) -> bool {
        ctx.frame_end && ctx.frame.is_multiple_of(self.every)
    }

    /// Creates the folder; returns a namer of this frame's files by extension. Frames are
    /// numbered from 1 in file names, as in every message.
    pub fn frame(&self, ctx: &EvalCtx) -> Result<impl Fn(&str) -> PathBuf + '_, NodeError> {
        std::fs::create_dir_all(&self.folder).map_err(|e| {
            NodeError::Failed(format!("cannot create {}: {e}", self.folder.display()))
        })?;
        let stem = file_stem(&self.prefix, ctx.frame);
        Ok(move |ext: &str| self.folder.join(format!("{stem}.{ext}")))
    }

    /// The `folder`, `prefix` and `every` parameters; `exts` names the extensions written
    /// (for the help text), `what` what `every` counts.
    pub fn params(folder: &str, prefix: &str, exts: &str, what: &str) -> [ParamSpec; 3] {
        let [folder, prefix] = Self::location_params(folder, prefix, exts);
        [
            folder,
            prefix,
            ParamSpec::int(
                "every",
                "Every",
                &format!("{what} every n-th frame"),
                1,
                1,
                100_000,
            ),
        ]
    }

    /// The `folder` and `prefix` parameters alone (for [`FrameFiles::each_frame`]).
    pub fn location_params(folder: &str, prefix: &str, exts: &str) -> [ParamSpec; 2] {
        [
            ParamSpec::path(
                "folder",
                "Folder",
                "output folder, relative to the run's output directory",
                folder,
            ),
            ParamSpec::path(
                "prefix",
                "File prefix",
                &format!("file names are <prefix><frame:04>.{exts}"),
                prefix,
            ),
        ]
    }
}

/// `<prefix><frame:04>`, the stem of a frame's files: frames count from 1 in file names.
pub(crate) fn file_stem(prefix: &str, frame: u32) -> String {
    format!("{prefix}{:04}", frame + 1)
}
