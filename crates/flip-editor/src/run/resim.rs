//! How an edit reaches the simulation: rerun from frame 0, "simulate from here" (keep the
//! frames up to the shown one and continue from the state saved after it, the nodes the edit
//! changed starting fresh, like `flipgraph run --from`), or a live edit (a parameter that is
//! safe to change mid-run applies from the newest frame on; nothing cached is dropped). Plain
//! functions over `GraphDoc`, tested without a window.

use flip_graph::{GraphDoc, NodeRegistry, Settings};

/// The user's choice of what an edit does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EditPolicy {
    /// Continue from the shown frame (`false`: rerun from frame 0).
    pub from_here: bool,
    /// Apply edits of live parameters (those the node kinds' specs name in `live_params`:
    /// they change no state's shape and no node's saved state) to the running simulation
    /// without dropping frames.
    pub live: bool,
}

impl Default for EditPolicy {
    fn default() -> Self {
        Self {
            from_here: true,
            live: false,
        }
    }
}

/// Where the simulation of an edited graph starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// From frame 0 (a fresh run).
    Zero,
    /// From the state saved after frame `frame`. The nodes the edit changed start without
    /// their saved state (see [`fresh_nodes`]), unless `live`: then every node keeps it.
    After {
        /// Frames kept (1-based frame number of the last kept frame).
        frame: u32,
        /// A live edit (live parameters only).
        live: bool,
    },
}

/// Where a run of `new` starts when `old` ran before, frames up to `shown` (a frame number,
/// 0 = none) are on screen and `newest` is the newest simulated frame; `registry` says which
/// parameters are live.
pub fn start_after_edit(
    old: Option<&GraphDoc>,
    new: &GraphDoc,
    shown: u32,
    newest: u32,
    policy: EditPolicy,
    registry: &NodeRegistry,
) -> Start {
    let Some(old) = old.filter(|o| same_run_settings(&o.settings, &new.settings)) else {
        return Start::Zero;
    };
    if policy.live && only_live_changes(old, new, registry) && newest > 0 {
        return Start::After {
            frame: newest.min(new.settings.frames),
            live: true,
        };
    }
    let frame = shown.min(new.settings.frames);
    if !policy.from_here || frame == 0 {
        return Start::Zero;
    }
    Start::After { frame, live: false }
}

/// The nodes of `new` that start without saved state when it continues from a state saved by
/// a run of `saved`: none for a live edit, else the [`changed_nodes`]. `None`: the settings
/// differ, the state does not fit `new`.
pub fn fresh_nodes(saved: &GraphDoc, new: &GraphDoc, live: bool) -> Option<Vec<String>> {
    if !same_run_settings(&saved.settings, &new.settings) {
        return None;
    }
    Some(if live {
        vec![]
    } else {
        changed_nodes(saved, new)
    })
}

/// Whether a run with `a` can continue under `b`: everything but the frame count is equal.
pub fn same_run_settings(a: &Settings, b: &Settings) -> bool {
    let mut b = b.clone();
    b.frames = a.frames;
    *a == b
}

/// Nodes of `new` that are new or whose kind or parameters differ from `old`'s.
pub fn changed_nodes(old: &GraphDoc, new: &GraphDoc) -> Vec<String> {
    new.nodes
        .iter()
        .filter(|n| {
            old.node(&n.id)
                .is_none_or(|o| o.kind != n.kind || o.params != n.params)
        })
        .map(|n| n.id.clone())
        .collect()
}

