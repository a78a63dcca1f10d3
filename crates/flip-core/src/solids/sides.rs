//! What each face of the domain box is: a wall (the one-cell wall layer of Karlsson §6), open
//! (pressure 0, liquid leaves) or an inflow (a wall whose inner face moves liquid in at a
//! prescribed speed, the moving-solid boundary of Batty et al. 2007 eq. 5 with `u_solid` set).

use glam::Vec3;
use serde::{Deserialize, Serialize};

/// An inflow: liquid enters normal to the face at `speed`, up to `height`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Inflow {
    /// Speed into the domain (m/s, > 0).
    pub speed: f32,
    /// Profile: only the part of the face below this height (y, m) lets liquid in; 0 = the
    /// whole face. Ignored on the y faces.
    pub height: f32,
}

/// One face of the domain box.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum Side {
    /// A solid wall one cell thick (the default).
    #[default]
    Wall,
    /// No wall: the outermost cell layer holds pressure 0 and particles leave through the face.
    Open,
    /// A wall whose inner face moves liquid in.
    Inflow(Inflow),
}

/// The six faces of the domain, indexed `2·axis + hi` (x−, x+, y−, y+, z−, z+).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DomainSides(pub [Side; 6]);

/// Names of the faces, in [`DomainSides`] order (parameter suffixes and report keys).
pub const SIDE_NAMES: [&str; 6] = ["x_min", "x_max", "y_min", "y_max", "z_min", "z_max"];

impl DomainSides {
    /// The face on side `hi` of `axis`.
    #[inline]
    pub fn get(&self, axis: usize, hi: bool) -> Side {
        self.0[2 * axis + usize::from(hi)]
    }
    /// Whether the face on side `hi` of `axis` is open.
    #[inline]
    pub fn is_open(&self, axis: usize, hi: bool) -> bool {
        self.get(axis, hi) == Side::Open
    }
    /// Whether every face is a wall (the solids are those of a closed box).
    pub fn all_walls(&self) -> bool {
        self.0.iter().all(|s| *s == Side::Wall)
    }
    /// Whether any face is open.
    pub fn any_open(&self) -> bool {
        self.0.contains(&Side::Open)
    }
    /// Whether cell index `ijk` lies in the outermost layer of an open face of a grid of
    /// `dims` (`axes` axes): the layer that holds pressure 0, as the smoke's open top does.
    #[inline]
    pub fn in_open_layer(&self, ijk: [usize; 3], dims: [usize; 3], axes: usize) -> bool {
        (0..axes).any(|a| {
            (ijk[a] == 0 && self.is_open(a, false))
                || (ijk[a] + 1 == dims[a] && self.is_open(a, true))
        })
    }
    /// The faces `p` lies beyond (index into [`DomainSides`]), if it left through an open one.
    #[inline]
    pub fn left_through(&self, p: Vec3, extent: Vec3, axes: usize) -> Option<usize> {
        (0..axes).find_map(|a| {
            if p[a] < 0.0 && self.is_open(a, false) {
                Some(2 * a)
            } else if p[a] > extent[a] && self.is_open(a, true) {
                Some(2 * a + 1)
            } else {
                None
            }
        })
    }
}
