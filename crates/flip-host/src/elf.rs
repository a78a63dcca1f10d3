//! Checks a plugin file before anything maps it: a regular file (not a FIFO that would block
//! `open`, not a device or folder) whose size covers everything its ELF headers say it holds (a
//! truncated copy of a library would otherwise fault with SIGBUS inside `dlopen` when a mapped
//! page past the end is touched).

use std::io::Read;
use std::path::Path;

/// Why a file is not a complete shared library.
#[derive(Debug, thiserror::Error)]
pub enum LibraryFileError {
    /// Reading it failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A FIFO, device or folder.
    #[error("not a regular file (a FIFO, device or folder is never opened)")]
    NotRegular,
    /// Shorter than an ELF header.
    #[error("not an ELF shared library ({size} bytes)")]
    TooShort {
        /// The file's size.
        size: u64,
    },
    /// No ELF magic.
    #[error("not an ELF shared library")]
    NotElf,
    /// An ELF class other than 32 or 64 bits.
    #[error("unknown ELF class {0}")]
    UnknownClass(u8),
    /// Its headers point past its end.
    #[error("truncated: its {what} end beyond the file's {size} bytes")]
    Truncated {
        /// The tables that do not fit.
        what: &'static str,
        /// The file's size.
        size: u64,
    },
}

/// The fields of an ELF header the size check needs.
struct Header {
    wide: bool,
    little: bool,
    phoff: u64,
    phentsize: u64,
    phnum: u64,
    shoff: u64,
    shentsize: u64,
    shnum: u64,
}

fn uint(bytes: &[u8], little: bool) -> u64 {
    let mut v = 0u64;
    for (i, &b) in bytes.iter().enumerate() {
        let shift = if little { i } else { bytes.len() - 1 - i };
        v |= u64::from(b) << (8 * shift);
    }
    v
}

fn header(h: &[u8; 64]) -> Result<Header, LibraryFileError> {
    if &h[..4] != b"\x7fELF" {
        return Err(LibraryFileError::NotElf);
    }
    let wide = match h[4] {
        1 => false,
        2 => true,
        c => return Err(LibraryFileError::UnknownClass(c)),
    };
    let little = h[5] == 1;
    let f = |at: usize, n: usize| uint(&h[at..at + n], little);
    Ok(if wide {
        Header {
            wide,
            little,
            phoff: f(32, 8),
            shoff: f(40, 8),
            phentsize: f(54, 2),
            phnum: f(56, 2),
            shentsize: f(58, 2),
            shnum: f(60, 2),
        }
    } else {
        Header {
            wide,
            little,
            phoff: f(28, 4),
            shoff: f(32, 4),
            phentsize: f(42, 2),
            phnum: f(44, 2),
            shentsize: f(46, 2),
            shnum: f(48, 2),
        }
    })
}

/// `offset + count * size <= file`, without overflow.
fn fits(offset: u64, count: u64, size: u64, file: u64) -> bool {
    count
        .checked_mul(size)
        .and_then(|n| n.checked_add(offset))
        .is_some_and(|end| end <= file)
}

/// Checks that `path` is a regular file whose ELF tables and loadable segments lie within it.
///
/// # Errors
/// [`LibraryFileError`], a one-line reason.
pub(super) fn check_file(path: &Path) -> Result<(), LibraryFileError> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(LibraryFileError::NotRegular);
    }
    if cfg!(any(target_os = "macos", target_os = "ios", windows)) {
        return Ok(()); // Mach-O / PE: only the file-type check applies.
    }
    let size = meta.len();
    let mut file = std::fs::File::open(path)?;
    let mut h = [0u8; 64];
    file.read_exact(&mut h)
        .map_err(|_| LibraryFileError::TooShort { size })?;
    let hd = header(&h)?;
    let truncated = |what| LibraryFileError::Truncated { what, size };
    if !fits(hd.shoff, hd.shnum, hd.shentsize, size) {
        return Err(truncated("section headers"));
    }
    if !fits(hd.phoff, hd.phnum, hd.phentsize, size) || hd.phnum > 4096 {
        return Err(truncated("program headers"));
    }
    let mut ph = vec![0u8; (hd.phnum * hd.phentsize) as usize];
    std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(hd.phoff))?;
    file.read_exact(&mut ph)?;
    for entry in ph.chunks_exact(hd.phentsize.max(1) as usize) {
        let f = |at: usize, n: usize| {
            entry
                .get(at..at + n)
                .map_or(u64::MAX, |b| uint(b, hd.little))
        };
        let (offset, filesz) = if hd.wide {
            (f(8, 8), f(32, 8))
        } else {
            (f(4, 4), f(16, 4))
        };
        if f(0, 4) == 1 && !fits(offset, 1, filesz, size) {
            return Err(truncated("loadable segments"));
        }
    }
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn fifos_garbage_and_truncated_copies_are_refused() {
        let dir = tempfile_dir();
        let fifo = dir.join("libflipgraph_fifo.so");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert!(check_file(&fifo)
                .unwrap_err()
                .to_string()
                .contains("not a regular file"));
        }
        let garbage = dir.join("garbage.so");
        std::fs::write(&garbage, [7u8; 100]).unwrap();
        let err = check_file(&garbage).unwrap_err().to_string();
        assert!(err.contains("not an ELF"), "{err}");
        let exe = std::env::current_exe().unwrap();
        assert!(check_file(&exe).is_ok());
        let bytes = std::fs::read(&exe).unwrap();
        let cut = dir.join("cut.so");
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        let err = check_file(&cut).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("flip-elf-test-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