/// Whether `new` differs from `old` only in the values of live parameters (those the kinds'
/// specs in `registry` name in `live_params`) and the frame count.
pub fn only_live_changes(old: &GraphDoc, new: &GraphDoc, registry: &NodeRegistry) -> bool {
    let live =
        |kind: &str, param: &str| (registry.get(kind)).is_some_and(|k| k.spec.is_live_param(param));
    let same_shape = old.edges == new.edges
        && old.nodes.len() == new.nodes.len()
        && old
            .nodes
            .iter()
            .zip(&new.nodes)
            .all(|(a, b)| a.id == b.id && a.kind == b.kind && a.bypass == b.bypass);
    same_shape
        && old.nodes.iter().zip(&new.nodes).all(|(a, b)| {
            let keys = a.params.keys().chain(b.params.keys());
            keys.filter(|k| a.params.get(*k) != b.params.get(*k))
                .all(|k| live(&a.kind, k))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use flip_graph::ParamValue;

    fn scene() -> GraphDoc {
        let text = include_str!("../../../../graphs/dam_break_2d.ron");
        GraphDoc::from_ron(text, "dam_break_2d.ron").unwrap()
    }

    fn registry() -> NodeRegistry {
        flip_nodes::builtin_registry(Default::default())
    }

    fn set(doc: &mut GraphDoc, node: &str, param: &str, v: ParamValue) {
        let n = doc.nodes.iter_mut().find(|n| n.id == node).unwrap();
        n.params.insert(param.into(), v);
    }

    const HERE: EditPolicy = EditPolicy {
        from_here: true,
        live: false,
    };

    #[test]
    fn an_edit_continues_from_the_shown_frame_with_the_edited_node_fresh() {
        let (old, reg) = (scene(), registry());
        let mut new = old.clone();
        set(&mut new, "g2p", "flip_ratio", ParamValue::Number(0.5));
        let start = start_after_edit(Some(&old), &new, 12, 30, HERE, &reg);
        assert_eq!(
            start,
            Start::After {
                frame: 12,
                live: false
            }
        );
        assert_eq!(
            fresh_nodes(&old, &new, false),
            Some(vec!["g2p".to_string()])
        );
        // nothing shown yet, or the user chose "from frame 0"
        assert_eq!(
            start_after_edit(Some(&old), &new, 0, 30, HERE, &reg),
            Start::Zero
        );
        let restart = EditPolicy {
            from_here: false,
            live: false,
        };
        assert_eq!(
            start_after_edit(Some(&old), &new, 12, 30, restart, &reg),
            Start::Zero
        );
    }

    #[test]
    fn settings_other_than_the_frame_count_rerun_from_zero() {
        let (old, reg) = (scene(), registry());
        let mut new = old.clone();
        new.settings.grid[0] += 8;
        assert_eq!(
            start_after_edit(Some(&old), &new, 12, 30, HERE, &reg),
            Start::Zero
        );
        let mut longer = old.clone();
        longer.settings.frames += 50;
        let start = start_after_edit(Some(&old), &longer, 12, 30, HERE, &reg);
        assert_eq!(
            start,
            Start::After {
                frame: 12,
                live: false
            }
        );
        assert_eq!(fresh_nodes(&old, &longer, false), Some(vec![]));
        assert_eq!(fresh_nodes(&old, &new, false), None);
    }

    #[test]
    fn live_edits_keep_every_frame_and_every_node_state() {
        let (old, reg) = (scene(), registry());
        let live = EditPolicy {
            from_here: true,
            live: true,
        };
        let mut new = old.clone();
        set(
            &mut new,
            "gravity",
            "gravity",
            ParamValue::Vector(vec![0.0, -3.0, 0.0]),
        );
        let start = start_after_edit(Some(&old), &new, 5, 30, live, &reg);
        assert_eq!(
            start,
            Start::After {
                frame: 30,
                live: true
            }
        );
        assert_eq!(fresh_nodes(&old, &new, true), Some(vec![]));
        // a parameter that is not live-safe forks at the shown frame instead
        let mut unsafe_edit = new.clone();
        set(
            &mut unsafe_edit,
            "g2p",
            "transfer",
            ParamValue::Text("apic".into()),
        );
        assert!(!only_live_changes(&old, &unsafe_edit, &reg));
        let start = start_after_edit(Some(&old), &unsafe_edit, 5, 30, live, &reg);
        assert_eq!(
            start,
            Start::After {
                frame: 5,
                live: false
            }
        );
        let fresh = vec!["gravity".to_string(), "g2p".to_string()];
        assert_eq!(fresh_nodes(&old, &unsafe_edit, false), Some(fresh));
    }
}
