//! CreateFile and the read side: resolve, open, metadata, attributes and
//! FindFirstFile, each following the documented behaviour of its Win32 call.

use super::access::{Found, Target};
use super::host::open_host;
use super::path::{self, GuestPath};
use super::pattern::Pattern;
use super::*;

impl Vfs {
    /// What `path` refers to, for callers that need to know before acting
    /// (LoadLibrary search, GetFileAttributes on devices).
    pub fn resolve(&self, path: &str) -> Result<Resolved, VfsError> {
        let st = self.lock();
        let p = match self.target(&st.cwd, path)? {
            Target::Device(d) => return Ok(Resolved::Device(d)),
            Target::Root => {
                return Ok(Resolved::Path {
                    full: GuestPath::root(self.drive).display(),
                    kind: Some(EntryKind::Directory),
                });
            }
            Target::Path(p) => p,
        };
        let walk = self.layers.walk(&st.side, &p.comps, &p.display())?;
        let kind = walk.entry.map(|e| {
            if e.is_dir() {
                EntryKind::Directory
            } else {
                EntryKind::File
            }
        });
        Ok(Resolved::Path {
            full: p.display(),
            kind,
        })
    }

    /// CreateFile. The checks come in the order Windows makes them: the name and
    /// disposition, then the read-only attribute, then the share modes of the
    /// other opens; nothing is created, copied or truncated before all have passed.
    pub fn open(&self, path: &str, opts: &OpenOptions) -> Result<Opened, VfsError> {
        use CreationDisposition as D;
        if opts.share & !FILE_SHARE_VALID_FLAGS != 0 {
            return Err(VfsError::InvalidParameter("dwShareMode has unknown bits"));
        }
        let dir_ok = opts.backup_semantics
            && !opts.write
            && matches!(opts.disposition, D::OpenExisting | D::OpenAlways);
        let access = Access {
            read: opts.read,
            write: opts.write,
            delete: opts.delete,
        };
        let mut st = self.lock();
        let p = match self.target(&st.cwd, path)? {
            Target::Device(d) => return Ok(Opened::Device(d)),
            Target::Root => {
                let root = GuestPath::root(self.drive).display();
                if !dir_ok {
                    return Err(VfsError::AccessDenied(root));
                }
                self.opens.check("", access, opts.share, &root)?;
                let open = self.opens.register("", access, opts.share, None);
                return Ok(Opened::Directory { path: root, open });
            }
            Target::Path(p) => p,
        };
        if opts.disposition == D::TruncateExisting && !opts.write {
            return Err(VfsError::InvalidParameter(
                "TRUNCATE_EXISTING without GENERIC_WRITE",
            ));
        }
        let shown = p.display();
        let walk = self.layers.walk(&st.side, &p.comps, &shown)?;
        let f = Found {
            key: p.key(),
            p,
            walk,
            shown,
        };
        let visible = f.visible(self.drive);
        let shown = f.shown.as_str();
        let Some(e) = &f.walk.entry else {
            if matches!(opts.disposition, D::OpenExisting | D::TruncateExisting) {
                return Err(VfsError::FileNotFound(shown.to_string()));
            }
            if f.p.trailing_sep {
                return Err(VfsError::InvalidName(shown.to_string()));
            }
            self.opens.check(&f.key, access, opts.share, shown)?;
            let (_, dir) = self.layers.ensure_upper(&f.walk.parent)?;
            let file = self
                .layers
                .create_file(&dir.join(f.new_name()), opts.read, shown)?;
            let attrs = (opts.attributes & !FILE_ATTRIBUTE_NORMAL) | FILE_ATTRIBUTE_ARCHIVE;
            Self::store_attributes(&mut st.side, &f.key, false, attrs)?;
            let host = HostFile::new(file, opts.read, true);
            let open = self.opens.register(&f.key, access, opts.share, Some(&host));
            return Ok(Opened::File(VfsFile {
                host,
                open,
                path: visible,
                existed: false,
            }));
        };
        if e.is_dir() {
            if opts.disposition == D::CreateNew {
                return Err(VfsError::FileExists(shown.to_string()));
            }
            if !dir_ok {
                return Err(VfsError::AccessDenied(shown.to_string()));
            }
            self.opens.check(&f.key, access, opts.share, shown)?;
            let open = self.opens.register(&f.key, access, opts.share, None);
            return Ok(Opened::Directory {
                path: visible,
                open,
            });
        }
        if f.p.trailing_sep {
            return Err(VfsError::InvalidName(shown.to_string()));
        }
        let attrs = Self::attributes(&st.side, &f.key, false);
        let readonly = attrs & FILE_ATTRIBUTE_READONLY != 0;
        // CreateFile documents ERROR_ACCESS_DENIED for replacing a hidden or system
        // file without asking for the same attribute.
        let kept = |bit: u32| attrs & bit != 0 && opts.attributes & bit == 0;
        match opts.disposition {
            D::CreateNew => return Err(VfsError::FileExists(shown.to_string())),
            D::CreateAlways
                if readonly || kept(FILE_ATTRIBUTE_HIDDEN) || kept(FILE_ATTRIBUTE_SYSTEM) =>
            {
                return Err(VfsError::AccessDenied(shown.to_string()));
            }
            _ if opts.write && readonly => {
                return Err(VfsError::AccessDenied(shown.to_string()));
            }
            _ => {}
        }
        self.opens.check(&f.key, access, opts.share, shown)?;
        let file = match opts.disposition {
            D::CreateNew => unreachable!("refused above"),
            D::CreateAlways => {
                let host = self.writable(&f.walk.parent, e, &f.key, true, shown)?;
                let file = open_host(&host, opts.read, true, true, shown)?;
                // An overwritten file gets the caller's attributes plus ARCHIVE.
                let new_attrs = (opts.attributes & !FILE_ATTRIBUTE_NORMAL) | FILE_ATTRIBUTE_ARCHIVE;
                Self::store_attributes(&mut st.side, &f.key, false, new_attrs)?;
                file
            }
            D::TruncateExisting => {
                let host = self.writable(&f.walk.parent, e, &f.key, true, shown)?;
                open_host(&host, opts.read, true, true, shown)?
            }
            D::OpenExisting | D::OpenAlways if opts.write => {
                let host = self.writable(&f.walk.parent, e, &f.key, false, shown)?;
                open_host(&host, opts.read, true, false, shown)?
            }
            D::OpenExisting | D::OpenAlways => {
                let item = e
                    .visible_file()
                    .ok_or_else(|| VfsError::AccessDenied(shown.to_string()))?;
                open_host(&item.path, true, false, false, shown)?
            }
        };
        let host = HostFile::new(file, opts.read || !opts.write, opts.write);
        let open = self.opens.register(&f.key, access, opts.share, Some(&host));
        Ok(Opened::File(VfsFile {
            host,
            open,
            path: visible,
            existed: true,
        }))
    }

