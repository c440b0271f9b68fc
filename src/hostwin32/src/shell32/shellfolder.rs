//! The shell namespace over the sandboxed file system: SHGetDesktopFolder and the
//! IShellFolder / IEnumIDList objects it leads to.
//!
//! The namespace is Windows': the desktop at the root (the empty ID list), under it
//! My Computer (a virtual folder, CSIDL_DRIVES) and the files of the desktop
//! directory, under My Computer the drive (`C:\`), under that the folders and
//! files of the sandbox. An item's ID list is one of [`super::pidl`]'s: each item
//! carries its whole path (or its CSIDL), so a list of several items, as a program
//! builds by appending a child's item to its folder's list, names what its last
//! item names.
//!
//! Methods a program may call that need more of the shell than a file list (the
//! folder view, renaming) are left out of the method table's exports, so a call
//! reports itself by name. GetUIObjectOf serves no interface yet (context menus,
//! data objects, icon extractors, drop targets): it answers E_NOINTERFACE, which
//! a folder may answer for any of them, and logs the interface asked for.

#![allow(non_snake_case)]

use super::folders::{self, CSIDL_DESKTOPDIRECTORY};
use super::pidl::{self, Item};
use crate::hle::com::{
    self, E_FAIL, E_INVALIDARG, E_NOINTERFACE, E_OUTOFMEMORY, E_POINTER, Guid, IID_IUNKNOWN,
    S_FALSE, S_OK,
};
use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};
use crate::kernel32::file::vfs;
use crate::kernel32::string::{read_wstr, write_wide};
use crate::ole32::malloc;
use crate::vfs::{FILE_ATTRIBUTE_DIRECTORY, MAX_PATH};
use std::collections::HashMap;
use std::sync::Mutex;

const DLL: &str = "shell32.dll";

pub const IID_ISHELLFOLDER: Guid = Guid::new(0x000214E6, 0, 0, [0xC0, 0, 0, 0, 0, 0, 0, 0x46]);
pub const IID_IENUMIDLIST: Guid = Guid::new(0x000214F2, 0, 0, [0xC0, 0, 0, 0, 0, 0, 0, 0x46]);
const IID_IPERSIST: Guid = Guid::new(0x0000010C, 0, 0, [0xC0, 0, 0, 0, 0, 0, 0, 0x46]);
const IID_IPERSISTFOLDER: Guid = Guid::new(0x000214EA, 0, 0, [0xC0, 0, 0, 0, 0, 0, 0, 0x46]);
pub const IID_IPERSISTFOLDER2: Guid = Guid::new(
    0x1AC3D9F0,
    0x175C,
    0x11D1,
    [0x95, 0xBE, 0x00, 0x60, 0x97, 0x97, 0xEA, 0x4F],
);
const CLSID_SHELLDESKTOP: Guid = Guid::new(0x00021400, 0, 0, [0xC0, 0, 0, 0, 0, 0, 0, 0x46]);
const CLSID_MYCOMPUTER: Guid = Guid::new(
    0x20D04FE0,
    0x3AEA,
    0x1069,
    [0xA2, 0xD8, 0x08, 0x00, 0x2B, 0x30, 0x30, 0x9D],
);
const CLSID_SHELLFSFOLDER: Guid = Guid::new(
    0xF3364BA0,
    0x65B9,
    0x11CE,
    [0xA9, 0xBA, 0x00, 0xAA, 0x00, 0x4A, 0xE8, 0x37],
);

/// My Computer.
pub const CSIDL_DRIVES: u32 = 0x11;
const MY_COMPUTER_PARSE: &str = "::{20D04FE0-3AEA-1069-A2D8-08002B30309D}";

const SHCONTF_FOLDERS: u32 = 0x20;
const SHCONTF_NONFOLDERS: u32 = 0x40;
const SHCONTF_INCLUDEHIDDEN: u32 = 0x80;

const SHGDN_INFOLDER: u32 = 0x1;
const SHGDN_FORPARSING: u32 = 0x8000;

const SFGAO_CANCOPY: u32 = 0x1;
const SFGAO_CANMOVE: u32 = 0x2;
const SFGAO_CANLINK: u32 = 0x4;
const SFGAO_CANRENAME: u32 = 0x10;
const SFGAO_CANDELETE: u32 = 0x20;
const SFGAO_HASPROPSHEET: u32 = 0x40;
const SFGAO_DROPTARGET: u32 = 0x100;
const SFGAO_READONLY: u32 = 0x4_0000;
const SFGAO_HIDDEN: u32 = 0x8_0000;
const SFGAO_FILESYSANCESTOR: u32 = 0x1000_0000;
const SFGAO_FOLDER: u32 = 0x2000_0000;
const SFGAO_FILESYSTEM: u32 = 0x4000_0000;
const SFGAO_HASSUBFOLDER: u32 = 0x8000_0000;

const FILE_ATTRIBUTE_READONLY: u32 = 0x1;
const FILE_ATTRIBUTE_HIDDEN: u32 = 0x2;

const STRRET_WSTR: u32 = 0;

