//! DPI awareness (Windows 10's SetProcessDpiAwarenessContext), which Wine's own
//! programs call at start-up as later Windows programs do (iexplore.exe through a
//! delay-load import, so a missing export would end it before its first window).
//!
//! The emulated display has 96 DPI and never scales a window, so the awareness a
//! process declares changes nothing it sees; what is kept is the rule Windows
//! documents: the awareness is set once per process (a second call fails with
//! ERROR_ACCESS_DENIED) and only the five DPI_AWARENESS_CONTEXT values are valid
//! (anything else fails with ERROR_INVALID_PARAMETER).

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiResult, Ctx, stdcall};
use std::sync::Mutex;

const ERROR_ACCESS_DENIED: u32 = 5;
const ERROR_INVALID_PARAMETER: u32 = 87;

/// DPI_AWARENESS_CONTEXT_UNAWARE (-1) to DPI_AWARENESS_CONTEXT_UNAWARE_GDISCALED (-5),
/// the pseudo-handles of windef.h.
fn is_valid_context(value: u32) -> bool {
    (1..=5).contains(&value.wrapping_neg())
}

/// The awareness context the process set, once it has.
#[derive(Default)]
struct Awareness(Mutex<Option<u32>>);

pub fn SetProcessDpiAwarenessContext(cx: &mut Ctx, value: u32) -> ApiResult<bool> {
    if !is_valid_context(value) {
        crate::teb::set_last_error(cx, ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    let slot = cx.proc.slot::<Awareness>();
    let mut set = slot.0.lock().unwrap_or_else(|e| e.into_inner());
    if set.is_some() {
        drop(set);
        crate::teb::set_last_error(cx, ERROR_ACCESS_DENIED)?;
        return Ok(false);
    }
    *set = Some(value);
    Ok(true)
}

pub fn exports() -> Vec<ApiDef> {
    vec![stdcall(
        "SetProcessDpiAwarenessContext",
        SetProcessDpiAwarenessContext,
    )]
}

#[cfg(test)]
mod tests {
    use super::is_valid_context;

    #[test]
    fn only_the_five_awareness_contexts_are_valid() {
        // windef.h: DPI_AWARENESS_CONTEXT_UNAWARE ((DPI_AWARENESS_CONTEXT)-1) to
        // DPI_AWARENESS_CONTEXT_UNAWARE_GDISCALED ((DPI_AWARENESS_CONTEXT)-5).
        for v in [
            0xffff_ffff,
            0xffff_fffe,
            0xffff_fffd,
            0xffff_fffc,
            0xffff_fffb,
        ] {
            assert!(is_valid_context(v), "{v:#x}");
        }
        for v in [0, 1, 5, 0xffff_fffa, 0x8000_0000] {
            assert!(!is_valid_context(v), "{v:#x}");
        }
    }
}
