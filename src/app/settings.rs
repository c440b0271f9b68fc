//! The player's settings: recent programs and per-program options, kept as TOML in
//! the user's config folder (`$WINTERP_CONFIG_DIR` overrides it, for tests).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use winterp_hostwin32::process::WinVersion;

/// How many programs File > Recent remembers.
pub const MAX_RECENT: usize = 10;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Most recent first, host paths.
    pub recent: Vec<PathBuf>,
    /// Keyed by the program's canonical host path.
    pub programs: BTreeMap<String, ProgramSettings>,
    /// The debug overlay was open when the player last closed.
    pub show_debug: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProgramSettings {
    pub scale: Scale,
    pub winver: WinVer,
    /// Run all guest threads on one host thread with instruction-driven clocks.
    pub deterministic: bool,
    /// Keys the player presses for pad input, for games that read only the keyboard.
    pub pad_keys: PadKeys,
}

/// The pad-to-key mapping of one program (`[programs."...".pad_keys]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PadKeys {
    /// Pad input also presses keys (the guest still sees the pads).
    pub enabled: bool,
    /// The d-pad and the left stick press the arrow keys.
    pub arrows: bool,
    /// Pad button (A, B, X, Y, LB, RB, SELECT, START, LS, RS) to the key it presses,
    /// by its `VK_` name without the prefix (SPACE, CONTROL, RETURN, ...).
    pub buttons: BTreeMap<String, String>,
}

impl Default for PadKeys {
    fn default() -> Self {
        PadKeys {
            enabled: false,
            arrows: true,
            buttons: [("A", "SPACE"), ("B", "CONTROL"), ("START", "RETURN")]
                .into_iter()
                .map(|(b, k)| (b.to_string(), k.to_string()))
                .collect(),
        }
    }
}

impl Default for ProgramSettings {
    fn default() -> Self {
        ProgramSettings {
            scale: Scale::Integer,
            winver: WinVer::Win98,
            deterministic: false,
            pad_keys: PadKeys::default(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    #[default]
    Integer,
    Aspect,
}

impl From<Scale> for winterp_video::scale::ScaleMode {
    fn from(s: Scale) -> Self {
        match s {
            Scale::Integer => winterp_video::scale::ScaleMode::Integer,
            Scale::Aspect => winterp_video::scale::ScaleMode::Aspect,
        }
    }
}

/// The Windows version the program is told it runs on (the `--winver` names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WinVer {
    #[serde(rename = "95")]
    Win95,
    #[serde(rename = "98")]
    Win98,
    #[serde(rename = "me")]
    WinMe,
    #[serde(rename = "nt4")]
    Nt4,
    #[serde(rename = "2000")]
    Win2000,
    #[serde(rename = "xp")]
    WinXp,
}

impl WinVer {
    pub const ALL: [WinVer; 6] = [
        WinVer::Win95,
        WinVer::Win98,
        WinVer::WinMe,
        WinVer::Nt4,
        WinVer::Win2000,
        WinVer::WinXp,
    ];

    pub fn label(self) -> &'static str {
        match self {
            WinVer::Win95 => "Windows 95",
            WinVer::Win98 => "Windows 98",
            WinVer::WinMe => "Windows Me",
            WinVer::Nt4 => "Windows NT 4.0",
            WinVer::Win2000 => "Windows 2000",
            WinVer::WinXp => "Windows XP",
        }
    }
}

impl From<WinVer> for WinVersion {
    fn from(v: WinVer) -> WinVersion {
        match v {
            WinVer::Win95 => WinVersion::Win95,
            WinVer::Win98 => WinVersion::Win98,
            WinVer::WinMe => WinVersion::WinMe,
            WinVer::Nt4 => WinVersion::Nt4,
            WinVer::Win2000 => WinVersion::Win2000,
            WinVer::WinXp => WinVersion::WinXp,
        }
    }
}

impl From<crate::headless::WinVer> for WinVer {
    fn from(v: crate::headless::WinVer) -> WinVer {
        use crate::headless::WinVer as H;
        match v {
            H::Win95 => WinVer::Win95,
            H::Win98 => WinVer::Win98,
            H::WinMe => WinVer::WinMe,
            H::Nt4 => WinVer::Nt4,
            H::Win2000 => WinVer::Win2000,
            H::WinXp => WinVer::WinXp,
        }
    }
}

impl Settings {
    /// The settings file: `$WINTERP_CONFIG_DIR/settings.toml`, else the user's
    /// config folder. `None` when the system has no home folder.
    pub fn path() -> Option<PathBuf> {
        let dir = match std::env::var_os("WINTERP_CONFIG_DIR") {
            Some(d) => PathBuf::from(d),
            None => directories::ProjectDirs::from("", "", "winterp")?
                .config_dir()
                .to_path_buf(),
        };
        Some(dir.join("settings.toml"))
    }

