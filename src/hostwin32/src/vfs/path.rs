//! Guest path syntax: parsing, normalisation (GetFullPathName rules), case folding,
//! component validation and DOS device names. Pure string work; nothing here touches
//! the host file system.

use super::error::VfsError;

/// MAX_PATH: the ANSI file APIs refuse longer paths (the terminating NUL counts).
pub const MAX_PATH: usize = 260;
/// The longest single name FAT32/NTFS accept.
const MAX_COMPONENT: usize = 255;

/// A DOS device. `\\.\NAME`, a bare `NAME`, or `NAME` with any extension in any
/// directory (`C:\SAVE\NUL.TXT`) all open the device, as on Windows 9x/NT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    Con,
    /// `CONIN$`: the console input buffer.
    ConIn,
    /// `CONOUT$`: the console screen buffer.
    ConOut,
    Nul,
    Prn,
    Aux,
    /// COM1..COM9.
    Com(u8),
    /// LPT1..LPT9.
    Lpt(u8),
}

impl Device {
    /// The device's canonical name, as GetFullPathName reports it after `\\.\`.
    pub fn name(self) -> String {
        match self {
            Device::Con => "CON".into(),
            Device::ConIn => "CONIN$".into(),
            Device::ConOut => "CONOUT$".into(),
            Device::Nul => "NUL".into(),
            Device::Prn => "PRN".into(),
            Device::Aux => "AUX".into(),
            Device::Com(n) => format!("COM{n}"),
            Device::Lpt(n) => format!("LPT{n}"),
        }
    }
}

/// An absolute, normalised guest path: drive letter plus components with `.`/`..`
/// resolved and trailing dots and spaces stripped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuestPath {
    /// Upper-case drive letter.
    pub drive: char,
    pub comps: Vec<String>,
    /// The input ended in a separator (`C:\DIR\`); GetFullPathName keeps it, and it
    /// makes a name usable only as a directory.
    pub trailing_sep: bool,
}

impl GuestPath {
    pub fn root(drive: char) -> GuestPath {
        GuestPath {
            drive,
            comps: Vec::new(),
            trailing_sep: false,
        }
    }

    /// `C:\A\B` (with a trailing `\` if the input had one); the root is `C:\`.
    pub fn display(&self) -> String {
        let mut s = format!("{}:\\", self.drive);
        s.push_str(&self.comps.join("\\"));
        if self.trailing_sep && !self.comps.is_empty() {
            s.push('\\');
        }
        s
    }

    /// Case-folded components joined with `\`, without the drive: the key of the
    /// whiteout and attribute tables ("" is the root).
    pub fn key(&self) -> String {
        key_of(&self.comps)
    }

    pub fn without_trailing_sep(mut self) -> GuestPath {
        self.trailing_sep = false;
        self
    }
}

/// The key of a component list (see [`GuestPath::key`]).
pub fn key_of(comps: &[String]) -> String {
    let folded: Vec<String> = comps.iter().map(|c| fold(c)).collect();
    folded.join("\\")
}

/// What a guest path string names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    Device(Device),
    Path(GuestPath),
}

/// A FindFirstFile argument: the directory to search and the (unstripped-dot
/// aware) name pattern in its last component.
#[derive(Clone, Debug)]
pub struct ParsedPattern {
    pub dir: GuestPath,
    /// The last component after normalisation; `None` when the argument names a
    /// directory only (`C:\`, `C:\DIR\`), which FindFirstFile rejects.
    pub pattern: Option<String>,
    /// The raw last component ended in `.`: FindFirstFile turns a final `*` into
    /// DOS_STAR in that case, so `*.` means "names without an extension".
    pub ends_in_dot: bool,
}

/// Upper-cases one character the way the case-insensitive lookup compares names.
/// Characters whose upper case is more than one character (`ß`) stay as they are,
/// as in Windows' one-to-one upcase table.
pub fn upcase(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_uppercase();
    }
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

/// Case-folds a name for comparison.
pub fn fold(s: &str) -> String {
    s.chars().map(upcase).collect()
}

/// Characters no Win32 file name may contain (besides the separators and control
/// characters). `*` and `?` are wildcards and are allowed in FindFirstFile patterns.
fn is_forbidden(c: char) -> bool {
    matches!(c, '<' | '>' | ':' | '"' | '|' | '*' | '?' | '/' | '\\') || (c as u32) < 0x20
}

