//! The memory this process maps (Linux: `/proc/self/maps`), so that the pointers a plugin hands
//! over (its entry point, its table, the table's entries) are checked before the host follows
//! them: a function pointer must lie in the library's executable segments and the table in
//! readable memory. Elsewhere the checks are skipped.

use flip_abi::PluginTable;
use std::path::{Path, PathBuf};

/// One mapping: `[start, end)` with its permissions and file.
#[derive(Debug)]
struct Mapping {
    start: usize,
    end: usize,
    read: bool,
    exec: bool,
    file: Option<PathBuf>,
}

/// Why a pointer the plugin handed over cannot be followed.
#[derive(Debug, thiserror::Error, PartialEq)]
pub(crate) enum Misplaced {
    /// Not in any mapping of the process.
    #[error("points at {0:#x}, where nothing is mapped")]
    Unmapped(usize),
    /// In the library, but not in its code.
    #[error("points at {0:#x}, data of the library (not in an executable segment)")]
    Data(usize),
    /// In memory that is not the library's code.
    #[error("points at {0:#x}, outside the library's code")]
    Elsewhere(usize),
    /// Readable memory does not hold all of it.
    #[error("points at {at:#x}, where {len} bytes are not all readable")]
    Unreadable {
        /// The pointer.
        at: usize,
        /// Bytes needed.
        len: usize,
    },
}

/// The process's mappings at one moment (taken after the library was opened).
#[derive(Debug)]
pub(crate) struct Mappings(Vec<Mapping>);

impl Mappings {
    /// This process's mappings, or `None` where the system does not list them.
    pub(crate) fn of_this_process() -> Option<Self> {
        let text = std::fs::read_to_string("/proc/self/maps").ok()?;
        Some(Self(text.lines().filter_map(parse).collect()))
    }

    fn at(&self, address: usize) -> Option<&Mapping> {
        self.0
            .iter()
            .find(|m| m.start <= address && address < m.end)
    }

    /// The file mapped at `address`, if any.
    pub(crate) fn file_at(&self, address: usize) -> Option<PathBuf> {
        self.at(address)?.file.clone()
    }

    /// Checks that `address` is code of the library file `library` (its canonical path;
    /// `None` for a library the system loader found by name: any code will do).
    pub(crate) fn code_of(&self, library: Option<&Path>, address: usize) -> Result<(), Misplaced> {
        let Some(m) = self.at(address) else {
            return Err(Misplaced::Unmapped(address));
        };
        let in_library = match (m.file.as_deref(), library) {
            (Some(file), Some(ours)) => file == ours,
            (None, Some(_)) => false,
            (_, None) => true,
        };
        match (in_library, m.exec) {
            (true, true) => Ok(()),
            (true, false) => Err(Misplaced::Data(address)),
            (false, _) => Err(Misplaced::Elsewhere(address)),
        }
    }

    /// Checks that the `len` bytes at `address` are readable.
    pub(crate) fn readable(&self, address: usize, len: usize) -> Result<(), Misplaced> {
        let end = address.checked_add(len);
        let mut at = address;
        while end.is_some_and(|end| at < end) {
            match self.at(at) {
                Some(m) if m.read => at = m.end,
                Some(_) => return Err(Misplaced::Unreadable { at: address, len }),
                None if at == address => return Err(Misplaced::Unmapped(address)),
                None => return Err(Misplaced::Unreadable { at: address, len }),
            }
        }
        end.map(drop)
            .ok_or(Misplaced::Unreadable { at: address, len })
    }
}

impl Mappings {
    /// How many bytes from `address` on are readable, up to `cap`.
    pub(crate) fn readable_len(&self, address: usize, cap: usize) -> usize {
        let mut at = address;
        while let Some(m) = self.at(at).filter(|m| m.read) {
            at = m.end;
            if at - address >= cap {
                return cap;
            }
        }
        at - address
    }
}

/// Checks the pointers a library hands over against this process's mappings (skipped where
/// the system does not list them).
pub(crate) struct Pointers {
    /// The process's mappings (`None`: not listed here, nothing is checked).
    maps: Option<Mappings>,
    /// The library's file, canonical (`None`: found by the system loader by name).
    library: Option<PathBuf>,
}

impl Pointers {
    /// The checks for the library opened from `library`, against the mappings of now.
    pub fn new(library: &Path) -> Self {
        Self {
            maps: Mappings::of_this_process(),
            library: library.canonicalize().ok(),
        }
    }

