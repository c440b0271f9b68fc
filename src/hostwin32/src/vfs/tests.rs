//! End-to-end tests of the sandbox on a real host directory tree. Expected error
//! codes are the ones the Win32 documentation gives for each call.

use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::*;

struct Sandbox {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    program: PathBuf,
    overlay: PathBuf,
    outside: PathBuf,
}

/// Host layout:
/// ```text
/// root/games/foo/GAME.EXE, Data/Level1.DAT, Data/readme.txt, README, Save/
/// root/outside/secret.txt
/// root/overlay/            (created by the VFS)
/// ```
fn sandbox() -> Sandbox {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    let program = root.join("games/foo");
    fs::create_dir_all(program.join("Data")).unwrap();
    fs::create_dir_all(program.join("Save")).unwrap();
    fs::write(program.join("GAME.EXE"), b"MZ game").unwrap();
    fs::write(program.join("Data/Level1.DAT"), b"level one").unwrap();
    fs::write(program.join("Data/readme.txt"), b"read me").unwrap();
    fs::write(program.join("README"), b"no extension").unwrap();
    let outside = root.join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("secret.txt"), b"secret").unwrap();
    Sandbox {
        overlay: root.join("overlay"),
        _tmp: tmp,
        root,
        program,
        outside,
    }
}

fn open_vfs(sb: &Sandbox, direct: bool) -> Vfs {
    Vfs::new(VfsConfig {
        program_dir: sb.program.clone(),
        guest_dir: r"C:\GAMES\FOO".into(),
        overlay_dir: sb.overlay.clone(),
        allow_writes_to_original: direct,
    })
    .unwrap()
}