/// The device a file name refers to, if any: the part before the first dot, with
/// trailing spaces removed, compared case-insensitively.
pub fn device_name(name: &str) -> Option<Device> {
    let base = name.split('.').next().unwrap_or("");
    let base = fold(base.trim_end_matches(' '));
    match base.as_str() {
        "CON" => Some(Device::Con),
        "NUL" => Some(Device::Nul),
        "PRN" => Some(Device::Prn),
        "AUX" => Some(Device::Aux),
        _ => {
            let digit = |prefix: &str| {
                base.strip_prefix(prefix)
                    .filter(|d| d.len() == 1)
                    .and_then(|d| d.parse::<u8>().ok())
                    .filter(|&n| n >= 1)
            };
            digit("COM")
                .map(Device::Com)
                .or_else(|| digit("LPT").map(Device::Lpt))
        }
    }
}

/// Whether a host directory entry's name can be seen and named by the guest at all.
/// Names the guest could never spell (forbidden characters, trailing dots or spaces,
/// device names) are left out of listings so a listing never offers a name that
/// then fails to open.
pub fn is_guest_visible_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name.chars().count() <= MAX_COMPONENT
        && !name.chars().any(is_forbidden)
        && !name.ends_with(['.', ' '])
        && device_name(name).is_none()
}

/// Validates and strips one path component. `wildcards` allows `*` and `?`.
fn component(raw: &str, wildcards: bool) -> Result<String, VfsError> {
    // Win32 drops trailing dots and spaces from names (FAT never stores them), so
    // `SAVE.` and `SAVE ` both name `SAVE`.
    let name = raw.trim_end_matches(['.', ' ']);
    if name.is_empty() {
        return Err(VfsError::InvalidName(raw.to_string()));
    }
    if name.chars().count() > MAX_COMPONENT {
        return Err(VfsError::FilenameTooLong(raw.to_string()));
    }
    let bad = |c: char| is_forbidden(c) && !(wildcards && (c == '*' || c == '?'));
    if name.chars().any(bad) {
        return Err(VfsError::InvalidName(raw.to_string()));
    }
    Ok(name.to_string())
}

/// The pieces of a path string shared by [`parse`] and [`parse_pattern`].
struct Split {
    drive: char,
    comps: Vec<String>,
    trailing_sep: bool,
    ends_in_dot: bool,
    /// The last component came from the input (not from the current directory and
    /// not removed by `..`), so it may be a pattern or a device name.
    last_from_input: bool,
}

/// `\\.\PhysicalDriveN`, `\\.\X:` and `\\?\X:` name raw disks and volumes.
/// The guest's drive and its one disk exist, but opening them needs administrator
/// rights, which a sandboxed program never has; other disks and volumes do not
/// exist. `None` if `name` is not a disk or volume name.
fn raw_disk(name: &str, drive: char, input: &str) -> Option<VfsError> {
    let b = name.as_bytes();
    let volume = (b.len() == 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
        .then(|| b[0].to_ascii_uppercase() as char);
    let disk = name
        .get(..13)
        .filter(|p| p.eq_ignore_ascii_case("PhysicalDrive"))
        .and_then(|_| name[13..].parse::<u32>().ok())
        .filter(|_| name[13..].bytes().all(|c| c.is_ascii_digit()));
    let exists = match (volume, disk) {
        (Some(v), _) => v == drive,
        (None, Some(n)) => n == 0,
        (None, None) => return None,
    };
    Some(if exists {
        VfsError::AccessDenied(input.to_string())
    } else {
        VfsError::FileNotFound(input.to_string())
    })
}

/// A `\\?\` path ("Naming Files, Paths, and Namespaces"): handed to the file
/// system as written, with no `/` conversion, no `.`/`..` resolution and no
/// stripping of trailing dots and spaces. So `.` and `..` components are names
/// no file system accepts (ERROR_INVALID_NAME), as are the names the sandbox
/// cannot hold — trailing dots or spaces, DOS device names — which only this
/// prefix could create. `\\?\UNC\` is the network; other object-manager paths
/// (`\\?\GLOBALROOT`, `\\?\Volume{...}`) are outside the sandbox.
fn verbatim(
    input: &str,
    rest: &str,
    cwd: &GuestPath,
    pattern: bool,
) -> Result<Result<Split, Device>, VfsError> {
    let invalid = || VfsError::InvalidName(input.to_string());
    if rest
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case("UNC\\"))
    {
        return Err(VfsError::BadNetPath(input.to_string()));
    }
    let b = rest.as_bytes();
    if b.len() < 2 || !b[0].is_ascii_alphabetic() || b[1] != b':' {
        return Err(invalid());
    }
    let drive = b[0].to_ascii_uppercase() as char;
    if rest.len() == 2 {
        if pattern {
            return Err(VfsError::FileNotFound(input.to_string()));
        }
        return Err(raw_disk(&rest[..2], cwd.drive, input).unwrap_or_else(invalid));
    }
    // No current directory applies: `\\?\C:x` is not a path.
    let path = rest[2..].strip_prefix('\\').ok_or_else(invalid)?;
    let trailing_sep = path.ends_with('\\');
    let path = path.strip_suffix('\\').unwrap_or(path);
    let mut comps = Vec::new();
    if !path.is_empty() {
        let pieces: Vec<&str> = path.split('\\').collect();
        for (i, piece) in pieces.iter().enumerate() {
            let is_last = i + 1 == pieces.len();
            let wildcards = pattern && is_last && !trailing_sep;
            if piece.is_empty()
                || piece.ends_with(['.', ' '])
                || (!wildcards && device_name(piece).is_some())
            {
                return Err(invalid());
            }
            comps.push(component(piece, wildcards)?);
        }
    }
    Ok(Ok(Split {
        drive,
        trailing_sep: trailing_sep && !comps.is_empty(),
        last_from_input: !comps.is_empty(),
        comps,
        ends_in_dot: false,
    }))
}

