//! ieframe.dll: Internet Explorer's frame (the DLL of IE 7 and later; Wine's
//! iexplore.exe is a thin program that calls its IEWinMain, ordinal 101).
//!
//! What is here is the browser without its HTML engine: the InternetExplorer
//! object (IWebBrowser2, [`browser`]) and its frame window, class "IEFrame"
//! ([`frame`]), with a menu bar, a rebar holding the navigation toolbar and the
//! address bar, a status bar, and the document area (class "Shell DocObject
//! View"). Pages are shown by MSHTML, which winterp does not emulate: navigating
//! to about:blank shows the empty page it is (the document area left blank),
//! and navigating anywhere else stops the program with a report naming MSHTML,
//! never a blank page passed off as the one asked for. See "ieframe" in
//! docs/architecture.md for why this is an HLE module rather than Wine's DLL.
//!
//! CoCreateInstance(CLSID_InternetExplorer) reaches [`browser::co_create`]: on
//! Windows the class is a local server (a new iexplore.exe process serves the
//! object); here the object lives in the caller's process and its window on the
//! caller's thread, which has to pump messages for it as for its own windows.

#![allow(non_snake_case)]

pub mod browser;
pub mod frame;

use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, HleDll, Outcome, WStrPtr, stdcall};
use crate::user32::msg::{WM_KEYDOWN, WM_QUIT};
use crate::user32::{Flow, UR};

pub const DLL: HleDll = HleDll {
    name: "ieframe.dll",
    exports,
    attach: Some(attach),
};

/// DLL_PROCESS_ATTACH: the frame's window classes.
fn attach(proc: &crate::process::Process) {
    crate::user32::hostclass::register(proc, DLL.name, &frame::classes());
}

/// The tokens IEWinMain takes before the URL.
#[derive(Debug, Default, PartialEq, Eq)]
struct Options {
    /// `-embedding`: started by COM to serve InternetExplorer objects.
    embedding: bool,
    /// `-nohome`: no navigation to the start page.
    nohome: bool,
    /// `-startmanager`: serve InternetExplorerManager objects.
    manager: bool,
    /// The rest of the line: the page to open (surrounding quotes removed).
    url: String,
}

/// Splits IEWinMain's command line (the program's, without its own name): leading
/// option tokens, compared without regard to case, then the URL.
fn parse_command_line(line: &str) -> Options {
    let mut o = Options::default();
    let mut rest = line;
    loop {
        rest = rest.trim_start_matches([' ', '\t']);
        let end = rest.find([' ', '\t']).unwrap_or(rest.len());
        let token = &rest[..end];
        match token.to_ascii_lowercase().as_str() {
            "-embedding" => o.embedding = true,
            "-nohome" => o.nohome = true,
            "-startmanager" => o.manager = true,
            _ => break,
        }
        rest = &rest[end..];
    }
    let url = rest.trim_end_matches([' ', '\t']);
    let url = match url.strip_prefix('"').and_then(|u| u.strip_suffix('"')) {
        Some(inner) if url.len() > 2 => inner,
        _ => url,
    };
    o.url = url.to_string();
    o
}

/// IEWinMain (ordinal 101): opens a browser window on the URL of the command line
/// (or the start page), runs the thread's message loop until the last window it
/// opened is closed, and ends the process. It only returns on error (Wine's and
/// Windows' alike), so the process ends here with the loop's exit code.
fn IEWinMain(cx: &mut Ctx, lpCmdLine: WStrPtr, nShowWindow: i32) -> ApiResult<Outcome> {
    let line = if lpCmdLine.0 == 0 {
        String::new()
    } else {
        String::from_utf16_lossy(&crate::kernel32::string::read_wide(cx.proc, lpCmdLine.0)?)
    };
    let opts = parse_command_line(&line);
    if opts.embedding || opts.manager {
        return Err(ApiError::UnimplementedCase(format!(
            "ieframe.dll!IEWinMain(\"{line}\"): serving InternetExplorer objects to other \
             processes (a COM local server) is not implemented"
        )));
    }
    // Windows' IEWinMain enters a COM apartment for its class object and the page's
    // objects; here there are neither (the frame is host code and OLE32 calls into
    // ieframe, not the other way), so the thread's COM state is left as it is.
    match main_window_loop(cx, &opts, nShowWindow as u32) {
        Ok(o) | Err(Flow::End(o)) => Ok(o),
        Err(Flow::Err(e)) => Err(e),
    }
}

/// IEWinMain's work after the options: the window, its first page, the loop.
fn main_window_loop(cx: &mut Ctx, opts: &Options, show: u32) -> UR<Outcome> {
    let this = browser::create(cx, true)?;
    let frame = browser::frame_of(cx, this);
    if frame != 0 {
        crate::user32::window::show_window(cx, frame, show)?;
        const SW_HIDE: u32 = 0;
        browser::set_visible(cx, this, show != SW_HIDE);
    }
    if !opts.url.is_empty() {
        browser::navigate(cx, this, &opts.url)?;
    } else if !opts.nohome {
        browser::go_home(cx, this)?;
    }
    // The loop owns no reference: the window keeps the object while it is open.
    browser::release(cx, this)?;
    let code = loop {
        let Some(m) =
            crate::user32::msg::get_msg(cx, 0, 0, 0, true, crate::user32::msg::Wait::Host)?
        else {
            continue;
        };
        if m.message == WM_QUIT {
            break m.wparam;
        }
        // Enter in the address bar's edit field opens what it holds (IE's own loop
        // does this before the message reaches the edit control).
        if m.message == WM_KEYDOWN && m.wparam == VK_RETURN && frame::address_enter(cx, m.hwnd)? {
            continue;
        }
        crate::user32::input::translate(cx, &m);
        crate::user32::msg::dispatch(cx, &m, true)?;
    };
    Ok(Outcome::ExitProcess(code))
}

const VK_RETURN: u32 = 0x0d;

fn exports() -> Vec<ApiDef> {
    let mut v = vec![stdcall("IEWinMain", IEWinMain).ordinal(101)];
    v.extend(frame::exports());
    v.extend(browser::exports());
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_options_come_before_the_url() {
        assert_eq!(parse_command_line(""), Options::default());
        let o = parse_command_line("-nohome");
        assert!(o.nohome && o.url.is_empty());
        let o = parse_command_line(" -NoHome\t-EMBEDDING  about:blank ");
        assert!(o.nohome && o.embedding);
        assert_eq!(o.url, "about:blank");
        // An option after the URL is part of it.
        let o = parse_command_line("http://a/ -nohome");
        assert!(!o.nohome);
        assert_eq!(o.url, "http://a/ -nohome");
    }

    #[test]
    fn a_quoted_url_loses_its_quotes() {
        assert_eq!(parse_command_line("\"about:blank\"").url, "about:blank");
        assert_eq!(parse_command_line("\"\"").url, "\"\"");
        assert_eq!(parse_command_line("\"a").url, "\"a");
    }
}
