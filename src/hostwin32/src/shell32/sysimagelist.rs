//! The system image list: the icons of the shell's items at the small (16x16) and
//! large (32x32) sizes, shared by every caller of SHGetImageList and of
//! SHGetFileInfo with SHGFI_SYSICONINDEX, which answer with an index into it.
//!
//! Both lists are COMCTL32 image lists that are also IImageList objects, as
//! SHGetImageList hands them out, and live as long as the process. winterp's SHELL32 carries no icon resources, so
//! the pictures are drawn here in the 16-colour palette on a 16-unit grid: a
//! document, a program, a closed and an open folder, a drive, the computer and
//! the desktop, in that order (the indexes below; Windows' own list starts with
//! its DLL's icons in resource order, and programs take indexes only from these
//! calls).

#![allow(non_snake_case)]

use super::pidl::Item;
use crate::comctl32::imagelist::{self, IID_IIMAGELIST};
use crate::hle::com::{E_INVALIDARG, E_NOINTERFACE, Guid, S_OK};
use crate::hle::{ApiError, ApiResult, Ctx, Ptr};
use std::sync::Mutex;

pub const DOCUMENT: i32 = 0;
pub const PROGRAM: i32 = 1;
pub const FOLDER: i32 = 2;
pub const FOLDER_OPEN: i32 = 3;
pub const DRIVE: i32 = 4;
pub const COMPUTER: i32 = 5;
pub const DESKTOP: i32 = 6;

const SHIL_LARGE: u32 = 0;
const SHIL_SMALL: u32 = 1;
const SHIL_SYSSMALL: u32 = 3;
/// ILC_COLOR32 | ILC_MASK.
const LIST_FLAGS: u32 = 0x20 | 0x1;

/// The two lists (small, large), made on first use.
#[derive(Default)]
struct Lists(Mutex<Option<(u32, u32)>>);

const BLACK: u32 = 0x000000;
const WHITE: u32 = 0xffffff;
const GRAY: u32 = 0x808080;
const SILVER: u32 = 0xc0c0c0;
const NAVY: u32 = 0x000080;
const TEAL: u32 = 0x008080;
const YELLOW: u32 = 0xffff00;
const OLIVE: u32 = 0x808000;
const GREEN: u32 = 0x00ff00;

/// A picture as filled rectangles on a 16 x 16 grid: (left, top, right, bottom,
/// colour), later ones over earlier ones; the rest is transparent.
fn shapes(icon: i32) -> &'static [(i32, i32, i32, i32, u32)] {
    match icon {
        DOCUMENT => &[
            (3, 1, 13, 15, BLACK),
            (4, 2, 12, 14, WHITE),
            (10, 1, 13, 4, BLACK),
            (10, 2, 12, 3, SILVER),
            (5, 5, 11, 6, GRAY),
            (5, 7, 11, 8, GRAY),
            (5, 9, 11, 10, GRAY),
            (5, 11, 9, 12, GRAY),
        ],
        PROGRAM => &[
            (1, 2, 15, 14, BLACK),
            (2, 3, 14, 13, WHITE),
            (2, 3, 14, 5, NAVY),
            (11, 3, 13, 5, SILVER),
        ],
        FOLDER => &[
            (1, 3, 7, 5, BLACK),
            (1, 4, 15, 14, BLACK),
            (2, 4, 6, 5, YELLOW),
            (2, 5, 14, 13, YELLOW),
            (2, 5, 14, 6, OLIVE),
        ],
        FOLDER_OPEN => &[
            (1, 3, 7, 5, BLACK),
            (1, 4, 13, 14, BLACK),
            (2, 4, 6, 5, YELLOW),
            (2, 5, 12, 13, OLIVE),
            (4, 8, 15, 14, BLACK),
            (5, 9, 14, 13, YELLOW),
        ],
        DRIVE => &[
            (1, 6, 15, 12, BLACK),
            (2, 7, 14, 11, SILVER),
            (2, 10, 14, 11, GRAY),
            (11, 8, 13, 9, GREEN),
        ],
        COMPUTER => &[
            (2, 1, 14, 11, BLACK),
            (3, 2, 13, 10, SILVER),
            (4, 3, 12, 9, TEAL),
            (6, 11, 10, 12, GRAY),
            (2, 12, 14, 15, BLACK),
            (3, 13, 13, 14, SILVER),
        ],
        _ => &[
            (1, 2, 15, 13, BLACK),
            (2, 3, 14, 12, TEAL),
            (2, 11, 14, 12, GRAY),
            (3, 4, 6, 6, WHITE),
            (5, 13, 11, 15, GRAY),
        ],
    }
}

