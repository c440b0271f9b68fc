//! Implicit TLS (`__declspec(thread)`, IMAGE_TLS_DIRECTORY32): each image with a
//! TLS directory gets an index, written to its AddressOfIndex; each thread gets a
//! copy of every image's template (plus zero fill) and an array of pointers to
//! them, which TEB+0x2C points to, indexed by TLS index.

use super::pe::Headers;
use super::{LoadError, LoaderState, ThreadRec, TlsModule};
use crate::process::Process;
use crate::teb;
use object::pe;
use winterp_core::mem::Prot;

/// Largest template (and zero fill) accepted per image.
pub const MAX_TLS_DATA: u32 = 16 << 20;
/// Most callbacks run per image and reason (the list is null-terminated).
pub const MAX_CALLBACKS: usize = 256;
/// Entries in a thread's first TLS pointer array.
const ARRAY_CAP: u32 = 64;
/// Alignment of each data block (Windows' heap gives 8; 16 suits SSE data too).
const BLOCK_ALIGN: u32 = 16;

fn malformed(name: &str, detail: String) -> LoadError {
    LoadError::Malformed {
        name: name.to_string(),
        what: "TLS directory",
        detail,
    }
}

/// Reads the (relocated) TLS directory of the image at `base`, assigns it the next
/// TLS index and stores that index at AddressOfIndex. `None` if there is no TLS.
pub fn register(
    proc: &Process,
    st: &mut LoaderState,
    name: &str,
    base: u32,
    h: &Headers,
) -> Result<Option<u32>, LoadError> {
    let Some((rva, _)) = h.dir(pe::IMAGE_DIRECTORY_ENTRY_TLS) else {
        return Ok(None);
    };
    let mut d = [0u8; 24];
    proc.mem
        .read_bytes(base.wrapping_add(rva), &mut d)
        .map_err(|f| LoadError::fault(name, f))?;
    let f = |k: usize| u32::from_le_bytes([d[4 * k], d[4 * k + 1], d[4 * k + 2], d[4 * k + 3]]);
    let (start, end, index_addr, callbacks, zero_fill) = (f(0), f(1), f(2), f(3), f(4));
    if end < start {
        return Err(malformed(
            name,
            format!("template end {end:#010x} is below its start {start:#010x}"),
        ));
    }
    let len = end - start;
    if len > MAX_TLS_DATA || zero_fill > MAX_TLS_DATA {
        return Err(malformed(
            name,
            format!("template {len:#x} + zero fill {zero_fill:#x} bytes is too large"),
        ));
    }
    // The loader writes the index with host rights (ignoring page protection), so it
    // must go into the image itself, as it always does in real images.
    if index_addr != 0
        && (index_addr < base || index_addr as u64 + 4 > base as u64 + h.mapped_size() as u64)
    {
        return Err(malformed(
            name,
            format!("AddressOfIndex {index_addr:#010x} lies outside the image"),
        ));
    }
    let index = st.tls.len() as u32;
    if index_addr != 0 {
        proc.mem
            .write_bytes(index_addr, &index.to_le_bytes())
            .map_err(|f| LoadError::fault(name, f))?;
    }
    st.tls.push(Some(TlsModule {
        base,
        start,
        len,
        zero_fill,
        index_addr,
        callbacks,
    }));
    Ok(Some(index))
}

/// The image's TLS callbacks, read from guest memory now (a program may add to the
/// list before they run).
pub fn callbacks(proc: &Process, m: &TlsModule) -> Vec<u32> {
    let mut v = Vec::new();
    if m.callbacks == 0 {
        return v;
    }
    for k in 0..MAX_CALLBACKS as u32 {
        match proc.mem.read_u32(m.callbacks.wrapping_add(4 * k)) {
            Ok(0) => break,
            Ok(a) => v.push(a),
            Err(f) => {
                log::warn!(
                    "TLS callback list at {:#010x} unreadable at {:#010x}",
                    m.callbacks,
                    f.addr
                );
                break;
            }
        }
    }
    v
}

fn block_size(m: &TlsModule) -> u32 {
    crate::address_space::round_up(m.len + m.zero_fill, BLOCK_ALIGN).max(BLOCK_ALIGN)
}

