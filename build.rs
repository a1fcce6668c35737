//! With the `neural` feature, embeds an rpath to libtorch (from `LIBTORCH`,
//! set by `scripts/install-libtorch.sh`) so the binary runs without
//! `LD_LIBRARY_PATH`, and keeps libtorch_cuda linked so a GPU is found at
//! run time where there is one.
fn main() {
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    if std::env::var_os("CARGO_FEATURE_NEURAL").is_none() {
        return;
    }
    if let Some(dir) = std::env::var_os("LIBTORCH") {
        let lib = std::path::Path::new(&dir).join("lib");
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
        if lib.join("libtorch_cuda.so").exists() {
            println!("cargo:rustc-link-arg=-Wl,--no-as-needed");
            println!("cargo:rustc-link-arg=-ltorch_cuda");
            println!("cargo:rustc-link-arg=-Wl,--as-needed");
        }
    }
}
