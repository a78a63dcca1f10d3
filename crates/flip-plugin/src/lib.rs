//! The pressure-solver plugin contract of flipgraph.
//!
//! - [`abi`]: `#[repr(C)]` types and constants only; this is the versioned C ABI.
//! - [`sdk`]: the safe side for plugin authors: the [`sdk::PressureSolver`] trait, safe
//!   [`sdk::Problem`] / [`sdk::CsrProblem`] views of the handed-over system, the host services
//!   ([`sdk::services`]) and [`export_plugin!`].
//! - [`host`] (feature `host`): finds, probes, loads and checks plugin libraries.
//! - [`text`]: sanitising plugin text for display; the id alphabet.

/// The C ABI: types, status codes and the entry symbol.
pub mod abi;
/// Host-side loader (feature `host`).
#[cfg(feature = "host")]
pub mod host;
/// Safe plugin-author SDK.
pub mod sdk;
/// Sanitising text for display; id rules.
pub mod text;

pub use abi::ABI_VERSION;
pub use text::sanitize;
