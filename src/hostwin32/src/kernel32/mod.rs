//! KERNEL32.dll. Each submodule owns one area of the API and contributes its
//! exports to the DLL's list.

pub mod atom;
pub mod conscreen;
pub mod console;
pub mod createprocess;
mod delayload;
mod exception;
pub mod file;
pub mod heap;
mod ini;
mod interlocked;
mod legacy;
pub mod locale;
pub mod localeinfo;
pub mod memory;
pub mod misc;
pub mod module;
pub mod process;
mod resource;
pub mod string;
pub mod sync;
pub mod system;
mod thread;
pub mod time;
mod tls;
pub mod toolhelp;

use crate::hle::{ApiDef, HleDll};

pub const DLL: HleDll = HleDll {
    name: "KERNEL32.dll",
    exports,
    attach: None,
};

fn exports() -> Vec<ApiDef> {
    let mut v = Vec::new();
    for part in [
        process::exports,
        createprocess::exports,
        toolhelp::exports,
        module::exports,
        memory::exports,
        heap::exports,
        string::exports,
        time::exports,
        file::exports,
        console::exports,
        conscreen::exports,
        misc::exports,
        sync::exports,
        thread::exports,
        tls::exports,
        interlocked::exports,
        ini::exports,
        exception::exports,
        locale::exports,
        legacy::exports,
        atom::exports,
        resource::exports,
        localeinfo::exports,
        system::exports,
        delayload::exports,
        // VerLanguageName lives with the rest of the version API.
        crate::version::kernel32_exports,
    ] {
        v.extend(part());
    }
    v
}
