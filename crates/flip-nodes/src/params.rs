use flip_graph::{NodeError, ParamMap, ParamValue};
use glam::Vec3;

/// Typed reads of validated parameters. Validation guarantees presence and type, so a
/// mismatch here is a bug in a node's spec and reported as a node error, not a panic.
pub struct Params<'a>(pub &'a ParamMap);

impl Params<'_> {
    fn get(&self, name: &str) -> Result<&ParamValue, NodeError> {
        self.0
            .get(name)
            .ok_or_else(|| NodeError::Failed(format!("parameter `{name}` missing")))
    }
    /// A number.
    pub fn f32(&self, name: &str) -> Result<f32, NodeError> {
        self.get(name)?
            .as_f64()
            .map(|x| x as f32)
            .ok_or_else(|| NodeError::Failed(format!("parameter `{name}` is not a number")))
    }
    /// An integer.
    pub fn usize(&self, name: &str) -> Result<usize, NodeError> {
        Ok(self.f32(name)?.max(0.0) as usize)
    }
    /// A boolean.
    pub fn bool(&self, name: &str) -> Result<bool, NodeError> {
        self.get(name)?
            .as_bool()
            .ok_or_else(|| NodeError::Failed(format!("parameter `{name}` is not a boolean")))
    }
    /// A vector.
    pub fn vec3(&self, name: &str) -> Result<Vec3, NodeError> {
        self.get(name)?
            .as_vec3()
            .ok_or_else(|| NodeError::Failed(format!("parameter `{name}` is not a vector")))
    }
    /// Text.
    pub fn text(&self, name: &str) -> Result<&str, NodeError> {
        self.get(name)?
            .as_str()
            .ok_or_else(|| NodeError::Failed(format!("parameter `{name}` is not text")))
    }
}
