//! Rigid bodies that float in, sink through and are pushed by the liquid (2D and 3D), coupled
//! to the pressure solve (Batty, Bertails & Bridson 2007, §4).
//!
//! [`body`]: a body's shape, density, mass and inertia from the shape, and its state; as a
//! solid it is a [`crate::Shape`] placed and moving with the body. [`contact`]: one step of
//! gravity and contact with the domain walls, static boxes and spheres and the other bodies,
//! integrated by rapier (2D or 3D). [`covered`]: the MAC faces a body covers and the liquid's
//! velocity there. [`resting`]: resting contacts with static solids pinned in the coupled solve.
//! [`coupling`]: the bodies' columns `J` of the pressure system, the coupled
//! solve `(A + J C Jᵀ) p = rhs` by the Woodbury identity on any solver of `A`, and the impulse
//! each body takes from the pressure.

pub mod body;
pub mod contact;
pub mod coupling;
pub mod covered;
pub mod mesh_body;
pub mod resting;

pub use body::{dofs, Bodies, BodyShape, BodyState, RigidBody, Twist};
pub use contact::ContactParams;
pub use coupling::Coupling;
pub use covered::{with_body_faces, with_body_velocities};
pub use mesh_body::{BodyMesh, MeshBodyError, MeshFrame};
