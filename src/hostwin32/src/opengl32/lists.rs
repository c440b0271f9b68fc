//! Display lists: names (glGenLists, glIsList, glDeleteLists), compiling
//! (glNewList/glEndList record the [`Cmd`]s the GL functions decode) and calling
//! (glCallList, glCallLists with glListBase), nested up to GL_MAX_LIST_NESTING.

use super::Context;
use super::cmd::{self, Cmd};
use super::consts::*;
use super::state::{Device, MAX_LIST_NESTING};
use crate::hle::ApiResult;
use std::sync::Arc;

/// glCallList: runs the list's commands (a name with no list does nothing).
pub fn call(c: &mut Context, dev: &mut Device, name: u32) -> ApiResult<()> {
    if c.list_depth >= MAX_LIST_NESTING {
        return Ok(());
    }
    let Some(list) = dev
        .groups
        .get(&c.share)
        .and_then(|g| g.lists.get(&name))
        .cloned()
    else {
        return Ok(());
    };
    c.list_depth += 1;
    let mut r = Ok(());
    for k in list.iter() {
        r = cmd::exec(c, dev, k);
        if r.is_err() {
            break;
        }
    }
    c.list_depth -= 1;
    r
}

/// glGenLists: the first of `range` consecutive unused names, 0 if none.
pub fn gen_lists(c: &mut Context, dev: &mut Device, range: i32) -> u32 {
    if range < 0 {
        c.s.error(GL_INVALID_VALUE);
        return 0;
    }
    if range == 0 {
        return 0;
    }
    let grp = dev.groups.entry(c.share).or_default();
    let range = range as u32;
    let mut first = 1u32;
    for &n in grp.list_names.iter() {
        if n >= first && n < first.saturating_add(range) {
            first = n + 1;
        }
    }
    if first.checked_add(range).is_none() {
        c.s.error(GL_OUT_OF_MEMORY);
        return 0;
    }
    for n in first..first + range {
        grp.list_names.insert(n);
        // A generated name has an empty list until compiled.
        grp.lists.insert(n, Arc::new(Vec::new()));
    }
    first
}

pub fn new_list(c: &mut Context, dev: &mut Device, name: u32, mode: u32) {
    if name == 0 {
        c.s.error(GL_INVALID_VALUE);
        return;
    }
    if !matches!(mode, GL_COMPILE | GL_COMPILE_AND_EXECUTE) {
        c.s.error(GL_INVALID_ENUM);
        return;
    }
    if c.compiling.is_some() || c.prim.is_some() {
        c.s.error(GL_INVALID_OPERATION);
        return;
    }
    let _ = dev;
    c.compiling = Some(super::Compiling {
        name,
        mode,
        cmds: Vec::new(),
    });
}

pub fn end_list(c: &mut Context, dev: &mut Device) {
    let Some(l) = c.compiling.take() else {
        c.s.error(GL_INVALID_OPERATION);
        return;
    };
    let grp = dev.groups.entry(c.share).or_default();
    grp.list_names.insert(l.name);
    grp.lists.insert(l.name, Arc::new(l.cmds));
}

pub fn delete_lists(c: &mut Context, dev: &mut Device, list: u32, range: i32) {
    if range < 0 {
        c.s.error(GL_INVALID_VALUE);
        return;
    }
    let grp = dev.groups.entry(c.share).or_default();
    for n in list..list.saturating_add(range as u32) {
        grp.list_names.remove(&n);
        grp.lists.remove(&n);
    }
}

pub fn is_list(c: &Context, dev: &Device, name: u32) -> bool {
    dev.groups
        .get(&c.share)
        .is_some_and(|g| g.lists.contains_key(&name))
}

/// The names glCallLists reads from `n` values of `ty` at `lists` (before the
/// list base is added), or None for a type GL does not know.
pub fn read_names(
    proc: &crate::process::Process,
    n: i32,
    ty: u32,
    lists: u32,
) -> ApiResult<Option<Vec<u32>>> {
    let n = n.max(0) as u32;
    let size = match ty {
        GL_BYTE | GL_UNSIGNED_BYTE => 1,
        GL_SHORT | GL_UNSIGNED_SHORT | GL_2_BYTES => 2,
        GL_3_BYTES => 3,
        GL_INT | GL_UNSIGNED_INT | GL_FLOAT | GL_4_BYTES => 4,
        _ => return Ok(None),
    };
    let mut bytes = vec![0u8; (n * size) as usize];
    proc.mem.read_bytes(lists, &mut bytes)?;
    let mut out = Vec::with_capacity(n as usize);
    for b in bytes.chunks_exact(size as usize) {
        out.push(match ty {
            GL_BYTE => b[0] as i8 as i32 as u32,
            GL_UNSIGNED_BYTE => u32::from(b[0]),
            GL_SHORT => i16::from_le_bytes([b[0], b[1]]) as i32 as u32,
            GL_UNSIGNED_SHORT => u32::from(u16::from_le_bytes([b[0], b[1]])),
            GL_INT | GL_UNSIGNED_INT => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            GL_FLOAT => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u32,
            // GL_n_BYTES: big-endian unsigned of n bytes.
            _ => b.iter().fold(0u32, |a, &x| (a << 8) | u32::from(x)),
        });
    }
    Ok(Some(out))
}

/// The command glCallLists compiles into a list: each name, offset by the list
/// base in effect when it runs.
pub fn call_lists(c: &mut Context, dev: &mut Device, names: &[u32]) -> ApiResult<()> {
    for &n in names {
        let name = c.s.list_base.wrapping_add(n);
        cmd::exec(c, dev, &Cmd::CallList(name))?;
    }
    Ok(())
}