    /// `address` must be code of the library.
    pub fn code(&self, what: &str, address: usize) -> Result<(), String> {
        match &self.maps {
            Some(m) => m
                .code_of(self.library.as_deref(), address)
                .map_err(|e| format!("{what} {e}")),
            None => Ok(()),
        }
    }

    /// `len` bytes at `address` must be readable.
    pub fn readable(&self, what: &str, address: usize, len: usize) -> Result<(), String> {
        match &self.maps {
            Some(m) => m.readable(address, len).map_err(|e| format!("{what} {e}")),
            None => Ok(()),
        }
    }

    /// The most bytes a text of at most `cap` bytes at `address` may be read with: up to
    /// its NUL within readable memory (the read stops at `cap + 1` either way).
    pub fn text_cap(&self, address: usize, cap: usize) -> usize {
        match &self.maps {
            Some(m) => m.readable_len(address, cap + 1).saturating_sub(1),
            None => cap,
        }
    }

    /// Every entry of the table present must be code of the library.
    pub fn entries(&self, t: &PluginTable) -> Result<(), String> {
        let entries = [
            ("describe", t.describe.map(|f| f as usize)),
            ("create", t.create.map(|f| f as usize)),
            ("solve", t.solve.map(|f| f as usize)),
            ("destroy", t.destroy.map(|f| f as usize)),
            ("reset", t.reset.map(|f| f as usize)),
            ("state_size", t.state_size.map(|f| f as usize)),
            ("save_state", t.save_state.map(|f| f as usize)),
            ("load_state", t.load_state.map(|f| f as usize)),
        ];
        for (name, address) in entries {
            if let Some(address) = address {
                self.code(&format!("entry `{name}`"), address)?;
            }
        }
        Ok(())
    }
}

/// One line of `/proc/self/maps`: `start-end perms offset dev inode [path]` (a path may
/// hold spaces; no field before it holds a `/`).
fn parse(line: &str) -> Option<Mapping> {
    let mut fields = line.split_whitespace();
    let (start, end) = fields.next()?.split_once('-')?;
    let perms = fields.next()?.as_bytes();
    let path = line.find(" /").map(|at| {
        let path = line[at + 1..].trim_end();
        path.strip_suffix(" (deleted)").unwrap_or(path)
    });
    Some(Mapping {
        start: usize::from_str_radix(start, 16).ok()?,
        end: usize::from_str_radix(end, 16).ok()?,
        read: perms.first() == Some(&b'r'),
        exec: perms.get(2) == Some(&b'x'),
        file: path.map(PathBuf::from),
    })
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn paths_with_spaces_are_read_whole() {
        let line = "7f00-7f80 r-xp 00001000 fe:01 123   /home/a b/My Plugins/libflipgraph_x.so";
        let m = parse(line).unwrap();
        let file = m.file.unwrap();
        assert_eq!(file, Path::new("/home/a b/My Plugins/libflipgraph_x.so"));
        assert!(m.read && m.exec && (m.start, m.end) == (0x7f00, 0x7f80));
        let anonymous = parse("7f00-7f80 rw-p 00000000 00:00 0 ").unwrap();
        assert!(anonymous.file.is_none() && !anonymous.exec);
    }

    static DATA: [u8; 64] = [1; 64];

    fn code() {}

    #[test]
    fn code_data_and_nothing_are_told_apart() {
        let maps = Mappings::of_this_process().expect("Linux lists its mappings");
        let exe = std::env::current_exe().unwrap().canonicalize().unwrap();
        let code_at = code as fn() as usize;
        let data_at = DATA.as_ptr() as usize;
        assert_eq!(maps.code_of(Some(&exe), code_at), Ok(()));
        assert_eq!(
            maps.code_of(Some(&exe), data_at),
            Err(Misplaced::Data(data_at))
        );
        assert_eq!(
            maps.code_of(Some(&exe), 0x10),
            Err(Misplaced::Unmapped(0x10))
        );
        let heap = Box::new([0u8; 64]);
        let heap_at = heap.as_ptr() as usize;
        assert_eq!(
            maps.code_of(Some(&exe), heap_at),
            Err(Misplaced::Elsewhere(heap_at))
        );
        assert_eq!(maps.readable(data_at, 64), Ok(()));
        assert!(maps.readable(0x10, 8).is_err());
        assert_eq!(maps.readable_len(data_at, 16), 16);
        assert_eq!(maps.readable_len(0x10, 16), 0);
    }
}