    /// GetFileAttributesEx. Devices give [`VfsError::Device`].
    pub fn metadata(&self, path: &str) -> Result<Metadata, VfsError> {
        let st = self.lock();
        if let Target::Root = self.target(&st.cwd, path)? {
            return self.dir_metadata(&st.side, &self.layers.root_dir(), path);
        }
        let f = self.find(&st.side, &st.cwd, path, VfsError::AccessDenied)?;
        let e = f
            .walk
            .entry
            .as_ref()
            .ok_or_else(|| VfsError::FileNotFound(f.shown.clone()))?;
        if f.p.trailing_sep && !e.is_dir() {
            return Err(VfsError::InvalidName(f.shown.clone()));
        }
        self.entry_metadata(&st.side, &f.key, e, &f.shown)
    }

    /// The host file whose bytes the guest sees at `path`, with the path's full guest
    /// form in the directory's spelling: CreateProcess hands it to a new emulator
    /// process, which loads the image from there. Directories and devices give
    /// ERROR_ACCESS_DENIED, as CreateProcess reports them.
    pub fn host_file(&self, path: &str) -> Result<(String, PathBuf), VfsError> {
        let st = self.lock();
        if let Target::Root = self.target(&st.cwd, path)? {
            return Err(VfsError::AccessDenied(path.to_string()));
        }
        let f = self.find(&st.side, &st.cwd, path, VfsError::AccessDenied)?;
        let e = f
            .walk
            .entry
            .as_ref()
            .ok_or_else(|| VfsError::FileNotFound(f.shown.clone()))?;
        match e.visible_file() {
            Some(h) => Ok((f.visible(self.drive), h.path.clone())),
            None => Err(VfsError::AccessDenied(f.shown.clone())),
        }
    }

