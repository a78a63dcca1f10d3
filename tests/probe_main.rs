//! The probe child of the end-to-end tests (what `flipgraph __probe-plugin FILE` is for the
//! CLI): loads and describes one plugin library and prints the verdict.
fn main() {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: flipgraph-probe FILE");
        std::process::exit(2);
    };
    std::process::exit(flip_host::probe::child_main(std::path::Path::new(&path)));
}
