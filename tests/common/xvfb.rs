//! A private X server for the tests that drive the player in a real window: the
//! tools those tests need, an Xvfb on a display number nobody uses, and the
//! screenshots and key presses they make through it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use winterp_hostwin32::display::Frame;

/// Whether every host tool in `tools` is on the PATH (or at its absolute path).
/// A missing one fails the test when `WINTERP_REQUIRE_GUI` is set (CI installs
/// them, so absence there is a defect) and otherwise skips it with a notice.
pub fn gui_tools_present(test: &str, tools: &[&str]) -> bool {
    let missing = tools.iter().find(|t| {
        !Command::new("sh")
            .args(["-c", &format!("command -v {t}")])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    });
    match missing {
        None => true,
        Some(t) if std::env::var_os("WINTERP_REQUIRE_GUI").is_some() => {
            panic!("{test}: {t} is missing and WINTERP_REQUIRE_GUI is set")
        }
        Some(t) => {
            println!("{test}: skipped: {t} is missing (run scripts/setup.sh)");
            false
        }
    }
}

/// An Xvfb server, ended when dropped.
pub struct Xvfb {
    child: Child,
    pub display: String,
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Xvfb {
    /// Starts a 1024x768x24 server on the first free display number from `first`
    /// (suites pick different ranges so parallel test binaries do not race for one;
    /// scripts/gui-smoke.sh starts at 99) and waits until a client gets through.
    pub fn start(first: u32) -> Xvfb {
        let n = (first..first + 200)
            .find(|n| {
                !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
                    && !Path::new(&format!("/tmp/.X{n}-lock")).exists()
            })
            .expect("a free X display number");
        let display = format!(":{n}");
        // -noreset: by default Xvfb resets when its last client disconnects, and a
        // reset racing the player's connect makes the player fail to open the display.
        let child = Command::new("Xvfb")
            .args([
                &display,
                "-screen",
                "0",
                "1024x768x24",
                "-nolisten",
                "tcp",
                "-noreset",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start Xvfb");
        let server = Xvfb { child, display };
        let socket = format!("/tmp/.X11-unix/X{n}");
        let t0 = Instant::now();
        // The socket appears before the server answers.
        while !Path::new(&socket).exists() || server.xdotool(&["getdisplaygeometry"]).is_empty() {
            assert!(t0.elapsed() < Duration::from_secs(20), "Xvfb did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }

    /// `xdotool ARGS` on this display; its trimmed standard output.
    pub fn xdotool(&self, args: &[&str]) -> String {
        let out = Command::new("xdotool")
            .args(args)
            .env("DISPLAY", &self.display)
            .output()
            .expect("cannot run xdotool");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The whole screen through ImageMagick's `import`, or `None` if it failed.
    pub fn screenshot(&self, path: &Path) -> Option<Frame> {
        let ok = Command::new("import")
            .args(["-display", &self.display, "-window", "root"])
            .arg(path)
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            return None;
        }
        winterp_video::png_file::read(path).ok()
    }
}

/// A fresh `XDG_RUNTIME_DIR` under `parent` with the 0700 mode the desktop
/// libraries insist on.
pub fn runtime_dir(parent: &Path) -> PathBuf {
    let run = parent.join("run");
    std::fs::create_dir(&run).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    run
}
