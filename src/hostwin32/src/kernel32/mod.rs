//! KERNEL32.dll.

use crate::hle::{ApiDef, HleDll};

pub const DLL: HleDll = HleDll {
    name: "KERNEL32.dll",
    exports,
};

fn exports() -> Vec<ApiDef> {
    Vec::new()
}
