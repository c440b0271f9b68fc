//! The Linux install script, run for a throw-away user: `packaging/linux/test-install.sh`
//! installs the freshly built binary, desktop entry and icons under a temporary HOME
//! and checks that `xdg-mime query default application/x-ms-dos-executable` (and the
//! other Windows executable types) answer `winterp.desktop`.
//!
//! Needs xdg-utils (`scripts/setup.sh` installs it); skips with a notice without it,
//! unless `WINTERP_REQUIRE_GUI` is set (CI).

use std::path::Path;
use std::process::Command;

#[test]
fn install_script_makes_winterp_the_default_for_windows_executables() {
    let has_xdg_mime = Command::new("sh")
        .args(["-c", "command -v xdg-mime"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !has_xdg_mime {
        if std::env::var_os("WINTERP_REQUIRE_GUI").is_some() {
            panic!("packaging: xdg-mime is missing and WINTERP_REQUIRE_GUI is set");
        }
        println!("packaging: skipped: xdg-mime is missing (run scripts/setup.sh)");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(root.join("packaging/linux/test-install.sh"))
        .arg(env!("CARGO_BIN_EXE_winterp"))
        .output()
        .expect("cannot run packaging/linux/test-install.sh");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{}", log.trim_end());
    assert!(out.status.success(), "test-install.sh failed:\n{log}");
    assert!(
        log.contains("winterp.desktop"),
        "test-install.sh did not report the association:\n{log}"
    );
}
