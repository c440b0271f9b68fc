//! dsound.dll: DirectSound. Arrives with issue 5.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, HleDll};

pub const DLL: HleDll = HleDll {
    name: "dsound.dll",
    exports,
};

/// Per-process DirectSound state, in [`crate::process::Process::dsound`].
#[derive(Default)]
pub struct State {}

fn exports() -> Vec<ApiDef> {
    vec![]
}