/// HRESULT_FROM_WIN32(ERROR_FILE_NOT_FOUND).
const HR_FILE_NOT_FOUND: u32 = 0x8007_0002;

const FOLDER_METHODS: &[&str] = &[
    "QueryInterface",
    "AddRef",
    "Release",
    "ParseDisplayName",
    "EnumObjects",
    "BindToObject",
    "BindToStorage",
    "CompareIDs",
    "CreateViewObject",
    "GetAttributesOf",
    "GetUIObjectOf",
    "GetDisplayNameOf",
    "SetNameOf",
];

/// IPersistFolder2, the folder's second interface (at 8 bytes into the object):
/// IPersist's GetClassID, IPersistFolder's Initialize (which re-roots a folder a
/// program made itself: winterp's are made rooted, and it reports itself by name)
/// and GetCurFolder.
const PERSIST_METHODS: &[&str] = &[
    "QueryInterface",
    "AddRef",
    "Release",
    "GetClassID",
    "Initialize",
    "GetCurFolder",
];

const ENUM_METHODS: &[&str] = &[
    "QueryInterface",
    "AddRef",
    "Release",
    "Next",
    "Skip",
    "Reset",
    "Clone",
];

struct Folder {
    item: Item,
    refs: u32,
}

struct Enum {
    items: Vec<Item>,
    pos: usize,
    refs: u32,
}

#[derive(Default)]
struct State {
    desktop: u32,
    folders: HashMap<u32, Folder>,
    enums: HashMap<u32, Enum>,
}

#[derive(Default)]
struct Slot(Mutex<State>);

fn with<R>(cx: &Ctx, f: impl FnOnce(&mut State) -> R) -> R {
    let s = cx.proc.slot::<Slot>();
    let mut g = s.0.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut g)
}

/// A folder object: `[IShellFolder vtable, 0, IPersistFolder2 vtable]`.
fn new_folder(cx: &mut Ctx, item: Item) -> ApiResult<u32> {
    let vt = com::vtable(cx.proc, DLL, "IShellFolder", FOLDER_METHODS)?;
    let persist = com::vtable(cx.proc, DLL, "IPersistFolder2", PERSIST_METHODS)?;
    let obj = com::new_object(cx.proc, vt, 0, 12)?;
    cx.proc.mem.write_u32(obj + 8, persist)?;
    with(cx, |s| s.folders.insert(obj, Folder { item, refs: 1 }));
    Ok(obj)
}

fn new_enum(cx: &mut Ctx, items: Vec<Item>, pos: usize) -> ApiResult<u32> {
    let vt = com::vtable(cx.proc, DLL, "IEnumIDList", ENUM_METHODS)?;
    let obj = com::new_object(cx.proc, vt, 0, 8)?;
    with(cx, |s| {
        s.enums.insert(
            obj,
            Enum {
                items,
                pos,
                refs: 1,
            },
        )
    });
    Ok(obj)
}

/// What the folder object (either interface pointer of it) stands for, if it is
/// one of winterp's.
pub fn object_item(cx: &Ctx, unk: u32) -> Option<Item> {
    with(cx, |s| {
        s.folders
            .get(&unk)
            .or_else(|| s.folders.get(&unk.wrapping_sub(8)))
            .map(|f| f.item.clone())
    })
}

/// The shell folder object for `item`, new (the desktop's is the process's one).
pub fn folder_object(cx: &mut Ctx, item: Item) -> ApiResult<u32> {
    if item == Item::Desktop {
        let (hr, obj) = desktop_object(cx)?;
        debug_assert_eq!(hr, S_OK);
        return Ok(obj);
    }
    new_folder(cx, item)
}

/// The folder that holds `item` in the namespace: the desktop holds My Computer
/// and the files of the desktop directory, My Computer the drive, a folder its
/// files; the desktop has none.
pub fn parent_of(cx: &mut Ctx, item: &Item) -> ApiResult<Option<Item>> {
    Ok(match item {
        Item::Desktop => None,
        Item::Virtual(_) => Some(Item::Desktop),
        Item::Path(p) => {
            let p = p.trim_end_matches('\\');
            match p.rsplit_once('\\') {
                None => Some(Item::Virtual(CSIDL_DRIVES)),
                Some((dir, _)) => {
                    let in_desktop = desktop_dir(cx)?
                        .is_some_and(|d| d.trim_end_matches('\\').eq_ignore_ascii_case(dir));
                    if in_desktop {
                        Some(Item::Desktop)
                    } else if dir.len() == 2 && dir.ends_with(':') {
                        Some(Item::Path(format!("{dir}\\")))
                    } else {
                        Some(Item::Path(dir.to_string()))
                    }
                }
            }
        }
    })
}

fn folder_item(cx: &Ctx, this: u32) -> ApiResult<Item> {
    with(cx, |s| s.folders.get(&this).map(|f| f.item.clone())).ok_or_else(|| {
        crate::hle::ApiError::Other(format!("{this:#x} is not one of SHELL32's shell folders"))
    })
}

