//! A link session: maps one image and, recursively, the guest DLLs it needs,
//! resolving imports and forwarders. Runs no guest code. Holds the loader state
//! for its whole duration, and can undo itself if the load fails.

use super::exports::{ExportName, ExportTarget};
use super::source::file_name_for;
use super::{
    Image, LoadError, LoaderState, MAX_DEPTH, exports, hle_module, imports, map, pe, reloc, tls,
};
use crate::process::{Module, Process, dll_key};
use object::pe as pec;
use std::sync::Arc;

/// Who provides an imported DLL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Provider {
    /// A guest image at this base.
    Guest(u32),
    /// HLE DLL with this index.
    Hle(usize),
    /// Nobody: its imports get "missing" thunks.
    Missing,
}

/// DLLs Windows always takes from the system directory (the KnownDLLs of NT, plus
/// NTDLL and the C runtime): a copy next to the program is never loaded.
const KNOWN_DLLS: &[&str] = &[
    "advapi32", "comdlg32", "gdi32", "imagehlp", "kernel32", "lz32", "msvcrt", "ntdll", "ole32",
    "oleaut32", "olecli32", "olecnv32", "olesvr32", "olethk32", "rpcrt4", "shell32", "url",
    "urlmon", "user32", "version", "wininet", "wldap32",
];

pub fn is_known_dll(name: &str) -> bool {
    KNOWN_DLLS.contains(&dll_key(&file_name_for(name)).as_str())
}

pub struct Session<'a> {
    pub proc: &'a Arc<Process>,
    pub st: &'a mut LoaderState,
    /// Static load at process start: images are pinned.
    pinned: bool,
    /// Images mapped in this session, in mapping order.
    pub mapped: Vec<u32>,
    /// TLS indices assigned in this session.
    pub tls_added: Vec<u32>,
    depth: u32,
}

