//! UCRT's `__stdio_common_*` functions: every printf/scanf of the UCRT headers is
//! an inline wrapper that calls one of these with an `options` word saying which
//! historical behaviour it wants. The formatting itself is msvcrt's engine
//! ([`crate::msvcrt::printf`]); what differs is how the result is stored and
//! reported, which [`store_plan`] decides from the options.

#![allow(non_snake_case)]
// The signatures are UCRT's.
#![allow(clippy::too_many_arguments)]

use crate::hle::{ApiDef, ApiError, ApiResult, CStrPtr, Ctx, Ptr, WStrPtr, cdecl};
use crate::kernel32::string::GuestStr;
use crate::msvcrt::printf::{self, GuestArgs};
use crate::msvcrt::state::{errno, set_errno};
use crate::msvcrt::{gmem, sprintf, stdio as crt_stdio};

/// `_CRT_INTERNAL_PRINTF_LEGACY_VSPRINTF_NULL_TERMINATION`: `_vsnprintf`'s rules (no
/// terminator when the text exactly fills the buffer, -1 when it does not fit).
pub const LEGACY_VSPRINTF_NULL_TERMINATION: u64 = 0x1;
/// `_CRT_INTERNAL_PRINTF_STANDARD_SNPRINTF_BEHAVIOR`: C99 `vsnprintf` (always
/// terminated, returns the length the whole text needs).
pub const STANDARD_SNPRINTF_BEHAVIOR: u64 = 0x2;
/// `_CRT_INTERNAL_PRINTF_LEGACY_WIDE_SPECIFIERS`: in the wide family `%s`/`%c` take
/// wide arguments (Microsoft's meaning); without it they follow ISO C (narrow).
pub const LEGACY_WIDE_SPECIFIERS: u64 = 0x4;

/// `_CRT_INTERNAL_PRINTF_LEGACY_MSVCRT_COMPATIBILITY`: infinities and NaNs as msvcrt
/// printed them (`1.#INF`); without it `inf`/`nan`.
pub const LEGACY_MSVCRT_COMPATIBILITY: u64 = 0x8;
/// `_CRT_INTERNAL_PRINTF_LEGACY_THREE_DIGIT_EXPONENTS`: `1e+005`; without it at least
/// two digits (`1e+05`).
pub const LEGACY_THREE_DIGIT_EXPONENTS: u64 = 0x10;

/// `(size_t)-1`: "no limit" for counts, `_TRUNCATE` for the `_s` functions.
const NO_LIMIT: u32 = u32::MAX;

/// What a bounded formatting call stores and returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Units of the text copied into the buffer.
    pub copy: usize,
    /// Whether a terminator follows them.
    pub terminate: bool,
    pub ret: i32,
}

/// UCRT's `__stdio_common_vsprintf` result rules for a text of `len` units and a
/// buffer of `count` units (`has_buffer` false: only measuring). Without
/// `buffer`, the length is returned whatever the options. With the legacy flag:
/// a terminator only if there is room, -1 if the text did not fit. With the
/// standard flag: truncated and terminated, the full length returned. With
/// neither: truncated and terminated, -2 if it did not fit (-1 for an empty
/// buffer).
pub fn store_plan(options: u64, has_buffer: bool, count: u32, len: usize) -> Plan {
    let count = count as usize;
    if !has_buffer {
        return Plan {
            copy: 0,
            terminate: false,
            ret: len as i32,
        };
    }
    if options & LEGACY_VSPRINTF_NULL_TERMINATION != 0 {
        return Plan {
            copy: len.min(count),
            terminate: len < count,
            ret: if len > count { -1 } else { len as i32 },
        };
    }
    if len < count {
        return Plan {
            copy: len,
            terminate: true,
            ret: len as i32,
        };
    }
    let ret = if options & STANDARD_SNPRINTF_BEHAVIOR != 0 {
        len as i32
    } else if count > 0 {
        -2
    } else {
        -1
    };
    Plan {
        copy: count.saturating_sub(1),
        terminate: count > 0,
        ret,
    }
}