fn split(input: &str, cwd: &GuestPath, pattern: bool) -> Result<Result<Split, Device>, VfsError> {
    if input.is_empty() {
        return Err(VfsError::PathNotFound(String::new()));
    }
    if input.chars().count() >= MAX_PATH {
        return Err(VfsError::FilenameTooLong(input.to_string()));
    }
    if input.chars().any(|c| (c as u32) < 0x20) {
        return Err(VfsError::InvalidName(input.to_string()));
    }
    if let Some(rest) = input.strip_prefix("\\\\?\\") {
        return verbatim(input, rest, cwd, pattern);
    }
    let s: String = input
        .chars()
        .map(|c| if c == '/' { '\\' } else { c })
        .collect();
    if !pattern && (s.eq_ignore_ascii_case("CONIN$") || s.eq_ignore_ascii_case("CONOUT$")) {
        let dev = if s.eq_ignore_ascii_case("CONIN$") {
            Device::ConIn
        } else {
            Device::ConOut
        };
        return Ok(Err(dev));
    }
    if let Some(rest) = s.strip_prefix("\\\\") {
        // `//?/` is not the verbatim prefix (only `\\?\` is, above): Win32 would
        // normalise it as a device path, which the sandbox does not offer.
        if rest.starts_with("?\\") || rest == "?" {
            return Err(VfsError::InvalidName(input.to_string()));
        }
        if let Some(name) = rest.strip_prefix(".\\") {
            // `\\.\` opens devices and drivers. The DOS devices exist, and raw
            // disks exist but are refused; anything else (a debugger probe like
            // `\\.\SICE`) does not, which is what programs probing for it expect.
            if !pattern && !name.contains(['\\', '.']) {
                if let Some(dev) = device_name(name) {
                    return Ok(Err(dev));
                }
                if let Some(e) = raw_disk(name, cwd.drive, input) {
                    return Err(e);
                }
            }
            return Err(VfsError::FileNotFound(input.to_string()));
        }
        // UNC: there is no network.
        return Err(VfsError::BadNetPath(input.to_string()));
    }
    if s.starts_with("\\??\\") {
        // The NT object namespace is not reachable from Win32 paths.
        return Err(VfsError::InvalidName(input.to_string()));
    }

    let bytes = s.as_bytes();
    let (drive, rest) = if bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic() {
        (bytes[0].to_ascii_uppercase() as char, &s[2..])
    } else {
        (cwd.drive, s.as_str())
    };
    let absolute = rest.starts_with('\\');
    let mut comps: Vec<String> = if absolute {
        Vec::new()
    } else if drive == cwd.drive {
        cwd.comps.clone()
    } else {
        // A drive-relative path on another drive: Windows falls back to that
        // drive's root when it has no remembered directory for it.
        Vec::new()
    };
    let mut last_from_input = false;
    let mut ends_in_dot = false;
    let pieces: Vec<&str> = rest.split('\\').filter(|p| !p.is_empty()).collect();
    let last_index = pieces.len().checked_sub(1);
    for (i, piece) in pieces.iter().enumerate() {
        match *piece {
            "." => {}
            ".." => {
                // Climbing above the root stays at the root: `C:\..\..` is `C:\`.
                comps.pop();
                last_from_input = false;
            }
            _ => {
                let is_last = Some(i) == last_index;
                let wildcards = pattern && is_last && !rest.ends_with('\\');
                if is_last {
                    ends_in_dot = piece.ends_with('.');
                }
                comps.push(component(piece, wildcards)?);
                last_from_input = true;
            }
        }
        if Some(i) == last_index && matches!(*piece, "." | "..") {
            last_from_input = false;
        }
    }
    let trailing_sep = rest.ends_with('\\') && !comps.is_empty();
    Ok(Ok(Split {
        drive,
        comps,
        trailing_sep,
        ends_in_dot,
        last_from_input,
    }))
}