    /// The configuration this file system was made with (host folders canonical): a
    /// child process started by CreateProcess shares the sandbox.
    pub fn config(&self) -> VfsConfig {
        VfsConfig {
            program_dir: self.layers.program_root().to_path_buf(),
            guest_dir: self.guest_dir.display(),
            overlay_dir: self.overlay_dir.clone(),
            allow_writes_to_original: self.layers.direct(),
        }
    }

    /// GetFileAttributes.
    pub fn get_attributes(&self, path: &str) -> Result<u32, VfsError> {
        Ok(self.metadata(path)?.attributes)
    }

    /// SetFileAttributes. FILE_ATTRIBUTE_NORMAL clears everything; bits Windows
    /// does not let callers set (DIRECTORY, COMPRESSED, ...) are ignored.
    pub fn set_attributes(&self, path: &str, attributes: u32) -> Result<(), VfsError> {
        let mut st = self.lock();
        let f = self.find(&st.side, &st.cwd, path, VfsError::AccessDenied)?;
        let e = f
            .walk
            .entry
            .as_ref()
            .ok_or_else(|| VfsError::FileNotFound(f.shown.clone()))?;
        let is_dir = e.is_dir();
        Self::store_attributes(&mut st.side, &f.key, is_dir, attributes)
    }

    /// FindFirstFile: every entry of the pattern's directory whose name matches,
    /// `.` and `..` first (outside the root), then the rest sorted case-insensitively.
    /// An empty result is ERROR_FILE_NOT_FOUND, as FindFirstFile reports it; the
    /// caller's FindNextFile answers ERROR_NO_MORE_FILES after the last entry.
    pub fn read_dir(&self, pattern: &str) -> Result<Vec<DirEntry>, VfsError> {
        let st = self.lock();
        let pp = path::parse_pattern(pattern, &st.cwd)?;
        if pp.dir.drive != self.drive {
            return Err(VfsError::PathNotFound(pattern.to_string()));
        }
        let Some(pat) = &pp.pattern else {
            return Err(VfsError::FileNotFound(pattern.to_string()));
        };
        let dir = self
            .layers
            .dir(&st.side, &pp.dir.comps)?
            .ok_or_else(|| VfsError::PathNotFound(pattern.to_string()))?;
        let matcher = Pattern::new(pat, pp.ends_in_dot);
        let mut out = Vec::new();
        if !dir.names.is_empty() {
            let meta = self.dir_metadata(&st.side, &dir, pattern)?;
            for name in [".", ".."] {
                if matcher.matches(name) {
                    out.push(DirEntry {
                        name: name.to_string(),
                        is_dir: true,
                        size: 0,
                        times: meta.times,
                        attributes: meta.attributes,
                    });
                }
            }
        }
        for e in self.layers.entries(&st.side, &dir)? {
            if !matcher.matches(&e.name) {
                continue;
            }
            let key = dir.child_key(&e.name);
            // An entry that vanished from the host since the listing is skipped.
            let Ok(m) = self.entry_metadata(&st.side, &key, &e, pattern) else {
                continue;
            };
            out.push(DirEntry {
                name: e.name.clone(),
                is_dir: m.is_dir,
                size: m.size,
                times: m.times,
                attributes: m.attributes,
            });
        }
        if out.is_empty() {
            return Err(VfsError::FileNotFound(pattern.to_string()));
        }
        Ok(out)
    }
}
