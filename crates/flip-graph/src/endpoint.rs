//! An end of an edge, or a group's exposed port: `node.port` as written in a graph file, parsed
//! once here. A malformed end (no dot, an empty side) still loads, so that validation can name
//! it among the graph's other problems; [`Endpoint::is_well_formed`] tells it apart.

use serde::{Deserialize, Serialize};
use std::fmt;

/// `node.port`: a node id and one of its port names.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub struct Endpoint {
    /// The node id (the whole text when it has no dot).
    pub node: String,
    /// The port name (empty when the text has no dot).
    pub port: String,
}

impl Endpoint {
    /// The end `node.port`.
    pub fn new(node: impl Into<String>, port: impl Into<String>) -> Self {
        Self {
            node: node.into(),
            port: port.into(),
        }
    }

    /// Parses `node.port` (split at the first dot).
    pub fn parse(text: &str) -> Self {
        match split_dotted(text) {
            Some((node, port)) => Self::new(node, port),
            None => Self::new(text, ""),
        }
    }

    /// Whether both the node and the port are named.
    pub fn is_well_formed(&self) -> bool {
        !self.node.is_empty() && !self.port.is_empty()
    }
}

/// `node.name` split at its first dot: the one parser of the graph's dotted names (edge ends,
/// exposed ports, override targets).
pub(crate) fn split_dotted(text: &str) -> Option<(&str, &str)> {
    text.split_once('.')
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.port.is_empty() {
            f.write_str(&self.node)
        } else {
            write!(f, "{}.{}", self.node, self.port)
        }
    }
}

impl From<&str> for Endpoint {
    fn from(text: &str) -> Self {
        Self::parse(text)
    }
}

impl From<String> for Endpoint {
    fn from(text: String) -> Self {
        Self::parse(&text)
    }
}

impl From<Endpoint> for String {
    fn from(end: Endpoint) -> Self {
        end.to_string()
    }
}

impl PartialEq<str> for Endpoint {
    fn eq(&self, text: &str) -> bool {
        *self == Self::parse(text)
    }
}

impl PartialEq<&str> for Endpoint {
    fn eq(&self, text: &&str) -> bool {
        *self == Self::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_at_the_first_dot_and_prints_what_it_read() {
        let e = Endpoint::parse("p2g.velocity");
        assert_eq!((e.node.as_str(), e.port.as_str()), ("p2g", "velocity"));
        assert!(e.is_well_formed());
        for text in ["p2g.velocity", "a.b.c", "p2g", ".x"] {
            assert_eq!(Endpoint::parse(text).to_string(), text);
        }
        assert!(!Endpoint::parse("p2g").is_well_formed());
        assert!(!Endpoint::parse(".x").is_well_formed());
        assert_eq!(Endpoint::parse("a.b.c").port, "b.c");
    }

    #[test]
    fn travels_through_ron_as_the_text_of_the_file() {
        let e: Endpoint = ron::from_str("\"marker.cells\"").unwrap();
        assert_eq!(e, Endpoint::new("marker", "cells"));
        assert_eq!(ron::to_string(&e).unwrap(), "\"marker.cells\"");
    }
}
