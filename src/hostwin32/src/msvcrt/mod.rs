//! msvcrt.dll: the C runtime mingw programs link against.
//!
//! Layered on KERNEL32 like the real one: files, console, environment, command
//! line, time and threads go through KERNEL32's exports (see [`state::k32`]) and
//! malloc through its process heap. Each part owns one header's worth of API.

mod cmdline;
mod conv;
mod ctype;
mod cxx;
mod extra;
mod fileinfo;
mod float;
pub(crate) mod gmem;
mod guest;
mod guest_code;
pub(crate) mod heap;
mod lowio;
mod math;
mod misc;
pub(crate) mod printf;
pub(crate) mod process;
pub(crate) mod scanf;
pub(crate) mod sprintf;
pub(crate) mod startup;
pub(crate) mod state;
pub(crate) mod stdio;
pub(crate) mod string;
mod time;

pub use cmdline::parse as parse_command_line;

use crate::hle::{ApiDef, HleDll};

pub const DLL: HleDll = HleDll {
    name: "msvcrt.dll",
    exports,
    attach: None,
};

fn exports() -> Vec<ApiDef> {
    let mut v = Vec::new();
    for part in [
        startup::exports,
        process::exports,
        heap::exports,
        stdio::exports,
        lowio::exports,
        fileinfo::exports,
        sprintf::exports,
        string::exports,
        ctype::exports,
        conv::exports,
        math::exports,
        time::exports,
        misc::exports,
        cxx::exports,
        extra::exports,
        guest_code::exports,
    ] {
        v.extend(part());
    }
    v
}

#[cfg(test)]
mod tests;
