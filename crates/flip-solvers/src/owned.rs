//! The owned problem type lives in the plugin SDK (one home for the pressure problem); it is
//! re-exported here because every solver test and benchmark uses it.
pub use flip_sdk::OwnedProblem;
