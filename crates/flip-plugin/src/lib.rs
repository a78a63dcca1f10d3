//! The pressure-solver plugin contract of flipgraph.
//!
//! - [`abi`]: `#[repr(C)]` types and constants only; this is the versioned C ABI.
//! - [`sdk`]: the safe side for plugin authors: the [`sdk::PressureSolver`] trait, a safe
//!   [`sdk::Problem`] view of the handed-over system, and [`export_plugin!`].
//! - [`host`] (feature `host`): loads plugin libraries with `libloading` and checks them.

/// The C ABI: types, status codes and the entry symbol.
pub mod abi;
/// Host-side loader (feature `host`).
#[cfg(feature = "host")]
pub mod host;
/// Safe plugin-author SDK.
pub mod sdk;

pub use abi::ABI_VERSION;
