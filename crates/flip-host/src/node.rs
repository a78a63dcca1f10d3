//! Node plugins: libraries exporting the node suite ([`flip_abi::node`]) beside or instead of
//! the solver table. Found in the same folders, probed in the same child, checked like solver
//! tables ([`LoadedNodePlugin`]), run through [`NodeInstance`] with the outputs checked after
//! every `eval`.

mod instance;
pub(crate) mod load;

pub use instance::{NodeInstance, PortRef};
pub use load::{DataKindTag, LoadedNodePlugin, NodeKindInfo, PortInfo};
