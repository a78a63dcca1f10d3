//! The liquid cache: what the whitewater node reads from the liquid at a frame's end
//! (particles, extrapolated grid velocity, level set), one lossless file per frame, so a
//! finished run's whitewater can be re-baked without simulating the liquid again.
//!
//! A file is the magic line [`MAGIC`], a little-endian `u32` format version, then the frame
//! encoded with postcard (`serde`'s field order of [`CachedFrame`]). Values keep every bit,
//! so a re-bake is byte-identical to the inline run.

use crate::kinds::VelocityField;
use flip_core::{Grid3, GridSpec, Particles};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// First bytes of every cache file.
pub const MAGIC: &[u8; 24] = b"flipgraph liquid cache\n\0";
/// Version of the layout after the magic; bumped when [`CachedFrame`] changes.
pub const VERSION: u32 = 1;

/// One frame's end of the liquid.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct CachedFrame {
    /// The grid the fields are on.
    pub grid: GridSpec,
    /// Frames per second of the cached run.
    pub fps: f32,
    /// Frame number (0-based) whose end this is.
    pub frame: u32,
    /// The liquid's particles.
    pub particles: Particles,
    /// The liquid's grid velocity, extrapolated.
    pub velocity: VelocityField,
    /// The liquid's signed distance.
    pub level_set: Grid3<f32>,
}

/// Why a cache file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// The file system refused.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The refusal.
        #[source]
        source: std::io::Error,
    },
    /// Not a cache file, or one of another version.
    #[error("{path}: not a flipgraph liquid cache file of version {VERSION} ({what})")]
    Format {
        /// The file.
        path: PathBuf,
        /// What was found instead.
        what: String,
    },
    /// The frame cannot be encoded.
    #[error("{path}: cannot encode the liquid cache frame")]
    Encode {
        /// The file.
        path: PathBuf,
        /// The encoder's complaint.
        #[source]
        source: postcard::Error,
    },
    /// The header is right but the frame does not decode (truncated or damaged).
    #[error("{path}: damaged liquid cache frame")]
    Decode {
        /// The file.
        path: PathBuf,
        /// The decoder's complaint.
        #[source]
        source: postcard::Error,
    },
}

impl CachedFrame {
    /// Writes the frame to `path` atomically (`<path>.tmp`, then a rename), so a run stopped
    /// mid-write never leaves a half frame under the final name.
    ///
    /// # Errors
    /// The file system refused, or the frame cannot be encoded.
    pub fn write(&self, path: &Path) -> Result<(), CacheError> {
        let io = |source| CacheError::Io {
            path: path.to_path_buf(),
            source,
        };
        let body = postcard::to_stdvec(self).map_err(|source| CacheError::Encode {
            path: path.to_path_buf(),
            source,
        })?;
        flip_core::export::write_atomic(
            path,
            |tmp| {
                let mut f = std::fs::File::create(tmp).map_err(io)?;
                f.write_all(MAGIC)
                    .and_then(|()| f.write_all(&VERSION.to_le_bytes()))
                    .and_then(|()| f.write_all(&body))
                    .and_then(|()| f.sync_data())
                    .map_err(io)
            },
            io,
        )
    }

    /// Reads a frame that [`CachedFrame::write`] wrote.
    ///
    /// # Errors
    /// A missing or unreadable file, a file of another kind or version, or a damaged frame.
    pub fn read(path: &Path) -> Result<Self, CacheError> {
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(|source| CacheError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        let format = |what: String| CacheError::Format {
            path: path.to_path_buf(),
            what,
        };
        let Some(body) = bytes.strip_prefix(MAGIC.as_slice()) else {
            return Err(format(
                "it does not start with the cache's magic line".into(),
            ));
        };
        let (version, body) = body
            .split_first_chunk::<4>()
            .ok_or_else(|| format("it ends inside the header".into()))?;
        let version = u32::from_le_bytes(*version);
        if version != VERSION {
            return Err(format(format!("it is of version {version}")));
        }
        postcard::from_bytes(body).map_err(|source| CacheError::Decode {
            path: path.to_path_buf(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn frame() -> CachedFrame {
        let grid = GridSpec::new(5, 4, 1, 0.1);
        let mut particles = Particles::default();
        particles.push(Vec3::new(0.13, 0.27, 0.05), Vec3::new(0.1, -1.0 / 3.0, 0.0));
        let mut level_set = Grid3::new(5, 4, 1, 0.0f32);
        level_set.data[3] = -0.123_456_79;
        CachedFrame {
            grid,
            fps: 24.0,
            frame: 7,
            particles,
            velocity: VelocityField::zeros(&grid),
            level_set,
        }
    }

    #[test]
    fn a_frame_reads_back_bit_for_bit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("liquid_0008.flc");
        frame().write(&path).unwrap();
        assert_eq!(CachedFrame::read(&path).unwrap(), frame());
        assert!(!dir.path().join("liquid_0008.flc.tmp").exists());
    }

    #[test]
    fn foreign_truncated_and_newer_files_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("liquid_0001.flc");
        frame().write(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();

        std::fs::write(&path, b"ply\nformat binary").unwrap();
        let e = CachedFrame::read(&path).unwrap_err().to_string();
        assert!(e.contains("liquid_0001.flc") && e.contains("magic"), "{e}");

        std::fs::write(&path, &bytes[..bytes.len() - 9]).unwrap();
        let e = CachedFrame::read(&path).unwrap_err().to_string();
        assert!(e.contains("damaged"), "{e}");

        let mut newer = bytes.clone();
        newer[MAGIC.len()] = 2;
        std::fs::write(&path, newer).unwrap();
        let e = CachedFrame::read(&path).unwrap_err().to_string();
        assert!(e.contains("version 2"), "{e}");
    }
}
