//! Tooltips that keep working after a click.
//!
//! egui 0.29 hides a tooltip while the last click is more recent than the last pointer
//! *movement*, and it records movement only from a velocity estimate that needs three frames
//! within 0.1 s. Below about 20 frames per second (software GL, a busy machine) or with a
//! pointer that jumps (remote desktops, scripted input) no movement is ever recorded after
//! the first click, so no tooltip showed again for the rest of the session. [`Hint::hint`]
//! decides from pointer positions instead: a hovered widget shows its text once the pointer
//! has rested on it for the style's tooltip delay with no button down.

use egui::{Context, Id, Pos2, Response, WidgetText};

/// Pointer moves shorter than this (points) count as resting.
const REST_TOLERANCE: f32 = 0.5;

/// Where the pointer was last seen and since when it has rested there.
#[derive(Clone, Copy, Debug)]
struct PointerRest {
    pass: u64,
    pos: Option<Pos2>,
    since: f64,
}

/// Seconds the pointer has rested (not moved, no button pressed, down or released), tracked
/// once per UI pass.
fn seconds_at_rest(ctx: &Context) -> f64 {
    let pass = ctx.cumulative_pass_nr();
    let (now, pos, buttons) = ctx.input(|i| {
        let p = &i.pointer;
        (
            i.time,
            p.hover_pos(),
            p.any_down() || p.any_pressed() || p.any_released(),
        )
    });
    let id = Id::new("flipgraph.pointer_rest");
    let rest = ctx.data_mut(|d| {
        let rest = d.get_temp_mut_or_insert_with(id, || PointerRest {
            pass,
            pos,
            since: now,
        });
        if rest.pass != pass {
            let moved = match (rest.pos, pos) {
                (Some(a), Some(b)) => a.distance(b) > REST_TOLERANCE,
                (a, b) => a.is_some() != b.is_some(),
            };
            if moved || buttons {
                rest.since = now;
            }
            rest.pos = pos;
            rest.pass = pass;
        }
        *rest
    });
    now - rest.since
}

/// Whether `resp` should show its tooltip this pass (see the module notes).
pub fn tooltip_due(resp: &Response) -> bool {
    if !resp.enabled() || !resp.hovered() {
        return false;
    }
    let ctx = &resp.ctx;
    let rested = seconds_at_rest(ctx);
    if ctx.input(|i| i.pointer.any_down() || i.pointer.any_released()) {
        return false;
    }
    if resp.is_tooltip_open() {
        return true;
    }
    let delay = f64::from(ctx.style().interaction.tooltip_delay);
    if rested < delay {
        ctx.request_repaint_after_secs((delay - rested) as f32);
        return false;
    }
    true
}

/// Tooltips on responses, shown by [`tooltip_due`].
pub trait Hint: Sized {
    /// Shows `text` as this widget's tooltip when it is due.
    fn hint(self, text: impl Into<WidgetText>) -> Self;
}

impl Hint for Response {
    fn hint(self, text: impl Into<WidgetText>) -> Self {
        if tooltip_due(&self) {
            self.show_tooltip_text(text);
        }
        self
    }
}
