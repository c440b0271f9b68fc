//! The bundled demo game (assets/demo), played when `winterp` starts without a program.

use std::path::{Path, PathBuf};

const NAME: &str = "demo.exe";

/// Where the demo may be, in the order they are tried:
/// 1. next to the winterp binary (`<bindir>/demo.exe`, a portable unpacked copy);
/// 2. the installed share folder beside the binary's prefix
///    (`<bindir>/../share/winterp/demo.exe`: /usr/share/winterp from the .deb,
///    ~/.local/share/winterp from packaging/linux/install.sh);
/// 3. the source tree the binary was built from (`assets/demo/demo.exe`, so
///    `cargo run --release` plays it).
pub fn candidates(exe: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(bindir) = exe.and_then(Path::parent) {
        out.push(bindir.join(NAME));
        if let Some(prefix) = bindir.parent() {
            out.push(prefix.join("share/winterp").join(NAME));
        }
    }
    out.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets/demo")
            .join(NAME),
    );
    out
}

/// The first demo found, if any.
pub fn find() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok();
    candidates(exe.as_deref()).into_iter().find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_order_is_bindir_then_share_then_source_tree() {
        let c = candidates(Some(Path::new("/opt/x/bin/winterp")));
        assert_eq!(c[0], Path::new("/opt/x/bin/demo.exe"));
        assert_eq!(c[1], Path::new("/opt/x/share/winterp/demo.exe"));
        assert!(c[2].ends_with("assets/demo/demo.exe"), "{:?}", c[2]);
        assert_eq!(c.len(), 3);
    }
}
