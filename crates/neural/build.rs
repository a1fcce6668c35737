//! Embeds an rpath to libtorch (from `LIBTORCH`, set by
//! `scripts/install-libtorch.sh`) so tests run without `LD_LIBRARY_PATH`.
fn main() {
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    if let Some(dir) = std::env::var_os("LIBTORCH") {
        let lib = std::path::Path::new(&dir).join("lib");
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
    }
}
