//! msvcrt.dll: the C runtime mingw programs link against.

mod float;
mod gmem;
mod printf;

use crate::hle::{ApiDef, HleDll};

pub const DLL: HleDll = HleDll {
    name: "msvcrt.dll",
    exports,
};

fn exports() -> Vec<ApiDef> {
    Vec::new()
}
