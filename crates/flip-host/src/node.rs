//! Node plugins: libraries exporting the node suite ([`flip_abi::node`]) beside or instead of
//! the solver table. Found in the same folders, probed in the same child, checked like solver
//! tables ([`LoadedNodePlugin`]), run through [`NodeInstance`] (in this process or isolated in
//! a child) with the outputs checked after every `eval`.

pub mod guard;
mod instance;
pub(crate) mod load;
mod remote;

pub use instance::{NodeInstance, PortRef};
pub use load::{DataKindTag, LoadedNodePlugin, NodeKindInfo, PortInfo};