impl<'a> Session<'a> {
    pub fn new(proc: &'a Arc<Process>, st: &'a mut LoaderState, pinned: bool) -> Session<'a> {
        Session {
            proc,
            st,
            pinned,
            mapped: Vec::new(),
            tls_added: Vec::new(),
            depth: 0,
        }
    }

    /// Maps and links the image in `bytes` (file `file_name`, guest path `path`).
    /// `program` demands an EXE. Returns its base.
    pub fn load_image(
        &mut self,
        bytes: &[u8],
        file_name: &str,
        path: &str,
        program: bool,
    ) -> Result<u32, LoadError> {
        let name = file_name;
        let h = pe::parse(name, bytes)?;
        if program && h.is_dll() {
            return Err(LoadError::NotAProgram {
                name: name.to_string(),
            });
        }
        let view = map::build_view(bytes, &h);
        let base = map::place(self.proc, name, &h)?;
        self.mapped.push(base);
        map::write(self.proc, name, base, bytes, &h)?;
        let fixups = reloc::apply(self.proc, name, base, &h, &view)?;
        if base != h.image_base {
            log::info!(
                "{name}: preferred base {:#010x} taken; loaded at {base:#010x} ({fixups} fix-ups)",
                h.image_base
            );
        }
        // Windows records the actual base in the mapped header (when the header
        // is really mapped there, not overlaid by a section).
        if base != h.image_base && h.image_base_field() + 4 <= h.size_of_headers {
            self.proc
                .mem
                .write_bytes(base + h.image_base_field(), &base.to_le_bytes())
                .map_err(|f| LoadError::fault(name, f))?;
        }
        let exports = exports::parse(name, &view, &h, base)?;
        let entry = if h.entry != 0 { base + h.entry } else { 0 };
        let size = h.mapped_size();
        let mut module = Module {
            name: name.to_string(),
            base,
            size,
            entry,
            path: path.to_string(),
            exports: Default::default(),
            ordinals: Default::default(),
            hle: None,
        };
        for (n, a) in exports.addresses_by_name() {
            module.exports.insert(n.clone(), a);
        }
        for (o, t) in &exports.ordinals {
            if let (Ok(o), ExportTarget::Address(a)) = (u16::try_from(*o), t) {
                module.ordinals.insert(o, *a);
            }
        }
        // Registered before its imports are resolved, so DLLs that import each
        // other find it.
        self.st.images.push(Image {
            name: name.to_string(),
            path: path.to_string(),
            base,
            size,
            entry,
            is_dll: h.is_dll(),
            exports,
            resources: h.dir(pec::IMAGE_DIRECTORY_ENTRY_RESOURCE),
            tls: None,
            deps: Vec::new(),
            refs: 0,
            pinned: self.pinned,
            attached: false,
            thread_calls: true,
            stack_reserve: h.stack_reserve,
            stack_commit: h.stack_commit,
        });
        self.proc
            .modules
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(module);
        imports::resolve(self, name, base, &h, &view)?;
        if let Some(index) = tls::register(self.proc, self.st, name, base, &h)? {
            self.tls_added.push(index);
            if let Some(img) = self.st.image_mut(base) {
                img.tls = Some(index);
            }
        }
        map::protect(self.proc, name, base, &h)?;
        self.st.init_order.push(base);
        Ok(base)
    }

    /// Records that `importer` uses the guest image at `base`.
    fn add_dep(&mut self, importer: u32, base: u32) {
        if importer == base {
            return;
        }
        let Some(imp) = self.st.image_mut(importer) else {
            return;
        };
        if imp.deps.contains(&base) {
            return;
        }
        imp.deps.push(base);
        if let Some(d) = self.st.image_mut(base)
            && !d.pinned
        {
            d.refs += 1;
        }
    }

    /// Finds (loading it if needed) the provider of the DLL `dll` for `importer`.
    pub fn provider(&mut self, dll: &str, importer: u32) -> Result<Provider, LoadError> {
        let file = file_name_for(dll);
        if let Some(base) = self.st.image_named(&file).map(|i| i.base) {
            self.add_dep(importer, base);
            return Ok(Provider::Guest(base));
        }
        let hle = self.proc.hle_dll(&file);
        if !is_known_dll(&file)
            && let Some(src) = self.st.source.clone()
            && let Some(f) = src.find(&file)?
        {
            if self.depth >= MAX_DEPTH {
                return Err(LoadError::TooDeep { name: f.file_name });
            }
            let path = format!("{}{}", self.st.guest_dir, f.file_name);
            self.depth += 1;
            let r = self.load_image(&f.bytes, &f.file_name, &path, false);
            self.depth -= 1;
            let base = r?;
            self.add_dep(importer, base);
            return Ok(Provider::Guest(base));
        }
        if let Some(i) = hle {
            hle_module::ensure(self.proc, self.st, i)?;
            return Ok(Provider::Hle(i));
        }
        if self.st.missing_warned.insert(dll_key(&file)) {
            log::warn!(
                "{dll} is neither next to the program nor provided by winterp; calls into it \
                 will stop the program"
            );
        }
        Ok(Provider::Missing)
    }

    /// The address `what` resolves to in `provider` (named `dll` by the importer).
    pub fn resolve(
        &mut self,
        provider: &Provider,
        dll: &str,
        what: &ExportName,
        importer: u32,
        depth: u32,
    ) -> Result<u32, LoadError> {
        let proc = self.proc;
        match provider {
            Provider::Missing => Ok(proc.missing_thunk(dll, &what.to_string())),
            Provider::Hle(i) => {
                let dll_name = proc.dlls[*i].0;
                match what {
                    ExportName::Name(n) => proc.resolve_hle(dll_name, n),
                    ExportName::Ordinal(o) => proc.resolve_hle_ordinal(dll_name, *o),
                }
                .map_err(|e| LoadError::api(dll_name, e))
            }
            Provider::Guest(base) => {
                let Some(img) = self.st.image(*base) else {
                    return Ok(proc.missing_thunk(dll, &what.to_string()));
                };
                match img.exports.get(what).cloned() {
                    Some(ExportTarget::Address(a)) => Ok(a),
                    Some(ExportTarget::Forward { dll: fdll, target }) => {
                        if depth >= MAX_DEPTH {
                            return Err(LoadError::TooDeep {
                                name: format!("{}!{what}", img.name),
                            });
                        }
                        let p = self.provider(&fdll, importer)?;
                        self.resolve(&p, &fdll, &target, importer, depth + 1)
                    }
                    None => {
                        log::warn!(
                            "{} does not export {what}; calling it will stop the program",
                            img.name
                        );
                        let n = img.name.clone();
                        Ok(proc.missing_thunk(&n, &what.to_string()))
                    }
                }
            }
        }
    }

    /// Undoes the session after a failed load: unmaps and forgets every image it
    /// mapped and the TLS indices it assigned. Dependency counts it added on images
    /// that stay loaded are dropped too.
    pub fn rollback(self) {
        let gone = &self.mapped;
        // Only images of this session import in it, so only they hold references
        // on images that stay.
        let mut drop_refs: Vec<u32> = Vec::new();
        for img in self.st.images.iter().filter(|i| gone.contains(&i.base)) {
            drop_refs.extend(img.deps.iter().filter(|d| !gone.contains(d)));
        }
        for d in drop_refs {
            if let Some(i) = self.st.image_mut(d)
                && !i.pinned
            {
                i.refs = i.refs.saturating_sub(1);
            }
        }
        for &index in &self.tls_added {
            if let Some(slot) = self.st.tls.get_mut(index as usize) {
                *slot = None;
            }
        }
        self.st.images.retain(|i| !gone.contains(&i.base));
        self.st.init_order.retain(|b| !gone.contains(b));
        self.proc
            .modules
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|m| !gone.contains(&m.base));
        let mut vm = self.proc.vm.lock().unwrap_or_else(|e| e.into_inner());
        for &b in gone {
            if let Err(e) = vm.release(b) {
                log::warn!("releasing {b:#010x} after a failed load: {e}");
            }
        }
    }
}
