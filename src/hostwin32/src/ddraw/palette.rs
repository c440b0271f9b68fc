//! IDirectDrawPalette: 256 PALETTEENTRYs. A palette set on the primary surface
//! colours every frame presented from then on, so SetEntries between two presents
//! animates the picture.

use super::iface::{self, com_exports};
use super::{DD_OK, DDERR_INVALIDOBJECT, DDERR_INVALIDPARAMS, DdErr, DdResult, Kind, fail, hr};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Ptr};

pub const DDPCAPS_4BIT: u32 = 0x1;
pub const DDPCAPS_8BITENTRIES: u32 = 0x2;
pub const DDPCAPS_8BIT: u32 = 0x4;
pub const DDPCAPS_ALLOW256: u32 = 0x40;
pub const DDPCAPS_1BIT: u32 = 0x100;
pub const DDPCAPS_2BIT: u32 = 0x200;

pub struct Pal {
    /// PALETTEENTRY dwords: red, green, blue, flags from the low byte up.
    pub entries: [u32; 256],
    pub caps: u32,
}

impl Pal {
    /// Without DDPCAPS_ALLOW256 entries 0 and 255 stay reserved for the system's
    /// black and white (DirectDraw's CreatePalette documentation).
    fn reserve(&mut self) {
        if self.caps & DDPCAPS_ALLOW256 == 0 {
            self.entries[0] = 0;
            self.entries[255] = 0x00ff_ffff;
        }
    }
}

fn read_entries(cx: &Ctx, at: u32, n: usize) -> DdResult<Vec<u32>> {
    let mut b = vec![0u8; 4 * n];
    cx.proc.mem.read_bytes(at, &mut b)?;
    Ok(b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

pub fn create(cx: &mut Ctx, dwFlags: u32, lpColorTable: Ptr, lplpDDPalette: Ptr) -> DdResult<()> {
    if dwFlags & (DDPCAPS_1BIT | DDPCAPS_2BIT | DDPCAPS_4BIT) != 0 {
        return Err(DdErr::Api(ApiError::UnimplementedCase(format!(
            "IDirectDraw::CreatePalette with fewer than 8 bits (dwFlags {dwFlags:#x})"
        ))));
    }
    if dwFlags & DDPCAPS_8BIT == 0 || lpColorTable.is_null() || lplpDDPalette.is_null() {
        return fail(DDERR_INVALIDPARAMS);
    }
    let src = read_entries(cx, lpColorTable.0, 256)?;
    let mut pal = Pal {
        entries: [0; 256],
        caps: dwFlags,
    };
    pal.entries.copy_from_slice(&src);
    pal.reserve();
    let mut g = cx.proc.ddraw.lock();
    let id = g.new_id();
    g.palettes.insert(id, pal);
    let p = iface::get(cx.proc, &mut g, id, Kind::Palette)?;
    if cx.proc.mem.write_u32(lplpDDPalette.0, p).is_err() {
        iface::release_ptr(cx.proc, &mut g, p)?;
        return fail(DDERR_INVALIDPARAMS);
    }
    Ok(())
}

fn this_palette(cx: &Ctx, this: u32) -> DdResult<u32> {
    let g = cx.proc.ddraw.lock();
    iface::lookup(&g, this, iface::is_palette)
        .map(|(_, o)| o)
        .ok_or(DdErr::Hr(DDERR_INVALIDOBJECT))
}

fn GetCaps(cx: &mut Ctx, this: u32, lpdwCaps: Ptr) -> ApiResult<u32> {
    let r = (|| {
        let id = this_palette(cx, this)?;
        let caps = cx.proc.ddraw.lock().palettes.get(&id).map_or(0, |p| p.caps);
        cx.proc.mem.write_u32(lpdwCaps.0, caps | DDPCAPS_8BIT)?;
        Ok(())
    })();
    hr(r)
}

fn GetEntries(
    cx: &mut Ctx,
    this: u32,
    _dwFlags: u32,
    dwBase: u32,
    dwNumEntries: u32,
    lpEntries: Ptr,
) -> ApiResult<u32> {
    let r = (|| {
        let id = this_palette(cx, this)?;
        if dwBase >= 256 || dwNumEntries > 256 - dwBase || lpEntries.is_null() {
            return fail(DDERR_INVALIDPARAMS);
        }
        let e: Vec<u8> = {
            let g = cx.proc.ddraw.lock();
            let p = g.palettes.get(&id).ok_or(DdErr::Hr(DDERR_INVALIDOBJECT))?;
            p.entries[dwBase as usize..(dwBase + dwNumEntries) as usize]
                .iter()
                .flat_map(|e| e.to_le_bytes())
                .collect()
        };
        cx.proc.mem.write_bytes(lpEntries.0, &e)?;
        Ok(())
    })();
    hr(r)
}

fn SetEntries(
    cx: &mut Ctx,
    this: u32,
    _dwFlags: u32,
    dwStartingEntry: u32,
    dwCount: u32,
    lpEntries: Ptr,
) -> ApiResult<u32> {
    let r = (|| {
        let id = this_palette(cx, this)?;
        if dwStartingEntry >= 256 || dwCount > 256 - dwStartingEntry || lpEntries.is_null() {
            return fail(DDERR_INVALIDPARAMS);
        }
        let src = read_entries(cx, lpEntries.0, dwCount as usize)?;
        let mut g = cx.proc.ddraw.lock();
        let p = g
            .palettes
            .get_mut(&id)
            .ok_or(DdErr::Hr(DDERR_INVALIDOBJECT))?;
        let at = dwStartingEntry as usize;
        p.entries[at..at + src.len()].copy_from_slice(&src);
        p.reserve();
        Ok(())
    })();
    hr(r)
}

fn Initialize(
    cx: &mut Ctx,
    this: u32,
    _lpDD: u32,
    _dwFlags: u32,
    _lpDDColorTable: u32,
) -> ApiResult<u32> {
    hr(this_palette(cx, this).and_then(|_| fail(super::object::DDERR_ALREADYINITIALIZED)))
}

pub fn exports() -> Vec<ApiDef> {
    let _ = DD_OK;
    com_exports!("IDirectDrawPalette";
        QueryInterface => iface::QueryInterface,
        AddRef => iface::AddRef,
        Release => iface::Release,
        GetCaps => GetCaps,
        GetEntries => GetEntries,
        Initialize => Initialize,
        SetEntries => SetEntries,
        ;
    )
}
