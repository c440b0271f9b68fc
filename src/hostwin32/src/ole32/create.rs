//! CoCreateInstance: class objects the program registered first, then the classes
//! of the built-in DirectX DLLs and SHELL32's ExplorerBrowser, each created by the module that implements it as
//! its class factory would on Windows (DirectDraw, DirectSound and DirectInput
//! objects start uninitialised: the program must call their Initialize method).
//! Internet Explorer's InternetExplorer object (a local server on Windows) is made
//! by ieframe in the calling process. Any other class is not registered
//! (REGDB_E_CLASSNOTREG).

use super::apartment::{self, call_method, initialized};
use super::{CO_E_NOTINITIALIZED, E_INVALIDARG, REGDB_E_CLASSNOTREG};
use crate::hle::com::{self, CLASS_E_NOAGGREGATION, E_POINTER, Guid};
use crate::hle::{ApiError, ApiResult, Ctx, Outcome, Ptr};

pub const CLSCTX_INPROC_SERVER: u32 = 0x1;
pub const CLSCTX_LOCAL_SERVER: u32 = 0x4;

pub const CLSID_DIRECTDRAW: Guid = Guid::new(
    0xD7B70EE0,
    0x4340,
    0x11CF,
    [0xB0, 0x63, 0x00, 0x20, 0xAF, 0xC2, 0xCD, 0x35],
);
pub const CLSID_DIRECTDRAW7: Guid = Guid::new(
    0x3C305196,
    0x50DB,
    0x11D3,
    [0x9C, 0xFE, 0x00, 0xC0, 0x4F, 0xD9, 0x30, 0xC5],
);
pub const CLSID_DIRECTSOUND: Guid = Guid::new(
    0x47D4D946,
    0x62E8,
    0x11CF,
    [0x93, 0xBC, 0x44, 0x45, 0x53, 0x54, 0x00, 0x00],
);
pub const CLSID_DIRECTSOUND8: Guid = Guid::new(
    0x3901CC3F,
    0x84B5,
    0x4FA4,
    [0xBA, 0x35, 0xAA, 0x81, 0x72, 0xB8, 0xA0, 0x9B],
);
pub const CLSID_DIRECTINPUT: Guid = Guid::new(
    0x25E609E0,
    0xB259,
    0x11CF,
    [0xBF, 0xC7, 0x44, 0x45, 0x53, 0x54, 0x00, 0x00],
);
pub const CLSID_DIRECTINPUT8: Guid = Guid::new(
    0x25E609E4,
    0xB259,
    0x11CF,
    [0xBF, 0xC7, 0x44, 0x45, 0x53, 0x54, 0x00, 0x00],
);
pub const IID_ICLASSFACTORY: Guid = Guid::new(0x00000001, 0, 0, [0xC0, 0, 0, 0, 0, 0, 0, 0x46]);

/// The built-in classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    DirectDraw,
    DirectSound { is8: bool },
    DirectInput,
    DirectInput8,
    DirectPlay,
    DirectPlayLobby,
    ExplorerBrowser,
    InternetExplorer,
}

pub fn builtin_class(clsid: &Guid) -> Option<Class> {
    Some(match *clsid {
        CLSID_DIRECTDRAW | CLSID_DIRECTDRAW7 => Class::DirectDraw,
        CLSID_DIRECTSOUND => Class::DirectSound { is8: false },
        CLSID_DIRECTSOUND8 => Class::DirectSound { is8: true },
        CLSID_DIRECTINPUT => Class::DirectInput,
        CLSID_DIRECTINPUT8 => Class::DirectInput8,
        c if c == crate::dplayx::CLSID_DIRECTPLAY => Class::DirectPlay,
        c if c == crate::dplayx::CLSID_DIRECTPLAYLOBBY => Class::DirectPlayLobby,
        c if c == crate::shell32::ebrowser::CLSID_EXPLORERBROWSER => Class::ExplorerBrowser,
        c if c == crate::ieframe::browser::CLSID_INTERNET_EXPLORER => Class::InternetExplorer,
        _ => return None,
    })
}

