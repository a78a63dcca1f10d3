//! The isolated-solver child of the end-to-end tests (what `flipgraph __solver-child` is for
//! the CLI): serves one solver instance on stdin/stdout.
fn main() {
    std::process::exit(flip_host::isolation::child_main());
}