fn format(cx: &mut Ctx, options: u64, fmt: u32, va: u32, wide: bool) -> ApiResult<Vec<u16>> {
    let f = if wide {
        printf::read_wfmt(&cx.proc.mem, fmt)?
    } else {
        printf::read_fmt(&cx.proc.mem, fmt)?
    };
    // ISO wide specifiers: `%s` in a wide format is a narrow string, as in the
    // narrow family.
    let wide_meaning = wide && options & LEGACY_WIDE_SPECIFIERS != 0;
    let style = printf::FloatStyle {
        two_digit_exponent: options & LEGACY_THREE_DIGIT_EXPONENTS == 0,
        ucrt_specials: options & LEGACY_MSVCRT_COMPATIBILITY == 0,
    };
    let mem = cx.proc.mem.clone();
    printf::format_styled(
        &f,
        wide_meaning,
        &mut GuestArgs { mem: &mem, ptr: va },
        style,
    )
}

fn write(cx: &mut Ctx, buf: u32, units: &[u16], terminate: bool, wide: bool) -> ApiResult<()> {
    let mem = &cx.proc.mem;
    if wide {
        if !units.is_empty() {
            gmem::write_units(mem, buf, units)?;
        }
        if terminate {
            mem.write_u16(buf + 2 * units.len() as u32, 0)?;
        }
    } else {
        if !units.is_empty() {
            mem.write_bytes(buf, &printf::narrow(units))?;
        }
        if terminate {
            mem.write_u8(buf + units.len() as u32, 0)?;
        }
    }
    Ok(())
}

/// `__stdio_common_vsprintf` and, for `S` = WStrPtr, `__stdio_common_vswprintf`.
fn __stdio_common_vsprintf<S: GuestStr>(
    cx: &mut Ctx,
    options: u64,
    buffer: Ptr,
    count: u32,
    fmt: u32,
    _locale: u32,
    va: u32,
) -> ApiResult<i32> {
    let wide = S::WIDE;
    if fmt == 0 || (buffer.is_null() && count != 0) {
        set_errno(cx, errno::EINVAL)?;
        return Ok(-1);
    }
    let out = format(cx, options, fmt, va, wide)?;
    let plan = store_plan(options, !buffer.is_null(), count, out.len());
    if !buffer.is_null() {
        write(cx, buffer.0, &out[..plan.copy], plan.terminate, wide)?;
    }
    Ok(plan.ret)
}

/// The `_s` forms: the text and its terminator must fit (`max` limits the text,
/// `_TRUNCATE` meaning "as much as fits", which returns -1 when it cut).
/// `__stdio_common_vsnprintf_s` (`__stdio_common_vsnwprintf_s` for `S` = WStrPtr).
fn __stdio_common_vsnprintf_s<S: GuestStr>(
    cx: &mut Ctx,
    options: u64,
    buffer: Ptr,
    count: u32,
    max: u32,
    fmt: u32,
    _locale: u32,
    va: u32,
) -> ApiResult<i32> {
    let wide = S::WIDE;
    if fmt == 0 || buffer.is_null() || count == 0 {
        set_errno(cx, errno::EINVAL)?;
        return Ok(-1);
    }
    let out = format(cx, options, fmt, va, wide)?;
    let room = count as usize - 1;
    let (keep, ret) = if max == NO_LIMIT {
        if out.len() <= room {
            (out.len(), out.len() as i32)
        } else {
            (room, -1)
        }
    } else if out.len() <= (max as usize).min(room) {
        (out.len(), out.len() as i32)
    } else if (max as usize) <= room {
        (max as usize, -1)
    } else {
        // The invalid-parameter handler's default action ends the process.
        write(cx, buffer.0, &[], true, wide)?;
        return Err(ApiError::Other(format!(
            "{}: buffer of {count} characters too small for {} (invalid parameter)",
            if wide { "vswprintf_s" } else { "vsprintf_s" },
            out.len() + 1
        )));
    };
    write(cx, buffer.0, &out[..keep], true, wide)?;
    Ok(ret)
}