    /// Reads `path`; a missing file is the defaults, a damaged one an error (the
    /// player then starts from defaults and says so, rather than overwrite it
    /// silently before the user saw the message).
    pub fn load(path: &Path) -> Result<Settings, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => Settings::from_toml(&text)
                .map_err(|e| format!("{} is not valid settings: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    pub fn from_toml(text: &str) -> Result<Settings, toml::de::Error> {
        toml::from_str(text)
    }

    pub fn to_toml(&self) -> String {
        // Plain data (strings, bools, maps with string keys) always serialises.
        toml::to_string_pretty(self).unwrap_or_default()
    }

    /// Writes `text` to `path` through a temporary file, so a crash mid-write never
    /// leaves half a settings file.
    pub fn write(path: &Path, text: &str) -> Result<(), String> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let tmp = path.with_extension("toml.tmp");
        std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// Moves `program` to the front of the recent list.
    pub fn note_recent(&mut self, program: &Path) {
        self.recent.retain(|p| p != program);
        self.recent.insert(0, program.to_path_buf());
        self.recent.truncate(MAX_RECENT);
    }

    pub fn program(&self, program: &Path) -> ProgramSettings {
        self.programs
            .get(&key(program))
            .cloned()
            .unwrap_or_default()
    }

    pub fn set_program(&mut self, program: &Path, s: ProgramSettings) {
        self.programs.insert(key(program), s);
    }
}

fn key(program: &Path) -> String {
    program.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_survive_a_toml_round_trip() {
        let mut s = Settings::default();
        s.note_recent(Path::new("/games/a/GAME.EXE"));
        s.note_recent(Path::new("/games/b b/Other \"quoted\".exe"));
        s.set_program(
            Path::new("/games/b b/Other \"quoted\".exe"),
            ProgramSettings {
                scale: Scale::Aspect,
                winver: WinVer::WinXp,
                deterministic: true,
                pad_keys: PadKeys {
                    enabled: true,
                    arrows: false,
                    buttons: [("X".to_string(), "Z".to_string())].into_iter().collect(),
                },
            },
        );
        s.show_debug = true;
        let text = s.to_toml();
        let back = Settings::from_toml(&text).unwrap();
        assert_eq!(back, s);
        assert_eq!(
            back.program(Path::new("/games/b b/Other \"quoted\".exe"))
                .winver,
            WinVer::WinXp
        );
        // Programs never configured get the defaults.
        assert_eq!(
            back.program(Path::new("/x.exe")),
            ProgramSettings::default()
        );
    }

    #[test]
    fn the_file_format_is_readable_toml() {
        let text = r#"
recent = ["/g/A.EXE"]

[programs."/g/A.EXE"]
scale = "aspect"
winver = "nt4"
deterministic = true
"#;
        let s = Settings::from_toml(text).unwrap();
        assert_eq!(s.recent, vec![PathBuf::from("/g/A.EXE")]);
        let p = s.program(Path::new("/g/A.EXE"));
        assert_eq!(
            (p.scale, p.winver, p.deterministic),
            (Scale::Aspect, WinVer::Nt4, true)
        );
        // Missing fields take their defaults; unknown values are errors.
        let s = Settings::from_toml("[programs.\"/x\"]\nscale = \"aspect\"\n").unwrap();
        assert_eq!(s.program(Path::new("/x")).winver, WinVer::Win98);
        assert!(Settings::from_toml("[programs.\"/x\"]\nwinver = \"3.11\"\n").is_err());
    }

    #[test]
    fn pad_key_mappings_read_from_toml() {
        let text = r#"
[programs."/g/A.EXE".pad_keys]
enabled = true
buttons = { A = "SPACE", START = "RETURN", Y = "ESCAPE" }
"#;
        let s = Settings::from_toml(text).unwrap();
        let m = s.program(Path::new("/g/A.EXE")).pad_keys;
        assert!(m.enabled);
        // Not given: the default (arrows on).
        assert!(m.arrows);
        assert_eq!(m.buttons.get("Y").map(String::as_str), Some("ESCAPE"));
        assert_eq!(m.buttons.get("B"), None);
        // A program without a mapping has it off, with the default keys ready.
        let d = s.program(Path::new("/other.exe")).pad_keys;
        assert!(!d.enabled);
        assert_eq!(d.buttons.get("START").map(String::as_str), Some("RETURN"));
    }

    #[test]
    fn recent_list_is_most_recent_first_without_duplicates() {
        let mut s = Settings::default();
        for i in 0..(MAX_RECENT + 3) {
            s.note_recent(Path::new(&format!("/p{i}.exe")));
        }
        s.note_recent(Path::new("/p5.exe"));
        assert_eq!(s.recent.len(), MAX_RECENT);
        assert_eq!(s.recent[0], PathBuf::from("/p5.exe"));
        assert_eq!(
            s.recent[1],
            PathBuf::from(format!("/p{}.exe", MAX_RECENT + 2))
        );
        assert_eq!(s.recent.iter().filter(|p| p.ends_with("p5.exe")).count(), 1);
    }

    #[test]
    fn load_and_write_use_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("settings.toml");
        assert_eq!(Settings::load(&path).unwrap(), Settings::default());
        let mut s = Settings::default();
        s.note_recent(Path::new("/z.exe"));
        Settings::write(&path, &s.to_toml()).unwrap();
        assert_eq!(Settings::load(&path).unwrap(), s);
        std::fs::write(&path, "recent = 5").unwrap();
        assert!(
            Settings::load(&path)
                .unwrap_err()
                .contains("not valid settings")
        );
    }
}