pub fn CoCreateInstance(
    cx: &mut Ctx,
    rclsid: Ptr,
    pUnkOuter: u32,
    dwClsContext: u32,
    riid: Ptr,
    ppv: Ptr,
) -> ApiResult<Outcome> {
    let ret = |h: u32| Ok(Outcome::Return(u64::from(h)));
    if ppv.is_null() {
        return ret(E_POINTER);
    }
    cx.proc.mem.write_u32(ppv.0, 0)?;
    if rclsid.is_null() || riid.is_null() {
        return ret(E_INVALIDARG);
    }
    if !initialized(cx) {
        return ret(CO_E_NOTINITIALIZED);
    }
    let clsid = Guid::read(cx.proc, rclsid.0)?;
    let iid = Guid::read(cx.proc, riid.0)?;
    if let Some(r) = apartment::registered(cx, &clsid, dwClsContext) {
        return from_class_object(cx, r.unknown, pUnkOuter, riid, ppv);
    }
    // The DirectX classes are in-process servers only; Internet Explorer is a local
    // server (iexplore.exe), made here in the caller's process.
    let Some(class) = builtin_class(&clsid).filter(|c| {
        let wanted = if *c == Class::InternetExplorer {
            CLSCTX_LOCAL_SERVER
        } else {
            CLSCTX_INPROC_SERVER
        };
        dwClsContext & wanted != 0
    }) else {
        return ret(REGDB_E_CLASSNOTREG);
    };
    if pUnkOuter != 0 {
        return ret(CLASS_E_NOAGGREGATION);
    }
    let hr = match class {
        Class::DirectDraw => crate::ddraw::object::co_create(cx, &iid, ppv)?,
        Class::DirectSound { is8 } => crate::dsound::co_create(cx, is8, &iid, ppv)?,
        Class::DirectInput => crate::dinput::co_create(cx, &iid, ppv)?,
        Class::DirectInput8 => {
            return Err(ApiError::UnimplementedCase(format!(
                "ole32.dll!CoCreateInstance(CLSID_DirectInput8, {iid}): DirectInput 8 \
                 (dinput8.dll) is not implemented"
            )));
        }
        Class::DirectPlay => crate::dplayx::co_create_play(cx, &iid, ppv)?,
        Class::DirectPlayLobby => crate::dplayx::co_create_lobby(cx, &iid, ppv)?,
        Class::ExplorerBrowser => crate::shell32::ebrowser::co_create(cx, &iid, ppv)?,
        Class::InternetExplorer => crate::ieframe::browser::co_create(cx, &iid, ppv)?,
    };
    ret(hr)
}

/// Creates an instance through a registered class object: its IClassFactory's
/// CreateInstance, as Windows does.
fn from_class_object(
    cx: &mut Ctx,
    unknown: u32,
    outer: u32,
    riid: Ptr,
    ppv: Ptr,
) -> ApiResult<Outcome> {
    let heap = crate::kernel32::heap::process_heap(cx.proc)?;
    let scratch = heap.alloc(20, true)?;
    if scratch == 0 {
        return Ok(Outcome::Return(u64::from(com::E_OUTOFMEMORY)));
    }
    IID_ICLASSFACTORY.write(cx.proc, scratch)?;
    let r = (|| -> ApiResult<Result<u32, Outcome>> {
        let hr = match call_method(cx, unknown, 0, &[scratch, scratch + 16])? {
            Ok(h) => h,
            Err(end) => return Ok(Err(end)),
        };
        if hr & 0x8000_0000 != 0 {
            return Ok(Ok(hr));
        }
        let factory = cx.proc.mem.read_u32(scratch + 16)?;
        // IClassFactory::CreateInstance(pUnkOuter, riid, ppvObject) is slot 3.
        let hr = match call_method(cx, factory, 3, &[outer, riid.0, ppv.0])? {
            Ok(h) => h,
            Err(end) => return Ok(Err(end)),
        };
        if let Err(end) = apartment::release(cx, factory)? {
            return Ok(Err(end));
        }
        Ok(Ok(hr))
    })();
    heap.free(scratch);
    match r? {
        Ok(hr) => Ok(Outcome::Return(u64::from(hr))),
        Err(end) => Ok(end),
    }
}