fn desktop_object(cx: &mut Ctx) -> ApiResult<(u32, u32)> {
    let made = with(cx, |s| s.desktop);
    let obj = if made != 0 {
        made
    } else {
        let o = new_folder(cx, Item::Desktop)?;
        with(cx, |s| s.desktop = o);
        o
    };
    Ok((S_OK, obj))
}

/// The desktop folder (one per process, never freed).
pub fn SHGetDesktopFolder(cx: &mut Ctx, ppshf: Ptr) -> ApiResult<u32> {
    if ppshf.is_null() {
        return Ok(E_INVALIDARG);
    }
    let (hr, obj) = desktop_object(cx)?;
    cx.proc.mem.write_u32(ppshf.0, obj)?;
    Ok(hr)
}

/// The folder holding the item `pidl` names, as `riid` (IShellFolder), and in
/// `ppidlLast` the list's last item, inside `pidl`. The desktop's parent is the
/// desktop itself, with the empty list as its item, as on Windows.
fn SHBindToParent(cx: &mut Ctx, pidl_: u32, riid: Ptr, ppv: Ptr, ppidlLast: Ptr) -> ApiResult<u32> {
    if ppv.is_null() || riid.is_null() {
        return Ok(E_INVALIDARG);
    }
    cx.proc.mem.write_u32(ppv.0, 0)?;
    if pidl_ == 0 {
        return Ok(E_INVALIDARG);
    }
    let iid = Guid::read(cx.proc, riid.0)?;
    if iid != IID_ISHELLFOLDER && iid != IID_IUNKNOWN {
        log::info!("SHBindToParent for {iid}: only IShellFolder is served");
        return Ok(E_NOINTERFACE);
    }
    let item = item_of(cx, pidl_)?;
    let parent = parent_of(cx, &item)?.unwrap_or(Item::Desktop);
    let obj = folder_object(cx, parent)?;
    cx.proc.mem.write_u32(ppv.0, obj)?;
    if !ppidlLast.is_null() {
        let last = super::pidl::ILFindLastID(cx, pidl_)?;
        cx.proc.mem.write_u32(ppidlLast.0, last)?;
    }
    Ok(S_OK)
}

/// The ID list of a shell object: winterp's folders know theirs; another object
/// is asked through its IPersistFolder2.
fn SHGetIDListFromObject(cx: &mut Ctx, punk: u32, ppidl: Ptr) -> ApiResult<crate::hle::Outcome> {
    use crate::hle::Outcome;
    let ret = |h: u32| Ok(Outcome::Return(u64::from(h)));
    if ppidl.is_null() {
        return ret(E_POINTER);
    }
    cx.proc.mem.write_u32(ppidl.0, 0)?;
    if punk == 0 {
        return ret(E_INVALIDARG);
    }
    if let Some(item) = object_item(cx, punk) {
        let list = pidl::alloc(cx, &item)?;
        cx.proc.mem.write_u32(ppidl.0, list)?;
        return ret(if list == 0 { E_OUTOFMEMORY } else { S_OK });
    }
    let heap = crate::kernel32::heap::process_heap(cx.proc)?;
    let scratch = heap.alloc(20, true)?;
    if scratch == 0 {
        return ret(E_OUTOFMEMORY);
    }
    IID_IPERSISTFOLDER2.write(cx.proc, scratch)?;
    let r = (|| -> ApiResult<Result<u32, Outcome>> {
        use crate::ole32::apartment::{call_method, release};
        let hr = match call_method(cx, punk, 0, &[scratch, scratch + 16])? {
            Ok(h) => h,
            Err(end) => return Ok(Err(end)),
        };
        if hr & 0x8000_0000 != 0 {
            return Ok(Ok(hr));
        }
        let persist = cx.proc.mem.read_u32(scratch + 16)?;
        // IPersistFolder2::GetCurFolder(ppidl) is slot 5.
        let hr = match call_method(cx, persist, 5, &[ppidl.0])? {
            Ok(h) => h,
            Err(end) => return Ok(Err(end)),
        };
        if let Err(end) = release(cx, persist)? {
            return Ok(Err(end));
        }
        Ok(Ok(hr))
    })();
    heap.free(scratch);
    match r? {
        Ok(hr) => ret(hr),
        Err(end) => Ok(end),
    }
}

// ---- The namespace -----------------------------------------------------------------------

/// What an ID list names, for a list that is not winterp's: an error that says so.
fn item_of(cx: &Ctx, list: u32) -> ApiResult<Item> {
    if list == 0 {
        return Ok(Item::Desktop);
    }
    match pidl::read(cx, list)? {
        Some(i) => Ok(i),
        None => Err(crate::hle::ApiError::UnimplementedCase(format!(
            "an item ID list at {list:#x} that winterp's SHELL32 did not make"
        ))),
    }
}

pub(super) fn desktop_dir(cx: &mut Ctx) -> ApiResult<Option<String>> {
    let (hr, path) = folders::folder_path(cx, CSIDL_DESKTOPDIRECTORY, 0, None)?;
    Ok(path.filter(|_| hr & 0x8000_0000 == 0))
}

fn drive_root(cx: &Ctx) -> ApiResult<String> {
    Ok(format!("{}:\\", vfs(cx.proc)?.drive()))
}

