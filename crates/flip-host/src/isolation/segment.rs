//! The shared memory of an isolated solver: anonymous memory files (`memfd_create`) the host
//! creates and maps, and the child maps through `/proc/<host pid>/fd/<n>`. There are two:
//! - the *inputs* (the problem's arrays), which the host maps read-write and then seals
//!   (`F_SEAL_FUTURE_WRITE`): every later mapping or `write`, the child's included, even through
//!   a file it opened read-write, is refused, so what the host checks a result against cannot
//!   be changed by the child;
//! - the *exchange* (the cancel flag and the pressure), which both sides write.
//!
//! Both are sealed against shrinking and growing (`F_SEAL_SHRINK | F_SEAL_GROW`), so the child
//! cannot truncate a file under the host's mapping (which would make the host's next access
//! die of SIGBUS), and against further seals (`F_SEAL_SEAL`).

use memmap2::{MmapOptions, MmapRaw};
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd};
use std::path::{Path, PathBuf};

/// Seals of every segment: a fixed size, and no further seals.
const SIZE_SEALS: libc::c_int = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL;

/// What other processes may do with a host's segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// Read only: sealed against every later writable mapping and write (the inputs).
    ReadOnly,
    /// Read and write (the exchange).
    Shared,
}

/// A mapping of a shared memory file (host or child side).
pub(crate) struct Segment {
    map: MmapRaw,
    /// The host's memory file (the child maps it through [`Segment::proc_path`]).
    file: Option<File>,
}

impl Segment {
    /// Creates a zeroed memory file of `len` bytes, maps it read-write here and seals it for
    /// `access` (see the module doc).
    pub fn create(len: usize, access: Access) -> std::io::Result<Self> {
        let file = memfd(match access {
            Access::ReadOnly => c"flipgraph-solver-inputs",
            Access::Shared => c"flipgraph-solver-exchange",
        })?;
        file.set_len(len.max(1) as u64)?;
        let map = MmapRaw::map_raw(&file)?;
        let seals = match access {
            Access::ReadOnly => SIZE_SEALS | libc::F_SEAL_FUTURE_WRITE,
            Access::Shared => SIZE_SEALS,
        };
        add_seals(&file, seals)?;
        Ok(Self {
            map,
            file: Some(file),
        })
    }

    /// Maps the host's file at `path`, which must hold at least `len` bytes: read-only for
    /// [`Access::ReadOnly`], else read-write.
    pub fn open(path: &Path, len: usize, access: Access) -> std::io::Result<Self> {
        let writable = access == Access::Shared;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(writable)
            .open(path)?;
        if file.metadata()?.len() < len as u64 {
            return Err(std::io::Error::other("shared file shorter than announced"));
        }
        let map = if writable {
            MmapRaw::map_raw(&file)?
        } else {
            MmapOptions::new().map_raw_read_only(&file)?
        };
        Ok(Self { map, file: None })
    }

    /// The path through which another process opens the host's file.
    pub fn proc_path(&self) -> Option<PathBuf> {
        let fd = self.file.as_ref()?.as_raw_fd();
        Some(format!("/proc/{}/fd/{fd}", std::process::id()).into())
    }

    /// Mapped bytes.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// The first mapped byte.
    pub fn base(&self) -> *mut u8 {
        self.map.as_mut_ptr()
    }

    /// `count` elements of `T` at `offset`.
    ///
    /// # Safety
    /// `offset..offset + count·size_of::<T>()` lies in the mapping, is aligned for `T`, the
    /// mapping is writable here, and no other live reference of this process overlaps it.
    pub unsafe fn slice_mut<'a, T>(&self, offset: usize, count: usize) -> &'a mut [T] {
        debug_assert!(offset + count * std::mem::size_of::<T>() <= self.len());
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.base().add(offset).cast(), count) }
    }

    /// `count` elements of `T` at `offset`, read only.
    ///
    /// # Safety
    /// As [`Segment::slice_mut`], except that the mapping may be read-only and other shared
    /// references may overlap.
    pub unsafe fn slice<'a, T>(&self, offset: usize, count: usize) -> &'a [T] {
        debug_assert!(offset + count * std::mem::size_of::<T>() <= self.len());
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts(self.base().add(offset).cast(), count) }
    }
}

/// A new close-on-exec memory file that accepts seals.
fn memfd(name: &std::ffi::CStr) -> std::io::Result<File> {
    // SAFETY: a valid C string; the descriptor returned is new and owned by the `File`.
    unsafe {
        let fd = libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(File::from_raw_fd(fd))
    }
}

fn add_seals(file: &File, seals: libc::c_int) -> std::io::Result<()> {
    // SAFETY: fcntl on a descriptor the `File` owns.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_ADD_SEALS, seals) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
#[path = "segment_tests.rs"]
mod tests;
