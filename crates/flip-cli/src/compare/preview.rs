//! Side-by-side preview images of the variants at chosen frames, labelled.

use anyhow::{anyhow, Result};
use flip_core::{GridSpec, Solids};
use flip_graph::{Simulation, Value};
use plotters::prelude::*;
use std::path::Path;

const WIDTH: u32 = 360;

/// Writes `preview_<frame>.png`: one panel per variant (blank where a variant failed).
///
/// # Errors
/// Rendering or I/O failures.
pub fn side_by_side(
    dir: &Path,
    frame: u32,
    grid: &GridSpec,
    variants: &[(&str, Option<&Simulation>)],
) -> Result<()> {
    let tmp = dir.join(".preview_panel.png");
    let mut panels = Vec::new();
    for (_, sim) in variants {
        let Some(sim) = sim else {
            panels.push(None);
            continue;
        };
        let particles = sim.particles().unwrap_or_default();
        let solids = sim
            .probed()
            .iter()
            .flatten()
            .find_map(|v| match v {
                Value::Solids(s) => Some(s.clone()),
                _ => None,
            })
            .unwrap_or_else(|| std::sync::Arc::new(Solids::walls(*grid)));
        flip_core::export::write_png(&tmp, grid, &particles, &solids, WIDTH)
            .map_err(|e| anyhow!("{e}"))?;
        panels.push(Some(image::open(&tmp)?.to_rgb8()));
    }
    let _ = std::fs::remove_file(&tmp);
    let h = panels
        .iter()
        .flatten()
        .map(|p| p.height())
        .max()
        .unwrap_or(WIDTH);
    let (title, w) = (28u32, WIDTH * variants.len() as u32);
    let mut buf = vec![255u8; (w * (h + title) * 3) as usize];
    for (k, panel) in panels.iter().enumerate() {
        let Some(p) = panel else { continue };
        for (x, y, px) in p.enumerate_pixels() {
            let (gx, gy) = (k as u32 * WIDTH + x, y + title);
            if gx < w {
                let o = ((gy * w + gx) * 3) as usize;
                buf[o..o + 3].copy_from_slice(&px.0);
            }
        }
    }
    {
        let root = BitMapBackend::with_buffer(&mut buf, (w, h + title)).into_drawing_area();
        for (k, (name, sim)) in variants.iter().enumerate() {
            let label = if sim.is_some() {
                format!("{name} — frame {frame}")
            } else {
                format!("{name} — failed")
            };
            root.draw(&Text::new(
                label,
                (k as i32 * WIDTH as i32 + 8, 6),
                ("sans-serif", 18),
            ))
            .map_err(|e| anyhow!("{e}"))?;
        }
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    let path = dir.join(format!("preview_{frame:04}.png"));
    image::save_buffer(&path, &buf, w, h + title, image::ExtendedColorType::Rgb8)?;
    Ok(())
}
