//! ADVAPI32.dll: the registry (and, later, security and crypto stubs that games import).

use crate::hle::{ApiDef, HleDll};

pub const DLL: HleDll = HleDll {
    name: "ADVAPI32.dll",
    exports,
};

fn exports() -> Vec<ApiDef> {
    Vec::new()
}