/// The attributes of a file or folder of the sandbox, if it exists.
fn attributes(cx: &Ctx, path: &str) -> ApiResult<Option<u32>> {
    Ok(vfs(cx.proc)?.get_attributes(path).ok())
}

fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('\\') {
        format!("{dir}{name}")
    } else {
        format!("{dir}\\{name}")
    }
}

/// The folder's items that `flags` (SHCONTF_*) asks for, in the file system's order.
pub(super) fn children(cx: &mut Ctx, folder: &Item, flags: u32) -> ApiResult<Vec<Item>> {
    let want_dirs = flags & SHCONTF_FOLDERS != 0;
    let want_files = flags & SHCONTF_NONFOLDERS != 0;
    let hidden = flags & SHCONTF_INCLUDEHIDDEN != 0;
    let mut out = Vec::new();
    let dir = match folder {
        Item::Desktop => {
            if want_dirs {
                out.push(Item::Virtual(CSIDL_DRIVES));
            }
            desktop_dir(cx)?
        }
        Item::Virtual(CSIDL_DRIVES) => {
            if want_dirs {
                out.push(Item::Path(drive_root(cx)?));
            }
            None
        }
        Item::Virtual(_) => None,
        Item::Path(p) => Some(p.clone()),
    };
    if let Some(dir) = dir {
        let entries = vfs(cx.proc)?.read_dir(&join(&dir, "*")).unwrap_or_default();
        for e in entries {
            if e.name == "." || e.name == ".." {
                continue;
            }
            if e.attributes & FILE_ATTRIBUTE_HIDDEN != 0 && !hidden {
                continue;
            }
            if (e.is_dir && want_dirs) || (!e.is_dir && want_files) {
                out.push(Item::Path(join(&dir, &e.name)));
            }
        }
    }
    Ok(out)
}

pub(super) fn is_folder(cx: &Ctx, item: &Item) -> ApiResult<bool> {
    Ok(match item {
        Item::Desktop | Item::Virtual(_) => true,
        Item::Path(p) => attributes(cx, p)?.is_some_and(|a| a & FILE_ATTRIBUTE_DIRECTORY != 0),
    })
}

fn sfgao(cx: &Ctx, item: &Item) -> ApiResult<u32> {
    Ok(match item {
        Item::Desktop => SFGAO_FOLDER | SFGAO_HASSUBFOLDER | SFGAO_FILESYSANCESTOR,
        Item::Virtual(CSIDL_DRIVES) => {
            SFGAO_FOLDER | SFGAO_HASSUBFOLDER | SFGAO_FILESYSANCESTOR | SFGAO_HASPROPSHEET
        }
        Item::Virtual(_) => SFGAO_FOLDER | SFGAO_HASSUBFOLDER,
        Item::Path(p) => {
            let Some(a) = attributes(cx, p)? else {
                return Ok(0);
            };
            let mut f = SFGAO_FILESYSTEM | SFGAO_CANCOPY | SFGAO_CANLINK | SFGAO_HASPROPSHEET;
            if p.len() == 3 && p.ends_with(":\\") {
                f |= SFGAO_FOLDER
                    | SFGAO_FILESYSANCESTOR
                    | SFGAO_HASSUBFOLDER
                    | SFGAO_DROPTARGET
                    | SFGAO_CANLINK;
                return Ok(f);
            }
            f |= SFGAO_CANMOVE | SFGAO_CANRENAME | SFGAO_CANDELETE;
            if a & FILE_ATTRIBUTE_DIRECTORY != 0 {
                f |= SFGAO_FOLDER | SFGAO_FILESYSANCESTOR | SFGAO_DROPTARGET;
                let has_sub = vfs(cx.proc)?
                    .read_dir(&join(p, "*"))
                    .unwrap_or_default()
                    .iter()
                    .any(|e| e.is_dir && e.name != "." && e.name != "..");
                if has_sub {
                    f |= SFGAO_HASSUBFOLDER;
                }
            }
            if a & FILE_ATTRIBUTE_READONLY != 0 {
                f |= SFGAO_READONLY;
            }
            if a & FILE_ATTRIBUTE_HIDDEN != 0 {
                f |= SFGAO_HIDDEN;
            }
            f
        }
    })
}

/// An item's name: for parsing (the path, or My Computer's CLSID form) unless
/// SHGDN_INFOLDER without SHGDN_FORPARSING, where it is the name in its folder.
pub(super) fn display_name(cx: &mut Ctx, item: &Item, flags: u32) -> ApiResult<String> {
    let parsing = flags & SHGDN_FORPARSING != 0;
    Ok(match item {
        Item::Desktop => {
            if parsing && flags & SHGDN_INFOLDER == 0 {
                desktop_dir(cx)?.unwrap_or_else(|| "Desktop".into())
            } else {
                "Desktop".into()
            }
        }
        Item::Virtual(CSIDL_DRIVES) => {
            if parsing {
                MY_COMPUTER_PARSE.into()
            } else {
                "My Computer".into()
            }
        }
        Item::Virtual(c) => format!("::virtual folder {c:#x}"),
        Item::Path(p) => {
            let root = p.len() == 3 && p.ends_with(":\\");
            if root {
                if parsing {
                    p.clone()
                } else {
                    format!("({})", &p[..2])
                }
            } else if parsing && flags & SHGDN_INFOLDER == 0 {
                p.clone()
            } else {
                p.rsplit('\\').next().unwrap_or(p).to_string()
            }
        }
    })
}

