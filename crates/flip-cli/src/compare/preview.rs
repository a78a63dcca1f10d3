//! Side-by-side preview images of the variants at chosen frames, labelled.

use anyhow::{anyhow, Result};
use flip_core::{GridSpec, Solids};
use flip_graph::Simulation;
use flip_nodes::kinds::{CarriedParticles, SOLIDS};
use image::RgbImage;
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
    for (name, sim) in variants {
        let panel = match sim {
            Some(sim) => {
                write_panel(&tmp, grid, sim)?;
                Some(image::open(&tmp)?.to_rgb8())
            }
            None => None,
        };
        panels.push((*name, panel));
    }
    let _ = std::fs::remove_file(&tmp);
    compose(dir, frame, &panels)
}

/// Writes one variant's panel (its particles and the probed solids) to `path`.
///
/// # Errors
/// Rendering or I/O failures.
pub fn write_panel(path: &Path, grid: &GridSpec, sim: &Simulation) -> Result<()> {
    let particles = sim.particles().unwrap_or_default();
    let solids = sim
        .probed()
        .iter()
        .flatten()
        .find_map(|v| v.shared_as(SOLIDS))
        .unwrap_or_else(|| std::sync::Arc::new(Solids::walls(*grid)));
    flip_core::export::write_png(path, grid, &particles, &solids, WIDTH).map_err(|e| anyhow!("{e}"))
}

/// Writes `preview_<frame>.png` from the variants' panels, labelled (`None`: failed).
///
/// # Errors
/// Rendering or I/O failures.
pub fn compose(dir: &Path, frame: u32, variants: &[(&str, Option<RgbImage>)]) -> Result<()> {
    let panels: Vec<_> = variants.iter().map(|(_, p)| p.as_ref()).collect();
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
        for (k, (name, panel)) in variants.iter().enumerate() {
            let label = if panel.is_some() {
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
