//! The roofline of `bench step`: each stage's least memory traffic (declared by its kind,
//! [`Traffic`]) against this machine's memory bandwidth, measured here with a parallel copy.

use flip_nodes::roles::Traffic;
use rayon::prelude::*;
use std::time::Instant;

/// The machine's memory bandwidth in bytes per second: the best of five parallel copies of
/// 128 MiB on the current thread pool, counting the bytes read and written (STREAM's copy).
pub fn measure_bandwidth() -> f64 {
    const LEN: usize = 16 << 20; // f64s: 128 MiB per array, far beyond any cache
    let src = vec![1.0f64; LEN];
    let mut dst = vec![0.0f64; LEN];
    let chunk = LEN / (4 * rayon::current_num_threads()).max(1);
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        dst.par_chunks_mut(chunk)
            .zip(src.par_chunks(chunk))
            .for_each(|(d, s)| d.copy_from_slice(s));
        best = best.min(t.elapsed().as_secs_f64());
    }
    std::hint::black_box(&dst);
    2.0 * std::mem::size_of_val(&src[..]) as f64 / best
}

/// A stage's least traffic in MB and the share of `bandwidth` (bytes/s) it reaches when it
/// takes `seconds`; dashes for a kind that declares no traffic.
pub fn cells(
    traffic: Option<Traffic>,
    particles: usize,
    grid_cells: usize,
    seconds: f64,
    bandwidth: f64,
) -> [String; 2] {
    match traffic {
        Some(t) if seconds > 0.0 => {
            let bytes = t.bytes(particles, grid_cells);
            [
                format!("{:.2}", bytes / 1e6),
                format!("{:.1}", 100.0 * bytes / seconds / bandwidth),
            ]
        }
        _ => ["–".into(), "–".into()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_at_the_measured_bandwidth_reaches_100_percent() {
        let t = Some(Traffic::new(24.0, 15.0));
        let bytes = 24.0 * 1000.0 + 15.0 * 500.0;
        let [mb, share] = cells(t, 1000, 500, bytes / 2e10, 2e10);
        assert_eq!((mb.as_str(), share.as_str()), ("0.03", "100.0"));
        let [_, half] = cells(t, 1000, 500, 2.0 * bytes / 2e10, 2e10);
        assert_eq!(half, "50.0");
        assert_eq!(cells(None, 1, 1, 1.0, 1.0), ["–", "–"]);
    }

    #[test]
    fn the_measured_bandwidth_is_plausible() {
        let b = measure_bandwidth();
        assert!(b > 1e8 && b < 1e13, "{b} bytes/s");
    }
}
