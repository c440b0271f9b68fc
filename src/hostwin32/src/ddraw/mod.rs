//! ddraw.dll: DirectDraw. Arrives with issue 5.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, HleDll};

pub const DLL: HleDll = HleDll {
    name: "ddraw.dll",
    exports,
};

/// Per-process DirectDraw state, in [`crate::process::Process::ddraw`].
#[derive(Default)]
pub struct State {}

fn exports() -> Vec<ApiDef> {
    vec![]
}
