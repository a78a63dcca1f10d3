//! What a node reports about one evaluation, typed by the crate that defines the node.

use std::any::Any;
use std::fmt::Debug;

/// Statistics of one evaluation (a solve's iterations, a mesh's size). Node crates define a
/// struct per node family; readers get it back typed with [`StepReport::stats`].
///
/// [`StepReport::stats`]: crate::StepReport::stats
pub trait NodeStats: Any + Debug + Send + Sync {
    /// The statistics as `(name, value)` pairs, for tables and JSON.
    fn values(&self) -> Vec<(&'static str, f64)>;
}

impl dyn NodeStats {
    /// The statistics as `T`, if that is their type.
    #[must_use]
    pub fn downcast_ref<T: NodeStats>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::NodeStats;

    #[derive(Debug)]
    struct Mesh {
        triangles: usize,
    }

    impl NodeStats for Mesh {
        fn values(&self) -> Vec<(&'static str, f64)> {
            vec![("triangles", self.triangles as f64)]
        }
    }

    #[derive(Debug)]
    struct Other;

    impl NodeStats for Other {
        fn values(&self) -> Vec<(&'static str, f64)> {
            Vec::new()
        }
    }

    #[test]
    fn stats_come_back_typed() {
        let stats: Box<dyn NodeStats> = Box::new(Mesh { triangles: 12 });
        assert_eq!(stats.downcast_ref::<Mesh>().map(|m| m.triangles), Some(12));
        assert!(stats.downcast_ref::<Other>().is_none());
        assert_eq!(stats.values(), [("triangles", 12.0)]);
    }
}
