//! Pseudo-modules for HLE DLLs: a small guest range per HLE DLL holding a valid
//! PE header and an export directory whose entries are the DLL's thunk addresses.
//! GetModuleHandle("KERNEL32") gets a stable non-zero handle, and guest code that
//! walks a module's headers and export table itself (hand-written GetProcAddress
//! implementations, protectors) finds the functions.

use super::{LoadError, LoaderState};
use crate::address_space::{GRANULARITY, round_up};
use crate::hle::ExportKind;
use crate::process::{Module, Process, WinVersion};
use std::collections::HashMap;
use std::sync::Arc;
use winterp_core::mem::Prot;

/// Pseudo-modules are placed from here up (where Windows XP put its system DLLs).
pub const HLE_MODULE_HINT: u32 = 0x7c00_0000;
/// RVA of the export directory (the headers take the first page).
const EDATA: u32 = 0x1000;
/// Exports without an explicit ordinal get ordinals from here up in the export
/// directory, away from the small numbers real system DLLs use, so a guest that
/// looks up a real ordinal in the header never finds an unrelated function.
pub const FIRST_INVENTED_ORDINAL: u32 = 0x1000;

/// The system directory the guest sees for the configured Windows version.
pub fn system_dir(v: WinVersion) -> &'static str {
    match v {
        WinVersion::Win95 | WinVersion::Win98 | WinVersion::WinMe => "C:\\WINDOWS\\SYSTEM\\",
        WinVersion::Nt4 | WinVersion::Win2000 => "C:\\WINNT\\system32\\",
        WinVersion::WinXp => "C:\\WINDOWS\\system32\\",
    }
}

/// The HLE DLL whose pseudo-module has base `base`.
pub fn dll_of(proc: &Process, base: u32) -> Option<usize> {
    proc.modules
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|m| m.base == base)
        .and_then(|m| m.hle)
}

/// Base of HLE DLL `dll`'s pseudo-module, if it exists.
pub fn base_of(proc: &Process, dll: usize) -> Option<u32> {
    proc.modules
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|m| m.hle == Some(dll))
        .map(|m| m.base)
}

