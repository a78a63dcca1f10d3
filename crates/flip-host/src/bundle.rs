//! A bundle is a folder in the OpenFX layout, so a studio ships one folder per plugin:
//!
//! ```text
//! NAME.flipgraph/
//!   Contents/
//!     linux-x86_64/NAME.so      (the library: `<os>-<arch>/NAME<DLL_SUFFIX>`)
//!     Resources/
//!       description.txt         (shown by `flipgraph nodes` and `flipgraph plugins`)
//!       icon.png                (the editor's palette icon)
//! ```
//!
//! Discovery treats a bundle's library like a plain plugin file (probe, hash, checks); the
//! library inside may have any name, since the bundle names it.

use std::path::{Path, PathBuf};

/// The folder-name suffix of a bundle.
pub const BUNDLE_EXTENSION: &str = "flipgraph";
/// Longest description read from a bundle, in bytes.
const MAX_DESCRIPTION: usize = 4096;

/// Whether `path` is a bundle folder (`*.flipgraph`).
pub fn is_bundle(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == BUNDLE_EXTENSION) && path.is_dir()
}

/// The platform folder of this build: `linux-x86_64`.
pub fn platform() -> String {
    format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH)
}

/// The library a bundle holds for this platform.
fn library_path(bundle: &Path) -> Option<PathBuf> {
    let stem = bundle.file_stem()?.to_str()?;
    let file = format!("{stem}{}", std::env::consts::DLL_SUFFIX);
    Some(bundle.join("Contents").join(platform()).join(file))
}

/// The bundle's library for this platform, when it is a file.
pub fn library(bundle: &Path) -> Option<PathBuf> {
    library_path(bundle).filter(|p| p.is_file())
}

/// The warning for a bundle without a library for this platform.
pub(crate) fn missing_library_warning(bundle: &Path) -> String {
    let expected = library_path(bundle).unwrap_or_else(|| bundle.join("Contents"));
    format!(
        "bundle {} has no library for {} (expected {})",
        flip_abi::text::path(bundle),
        platform(),
        flip_abi::text::path(&expected)
    )
}

/// What a bundle says about itself: its description and icon (`Resources/`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BundleResources {
    /// `description.txt`, sanitised, at most 4 KiB.
    pub description: Option<String>,
    /// `icon.png`, when present.
    pub icon: Option<PathBuf>,
}

/// The bundle a library was loaded from (`…/NAME.flipgraph/Contents/<platform>/NAME.so`).
pub fn bundle_of(library: &Path) -> Option<PathBuf> {
    let bundle = library.parent()?.parent()?.parent()?;
    is_bundle(bundle).then(|| bundle.to_path_buf())
}

/// The resources of the bundle `library` came from; `None` for a plain library.
pub fn resources(library: &Path) -> Option<BundleResources> {
    let dir = bundle_of(library)?.join("Contents").join("Resources");
    let description = std::fs::read(dir.join("description.txt")).ok().map(|b| {
        let text = String::from_utf8_lossy(&b[..b.len().min(MAX_DESCRIPTION)]).into_owned();
        flip_abi::sanitize(text.trim()).into_owned()
    });
    let icon = Some(dir.join("icon.png")).filter(|p| p.is_file());
    Some(BundleResources { description, icon })
}
