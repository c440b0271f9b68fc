//! msvcrt.dll: the C runtime mingw programs link against.
//!
//! Layered on KERNEL32 like the real one: files, console, environment, command
//! line, time and threads go through KERNEL32's exports (see [`state::k32`]) and
//! malloc through its process heap. Each part owns one header's worth of API.

mod cmdline;
mod conv;
mod ctype;
mod cxx;
mod fileinfo;
mod float;
mod gmem;
mod heap;
mod lowio;
mod math;
mod misc;
mod printf;
mod process;
mod scanf;
mod sprintf;
mod startup;
mod state;
mod stdio;
mod string;
mod time;

pub use cmdline::parse as parse_command_line;

use crate::hle::{ApiDef, HleDll};

pub const DLL: HleDll = HleDll {
    name: "msvcrt.dll",
    exports,
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
    ] {
        v.extend(part());
    }
    v
}

#[cfg(test)]
mod tests;