/// A path the folder parses a display name into (relative to it, or absolute).
fn parse(cx: &mut Ctx, folder: &Item, name: &str) -> ApiResult<Option<Item>> {
    if name.eq_ignore_ascii_case(MY_COMPUTER_PARSE) {
        return Ok(Some(Item::Virtual(CSIDL_DRIVES)));
    }
    let absolute = name.len() >= 2 && name.as_bytes()[1] == b':' || name.starts_with('\\');
    let path = if absolute {
        name.to_string()
    } else {
        match folder {
            Item::Path(d) => join(d, name),
            Item::Desktop => match desktop_dir(cx)? {
                Some(d) => join(&d, name),
                None => return Ok(None),
            },
            Item::Virtual(_) => name.to_string(),
        }
    };
    let v = vfs(cx.proc)?;
    let Ok(full) = v.full_path(&path) else {
        return Ok(None);
    };
    if v.get_attributes(&full).is_err() {
        return Ok(None);
    }
    Ok(Some(Item::Path(full)))
}

/// The levels from `folder` down to `item`, as Windows' ID lists hold them: from
/// the desktop My Computer, the drive and each folder; from a folder of the file
/// system each level below it. Each level is the item the level above lists for
/// it in EnumObjects (the names as the file system spells them), so a program
/// that walks the list finds each level among its parent's children. An item
/// that is not below `folder` is one level.
fn levels(cx: &Ctx, folder: &Item, item: &Item) -> ApiResult<Vec<Item>> {
    let Item::Path(p) = item else {
        return Ok(match (folder, item) {
            (Item::Desktop, Item::Desktop) => Vec::new(),
            _ => vec![item.clone()],
        });
    };
    let root = drive_root(cx)?;
    let Some(rest) = p
        .get(..3)
        .filter(|d| d.eq_ignore_ascii_case(&root))
        .map(|_| &p[3..])
    else {
        return Ok(vec![item.clone()]);
    };
    let mut chain = vec![Item::Virtual(CSIDL_DRIVES), Item::Path(root.clone())];
    let mut cur = root;
    let v = vfs(cx.proc)?;
    for comp in rest.split('\\').filter(|c| !c.is_empty()) {
        // The name as the folder lists it (the path may differ in case).
        let name = v
            .read_dir(&join(&cur, comp))
            .ok()
            .and_then(|e| e.into_iter().next())
            .map_or_else(|| comp.to_string(), |e| e.name);
        cur = join(&cur, &name);
        chain.push(Item::Path(cur.clone()));
    }
    let start = match folder {
        Item::Desktop => 0,
        Item::Path(f) => match chain
            .iter()
            .position(|c| matches!(c, Item::Path(c) if c.eq_ignore_ascii_case(f)))
        {
            Some(k) => k + 1,
            None => return Ok(vec![chain.pop().unwrap_or_else(|| item.clone())]),
        },
        f => match chain.iter().position(|c| c == f) {
            Some(k) => k + 1,
            None => return Ok(vec![chain.pop().unwrap_or_else(|| item.clone())]),
        },
    };
    Ok(chain.split_off(start))
}

// ---- IShellFolder ---------------------------------------------------------------------------

fn put_out(cx: &Ctx, p: Ptr, v: u32) -> ApiResult<()> {
    if !p.is_null() {
        cx.proc.mem.write_u32(p.0, v)?;
    }
    Ok(())
}

fn QueryInterface(cx: &mut Ctx, this: u32, riid: Ptr, ppv: Ptr) -> ApiResult<u32> {
    if ppv.is_null() || riid.is_null() {
        return Ok(E_POINTER);
    }
    let iid = Guid::read(cx.proc, riid.0)?;
    if iid == IID_IUNKNOWN || iid == IID_ISHELLFOLDER {
        AddRef(cx, this);
        cx.proc.mem.write_u32(ppv.0, this)?;
        return Ok(S_OK);
    }
    if iid == IID_IPERSIST || iid == IID_IPERSISTFOLDER || iid == IID_IPERSISTFOLDER2 {
        AddRef(cx, this);
        cx.proc.mem.write_u32(ppv.0, this + 8)?;
        return Ok(S_OK);
    }
    log::info!("IShellFolder::QueryInterface({iid}): not an interface winterp's folders have");
    cx.proc.mem.write_u32(ppv.0, 0)?;
    Ok(E_NOINTERFACE)
}

fn AddRef(cx: &mut Ctx, this: u32) -> u32 {
    with(cx, |s| {
        s.folders.get_mut(&this).map_or(0, |f| {
            f.refs += 1;
            f.refs
        })
    })
}

