//! ADVAPI32.dll: the registry, security (tokens and privileges), the user's name,
//! and, later, crypto stubs that games import.

pub mod hive;
pub mod regfile;
pub mod registry;
pub mod security;
pub mod user;

#[cfg(test)]
mod tests;

use crate::hle::{ApiDef, HleDll};

pub const DLL: HleDll = HleDll {
    name: "ADVAPI32.dll",
    exports,
    attach: None,
};

fn exports() -> Vec<ApiDef> {
    let mut v = Vec::new();
    v.extend(registry::exports());
    v.extend(security::exports());
    v.extend(user::exports());
    v
}