fn check_length(p: &GuestPath, input: &str) -> Result<(), VfsError> {
    if p.display().chars().count() >= MAX_PATH {
        return Err(VfsError::FilenameTooLong(input.to_string()));
    }
    Ok(())
}

/// Parses a guest path the way the Win32 file functions do, relative to `cwd`.
///
/// - `\` and `/` both separate; runs of separators collapse.
/// - `X:\...` is absolute, `\...` is rooted on the current drive, `X:name` is
///   relative to the current directory when `X` is the current drive and to `X:\`
///   otherwise, anything else is relative to the current directory.
/// - `.` is dropped and `..` removes the previous component, never climbing above
///   the root.
/// - A device name in the last component yields [`Parsed::Device`]; one in any
///   other position cannot be a directory and gives ERROR_PATH_NOT_FOUND.
/// - `\\?\`, `\??\` and names with `:` (alternate data streams) or other forbidden
///   characters give ERROR_INVALID_NAME; UNC paths give ERROR_BAD_NETPATH.
pub fn parse(input: &str, cwd: &GuestPath) -> Result<Parsed, VfsError> {
    let sp = match split(input, cwd, false)? {
        Ok(sp) => sp,
        Err(dev) => return Ok(Parsed::Device(dev)),
    };
    let n = sp.comps.len();
    for (i, c) in sp.comps.iter().enumerate() {
        if let Some(dev) = device_name(c) {
            let is_name = i + 1 == n && !sp.trailing_sep && sp.last_from_input;
            if is_name {
                return Ok(Parsed::Device(dev));
            }
            return Err(VfsError::PathNotFound(input.to_string()));
        }
    }
    let p = GuestPath {
        drive: sp.drive,
        comps: sp.comps,
        trailing_sep: sp.trailing_sep,
    };
    check_length(&p, input)?;
    Ok(Parsed::Path(p))
}

/// Parses a FindFirstFile argument: a path whose last component may contain `*`
/// and `?`.
pub fn parse_pattern(input: &str, cwd: &GuestPath) -> Result<ParsedPattern, VfsError> {
    let sp = match split(input, cwd, true)? {
        Ok(sp) => sp,
        Err(_) => return Err(VfsError::FileNotFound(input.to_string())),
    };
    let mut comps = sp.comps;
    let pattern = if sp.trailing_sep || comps.is_empty() {
        None
    } else {
        comps.pop()
    };
    if comps.iter().any(|c| device_name(c).is_some()) {
        return Err(VfsError::PathNotFound(input.to_string()));
    }
    let dir = GuestPath {
        drive: sp.drive,
        comps,
        trailing_sep: false,
    };
    check_length(&dir, input)?;
    Ok(ParsedPattern {
        dir,
        pattern,
        ends_in_dot: sp.ends_in_dot && sp.last_from_input,
    })
}

