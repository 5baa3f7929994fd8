//! With the `gpu` feature, the GPU kernel's logic
//! (src/search/join/gpu/pairs.cuh, boards.cuh, layout.cuh, cells.cuh,
//! sliced.cuh and tiles.cuh) is also compiled for the host, so that
//! the tests run on the CPU the code the GPU runs. Without it, nothing is
//! built here.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_GPU").is_none() {
        return;
    }
    println!("cargo:rerun-if-changed=src/search/join/gpu/pairs.cuh");
    println!("cargo:rerun-if-changed=src/search/join/gpu/boards.cuh");
    println!("cargo:rerun-if-changed=src/search/join/gpu/layout.cuh");
    println!("cargo:rerun-if-changed=src/search/join/gpu/cells.cuh");
    println!("cargo:rerun-if-changed=src/search/join/gpu/sliced.cuh");
    println!("cargo:rerun-if-changed=src/search/join/gpu/tiles.cuh");
    println!("cargo:rerun-if-changed=src/search/join/gpu/pairs_host.c");
    #[cfg(feature = "gpu")]
    cc::Build::new()
        .file("src/search/join/gpu/pairs_host.c")
        .include("src/search/join/gpu")
        .opt_level(3)
        .warnings(true)
        .extra_warnings(true)
        .flag_if_supported("-std=c99")
        .compile("nqueens_pairs_host");
}