fn Release(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let (left, free) = with(cx, |s| {
        let desktop = s.desktop;
        let Some(f) = s.folders.get_mut(&this) else {
            return (0, false);
        };
        // The desktop folder is the process's for good (SHGetDesktopFolder hands
        // out the same one every time).
        if this == desktop {
            return (1, false);
        }
        f.refs = f.refs.saturating_sub(1);
        let left = f.refs;
        if left == 0 {
            s.folders.remove(&this);
        }
        (left, left == 0)
    });
    if free {
        com::free_object(cx.proc, this)?;
    }
    Ok(left)
}

#[allow(clippy::too_many_arguments)]
fn ParseDisplayName(
    cx: &mut Ctx,
    this: u32,
    _hwnd: u32,
    _pbc: u32,
    pszDisplayName: u32,
    pchEaten: Ptr,
    ppidl: Ptr,
    pdwAttributes: Ptr,
) -> ApiResult<u32> {
    if ppidl.is_null() {
        return Ok(E_INVALIDARG);
    }
    cx.proc.mem.write_u32(ppidl.0, 0)?;
    if pszDisplayName == 0 {
        return Ok(E_INVALIDARG);
    }
    let folder = folder_item(cx, this)?;
    let name = read_wstr(cx.proc, pszDisplayName)?;
    let Some(item) = parse(cx, &folder, &name)? else {
        return Ok(HR_FILE_NOT_FOUND);
    };
    let list = pidl::alloc_list(cx, &levels(cx, &folder, &item)?)?;
    if list == 0 {
        return Ok(E_OUTOFMEMORY);
    }
    cx.proc.mem.write_u32(ppidl.0, list)?;
    put_out(cx, pchEaten, name.encode_utf16().count() as u32)?;
    if !pdwAttributes.is_null() {
        let want = cx.proc.mem.read_u32(pdwAttributes.0)?;
        let have = sfgao(cx, &item)?;
        cx.proc.mem.write_u32(pdwAttributes.0, want & have)?;
    }
    Ok(S_OK)
}

fn EnumObjects(
    cx: &mut Ctx,
    this: u32,
    _hwnd: u32,
    grfFlags: u32,
    ppenumIDList: Ptr,
) -> ApiResult<u32> {
    if ppenumIDList.is_null() {
        return Ok(E_INVALIDARG);
    }
    let folder = folder_item(cx, this)?;
    let items = children(cx, &folder, grfFlags)?;
    let e = new_enum(cx, items, 0)?;
    cx.proc.mem.write_u32(ppenumIDList.0, e)?;
    Ok(S_OK)
}

fn BindToObject(
    cx: &mut Ctx,
    this: u32,
    pidl_: u32,
    _pbc: u32,
    riid: Ptr,
    ppv: Ptr,
) -> ApiResult<u32> {
    if ppv.is_null() || riid.is_null() {
        return Ok(E_POINTER);
    }
    cx.proc.mem.write_u32(ppv.0, 0)?;
    folder_item(cx, this)?;
    if pidl_ == 0 || cx.proc.mem.read_u16(pidl_)? == 0 {
        return Ok(E_INVALIDARG);
    }
    let item = item_of(cx, pidl_)?;
    let iid = Guid::read(cx.proc, riid.0)?;
    if iid != IID_ISHELLFOLDER && iid != IID_IUNKNOWN {
        log::info!("IShellFolder::BindToObject for {iid}: only IShellFolder is served");
        return Ok(E_NOINTERFACE);
    }
    if !is_folder(cx, &item)? {
        // Windows answers a file (or a path that is gone) with a failure too.
        return Ok(E_INVALIDARG);
    }
    let f = new_folder(cx, item)?;
    cx.proc.mem.write_u32(ppv.0, f)?;
    Ok(S_OK)
}

/// Folders before files, then by name as Explorer sorts its first column
/// (case-insensitively); the code is the comparison's sign as a short.
fn CompareIDs(cx: &mut Ctx, _this: u32, _lParam: u32, pidl1: u32, pidl2: u32) -> ApiResult<u32> {
    let a = item_of(cx, pidl1)?;
    let b = item_of(cx, pidl2)?;
    let key = |cx: &mut Ctx, i: &Item| -> ApiResult<(bool, String)> {
        let dir = is_folder(cx, i)?;
        Ok((!dir, display_name(cx, i, SHGDN_INFOLDER)?.to_lowercase()))
    };
    let (ka, kb) = (key(cx, &a)?, key(cx, &b)?);
    Ok(match ka.cmp(&kb) {
        std::cmp::Ordering::Less => 0xffff,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    })
}

fn GetAttributesOf(
    cx: &mut Ctx,
    this: u32,
    cidl: u32,
    apidl: Ptr,
    rgfInOut: Ptr,
) -> ApiResult<u32> {
    if rgfInOut.is_null() {
        return Ok(E_INVALIDARG);
    }
    let folder = folder_item(cx, this)?;
    let mut have = u32::MAX;
    if cidl == 0 {
        have = sfgao(cx, &folder)?;
    }
    for k in 0..cidl.min(0x10000) {
        let p = cx.proc.mem.read_u32(apidl.0 + 4 * k)?;
        let item = item_of(cx, p)?;
        have &= sfgao(cx, &item)?;
    }
    // Nothing asked for is every attribute, as the shell's folders answer it.
    let want = match cx.proc.mem.read_u32(rgfInOut.0)? {
        0 => u32::MAX,
        w => w,
    };
    cx.proc.mem.write_u32(rgfInOut.0, want & have)?;
    Ok(S_OK)
}

