//! The `keyframes` parameter of moving solids: `FRAME: x y z [/ rx ry rz]; …`, the pivot's
//! position (m) and, optionally, a rotation from rest (degrees, XYZ Euler angles) at that
//! frame. Positions are interpolated linearly, rotations by slerp (the shorter way, so keys
//! of one spin must be less than 180° apart).

use flip_core::solids::{Keyframe, Motion};
use flip_graph::NodeError;
use glam::{EulerRot, Quat, Vec3};

/// Parses `text` (empty = no motion) with frames at `fps`; `is_2d` allows rotations about z
/// only.
pub(crate) fn parse(text: &str, fps: f32, is_2d: bool) -> Result<Option<Motion>, NodeError> {
    let entries: Vec<&str> = text
        .split(';')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .collect();
    if entries.is_empty() {
        return Ok(None);
    }
    let keys = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            parse_key(e, fps, is_2d).map_err(|m| {
                let shown = flip_abi::text::sanitize(e);
                NodeError::param("keyframes", format!("key {} (`{shown}`): {m}", i + 1))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Motion::new(keys)
        .map(Some)
        .map_err(|e| NodeError::param("keyframes", e.to_string()))
}

fn parse_key(entry: &str, fps: f32, is_2d: bool) -> Result<Keyframe, String> {
    let (frame, rest) = entry
        .split_once(':')
        .ok_or("expected `FRAME: x y z [/ rx ry rz]`")?;
    let frame: f64 = frame
        .trim()
        .parse()
        .map_err(|_| format!("`{}` is not a frame number", frame.trim()))?;
    let (pos, rot) = match rest.split_once('/') {
        Some((p, r)) => (p, Some(r)),
        None => (rest, None),
    };
    let position = triple(pos, "position")?;
    let degrees = rot.map(|r| triple(r, "rotation")).transpose()?;
    let degrees = degrees.unwrap_or(Vec3::ZERO);
    if is_2d && (degrees.x != 0.0 || degrees.y != 0.0) {
        return Err("a 2D graph rotates about z only (rx and ry must be 0)".into());
    }
    Ok(Keyframe {
        time: frame / f64::from(fps),
        position,
        rotation: euler_degrees(degrees),
    })
}

/// A rotation from XYZ Euler angles in degrees.
pub(crate) fn euler_degrees(d: Vec3) -> Quat {
    Quat::from_euler(
        EulerRot::XYZ,
        d.x.to_radians(),
        d.y.to_radians(),
        d.z.to_radians(),
    )
}

fn triple(text: &str, what: &str) -> Result<Vec3, String> {
    let v: Vec<f32> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<f32>()
                .map_err(|_| format!("`{s}` is not a number"))
        })
        .collect::<Result<_, _>>()?;
    match v[..] {
        [x, y, z] if v.iter().all(|x| x.is_finite()) => Ok(Vec3::new(x, y, z)),
        _ => Err(format!("the {what} needs three finite numbers")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_positions_and_rotations_at_the_frame_rate() {
        let m = parse("0: 0.5 0.5 0; 24: 0.5, 0.5, 0 / 0 0 90", 24.0, true)
            .unwrap()
            .unwrap();
        assert_eq!(m.keys().len(), 2);
        assert_eq!(m.keys()[1].time, 1.0);
        let angle = m.keys()[1].rotation.to_axis_angle().1.to_degrees();
        assert!((angle - 90.0).abs() < 1e-4);
        assert!(parse("  ", 24.0, true).unwrap().is_none());
    }

    #[test]
    fn errors_name_the_key_and_the_problem() {
        let e = parse("0: 0.5 0.5 0; 12: 0.5 x 0", 24.0, false).unwrap_err();
        assert!(
            e.to_string().contains("key 2") && e.to_string().contains("`x`"),
            "{e}"
        );
        let e = parse("0: 1 1 1 / 10 0 0", 24.0, true).unwrap_err();
        assert!(e.to_string().contains("about z only"), "{e}");
        let e = parse("5: 1 1 1; 2: 1 1 1", 24.0, false).unwrap_err();
        assert!(e.to_string().contains("not later"), "{e}");
    }
}