/// Parses a configured guest directory (`C:\GAMES\FOO`): it must be absolute with a
/// drive letter and name an ordinary directory.
pub fn parse_guest_dir(s: &str) -> Result<GuestPath, VfsError> {
    let bad = || {
        VfsError::Config(format!(
            "guest_dir {s:?} is not an absolute path like C:\\GAMES\\FOO"
        ))
    };
    let b = s.as_bytes();
    let absolute = b.len() >= 3
        && b[0].is_ascii_alphabetic()
        && b[1] == b':'
        && (b[2] == b'\\' || b[2] == b'/');
    if !absolute {
        return Err(bad());
    }
    let cwd = GuestPath::root(b[0].to_ascii_uppercase() as char);
    match parse(s, &cwd) {
        Ok(Parsed::Path(p)) => Ok(p.without_trailing_sep()),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cwd() -> GuestPath {
        GuestPath {
            drive: 'C',
            comps: vec!["GAMES".into(), "FOO".into()],
            trailing_sep: false,
        }
    }

    fn full(s: &str) -> Result<String, VfsError> {
        match parse(s, &cwd())? {
            Parsed::Path(p) => Ok(p.display()),
            Parsed::Device(d) => Ok(format!("\\\\.\\{}", d.name())),
        }
    }

    // Expected strings follow GetFullPathName's documented normalisation: separators
    // unified, `.` and `..` resolved textually, trailing dots and spaces removed.
    #[test]
    fn normalises_like_get_full_path_name() {
        assert_eq!(full(r"C:\a\.\b\..\c").unwrap(), r"C:\a\c");
        assert_eq!(full("C:/a//b").unwrap(), r"C:\a\b");
        assert_eq!(full(r"C:\..\..").unwrap(), r"C:\");
        assert_eq!(full(r"C:\..\..\x").unwrap(), r"C:\x");
        assert_eq!(full(r"..\..\..\..\etc").unwrap(), r"C:\etc");
        assert_eq!(full("save.dat").unwrap(), r"C:\GAMES\FOO\save.dat");
        assert_eq!(full(r"\data").unwrap(), r"C:\data");
        assert_eq!(full("c:data").unwrap(), r"C:\GAMES\FOO\data");
        assert_eq!(full("d:data").unwrap(), r"D:\data");
        assert_eq!(full(r"C:\dir\").unwrap(), r"C:\dir\");
        assert_eq!(full(r"C:\dir\.").unwrap(), r"C:\dir");
        assert_eq!(full(r"C:\dir. . \file.. ").unwrap(), r"C:\dir\file");
        assert_eq!(full("/etc/passwd").unwrap(), r"C:\etc\passwd");
        assert_eq!(full("C:").unwrap(), r"C:\GAMES\FOO");
    }

    #[test]
    fn refuses_prefixes_streams_and_bad_characters() {
        for p in [
            r"\\?\",
            r"\\?\C:x",
            r"\\?\GLOBALROOT\Device\HarddiskVolume1\x",
            r"\\?\C:\a\..\b",
            r"\\?\C:\a\.\b",
            r"\\?\C:\a\\b",
            r"\\?\C:/a",
            r"\\?\C:\name.",
            r"\\?\C:\name ",
            r"\\?\C:\NUL",
            "//?/C:/x",
            r"\??\C:\x",
            "file:stream",
            "a::$DATA",
            r"C:\a<b",
            "a|b",
            "a\"b",
            "a*b",
            "x\u{1}y",
        ] {
            let e = full(p).unwrap_err();
            assert_eq!(e.win32_code(), 123, "{p}: {e}");
        }
        assert_eq!(full(r"\\server\share\x").unwrap_err().win32_code(), 53);
        assert_eq!(
            full(r"\\?\UNC\server\share\x").unwrap_err().win32_code(),
            53
        );
        // Raw disks: the guest's disk and volume exist but need administrator
        // rights (ERROR_ACCESS_DENIED); others do not exist.
        assert_eq!(full(r"\\.\PhysicalDrive0").unwrap_err().win32_code(), 5);
        assert_eq!(full(r"\\.\physicaldrive0").unwrap_err().win32_code(), 5);
        assert_eq!(full(r"\\.\PhysicalDrive1").unwrap_err().win32_code(), 2);
        assert_eq!(full(r"\\.\PhysicalDrive").unwrap_err().win32_code(), 2);
        assert_eq!(full(r"\\.\C:").unwrap_err().win32_code(), 5);
        assert_eq!(full(r"\\?\C:").unwrap_err().win32_code(), 5);
        assert_eq!(full(r"\\.\D:").unwrap_err().win32_code(), 2);
        assert_eq!(full(r"\\.\SICE").unwrap_err().win32_code(), 2);
        assert_eq!(full("").unwrap_err().win32_code(), 3);
        assert_eq!(full(&"a".repeat(300)).unwrap_err().win32_code(), 206);
    }

    // "Naming Files, Paths, and Namespaces": after `\\?\` the string is used as
    // it is — no `.`/`..` resolution, no `/` conversion, no trailing-dot stripping.
    #[test]
    fn verbatim_prefix_skips_normalisation() {
        assert_eq!(full(r"\\?\C:\etc\passwd").unwrap(), r"C:\etc\passwd");
        assert_eq!(full(r"\\?\c:\Games\Foo\").unwrap(), r"C:\Games\Foo\");
        assert_eq!(full(r"\\?\C:\").unwrap(), r"C:\");
        // The current directory does not apply, and neither do device names.
        assert_eq!(full(r"\\?\C:\x.txt").unwrap(), r"C:\x.txt");
        assert_eq!(full(r"\\?\D:\x").unwrap(), r"D:\x");
        let p = parse_pattern(r"\\?\C:\DIR\*.TXT", &cwd()).unwrap();
        assert_eq!(p.dir.display(), r"C:\DIR");
        assert_eq!(p.pattern.as_deref(), Some("*.TXT"));
        assert_eq!(
            parse_pattern(r"\\?\C:\D*R\x", &cwd())
                .unwrap_err()
                .win32_code(),
            123
        );
    }

    #[test]
    fn device_names_anywhere_with_any_extension() {
        for (p, d) in [
            ("CON", Device::Con),
            ("nul", Device::Nul),
            (r"C:\GAMES\FOO\NUL.TXT", Device::Nul),
            (r"C:\missing\dir\aux.log", Device::Aux),
            ("com1", Device::Com(1)),
            ("LPT9.dat", Device::Lpt(9)),
            ("prn", Device::Prn),
            ("CON  .txt", Device::Con),
            ("conin$", Device::ConIn),
            ("CONOUT$", Device::ConOut),
            (r"\\.\NUL", Device::Nul),
            (r"\\.\COM2", Device::Com(2)),
        ] {
            assert_eq!(parse(p, &cwd()).unwrap(), Parsed::Device(d), "{p}");
        }
        for p in ["CONSOLE.TXT", "COM10", "COM0", "NULL", "LPT", "xcon"] {
            assert!(matches!(parse(p, &cwd()).unwrap(), Parsed::Path(_)), "{p}");
        }
        assert_eq!(parse(r"C:\CON\x.txt", &cwd()).unwrap_err().win32_code(), 3);
    }

    #[test]
    fn folding_is_one_to_one() {
        assert_eq!(fold("Level1.DAT"), fold("LEVEL1.dat"));
        assert_eq!(fold("äöü"), "ÄÖÜ");
        assert_eq!(fold("straße"), "STRAßE");
        assert_ne!(fold("a"), fold("b"));
    }

    #[test]
    fn patterns_keep_wildcards_and_the_final_dot() {
        let p = parse_pattern(r"C:\DIR\*.", &cwd()).unwrap();
        assert_eq!(p.dir.display(), r"C:\DIR");
        assert_eq!(p.pattern.as_deref(), Some("*"));
        assert!(p.ends_in_dot);
        let p = parse_pattern("*.TXT", &cwd()).unwrap();
        assert_eq!(p.dir.display(), r"C:\GAMES\FOO");
        assert_eq!(p.pattern.as_deref(), Some("*.TXT"));
        assert!(!p.ends_in_dot);
        assert!(parse_pattern(r"C:\DIR\", &cwd()).unwrap().pattern.is_none());
        assert!(parse_pattern(r"C:\", &cwd()).unwrap().pattern.is_none());
        assert_eq!(
            parse_pattern(r"C:\D*R\x", &cwd()).unwrap_err().win32_code(),
            123
        );
    }

    #[test]
    fn guest_dir_must_be_absolute() {
        assert_eq!(
            parse_guest_dir(r"c:\games\foo").unwrap().display(),
            r"C:\games\foo"
        );
        assert_eq!(parse_guest_dir(r"C:\").unwrap().display(), r"C:\");
        for bad in ["games", r"\games", "C:games", r"\\srv\x", r"C:\a\nul"] {
            assert!(parse_guest_dir(bad).is_err(), "{bad}");
        }
    }
}