/// No UI object is served: E_NOINTERFACE for every interface (a program that
/// asks for an icon extractor or a data object falls back, as with a folder that
/// has none), after checking the items are winterp's.
#[allow(clippy::too_many_arguments)]
fn GetUIObjectOf(
    cx: &mut Ctx,
    this: u32,
    _hwndOwner: u32,
    cidl: u32,
    apidl: Ptr,
    riid: Ptr,
    _rgfReserved: u32,
    ppv: Ptr,
) -> ApiResult<u32> {
    if ppv.is_null() || riid.is_null() {
        return Ok(E_POINTER);
    }
    cx.proc.mem.write_u32(ppv.0, 0)?;
    folder_item(cx, this)?;
    if cidl == 0 || apidl.is_null() {
        return Ok(E_INVALIDARG);
    }
    for k in 0..cidl.min(0x10000) {
        let p = cx.proc.mem.read_u32(apidl.0 + 4 * k)?;
        item_of(cx, p)?;
    }
    let iid = Guid::read(cx.proc, riid.0)?;
    log::info!("IShellFolder::GetUIObjectOf({iid}): winterp's folders have no UI objects");
    Ok(E_NOINTERFACE)
}

fn GetDisplayNameOf(
    cx: &mut Ctx,
    this: u32,
    pidl_: u32,
    uFlags: u32,
    pName: Ptr,
) -> ApiResult<u32> {
    if pName.is_null() {
        return Ok(E_INVALIDARG);
    }
    folder_item(cx, this)?;
    let item = item_of(cx, pidl_)?;
    if let Item::Path(p) = &item
        && attributes(cx, p)?.is_none()
    {
        return Ok(E_FAIL);
    }
    let name = display_name(cx, &item, uFlags)?;
    let mut w: Vec<u16> = name.encode_utf16().take(MAX_PATH * 4).collect();
    w.push(0);
    let buf = malloc::alloc(cx, 2 * w.len() as u32)?;
    if buf == 0 {
        return Ok(E_OUTOFMEMORY);
    }
    write_wide(cx.proc, buf, &w)?;
    cx.proc.mem.write_u32(pName.0, STRRET_WSTR)?;
    cx.proc.mem.write_u32(pName.0 + 4, buf)?;
    Ok(S_OK)
}

// ---- IPersistFolder2 (at 8 bytes into the folder object) ---------------------------------

fn PersistQueryInterface(cx: &mut Ctx, this: u32, riid: Ptr, ppv: Ptr) -> ApiResult<u32> {
    QueryInterface(cx, this.wrapping_sub(8), riid, ppv)
}

fn PersistAddRef(cx: &mut Ctx, this: u32) -> u32 {
    AddRef(cx, this.wrapping_sub(8))
}

fn PersistRelease(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    Release(cx, this.wrapping_sub(8))
}

/// The class of the folder: the desktop's, My Computer's or a file-system folder's.
fn GetClassID(cx: &mut Ctx, this: u32, pClassID: Ptr) -> ApiResult<u32> {
    if pClassID.is_null() {
        return Ok(E_POINTER);
    }
    let clsid = match folder_item(cx, this.wrapping_sub(8))? {
        Item::Desktop => CLSID_SHELLDESKTOP,
        Item::Virtual(CSIDL_DRIVES) => CLSID_MYCOMPUTER,
        Item::Virtual(c) => {
            return Err(crate::hle::ApiError::UnimplementedCase(format!(
                "IPersist::GetClassID of the virtual folder {c:#x}"
            )));
        }
        Item::Path(_) => CLSID_SHELLFSFOLDER,
    };
    clsid.write(cx.proc, pClassID.0)?;
    Ok(S_OK)
}

/// A new copy of the folder's own (absolute) ID list.
fn GetCurFolder(cx: &mut Ctx, this: u32, ppidl: Ptr) -> ApiResult<u32> {
    if ppidl.is_null() {
        return Ok(E_POINTER);
    }
    let item = folder_item(cx, this.wrapping_sub(8))?;
    let list = pidl::alloc(cx, &item)?;
    cx.proc.mem.write_u32(ppidl.0, list)?;
    Ok(if list == 0 { E_OUTOFMEMORY } else { S_OK })
}

// ---- IEnumIDList ------------------------------------------------------------------------------

fn EnumQueryInterface(cx: &mut Ctx, this: u32, riid: Ptr, ppv: Ptr) -> ApiResult<u32> {
    if ppv.is_null() || riid.is_null() {
        return Ok(E_POINTER);
    }
    let iid = Guid::read(cx.proc, riid.0)?;
    if iid == IID_IUNKNOWN || iid == IID_IENUMIDLIST {
        EnumAddRef(cx, this);
        cx.proc.mem.write_u32(ppv.0, this)?;
        return Ok(S_OK);
    }
    cx.proc.mem.write_u32(ppv.0, 0)?;
    Ok(E_NOINTERFACE)
}