/// Every file under `dir` with its bytes (symlinks recorded as their targets,
/// never followed), to show a tree was not touched.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for ent in fs::read_dir(&d).unwrap() {
            let p = ent.unwrap().path();
            let m = fs::symlink_metadata(&p).unwrap();
            if m.file_type().is_symlink() {
                out.insert(
                    p.clone(),
                    fs::read_link(&p)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                );
            } else if m.is_dir() {
                out.insert(p.clone(), b"<dir>".to_vec());
                stack.push(p);
            } else {
                out.insert(p.clone(), fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn file(opened: Opened) -> VfsFile {
    match opened {
        Opened::File(f) => f,
        other => panic!("expected a file, got {other:?}"),
    }
}

fn read(vfs: &Vfs, path: &str) -> Result<Vec<u8>, VfsError> {
    let f = file(vfs.open(path, &OpenOptions::read())?);
    let mut v = Vec::new();
    (&*f.host.get()).read_to_end(&mut v).unwrap();
    Ok(v)
}

fn write(
    vfs: &Vfs,
    path: &str,
    disposition: CreationDisposition,
    bytes: &[u8],
) -> Result<VfsFile, VfsError> {
    let f = file(vfs.open(path, &OpenOptions::read_write(disposition))?);
    (&*f.host.get()).write_all(bytes).unwrap();
    Ok(f)
}

fn names(vfs: &Vfs, pattern: &str) -> Vec<String> {
    vfs.read_dir(pattern)
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect()
}

fn code<T: std::fmt::Debug>(r: Result<T, VfsError>) -> u32 {
    r.unwrap_err().win32_code()
}

#[test]
fn opens_case_insensitively_and_reports_host_spelling() {
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    assert_eq!(
        read(&vfs, r"c:\games\foo\DATA\level1.dat").unwrap(),
        b"level one"
    );
    assert_eq!(read(&vfs, r"data\LEVEL1.DAT").unwrap(), b"level one");
    assert_eq!(
        read(&vfs, "C:/Games/Foo/data/Level1.DAT").unwrap(),
        b"level one"
    );
    assert_eq!(read(&vfs, r"data\level1.dat. . ").unwrap(), b"level one");
    let f = file(vfs.open(r"DATA\LEVEL1.DAT", &OpenOptions::read()).unwrap());
    assert_eq!(f.path, r"C:\GAMES\FOO\Data\Level1.DAT");
    assert_eq!(code(read(&vfs, r"data\missing.dat")), ERROR_FILE_NOT_FOUND);
    assert_eq!(code(read(&vfs, r"nodir\level1.dat")), ERROR_PATH_NOT_FOUND);
    assert_eq!(code(read(&vfs, r"README\x")), ERROR_PATH_NOT_FOUND);
}

#[test]
fn copy_on_write_leaves_the_original_untouched() {
    let sb = sandbox();
    let before = snapshot(&sb.program);
    let vfs = open_vfs(&sb, false);
    {
        let f = file(
            vfs.open(
                r"DATA\LEVEL1.DAT",
                &OpenOptions::read_write(CreationDisposition::OpenExisting),
            )
            .unwrap(),
        );
        let mut v = Vec::new();
        (&*f.host.get()).read_to_end(&mut v).unwrap();
        assert_eq!(v, b"level one", "the copy carries the original bytes");
        (&*f.host.get()).write_all(b" and more").unwrap();
    }
    assert_eq!(
        read(&vfs, r"data\level1.dat").unwrap(),
        b"level one and more"
    );
    write(
        &vfs,
        r"data\readme.txt",
        CreationDisposition::TruncateExisting,
        b"new",
    )
    .unwrap();
    assert_eq!(read(&vfs, r"data\readme.txt").unwrap(), b"new");
    let f = write(
        &vfs,
        r"SAVE\slot1.sav",
        CreationDisposition::CreateNew,
        b"save",
    )
    .unwrap();
    assert!(!f.existed);
    assert_eq!(f.path, r"C:\GAMES\FOO\Save\slot1.sav");
    assert_eq!(
        snapshot(&sb.program),
        before,
        "the program folder is never written"
    );
    assert_eq!(
        fs::read(sb.overlay.join("drive_c/GAMES/FOO/Data/Level1.DAT")).unwrap(),
        b"level one and more"
    );
    assert_eq!(
        fs::read(sb.overlay.join("drive_c/GAMES/FOO/Save/slot1.sav")).unwrap(),
        b"save"
    );
    // The overlay persists: a new process sees its writes.
    drop(vfs);
    let vfs = open_vfs(&sb, false);
    assert_eq!(read(&vfs, r"save\SLOT1.SAV").unwrap(), b"save");
}

#[test]
fn creation_dispositions_follow_create_file() {
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    use CreationDisposition as D;
    assert_eq!(
        code(vfs.open("GAME.EXE", &OpenOptions::read_write(D::CreateNew))),
        ERROR_FILE_EXISTS
    );
    assert!(write(&vfs, "GAME.EXE", D::OpenAlways, b"").unwrap().existed);
    assert!(!write(&vfs, "new.txt", D::OpenAlways, b"x").unwrap().existed);
    assert!(
        write(&vfs, "new.txt", D::CreateAlways, b"yz")
            .unwrap()
            .existed
    );
    assert_eq!(read(&vfs, "new.txt").unwrap(), b"yz");
    assert_eq!(
        code(vfs.open("none.txt", &OpenOptions::read_write(D::TruncateExisting))),
        ERROR_FILE_NOT_FOUND
    );
    let mut ro = OpenOptions::read();
    ro.disposition = D::TruncateExisting;
    assert_eq!(code(vfs.open("new.txt", &ro)), ERROR_INVALID_PARAMETER);
    assert_eq!(
        code(vfs.open(r"nodir\x.txt", &OpenOptions::read_write(D::CreateAlways))),
        ERROR_PATH_NOT_FOUND
    );
    // Directories open only with FILE_FLAG_BACKUP_SEMANTICS.
    assert_eq!(
        code(vfs.open("DATA", &OpenOptions::read())),
        ERROR_ACCESS_DENIED
    );
    let mut dir = OpenOptions::read();
    dir.backup_semantics = true;
    assert!(
        matches!(vfs.open("data", &dir).unwrap(), Opened::Directory { path, .. } if path == r"C:\GAMES\FOO\Data")
    );
    assert_eq!(
        code(vfs.open(r"new.txt\", &OpenOptions::read())),
        ERROR_INVALID_NAME
    );
}

#[test]
fn whiteouts_hide_deleted_originals() {
    let sb = sandbox();
    let before = snapshot(&sb.program);
    let vfs = open_vfs(&sb, false);
    vfs.delete_file(r"DATA\README.TXT").unwrap();
    assert_eq!(code(read(&vfs, r"data\readme.txt")), ERROR_FILE_NOT_FOUND);
    assert_eq!(code(vfs.metadata(r"data\readme.txt")), ERROR_FILE_NOT_FOUND);
    assert_eq!(names(&vfs, r"data\*"), [".", "..", "Level1.DAT"]);
    assert_eq!(
        code(vfs.delete_file(r"data\readme.txt")),
        ERROR_FILE_NOT_FOUND
    );
    // Deleting a copied-up file removes both sides.
    write(
        &vfs,
        r"data\level1.dat",
        CreationDisposition::OpenExisting,
        b"L",
    )
    .unwrap();
    vfs.delete_file(r"data\level1.dat").unwrap();
    assert_eq!(code(read(&vfs, r"data\level1.dat")), ERROR_FILE_NOT_FOUND);
    // Re-creating a deleted name shows the new file only.
    write(
        &vfs,
        r"data\readme.txt",
        CreationDisposition::CreateNew,
        b"fresh",
    )
    .unwrap();
    assert_eq!(read(&vfs, r"data\readme.txt").unwrap(), b"fresh");
    assert_eq!(snapshot(&sb.program), before);
    drop(vfs);
    let vfs = open_vfs(&sb, false);
    assert_eq!(
        code(read(&vfs, r"data\level1.dat")),
        ERROR_FILE_NOT_FOUND,
        "whiteouts persist"
    );
    assert_eq!(read(&vfs, r"data\readme.txt").unwrap(), b"fresh");
}

#[test]
fn directory_listings_merge_both_trees() {
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    write(
        &vfs,
        r"data\Extra.BIN",
        CreationDisposition::CreateNew,
        b"12345",
    )
    .unwrap();
    vfs.create_dir(r"data\Maps").unwrap();
    vfs.delete_file(r"data\readme.txt").unwrap();
    let list = vfs.read_dir(r"C:\GAMES\FOO\DATA\*.*").unwrap();
    let got: Vec<(&str, bool, u64)> = list
        .iter()
        .map(|e| (e.name.as_str(), e.is_dir, e.size))
        .collect();
    assert_eq!(
        got,
        [
            (".", true, 0),
            ("..", true, 0),
            ("Extra.BIN", false, 5),
            ("Level1.DAT", false, 9),
            ("Maps", true, 0)
        ]
    );
    assert_eq!(list[2].attributes, FILE_ATTRIBUTE_ARCHIVE);
    assert_eq!(list[4].attributes, FILE_ATTRIBUTE_DIRECTORY);
    // The guest directory's ancestors and the Windows directories exist.
    assert_eq!(names(&vfs, r"C:\*"), ["GAMES", "WINDOWS"]);
    assert_eq!(names(&vfs, r"C:\GAMES\*"), [".", "..", "FOO"]);
    assert_eq!(names(&vfs, r"C:\WINDOWS\*"), [".", "..", "SYSTEM", "TEMP"]);
    assert_eq!(
        names(&vfs, "*"),
        [".", "..", "Data", "GAME.EXE", "README", "Save"]
    );
    // FindFirstFile without wildcards finds the entry itself.
    assert_eq!(names(&vfs, r"c:\games\foo\data"), ["Data"]);
    assert_eq!(code(vfs.read_dir(r"data\*.xyz")), ERROR_FILE_NOT_FOUND);
    assert_eq!(code(vfs.read_dir(r"nodir\*")), ERROR_PATH_NOT_FOUND);
    assert_eq!(code(vfs.read_dir(r"data\")), ERROR_FILE_NOT_FOUND);
}

#[test]
fn wildcards_follow_find_first_file_rules() {
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    vfs.create_dir(r"C:\W").unwrap();
    for n in [
        "a.txt",
        "b.TXT",
        "c.txt.bak",
        "save1.dat",
        "save12.dat",
        "save.dat",
    ] {
        write(
            &vfs,
            &format!(r"C:\W\{n}"),
            CreationDisposition::CreateNew,
            b"",
        )
        .unwrap();
    }
    fs::write(sb.overlay.join("drive_c/W/NOEXT"), b"").unwrap();
    assert_eq!(names(&vfs, r"C:\W\*.txt"), ["a.txt", "b.TXT"]);
    let no_ext: Vec<String> = names(&vfs, r"C:\W\*.")
        .into_iter()
        .filter(|n| n != "." && n != "..")
        .collect();
    assert_eq!(no_ext, ["NOEXT"]);
    assert_eq!(names(&vfs, r"C:\W\*.*").len(), 2 + 7);
    assert_eq!(names(&vfs, r"C:\W\save?.dat"), ["save.dat", "save1.dat"]);
    assert_eq!(
        names(&vfs, r"C:\W\SAVE*.DAT"),
        ["save.dat", "save1.dat", "save12.dat"]
    );
    assert_eq!(names(&vfs, r"C:\W\?.txt"), ["a.txt", "b.TXT"]);
}

#[test]
fn dot_dot_cannot_climb_out() {
    let sb = sandbox();
    let outside = snapshot(&sb.outside);
    let vfs = open_vfs(&sb, false);
    assert_eq!(vfs.full_path(r"..\..\..\..\..\..").unwrap(), r"C:\");
    assert_eq!(vfs.full_path(r"C:\..\..").unwrap(), r"C:\");
    assert_eq!(
        code(read(&vfs, r"..\..\..\outside\secret.txt")),
        ERROR_PATH_NOT_FOUND
    );
    assert_eq!(
        code(read(&vfs, r"..\..\..\..\..\..\..\..\etc\passwd")),
        ERROR_PATH_NOT_FOUND
    );
    // Writes that try to climb out land at the top of the guest drive, in the overlay.
    write(
        &vfs,
        r"..\..\..\..\..\escape.txt",
        CreationDisposition::CreateAlways,
        b"x",
    )
    .unwrap();
    assert!(sb.overlay.join("drive_c/escape.txt").is_file());
    vfs.create_dir(r"..\..\..\outside").unwrap();
    write(
        &vfs,
        r"..\..\..\outside\secret.txt",
        CreationDisposition::CreateAlways,
        b"overwritten?",
    )
    .unwrap();
    assert_eq!(snapshot(&sb.outside), outside);
    assert!(!sb.root.join("escape.txt").exists());
    assert!(!sb.root.join("games/escape.txt").exists());
    assert!(!Path::new("/escape.txt").exists());
}

#[test]
fn host_absolute_paths_stay_inside() {
    let sb = sandbox();
    let outside = snapshot(&sb.outside);
    let vfs = open_vfs(&sb, false);
    let secret = sb.outside.join("secret.txt").display().to_string();
    assert_eq!(code(read(&vfs, &secret)), ERROR_PATH_NOT_FOUND);
    assert_eq!(code(read(&vfs, "/etc/passwd")), ERROR_PATH_NOT_FOUND);
    assert_eq!(vfs.full_path("/etc/passwd").unwrap(), r"C:\etc\passwd");
    assert_eq!(code(read(&vfs, r"Z:\etc\passwd")), ERROR_PATH_NOT_FOUND);
    assert_eq!(code(vfs.create_dir(r"D:\x")), ERROR_PATH_NOT_FOUND);
    // Creating the host path creates it inside the overlay.
    let dir = sb.outside.display().to_string();
    let mut cur = String::new();
    for part in dir.split('/').filter(|p| !p.is_empty()) {
        cur.push('/');
        cur.push_str(part);
        let _ = vfs.create_dir(&cur);
    }
    write(
        &vfs,
        &secret,
        CreationDisposition::CreateAlways,
        b"overwritten?",
    )
    .unwrap();
    assert_eq!(snapshot(&sb.outside), outside);
    let inside = sb
        .overlay
        .join("drive_c")
        .join(sb.outside.strip_prefix("/").unwrap())
        .join("secret.txt");
    assert_eq!(fs::read(inside).unwrap(), b"overwritten?");
}

#[test]
fn prefixes_unc_and_streams_are_refused() {
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    let secret = sb.outside.join("secret.txt").display().to_string();
    for p in [
        format!(r"\\?\{secret}"),
        r"\\?\C:\GAMES\FOO\..\..\..\GAMES\FOO\GAME.EXE".to_string(),
        format!(r"\\?\GLOBALROOT{secret}"),
        r"\??\C:\GAMES\FOO\GAME.EXE".to_string(),
        "GAME.EXE:stream".to_string(),
        "GAME.EXE::$DATA".to_string(),
    ] {
        assert_eq!(code(read(&vfs, &p)), ERROR_INVALID_NAME, "{p}");
        assert_eq!(
            code(write(&vfs, &p, CreationDisposition::CreateAlways, b"x")),
            ERROR_INVALID_NAME,
            "{p}"
        );
    }
    assert_eq!(code(read(&vfs, r"\\localhost\c$\x")), ERROR_BAD_NETPATH);
    assert_eq!(
        code(read(&vfs, &format!(r"\\.\{secret}"))),
        ERROR_FILE_NOT_FOUND
    );
    assert_eq!(code(read(&vfs, r"\\.\PhysicalDrive0")), ERROR_ACCESS_DENIED);
    assert_eq!(code(read(&vfs, r"\\.\C:")), ERROR_ACCESS_DENIED);
    assert_eq!(fs::read(&secret).unwrap(), b"secret");
}

/// `\\?\` only turns normalisation off: a well-formed path reaches the same
/// sandboxed files, a missing directory is still ERROR_PATH_NOT_FOUND.
#[test]
fn verbatim_paths_stay_in_the_sandbox() {
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    assert_eq!(
        read(&vfs, r"\\?\C:\GAMES\FOO\GAME.EXE").unwrap(),
        b"MZ game"
    );
    assert_eq!(
        read(&vfs, r"\\?\c:\games\foo\data\level1.dat").unwrap(),
        b"level one"
    );
    assert_eq!(code(read(&vfs, r"\\?\C:\etc\passwd")), ERROR_PATH_NOT_FOUND);
    assert_eq!(
        code(read(&vfs, r"\\?\C:\GAMES\FOO\..\..\..\etc\passwd")),
        ERROR_INVALID_NAME
    );
    assert_eq!(code(read(&vfs, r"\\?\D:\x")), ERROR_PATH_NOT_FOUND);
    assert_eq!(names(&vfs, r"\\?\C:\GAMES\FOO\DATA\*.DAT"), ["Level1.DAT"]);
    write(
        &vfs,
        r"\\?\C:\GAMES\FOO\new.txt",
        CreationDisposition::CreateNew,
        b"v",
    )
    .unwrap();
    assert_eq!(read(&vfs, "new.txt").unwrap(), b"v");
    assert!(!sb.program.join("new.txt").exists());
    assert_eq!(vfs.full_path(r"\\?\C:\a\..\b").unwrap(), r"\\?\C:\a\..\b");
}

#[test]
fn device_names_are_reported_as_devices() {
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    let w = OpenOptions::read_write(CreationDisposition::CreateAlways);
    for (p, d) in [
        ("CON", Device::Con),
        ("nul", Device::Nul),
        (r"C:\GAMES\FOO\SAVE\nul.txt", Device::Nul),
        ("com1.log", Device::Com(1)),
        ("LPT2", Device::Lpt(2)),
        ("aux", Device::Aux),
        ("PRN.txt", Device::Prn),
        ("CONOUT$", Device::ConOut),
    ] {
        assert!(
            matches!(vfs.open(p, &w).unwrap(), Opened::Device(x) if x == d),
            "{p}"
        );
        assert_eq!(vfs.resolve(p).unwrap(), Resolved::Device(d));
    }
    assert_eq!(vfs.full_path("nul.txt").unwrap(), r"\\.\NUL");
    assert_eq!(code(vfs.delete_file("NUL")), ERROR_ACCESS_DENIED);
    assert_eq!(code(vfs.create_dir(r"C:\CON")), ERROR_ACCESS_DENIED);
    assert!(
        fs::read_dir(sb.overlay.join("drive_c/GAMES")).is_err(),
        "nothing was created for devices"
    );
    // Host files with device names cannot be reached, so they are not listed.
    fs::write(sb.program.join("con.txt"), b"x").unwrap();
    assert!(
        !names(&vfs, "*")
            .iter()
            .any(|n| n.eq_ignore_ascii_case("con.txt"))
    );
}

#[test]
fn symlinks_out_of_the_sandbox_are_not_followed() {
    let sb = sandbox();
    let outside = snapshot(&sb.outside);
    std::os::unix::fs::symlink(&sb.outside, sb.program.join("LinkOut")).unwrap();
    std::os::unix::fs::symlink(sb.outside.join("secret.txt"), sb.program.join("secret.txt"))
        .unwrap();
    std::os::unix::fs::symlink(
        "../../../outside/secret.txt",
        sb.program.join("Data/rel.txt"),
    )
    .unwrap();
    std::os::unix::fs::symlink("Data", sb.program.join("Alias")).unwrap();
    std::os::unix::fs::symlink("..", sb.program.join("Data/Up")).unwrap();
    for direct in [false, true] {
        let vfs = open_vfs(&sb, direct);
        assert_eq!(
            code(read(&vfs, r"LINKOUT\secret.txt")),
            ERROR_PATH_NOT_FOUND
        );
        assert_eq!(code(read(&vfs, "secret.txt")), ERROR_FILE_NOT_FOUND);
        assert_eq!(code(read(&vfs, r"data\rel.txt")), ERROR_FILE_NOT_FOUND);
        assert_eq!(code(vfs.read_dir(r"linkout\*")), ERROR_PATH_NOT_FOUND);
        let listed = names(&vfs, "*");
        assert!(
            !listed.iter().any(|n| n == "LinkOut" || n == "secret.txt"),
            "{listed:?}"
        );
        // A link that stays inside the program folder works, unless it loops.
        assert_eq!(read(&vfs, r"alias\level1.dat").unwrap(), b"level one");
        assert_eq!(code(read(&vfs, r"data\up\game.exe")), ERROR_PATH_NOT_FOUND);
        // Writing at the link's name never writes through it.
        let r = write(
            &vfs,
            "secret.txt",
            CreationDisposition::CreateAlways,
            b"pwned",
        );
        if direct {
            assert_eq!(code(r), ERROR_ACCESS_DENIED);
        } else {
            r.unwrap();
            assert_eq!(read(&vfs, "secret.txt").unwrap(), b"pwned");
        }
        let _ = vfs.create_dir(r"LinkOut");
        let _ = write(
            &vfs,
            r"LinkOut\secret.txt",
            CreationDisposition::CreateAlways,
            b"pwned",
        );
        let _ = vfs.delete_file("secret.txt");
        let _ = vfs.rename(r"data\rel.txt", "moved.txt", true);
        assert_eq!(snapshot(&sb.outside), outside, "direct = {direct}");
    }
}

#[test]
fn readonly_attribute_is_kept_and_enforced() {
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    assert_eq!(
        vfs.get_attributes("GAME.EXE").unwrap(),
        FILE_ATTRIBUTE_ARCHIVE
    );
    assert_eq!(
        vfs.get_attributes("data").unwrap(),
        FILE_ATTRIBUTE_DIRECTORY
    );
    assert_eq!(
        vfs.get_attributes(r"C:\").unwrap(),
        FILE_ATTRIBUTE_DIRECTORY
    );
    vfs.set_attributes("GAME.EXE", FILE_ATTRIBUTE_READONLY | FILE_ATTRIBUTE_HIDDEN)
        .unwrap();
    assert_eq!(
        vfs.get_attributes("game.exe").unwrap(),
        FILE_ATTRIBUTE_READONLY | FILE_ATTRIBUTE_HIDDEN
    );
    assert_eq!(
        code(vfs.open(
            "GAME.EXE",
            &OpenOptions::read_write(CreationDisposition::OpenExisting)
        )),
        ERROR_ACCESS_DENIED
    );
    assert_eq!(code(vfs.delete_file("GAME.EXE")), ERROR_ACCESS_DENIED);
    assert_eq!(read(&vfs, "GAME.EXE").unwrap(), b"MZ game");
    drop(vfs);
    let vfs = open_vfs(&sb, false);
    assert_eq!(
        vfs.get_attributes("GAME.EXE").unwrap(),
        FILE_ATTRIBUTE_READONLY | FILE_ATTRIBUTE_HIDDEN
    );
    vfs.set_attributes("GAME.EXE", FILE_ATTRIBUTE_NORMAL)
        .unwrap();
    assert_eq!(
        vfs.get_attributes("GAME.EXE").unwrap(),
        FILE_ATTRIBUTE_NORMAL
    );
    // CREATE_ALWAYS over a hidden file must ask for FILE_ATTRIBUTE_HIDDEN.
    vfs.set_attributes("README", FILE_ATTRIBUTE_HIDDEN).unwrap();
    assert_eq!(
        code(vfs.open(
            "README",
            &OpenOptions::read_write(CreationDisposition::CreateAlways)
        )),
        ERROR_ACCESS_DENIED
    );
    let mut o = OpenOptions::read_write(CreationDisposition::CreateAlways);
    o.attributes = FILE_ATTRIBUTE_HIDDEN;
    file(vfs.open("README", &o).unwrap());
    assert_eq!(
        vfs.get_attributes("README").unwrap(),
        FILE_ATTRIBUTE_HIDDEN | FILE_ATTRIBUTE_ARCHIVE
    );
    assert_eq!(code(vfs.set_attributes("missing", 0)), ERROR_FILE_NOT_FOUND);
}

#[test]
fn rename_moves_files_and_directories() {
    let sb = sandbox();
    let before = snapshot(&sb.program);
    let vfs = open_vfs(&sb, false);
    vfs.rename(r"data\readme.txt", r"save\notes.txt", false)
        .unwrap();
    assert_eq!(read(&vfs, r"save\notes.txt").unwrap(), b"read me");
    assert_eq!(code(read(&vfs, r"data\readme.txt")), ERROR_FILE_NOT_FOUND);
    assert_eq!(
        code(vfs.rename("GAME.EXE", "README", false)),
        ERROR_ALREADY_EXISTS
    );
    write(&vfs, "a.txt", CreationDisposition::CreateNew, b"A").unwrap();
    vfs.rename("a.txt", "README", true).unwrap();
    assert_eq!(read(&vfs, "readme").unwrap(), b"A");
    assert_eq!(
        code(vfs.rename("missing", "x", false)),
        ERROR_FILE_NOT_FOUND
    );
    assert_eq!(
        code(vfs.rename("README", r"nodir\x", false)),
        ERROR_PATH_NOT_FOUND
    );
    assert_eq!(
        code(vfs.rename("README", "DATA", true)),
        ERROR_ACCESS_DENIED
    );
    // A directory with original content moves as a whole.
    vfs.rename("DATA", r"C:\Moved", false).unwrap();
    assert_eq!(names(&vfs, r"C:\moved\*"), [".", "..", "Level1.DAT"]);
    assert_eq!(read(&vfs, r"C:\moved\level1.dat").unwrap(), b"level one");
    assert_eq!(code(vfs.read_dir(r"data\*")), ERROR_PATH_NOT_FOUND);
    assert_eq!(
        code(vfs.rename(r"C:\Moved", r"C:\Moved\Inner", false)),
        ERROR_ACCESS_DENIED
    );
    // Case-only renames change the spelling.
    vfs.rename("GAME.EXE", "Game.exe", false).unwrap();
    assert!(names(&vfs, "*").contains(&"Game.exe".to_string()));
    // The program folder and its ancestors hold the running program.
    assert_eq!(
        code(vfs.rename(r"C:\GAMES", r"C:\X", false)),
        ERROR_ACCESS_DENIED
    );
    assert_eq!(code(vfs.remove_dir(r"C:\GAMES\FOO")), ERROR_ACCESS_DENIED);
    assert_eq!(snapshot(&sb.program), before);
}

#[test]
fn copy_file_semantics() {
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    vfs.copy_file(r"data\level1.dat", "copy.dat", true).unwrap();
    assert_eq!(read(&vfs, "copy.dat").unwrap(), b"level one");
    let src = vfs.metadata(r"data\level1.dat").unwrap();
    let dst = vfs.metadata("copy.dat").unwrap();
    assert_eq!(
        src.times.last_write, dst.times.last_write,
        "CopyFile keeps the write time"
    );
    assert_eq!(
        code(vfs.copy_file("GAME.EXE", "copy.dat", true)),
        ERROR_FILE_EXISTS
    );
    vfs.copy_file("GAME.EXE", "copy.dat", false).unwrap();
    assert_eq!(read(&vfs, "copy.dat").unwrap(), b"MZ game");
    assert_eq!(
        code(vfs.copy_file("copy.dat", "COPY.DAT", false)),
        ERROR_SHARING_VIOLATION
    );
    assert_eq!(code(vfs.copy_file("data", "x", false)), ERROR_ACCESS_DENIED);
    assert_eq!(
        code(vfs.copy_file("missing", "x", false)),
        ERROR_FILE_NOT_FOUND
    );
}

#[test]
fn directories_create_and_remove() {
    let sb = sandbox();
    let before = snapshot(&sb.program);
    let vfs = open_vfs(&sb, false);
    vfs.create_dir(r"save\slots").unwrap();
    assert_eq!(code(vfs.create_dir(r"SAVE\SLOTS")), ERROR_ALREADY_EXISTS);
    assert_eq!(code(vfs.create_dir(r"nodir\x")), ERROR_PATH_NOT_FOUND);
    assert_eq!(code(vfs.remove_dir("save")), ERROR_DIR_NOT_EMPTY);
    assert_eq!(code(vfs.remove_dir("README")), ERROR_DIRECTORY);
    assert_eq!(code(vfs.remove_dir("nothing")), ERROR_FILE_NOT_FOUND);
    vfs.remove_dir(r"save\slots").unwrap();
    vfs.remove_dir("save").unwrap();
    assert_eq!(code(vfs.metadata("save")), ERROR_FILE_NOT_FOUND);
    assert_eq!(code(vfs.remove_dir("data")), ERROR_DIR_NOT_EMPTY);
    vfs.delete_file(r"data\level1.dat").unwrap();
    vfs.delete_file(r"data\readme.txt").unwrap();
    vfs.remove_dir("data").unwrap();
    // A directory made again where an original was removed starts empty.
    vfs.create_dir("DATA").unwrap();
    assert_eq!(names(&vfs, r"data\*"), [".", ".."]);
    assert_eq!(snapshot(&sb.program), before);
}

#[test]
fn current_directory_and_full_paths() {
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    assert_eq!(vfs.current_dir(), r"C:\GAMES\FOO");
    vfs.set_current_dir("data").unwrap();
    assert_eq!(vfs.current_dir(), r"C:\GAMES\FOO\data");
    assert_eq!(read(&vfs, "level1.dat").unwrap(), b"level one");
    assert_eq!(vfs.full_path(r"..\x\.\y.").unwrap(), r"C:\GAMES\FOO\x\y");
    assert_eq!(vfs.full_path(r"\WINDOWS\").unwrap(), r"C:\WINDOWS\");
    assert_eq!(code(vfs.set_current_dir("level1.dat")), ERROR_DIRECTORY);
    assert_eq!(code(vfs.set_current_dir("nothing")), ERROR_FILE_NOT_FOUND);
    assert_eq!(code(vfs.set_current_dir(r"E:\")), ERROR_PATH_NOT_FOUND);
    vfs.set_current_dir(r"..\..\..\..").unwrap();
    assert_eq!(vfs.current_dir(), r"C:\");
}

#[test]
fn windows_and_temp_directories_live_in_the_overlay() {
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    assert_eq!(vfs.temp_dir(), r"C:\WINDOWS\TEMP\");
    assert_eq!(vfs.windows_dir(), r"C:\WINDOWS");
    assert_eq!(vfs.system_dir(), r"C:\WINDOWS\SYSTEM");
    let tmp = format!("{}wtp1.tmp", vfs.temp_dir());
    write(&vfs, &tmp, CreationDisposition::CreateNew, b"t").unwrap();
    assert_eq!(
        fs::read(sb.overlay.join("drive_c/WINDOWS/TEMP/wtp1.tmp")).unwrap(),
        b"t"
    );
    assert!(vfs.metadata(&vfs.system_dir()).unwrap().is_dir);
}

#[test]
fn direct_mode_writes_the_original_folder() {
    let sb = sandbox();
    let vfs = open_vfs(&sb, true);
    write(
        &vfs,
        r"data\level1.dat",
        CreationDisposition::CreateAlways,
        b"changed",
    )
    .unwrap();
    assert_eq!(
        fs::read(sb.program.join("Data/Level1.DAT")).unwrap(),
        b"changed"
    );
    write(&vfs, r"save\new.sav", CreationDisposition::CreateNew, b"s").unwrap();
    assert_eq!(fs::read(sb.program.join("Save/new.sav")).unwrap(), b"s");
    vfs.delete_file("README").unwrap();
    assert!(!sb.program.join("README").exists());
    // Outside the guest directory writes still go to the overlay.
    write(
        &vfs,
        r"C:\outside.txt",
        CreationDisposition::CreateNew,
        b"o",
    )
    .unwrap();
    assert!(sb.overlay.join("drive_c/outside.txt").is_file());
    assert_eq!(code(vfs.remove_dir(r"C:\GAMES\FOO")), ERROR_ACCESS_DENIED);
}

#[test]
fn configuration_is_checked() {
    let sb = sandbox();
    let bad = |program: PathBuf, guest: &str, overlay: PathBuf| {
        Vfs::new(VfsConfig {
            program_dir: program,
            guest_dir: guest.into(),
            overlay_dir: overlay,
            allow_writes_to_original: false,
        })
        .is_err()
    };
    assert!(bad(
        sb.program.clone(),
        r"C:\GAMES\FOO",
        sb.program.join("overlay")
    ));
    assert!(bad(
        sb.program.clone(),
        r"C:\GAMES\FOO",
        sb.root.join("games")
    ));
    assert!(bad(
        sb.root.join("missing"),
        r"C:\GAMES\FOO",
        sb.overlay.clone()
    ));
    assert!(bad(sb.program.clone(), "GAMES", sb.overlay.clone()));
    assert_eq!(
        VfsConfig::default_guest_dir(Path::new("/games/foo")),
        r"C:\GAMES\FOO"
    );
    assert_eq!(
        VfsConfig::default_guest_dir(Path::new("/home/me/My Game./con")),
        r"C:\HOME\ME\MY GAME\CON_"
    );
    // The drive letter comes from the guest directory; the root works as one too.
    let vfs = Vfs::new(VfsConfig {
        program_dir: sb.program.clone(),
        guest_dir: r"D:\".into(),
        overlay_dir: sb.overlay.clone(),
        allow_writes_to_original: false,
    })
    .unwrap();
    assert_eq!(vfs.current_dir(), r"D:\");
    assert_eq!(read(&vfs, r"D:\game.exe").unwrap(), b"MZ game");
    assert_eq!(
        names(&vfs, r"D:\*"),
        ["Data", "GAME.EXE", "README", "Save", "WINDOWS"]
    );
    assert_eq!(code(read(&vfs, r"C:\game.exe")), ERROR_PATH_NOT_FOUND);
}

#[test]
fn threads_share_one_view() {
    let sb = sandbox();
    let vfs = std::sync::Arc::new(open_vfs(&sb, false));
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let vfs = vfs.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    write(
                        &vfs,
                        &format!(r"save\t{t}_{i}.sav"),
                        CreationDisposition::CreateNew,
                        b"x",
                    )
                    .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(names(&vfs, r"save\*.sav").len(), 100);
}

// ---- share modes and open files ----------------------------------------------------
//
// Expected results follow CreateFile's "Creating and Opening Files" rules: a new
// open must ask only for access that every existing open shares, and must share
// the access every existing open holds; DeleteFile needs FILE_SHARE_DELETE from
// every open. Conflicts are ERROR_SHARING_VIOLATION (32).

const SR: u32 = FILE_SHARE_READ;
const SW: u32 = FILE_SHARE_WRITE;
const SD: u32 = FILE_SHARE_DELETE;

fn opts(read: bool, write: bool, share: u32, disposition: CreationDisposition) -> OpenOptions {
    OpenOptions {
        read,
        write,
        share,
        disposition,
        ..OpenOptions::read()
    }
}

fn reader(share: u32) -> OpenOptions {
    opts(true, false, share, CreationDisposition::OpenExisting)
}

fn writer(share: u32) -> OpenOptions {
    opts(false, true, share, CreationDisposition::OpenExisting)
}

fn size_of(f: &VfsFile) -> u64 {
    f.host.get().metadata().unwrap().len()
}

fn read_all(f: &VfsFile) -> Vec<u8> {
    let mut v = Vec::new();
    let mut file = &*f.host.get();
    std::io::Seek::rewind(&mut file).unwrap();
    file.read_to_end(&mut v).unwrap();
    v
}

/// The sequence tests/guest/src/files.c runs: a file written through one handle,
/// then opened sharing only reading, must refuse a writer and DeleteFile, and then
/// keep its 60 bytes for CREATE_NEW (ERROR_FILE_EXISTS) and CopyFile.
#[test]
fn files_program_sequence_keeps_the_written_bytes() {
    use CreationDisposition as D;
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    vfs.create_dir("ftest").unwrap();
    let w = file(
        vfs.open(r"ftest\a.txt", &opts(false, true, 0, D::CreateNew))
            .unwrap(),
    );
    (&*w.host.get()).write_all(b"Hello, file!\r\n").unwrap();
    w.host.get().set_len(60).unwrap();
    drop(w);
    let h = file(vfs.open(r"ftest\a.txt", &reader(SR)).unwrap());
    assert_eq!(size_of(&h), 60);
    assert_eq!(
        code(vfs.open(r"ftest\a.txt", &writer(SR | SW))),
        ERROR_SHARING_VIOLATION
    );
    let h2 = vfs.open(r"ftest\a.txt", &reader(SR)).unwrap();
    drop(h2);
    assert_eq!(
        code(vfs.delete_file(r"ftest\a.txt")),
        ERROR_SHARING_VIOLATION
    );
    drop(h);
    assert_eq!(
        code(vfs.open(r"ftest\a.txt", &opts(false, true, 0, D::CreateNew))),
        ERROR_FILE_EXISTS
    );
    assert_eq!(vfs.metadata(r"ftest\a.txt").unwrap().size, 60);
    vfs.copy_file(r"ftest\a.txt", r"ftest\copy.txt", true)
        .unwrap();
    assert_eq!(read(&vfs, r"ftest\copy.txt").unwrap().len(), 60);
    // With every handle closed, the writer and the delete go through.
    drop(file(vfs.open(r"ftest\a.txt", &writer(0)).unwrap()));
    vfs.delete_file(r"ftest\a.txt").unwrap();
}

#[test]
fn share_modes_are_checked_between_opens_and_released_on_close() {
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    let a = file(vfs.open("GAME.EXE", &reader(SR)).unwrap());
    // Names are compared case-insensitively, as the guest sees them.
    assert_eq!(
        code(vfs.open("game.exe", &writer(SR | SW | SD))),
        ERROR_SHARING_VIOLATION
    );
    // Opening sharing nothing while another open reads: violation.
    assert_eq!(
        code(vfs.open("GAME.EXE", &reader(0))),
        ERROR_SHARING_VIOLATION
    );
    let b = vfs.open("GAME.EXE", &reader(SR | SW)).unwrap();
    // An open without data access takes no part.
    let attrs_only = opts(false, false, 0, CreationDisposition::OpenExisting);
    drop(vfs.open("GAME.EXE", &attrs_only).unwrap());
    drop((a, b));
    let w = file(vfs.open("GAME.EXE", &writer(SR)).unwrap());
    assert_eq!(
        code(vfs.open("GAME.EXE", &writer(SR | SW))),
        ERROR_SHARING_VIOLATION
    );
    assert_eq!(
        code(vfs.open("GAME.EXE", &reader(SR))),
        ERROR_SHARING_VIOLATION,
        "the first open writes, so the second must share writing"
    );
    drop(vfs.open("GAME.EXE", &reader(SR | SW)).unwrap());
    drop(w);
    // Unknown share bits are ERROR_INVALID_PARAMETER.
    assert_eq!(code(vfs.open("GAME.EXE", &reader(0x8))), 87);
    // A sharing violation changes nothing: no copy-up happened for the refused
    // writer.
    let _r = vfs.open(r"data\level1.dat", &reader(SR)).unwrap();
    assert_eq!(
        code(vfs.open(r"data\level1.dat", &writer(SR | SW))),
        ERROR_SHARING_VIOLATION
    );
    assert!(
        !sb.overlay
            .join("drive_c/GAMES/FOO/Data/Level1.DAT")
            .exists()
    );
}

#[test]
fn checks_come_in_windows_order() {
    use CreationDisposition as D;
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    let _h = vfs.open("GAME.EXE", &reader(0)).unwrap();
    // The disposition is decided before sharing.
    assert_eq!(
        code(vfs.open("GAME.EXE", &opts(true, true, SR | SW, D::CreateNew))),
        ERROR_FILE_EXISTS
    );
    // CreateFile refuses writing a read-only file before looking at sharing ...
    vfs.set_attributes("GAME.EXE", FILE_ATTRIBUTE_READONLY)
        .unwrap();
    assert_eq!(
        code(vfs.open("GAME.EXE", &writer(SR | SW))),
        ERROR_ACCESS_DENIED
    );
    // ... while DeleteFile opens for DELETE first, so sharing comes first there.
    assert_eq!(code(vfs.delete_file("GAME.EXE")), ERROR_SHARING_VIOLATION);
    // A directory is refused by DeleteFile before anything is opened.
    let _d = vfs
        .open(
            "DATA",
            &OpenOptions {
                backup_semantics: true,
                ..reader(0)
            },
        )
        .unwrap();
    assert_eq!(code(vfs.delete_file("DATA")), ERROR_ACCESS_DENIED);
}

#[test]
fn delete_with_share_delete_removes_the_name_and_keeps_the_handle() {
    use CreationDisposition as D;
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    write(&vfs, "log.txt", D::CreateNew, b"kept").unwrap();
    let h = file(vfs.open("log.txt", &reader(SR | SD)).unwrap());
    vfs.delete_file("log.txt").unwrap();
    assert_eq!(code(vfs.metadata("log.txt")), ERROR_FILE_NOT_FOUND);
    assert_eq!(read_all(&h), b"kept");
    // The deleted file's open no longer constrains a new file of that name.
    let n = vfs
        .open("log.txt", &opts(true, true, 0, D::CreateNew))
        .unwrap();
    assert_eq!(
        code(vfs.open("log.txt", &reader(SR | SW | SD))),
        ERROR_SHARING_VIOLATION
    );
    drop(h);
    assert_eq!(
        code(vfs.open("log.txt", &reader(SR | SW | SD))),
        ERROR_SHARING_VIOLATION,
        "closing the old handle must not release the new file's open"
    );
    drop(n);
    drop(vfs.open("log.txt", &reader(0)).unwrap());
    // The same for an original: whited out, the handle still reads it.
    let o = file(vfs.open("README", &reader(SR | SD)).unwrap());
    vfs.delete_file("README").unwrap();
    assert_eq!(read_all(&o), b"no extension");
}

/// A handle that read an original before another handle copied it up into the
/// overlay sees the writer's bytes: both are one file to the guest.
#[test]
fn readers_follow_a_copy_up() {
    use CreationDisposition as D;
    let sb = sandbox();
    let before = snapshot(&sb.program);
    let vfs = open_vfs(&sb, false);
    let r = file(vfs.open(r"data\level1.dat", &reader(SR | SW)).unwrap());
    assert_eq!(read_all(&r), b"level one");
    let w = file(vfs.open(r"data\level1.dat", &writer(SR | SW)).unwrap());
    (&*w.host.get()).write_all(b"LEVEL").unwrap();
    assert_eq!(read_all(&r), b"LEVEL one");
    w.host.get().set_len(20).unwrap();
    assert_eq!(size_of(&r), 20, "GetFileSize through the reader");
    // Still a read-only descriptor.
    assert!((&*r.host.get()).write_all(b"x").is_err());
    drop(w);
    // Truncating an original empties it for every open.
    let t = file(vfs.open("README", &reader(SR | SW)).unwrap());
    drop(
        vfs.open("README", &opts(false, true, SR | SW, D::TruncateExisting))
            .unwrap(),
    );
    assert_eq!(size_of(&t), 0);
    // CopyFile over an original that is open sharing writing: the open sees the copy.
    let c = file(vfs.open(r"data\readme.txt", &reader(SR | SW)).unwrap());
    vfs.copy_file("GAME.EXE", r"data\readme.txt", false)
        .unwrap();
    assert_eq!(read_all(&c), b"MZ game");
    assert_eq!(snapshot(&sb.program), before);
}

#[test]
fn copy_file_respects_sharing() {
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    // The source may be open for reading, not for writing.
    let r = vfs.open("GAME.EXE", &reader(SR)).unwrap();
    vfs.copy_file("GAME.EXE", "a.exe", false).unwrap();
    drop(r);
    let w = vfs.open("GAME.EXE", &writer(SR | SW)).unwrap();
    assert_eq!(
        code(vfs.copy_file("GAME.EXE", "b.exe", false)),
        ERROR_SHARING_VIOLATION
    );
    drop(w);
    // An existing destination must be open sharing writing.
    let d = vfs.open("a.exe", &reader(SR)).unwrap();
    assert_eq!(
        code(vfs.copy_file("README", "a.exe", false)),
        ERROR_SHARING_VIOLATION
    );
    drop(d);
    let d = vfs.open("a.exe", &reader(SR | SW)).unwrap();
    vfs.copy_file("README", "a.exe", false).unwrap();
    drop(d);
    assert_eq!(read(&vfs, "a.exe").unwrap(), b"no extension");
}

#[test]
fn rename_and_remove_dir_respect_open_handles() {
    let sb = sandbox();
    let vfs = open_vfs(&sb, false);
    // The source is opened for DELETE: every open must share delete.
    let h = vfs.open("README", &reader(SR | SW)).unwrap();
    assert_eq!(
        code(vfs.rename("README", "README.TXT", false)),
        ERROR_SHARING_VIOLATION
    );
    drop(h);
    // With FILE_SHARE_DELETE the move succeeds and the open follows the file.
    let h = file(vfs.open("README", &reader(SR | SD)).unwrap());
    vfs.rename("README", "README.TXT", false).unwrap();
    assert_eq!(read_all(&h), b"no extension");
    assert_eq!(
        code(vfs.open("readme.txt", &writer(SR | SW | SD))),
        ERROR_SHARING_VIOLATION
    );
    assert_eq!(code(vfs.open("README", &writer(0))), ERROR_FILE_NOT_FOUND);
    // Replacing an open target is refused (ERROR_ACCESS_DENIED).
    assert_eq!(
        code(vfs.rename("GAME.EXE", "README.TXT", true)),
        ERROR_ACCESS_DENIED
    );
    drop(h);
    vfs.rename("GAME.EXE", "README.TXT", true).unwrap();
    // A directory with an open file below it cannot move.
    let f = vfs.open(r"data\level1.dat", &reader(SR | SW | SD)).unwrap();
    assert_eq!(
        code(vfs.rename("DATA", "DATA2", false)),
        ERROR_ACCESS_DENIED
    );
    drop(f);
    // RemoveDirectory checks the directory's own opens.
    vfs.create_dir("EMPTY").unwrap();
    let dir_open = OpenOptions {
        backup_semantics: true,
        ..reader(SR | SW)
    };
    let d = vfs.open("EMPTY", &dir_open).unwrap();
    assert_eq!(code(vfs.remove_dir("EMPTY")), ERROR_SHARING_VIOLATION);
    drop(d);
    vfs.remove_dir("EMPTY").unwrap();
    vfs.rename("DATA", "DATA2", false).unwrap();
}
