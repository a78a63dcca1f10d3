use crate::grid::Grid3;

/// What a grid cell holds. Values match the plugin ABI's `CELL_*` constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum CellKind {
    /// Liquid: a pressure unknown.
    Fluid = 0,
    /// Air: pressure 0.
    #[default]
    Air = 1,
    /// Solid: no unknown, Neumann faces.
    Solid = 2,
}

/// Cell kinds on the cell-centred grid.
pub type CellGrid = Grid3<CellKind>;

impl CellKind {
    /// Whether this is liquid.
    #[inline]
    pub fn is_fluid(self) -> bool {
        self == CellKind::Fluid
    }
    /// Whether this is solid.
    #[inline]
    pub fn is_solid(self) -> bool {
        self == CellKind::Solid
    }
}