fn EnumAddRef(cx: &mut Ctx, this: u32) -> u32 {
    with(cx, |s| {
        s.enums.get_mut(&this).map_or(0, |e| {
            e.refs += 1;
            e.refs
        })
    })
}

fn EnumRelease(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let left = with(cx, |s| {
        let e = s.enums.get_mut(&this)?;
        e.refs = e.refs.saturating_sub(1);
        let left = e.refs;
        if left == 0 {
            s.enums.remove(&this);
        }
        Some(left)
    });
    match left {
        Some(0) => {
            com::free_object(cx.proc, this)?;
            Ok(0)
        }
        Some(n) => Ok(n),
        None => Ok(0),
    }
}

/// Up to `celt` more items, each a new ID list the caller frees; S_FALSE only when
/// none was left. The documentation asks for S_FALSE whenever fewer than `celt`
/// came, but the shell's enumerators answer S_OK for any items they fetched, and
/// programs written against them (Winefile) stop at S_FALSE before reading the
/// items that came with it.
fn Next(cx: &mut Ctx, this: u32, celt: u32, rgelt: Ptr, pceltFetched: Ptr) -> ApiResult<u32> {
    if rgelt.is_null() || (celt > 1 && pceltFetched.is_null()) {
        return Ok(E_INVALIDARG);
    }
    let items: Vec<Item> = with(cx, |s| {
        s.enums.get_mut(&this).map(|e| {
            let end = (e.pos + celt as usize).min(e.items.len());
            let v = e.items[e.pos..end].to_vec();
            e.pos = end;
            v
        })
    })
    .unwrap_or_default();
    let mut n = 0;
    for it in &items {
        let list = pidl::alloc(cx, it)?;
        if list == 0 {
            break;
        }
        cx.proc.mem.write_u32(rgelt.0 + 4 * n, list)?;
        n += 1;
    }
    put_out(cx, pceltFetched, n)?;
    Ok(if n > 0 || celt == 0 { S_OK } else { S_FALSE })
}

fn Skip(cx: &mut Ctx, this: u32, celt: u32) -> u32 {
    with(cx, |s| {
        s.enums.get_mut(&this).map_or(E_FAIL, |e| {
            let left = e.items.len() - e.pos;
            e.pos += left.min(celt as usize);
            if left >= celt as usize { S_OK } else { S_FALSE }
        })
    })
}

fn Reset(cx: &mut Ctx, this: u32) -> u32 {
    with(cx, |s| {
        s.enums.get_mut(&this).map_or(E_FAIL, |e| {
            e.pos = 0;
            S_OK
        })
    })
}

fn Clone(cx: &mut Ctx, this: u32, ppenum: Ptr) -> ApiResult<u32> {
    if ppenum.is_null() {
        return Ok(E_INVALIDARG);
    }
    let Some((items, pos)) = with(cx, |s| s.enums.get(&this).map(|e| (e.items.clone(), e.pos)))
    else {
        return Ok(E_FAIL);
    };
    let e = new_enum(cx, items, pos)?;
    cx.proc.mem.write_u32(ppenum.0, e)?;
    Ok(S_OK)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("SHGetDesktopFolder", SHGetDesktopFolder),
        stdcall("SHBindToParent", SHBindToParent),
        stdcall("SHGetIDListFromObject", SHGetIDListFromObject),
        stdcall("IPersistFolder2::QueryInterface", PersistQueryInterface),
        stdcall("IPersistFolder2::AddRef", PersistAddRef),
        stdcall("IPersistFolder2::Release", PersistRelease),
        stdcall("IPersistFolder2::GetClassID", GetClassID),
        stdcall("IPersistFolder2::GetCurFolder", GetCurFolder),
        stdcall("IShellFolder::QueryInterface", QueryInterface),
        stdcall("IShellFolder::AddRef", AddRef),
        stdcall("IShellFolder::Release", Release),
        stdcall("IShellFolder::ParseDisplayName", ParseDisplayName),
        stdcall("IShellFolder::EnumObjects", EnumObjects),
        stdcall("IShellFolder::BindToObject", BindToObject),
        stdcall("IShellFolder::CompareIDs", CompareIDs),
        stdcall("IShellFolder::GetAttributesOf", GetAttributesOf),
        stdcall("IShellFolder::GetUIObjectOf", GetUIObjectOf),
        stdcall("IShellFolder::GetDisplayNameOf", GetDisplayNameOf),
        stdcall("IEnumIDList::QueryInterface", EnumQueryInterface),
        stdcall("IEnumIDList::AddRef", EnumAddRef),
        stdcall("IEnumIDList::Release", EnumRelease),
        stdcall("IEnumIDList::Next", Next),
        stdcall("IEnumIDList::Skip", Skip),
        stdcall("IEnumIDList::Reset", Reset),
        stdcall("IEnumIDList::Clone", Clone),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_join_with_one_separator() {
        assert_eq!(join("C:\\", "a"), "C:\\a");
        assert_eq!(join("C:\\x", "a"), "C:\\x\\a");
    }
}