/// The picture of `icon` at `n` x `n` pixels: colours and transparency.
pub fn picture(icon: i32, n: i32) -> (Vec<u32>, Vec<bool>) {
    let mut px = vec![0u32; (n * n) as usize];
    let mut clear = vec![true; (n * n) as usize];
    for &(l, t, r, b, c) in shapes(icon) {
        let sc = |v: i32| v * n / 16;
        for y in sc(t)..sc(b) {
            for x in sc(l)..sc(r) {
                let i = (y * n + x) as usize;
                px[i] = c;
                clear[i] = false;
            }
        }
    }
    (px, clear)
}

/// The (small, large) system image lists.
pub fn lists(cx: &mut Ctx) -> ApiResult<(u32, u32)> {
    let slot = cx.proc.slot::<Lists>();
    if let Some(l) = *slot.0.lock().unwrap_or_else(|e| e.into_inner()) {
        return Ok(l);
    }
    let mut made = [0u32; 2];
    for (k, n) in [16, 32].into_iter().enumerate() {
        let h = imagelist::create_object(cx, n, n, LIST_FLAGS, 8, true)?;
        for icon in DOCUMENT..=DESKTOP {
            let (px, clear) = picture(icon, n);
            imagelist::add_pixels(cx.proc, h, n, n, &px, Some(&clear));
        }
        made[k] = h;
    }
    let l = (made[0], made[1]);
    *slot.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(l);
    Ok(l)
}

/// The index of an item's icon in the system image list.
pub fn icon_of(item: &Item, is_dir: bool, open: bool) -> i32 {
    match item {
        Item::Desktop => DESKTOP,
        Item::Virtual(_) => COMPUTER,
        Item::Path(p) if p.len() == 3 && p.ends_with(":\\") => DRIVE,
        Item::Path(_) if is_dir => {
            if open {
                FOLDER_OPEN
            } else {
                FOLDER
            }
        }
        Item::Path(p) => {
            let ext = super::execute::extension(p).map(|e| e.to_ascii_lowercase());
            if matches!(ext.as_deref(), Some("exe" | "com" | "bat" | "pif")) {
                PROGRAM
            } else {
                DOCUMENT
            }
        }
    }
}

/// SHGetImageList: the small or large system image list as `riid` (IImageList).
pub fn SHGetImageList(cx: &mut Ctx, iImageList: u32, riid: Ptr, ppvObj: Ptr) -> ApiResult<u32> {
    if ppvObj.is_null() || riid.is_null() {
        return Ok(E_INVALIDARG);
    }
    cx.proc.mem.write_u32(ppvObj.0, 0)?;
    let (small, large) = match iImageList {
        SHIL_SMALL | SHIL_SYSSMALL | SHIL_LARGE => lists(cx)?,
        other => {
            return Err(ApiError::UnimplementedCase(format!(
                "SHGetImageList({other}): the extra-large and jumbo lists"
            )));
        }
    };
    let iid = Guid::read(cx.proc, riid.0)?;
    if iid != IID_IIMAGELIST {
        log::info!("SHGetImageList for {iid}: only IImageList is served");
        return Ok(E_NOINTERFACE);
    }
    let h = if iImageList == SHIL_LARGE {
        large
    } else {
        small
    };
    imagelist::IImageList_AddRef(cx, h);
    cx.proc.mem.write_u32(ppvObj.0, h)?;
    Ok(S_OK)
}

pub fn exports() -> Vec<crate::hle::ApiDef> {
    vec![crate::hle::stdcall("SHGetImageList", SHGetImageList)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pictures_scale_with_the_grid() {
        let (px, clear) = picture(DOCUMENT, 16);
        // The page's outline starts at (3, 1); the corner (0, 0) is transparent.
        assert!(clear[0]);
        assert_eq!(px[16 + 3], BLACK);
        assert!(!clear[16 + 3]);
        let (px32, _) = picture(DOCUMENT, 32);
        assert_eq!(px32[2 * 32 + 6], BLACK);
    }

    #[test]
    fn items_get_the_icons_of_their_kind() {
        assert_eq!(icon_of(&Item::Desktop, true, false), DESKTOP);
        assert_eq!(icon_of(&Item::Virtual(0x11), true, false), COMPUTER);
        assert_eq!(icon_of(&Item::Path("C:\\".into()), true, false), DRIVE);
        assert_eq!(
            icon_of(&Item::Path("C:\\A".into()), true, true),
            FOLDER_OPEN
        );
        assert_eq!(
            icon_of(&Item::Path("C:\\a.EXE".into()), false, false),
            PROGRAM
        );
        assert_eq!(
            icon_of(&Item::Path("C:\\a.txt".into()), false, false),
            DOCUMENT
        );
    }
}