/// `__stdio_common_vsprintf_s` (`__stdio_common_vswprintf_s`): the `_s` form whose
/// text may take the whole buffer.
fn __stdio_common_vsprintf_s<S: GuestStr>(
    cx: &mut Ctx,
    options: u64,
    buffer: Ptr,
    count: u32,
    format: u32,
    locale: u32,
    arglist: u32,
) -> ApiResult<i32> {
    __stdio_common_vsnprintf_s::<S>(cx, options, buffer, count, count, format, locale, arglist)
}

/// `__stdio_common_vfprintf` (`__stdio_common_vfwprintf` for `S` = WStrPtr).
fn __stdio_common_vfprintf<S: GuestStr>(
    cx: &mut Ctx,
    options: u64,
    stream: Ptr,
    fmt: u32,
    _locale: u32,
    va: u32,
) -> ApiResult<i32> {
    let wide = S::WIDE;
    if fmt == 0 || stream.is_null() {
        set_errno(cx, errno::EINVAL)?;
        return Ok(-1);
    }
    let out = format(cx, options, fmt, va, wide)?;
    // A wide stream write in the C locale: units it cannot convert become '?'.
    let bytes: Vec<u8> = out
        .iter()
        .map(|&u| if u > 0xff { b'?' } else { u as u8 })
        .collect();
    let ok = crt_stdio::write_stream(cx, stream.0, &bytes)?;
    Ok(if ok { out.len() as i32 } else { -1 })
}

/// `__stdio_common_vsscanf` (`__stdio_common_vswscanf` for `S` = WStrPtr).
fn __stdio_common_vsscanf<S: GuestStr>(
    cx: &mut Ctx,
    _options: u64,
    buffer: Ptr,
    count: u32,
    fmt: u32,
    _locale: u32,
    va: u32,
) -> ApiResult<i32> {
    let wide = S::WIDE;
    if buffer.is_null() || fmt == 0 {
        set_errno(cx, errno::EINVAL)?;
        return Ok(-1);
    }
    let max = if count == NO_LIMIT {
        usize::MAX
    } else {
        count as usize
    };
    let input: Vec<u16> = if wide {
        gmem::read_wstr(&cx.proc.mem, buffer.0, max)?
    } else {
        gmem::read_cstr(&cx.proc.mem, buffer.0, max)?
            .into_iter()
            .map(u16::from)
            .collect()
    };
    sprintf::scan_string(cx, input, fmt, va, wide)
}

/// `__acrt_iob_func(n)`: stdin, stdout, stderr for 0, 1, 2 (UCRT's FILE is opaque,
/// so msvcrt's `_iob` entries serve).
fn __acrt_iob_func(cx: &mut Ctx, index: u32) -> ApiResult<u32> {
    if index >= crt_stdio::IOB_ENTRIES {
        return Err(ApiError::Other(format!(
            "__acrt_iob_func({index}): not a standard stream"
        )));
    }
    Ok(crt_stdio::iob_addr(cx.proc)? + index * crt_stdio::FILE_SIZE)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        cdecl(
            "__stdio_common_vsprintf",
            __stdio_common_vsprintf::<CStrPtr>,
        ),
        cdecl(
            "__stdio_common_vswprintf",
            __stdio_common_vsprintf::<WStrPtr>,
        ),
        cdecl(
            "__stdio_common_vsprintf_s",
            __stdio_common_vsprintf_s::<CStrPtr>,
        ),
        cdecl(
            "__stdio_common_vswprintf_s",
            __stdio_common_vsprintf_s::<WStrPtr>,
        ),
        cdecl(
            "__stdio_common_vsnprintf_s",
            __stdio_common_vsnprintf_s::<CStrPtr>,
        ),
        cdecl(
            "__stdio_common_vsnwprintf_s",
            __stdio_common_vsnprintf_s::<WStrPtr>,
        ),
        cdecl(
            "__stdio_common_vfprintf",
            __stdio_common_vfprintf::<CStrPtr>,
        ),
        cdecl(
            "__stdio_common_vfwprintf",
            __stdio_common_vfprintf::<WStrPtr>,
        ),
        cdecl("__stdio_common_vsscanf", __stdio_common_vsscanf::<CStrPtr>),
        cdecl("__stdio_common_vswscanf", __stdio_common_vsscanf::<WStrPtr>),
        cdecl("__acrt_iob_func", __acrt_iob_func),
    ]
}