/// The pseudo-module of HLE DLL `dll`, created on first use. Allocates thunks for
/// all of its functions.
pub fn ensure(proc: &Arc<Process>, _st: &mut LoaderState, dll: usize) -> Result<u32, LoadError> {
    if let Some(b) = base_of(proc, dll) {
        return Ok(b);
    }
    let dll_name = proc.dlls[dll].0;
    // (name, ordinal, thunk) of every function export; data exports are only
    // reachable through GetProcAddress and imports (they are allocated on use).
    let mut funcs: Vec<(&'static str, u32, u32)> = Vec::new();
    let explicit_max = proc.dlls[dll]
        .1
        .iter()
        .filter_map(|e| e.ordinal)
        .max()
        .unwrap_or(0) as u32;
    let mut next = FIRST_INVENTED_ORDINAL.max(explicit_max + 1);
    let mut explicit: HashMap<u16, u32> = HashMap::new();
    let sys = crate::sysexports::dll(dll_name);
    // Real ordinals (declared, or the system export table's) are kept where free.
    let mut used: std::collections::HashSet<u32> = proc.dlls[dll]
        .1
        .iter()
        .filter_map(|e| e.ordinal.map(u32::from))
        .collect();
    let real_ordinal = |name: &str, used: &mut std::collections::HashSet<u32>| {
        let o = sys.and_then(|d| d.by_name(name)).and_then(|e| e.ordinal)?;
        used.insert(o as u32).then_some(o)
    };
    // Every export of the real DLL is in the directory: the implemented ones with
    // their HLE thunks, the rest with thunks that report them by name when called.
    let mut entries: Vec<(&'static str, Option<u16>, u32)> = Vec::new();
    for (k, e) in proc.dlls[dll].1.iter().enumerate() {
        if !matches!(
            e.kind,
            ExportKind::Function { .. } | ExportKind::Code { .. }
        ) {
            continue;
        }
        let addr = proc
            .export_address(dll, k)
            .map_err(|err| LoadError::api(dll_name, err))?;
        let ord = e.ordinal.or_else(|| real_ordinal(e.name, &mut used));
        entries.push((e.name, ord, addr));
    }
    if let Some(sys) = sys {
        let served: std::collections::HashSet<&str> = entries.iter().map(|x| x.0).collect();
        for e in &sys.exports {
            // Names XP's DLL lacks stay out, as GetProcAddress does not find them.
            if !e.kind.is_code() || e.noname || e.not_in_xp || served.contains(e.name) {
                continue;
            }
            let ord = real_ordinal(e.name, &mut used);
            entries.push((e.name, ord, proc.missing_thunk(dll_name, e.name)));
        }
    }
    for (name, ordinal, addr) in entries {
        let ord = match ordinal {
            Some(o) => {
                explicit.insert(o, addr);
                o as u32
            }
            None if next <= u16::MAX as u32 => {
                next += 1;
                next - 1
            }
            None => {
                log::warn!("{dll_name}: no ordinal left for {name} in its pseudo-module");
                continue;
            }
        };
        funcs.push((name, ord, addr));
    }

    let edata_len = export_directory_len(dll_name, &funcs);
    let size = round_up(EDATA + edata_len, GRANULARITY);
    let tag = format!("image {dll_name} (HLE)");
    let base = {
        let mut vm = proc.vm.lock().unwrap_or_else(|e| e.into_inner());
        let b = match vm.reserve_above(HLE_MODULE_HINT, size, Prot::R, &tag) {
            Ok(b) => b,
            Err(_) => vm
                .reserve(None, size, Prot::R, &tag)
                .map_err(|e| LoadError::vm(dll_name, e))?,
        };
        vm.commit(b, size, Prot::RW)
            .map_err(|e| LoadError::vm(dll_name, e))?;
        b
    };
    let image = build(dll_name, base, size, &funcs);
    proc.mem
        .write_bytes(base, &image)
        .map_err(|f| LoadError::fault(dll_name, f))?;
    proc.mem
        .protect(base, size, Prot::R)
        .map_err(|e| LoadError::Api {
            name: dll_name.to_string(),
            detail: e.to_string(),
        })?;
    let module = Module {
        name: dll_name.to_string(),
        base,
        size,
        entry: 0,
        path: format!(
            "{}{}",
            system_dir(proc.config.version),
            dll_name.to_uppercase()
        ),
        exports: funcs.iter().map(|(n, _, a)| (n.to_string(), *a)).collect(),
        ordinals: explicit,
        hle: Some(dll),
    };
    proc.modules
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .push(module);
    if let Some(attach) = proc.dll_attach.get(dll).copied().flatten() {
        attach(proc);
    }
    Ok(base)
}

fn ordinal_range(funcs: &[(&str, u32, u32)]) -> (u32, u32) {
    let lo = funcs.iter().map(|f| f.1).min().unwrap_or(1);
    let hi = funcs.iter().map(|f| f.1).max().unwrap_or(0);
    (lo, if hi >= lo { hi - lo + 1 } else { 0 })
}

fn export_directory_len(dll_name: &str, funcs: &[(&str, u32, u32)]) -> u32 {
    let (_, count) = ordinal_range(funcs);
    let names: usize = funcs.iter().map(|f| f.0.len() + 1).sum();
    (40 + 4 * count as usize + 6 * funcs.len() + dll_name.len() + 1 + names) as u32
}

/// The pseudo-module's bytes: DOS header, PE header, one `.edata` section header,
/// and the export directory at [`EDATA`] (names sorted, as binary searches expect).
fn build(dll_name: &str, base: u32, size: u32, funcs: &[(&str, u32, u32)]) -> Vec<u8> {
    let edata_len = export_directory_len(dll_name, funcs);
    let mut b = vec![0u8; (EDATA + edata_len) as usize];
    let w16 = |b: &mut Vec<u8>, o: u32, v: u16| {
        b[o as usize..o as usize + 2].copy_from_slice(&v.to_le_bytes())
    };
    let w32 = |b: &mut Vec<u8>, o: u32, v: u32| {
        b[o as usize..o as usize + 4].copy_from_slice(&v.to_le_bytes())
    };
    b[0..2].copy_from_slice(b"MZ");
    w32(&mut b, 0x3c, 0x40);
    b[0x40..0x44].copy_from_slice(b"PE\0\0");
    // IMAGE_FILE_HEADER
    w16(&mut b, 0x44, object::pe::IMAGE_FILE_MACHINE_I386);
    w16(&mut b, 0x46, 1);
    w16(&mut b, 0x54, 0xe0);
    w16(
        &mut b,
        0x56,
        object::pe::IMAGE_FILE_EXECUTABLE_IMAGE
            | object::pe::IMAGE_FILE_32BIT_MACHINE
            | object::pe::IMAGE_FILE_DLL,
    );
    // IMAGE_OPTIONAL_HEADER32
    let o = 0x58;
    w16(&mut b, o, object::pe::IMAGE_NT_OPTIONAL_HDR32_MAGIC);
    w32(&mut b, o + 20, EDATA); // BaseOfCode
    w32(&mut b, o + 24, EDATA); // BaseOfData
    w32(&mut b, o + 28, base); // ImageBase
    w32(&mut b, o + 32, 0x1000); // SectionAlignment
    w32(&mut b, o + 36, 0x200); // FileAlignment
    w16(&mut b, o + 40, 4); // MajorOperatingSystemVersion
    w16(&mut b, o + 48, 4); // MajorSubsystemVersion
    w32(&mut b, o + 56, size); // SizeOfImage
    w32(&mut b, o + 60, EDATA); // SizeOfHeaders
    w16(&mut b, o + 68, object::pe::IMAGE_SUBSYSTEM_WINDOWS_CUI);
    w32(&mut b, o + 72, 0x10_0000); // SizeOfStackReserve
    w32(&mut b, o + 76, 0x1000); // SizeOfStackCommit
    w32(&mut b, o + 80, 0x10_0000); // SizeOfHeapReserve
    w32(&mut b, o + 84, 0x1000); // SizeOfHeapCommit
    w32(&mut b, o + 92, 16); // NumberOfRvaAndSizes
    w32(&mut b, o + 96, EDATA); // export directory
    w32(&mut b, o + 100, edata_len);
    // Section header
    let s = 0x58 + 0xe0;
    b[s as usize..s as usize + 6].copy_from_slice(b".edata");
    w32(&mut b, s + 8, edata_len);
    w32(&mut b, s + 12, EDATA);
    w32(&mut b, s + 16, round_up(edata_len, 0x200));
    w32(&mut b, s + 20, 0x400);
    w32(
        &mut b,
        s + 36,
        object::pe::IMAGE_SCN_CNT_INITIALIZED_DATA | object::pe::IMAGE_SCN_MEM_READ,
    );

    // IMAGE_EXPORT_DIRECTORY and its tables.
    let (ord_base, count) = ordinal_range(funcs);
    let eat = EDATA + 40;
    let name_ptrs = eat + 4 * count;
    let name_ords = name_ptrs + 4 * funcs.len() as u32;
    let dll_str = name_ords + 2 * funcs.len() as u32;
    let mut strings = dll_str + dll_name.len() as u32 + 1;
    w32(&mut b, EDATA + 12, dll_str);
    w32(&mut b, EDATA + 16, ord_base);
    w32(&mut b, EDATA + 20, count);
    w32(&mut b, EDATA + 24, funcs.len() as u32);
    w32(&mut b, EDATA + 28, eat);
    w32(&mut b, EDATA + 32, name_ptrs);
    w32(&mut b, EDATA + 36, name_ords);
    b[dll_str as usize..dll_str as usize + dll_name.len()].copy_from_slice(dll_name.as_bytes());
    for (_, ord, addr) in funcs {
        w32(&mut b, eat + 4 * (ord - ord_base), addr.wrapping_sub(base));
    }
    let mut sorted: Vec<&(&str, u32, u32)> = funcs.iter().collect();
    sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    for (k, (name, ord, _)) in sorted.into_iter().enumerate() {
        w32(&mut b, name_ptrs + 4 * k as u32, strings);
        w16(&mut b, name_ords + 2 * k as u32, (ord - ord_base) as u16);
        b[strings as usize..strings as usize + name.len()].copy_from_slice(name.as_bytes());
        strings += name.len() as u32 + 1;
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::read::pe::ExportTable;

    #[test]
    fn pseudo_module_export_directory_reads_back_with_object() {
        let base = 0x7c00_0000;
        let funcs = [
            ("Zeta", 0x1000, 0x7fd0_0020),
            ("Alpha", 0x1001, 0x7fd0_0030),
            ("Ordinal5", 5, 0x7fd0_0040),
        ];
        let img = build("TEST.dll", base, 0x10000, &funcs);
        let h = super::super::pe::parse("TEST.dll", &img).unwrap();
        assert!(h.is_dll());
        let (rva, size) = h.dir(0).unwrap();
        let t = ExportTable::parse(&img[rva as usize..], rva).unwrap();
        assert_eq!(t.ordinal_base(), 5);
        let names: Vec<(String, u32)> = t
            .name_iter()
            .map(|(p, i)| {
                let n = t.name_from_pointer(p).unwrap();
                let a = t.address_by_index(i as u32).unwrap();
                (String::from_utf8(n.to_vec()).unwrap(), base.wrapping_add(a))
            })
            .collect();
        assert_eq!(
            names,
            vec![
                ("Alpha".to_string(), 0x7fd0_0030),
                ("Ordinal5".to_string(), 0x7fd0_0040),
                ("Zeta".to_string(), 0x7fd0_0020),
            ]
        );
        assert_eq!(
            base.wrapping_add(t.address_by_ordinal(5).unwrap()),
            0x7fd0_0040
        );
        assert!(size > 0);
    }
}