/// Copies the current template of `m` to `at` (the zero fill is already zero).
fn fill_block(proc: &Process, m: &TlsModule, at: u32) -> Result<(), LoadError> {
    let mut data = vec![0u8; m.len as usize];
    proc.mem
        .read_bytes(m.start, &mut data)
        .map_err(|f| LoadError::fault("TLS template", f))?;
    proc.mem
        .write_bytes(at, &data)
        .map_err(|f| LoadError::fault("TLS data", f))
}

fn alloc(proc: &Process, size: u32, tid: u32) -> Result<u32, LoadError> {
    proc.vm
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .alloc(None, size, Prot::RW, &format!("TLS data tid {tid}"))
        .map_err(|e| LoadError::vm("TLS data", e))
}

/// Gives a new thread its TLS array and data blocks for every registered image,
/// and points TEB+0x2C at the array. A process without implicit TLS gets no array
/// (the pointer stays 0, as on Windows).
pub fn setup_thread(
    proc: &Process,
    st: &LoaderState,
    tid: u32,
    rec: &mut ThreadRec,
) -> Result<(), LoadError> {
    if st.tls.iter().all(|m| m.is_none()) {
        return Ok(());
    }
    let cap = ARRAY_CAP.max(st.tls.len() as u32);
    let mut total = 4 * cap;
    for m in st.tls.iter().flatten() {
        total = crate::address_space::round_up(total, BLOCK_ALIGN) + block_size(m);
    }
    let res = alloc(proc, total, tid)?;
    rec.tls_blocks.push(res);
    let mut at = res + 4 * cap;
    for (index, m) in st.tls.iter().enumerate() {
        let Some(m) = m else { continue };
        at = crate::address_space::round_up(at, BLOCK_ALIGN);
        fill_block(proc, m, at)?;
        proc.mem
            .write_bytes(res + 4 * index as u32, &at.to_le_bytes())
            .map_err(|f| LoadError::fault("TLS array", f))?;
        at += block_size(m);
    }
    rec.tls_array = res;
    rec.tls_cap = cap;
    proc.mem
        .write_bytes(rec.teb + teb::TLS_POINTER, &res.to_le_bytes())
        .map_err(|f| LoadError::fault("TEB", f))
}

/// Gives every existing thread a block for TLS index `index` (an image loaded by
/// LoadLibrary), growing its array if needed. Other threads may be running: the
/// array pointer and slot are each replaced by one aligned store.
pub fn add_to_threads(proc: &Process, st: &mut LoaderState, index: u32) -> Result<(), LoadError> {
    let Some(Some(m)) = st.tls.get(index as usize).cloned() else {
        return Ok(());
    };
    let tids: Vec<u32> = st.threads.keys().copied().collect();
    for tid in tids {
        let Some(rec) = st.threads.get_mut(&tid) else {
            continue;
        };
        if rec.tls_array == 0 || index >= rec.tls_cap {
            let cap = (index + 1).max(ARRAY_CAP).next_power_of_two();
            let arr = alloc(proc, 4 * cap, tid)?;
            rec.tls_blocks.push(arr);
            if rec.tls_array != 0 {
                let mut old = vec![0u8; 4 * rec.tls_cap as usize];
                proc.mem
                    .read_bytes(rec.tls_array, &mut old)
                    .map_err(|f| LoadError::fault("TLS array", f))?;
                proc.mem
                    .write_bytes(arr, &old)
                    .map_err(|f| LoadError::fault("TLS array", f))?;
            }
            rec.tls_array = arr;
            rec.tls_cap = cap;
            proc.mem
                .write_bytes(rec.teb + teb::TLS_POINTER, &arr.to_le_bytes())
                .map_err(|f| LoadError::fault("TEB", f))?;
        }
        let block = alloc(proc, block_size(&m), tid)?;
        rec.tls_blocks.push(block);
        fill_block(proc, &m, block)?;
        proc.mem
            .write_bytes(rec.tls_array + 4 * index, &block.to_le_bytes())
            .map_err(|f| LoadError::fault("TLS array", f))?;
    }
    Ok(())
}
