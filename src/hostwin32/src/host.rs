//! What the Win32 layer needs from the machine it runs on. The desktop player and
//! the headless runner implement this; tests use [`CaptureHost`].

use std::sync::Mutex;
use std::time::Instant;

pub trait Host: Send + Sync {
    /// Guest writes to its standard output (handle or C runtime stream).
    fn stdout(&self, bytes: &[u8]);
    /// Guest writes to its standard error.
    fn stderr(&self, bytes: &[u8]);
    /// Reads the guest's standard input; returns 0 at end of input.
    fn stdin(&self, buf: &mut [u8]) -> usize;
    /// Milliseconds since the host started the process (wall clock).
    fn millis(&self) -> u64;
    /// Microseconds since the host started the process (QueryPerformanceCounter).
    fn micros(&self) -> u64 {
        self.millis() * 1000
    }
    /// The wall-clock date and time (GetSystemTime).
    fn system_time(&self) -> std::time::SystemTime {
        std::time::SystemTime::now()
    }
    /// Starts a guest program as a new emulator process (CreateProcess): the host
    /// knows which binary that is and runs it in its own mode (headless runs start
    /// headless children). The default cannot start anything.
    fn start_process(
        &self,
        spec: &crate::kernel32::createprocess::ChildSpec,
    ) -> Result<std::process::Child, crate::kernel32::createprocess::StartError> {
        Err(crate::kernel32::createprocess::StartError::Unsupported(
            format!("this host cannot start processes ({})", spec.guest_path),
        ))
    }
    /// A modal message box (MessageBox): returns the ID of the button chosen. The
    /// default prints the box to standard error and chooses the default button
    /// (MB_DEFBUTTONn), so headless runs continue; the player shows a dialog.
    fn message_box(&self, caption: &str, text: &str, utype: u32) -> u32 {
        let buttons = message_box_buttons(utype);
        let names: Vec<&str> = buttons.iter().map(|b| b.1).collect();
        let pick = buttons
            .get(((utype >> 8) & 0xf) as usize)
            .or(buttons.first())
            .map_or(1, |b| b.0);
        let s = format!(
            "winterp: message box \"{caption}\": {text} [{}] -> {}\n",
            names.join(", "),
            buttons.iter().find(|b| b.0 == pick).map_or("OK", |b| b.1)
        );
        self.stderr(s.as_bytes());
        pick
    }
}

/// The buttons (ID, label) of a MessageBox type (MB_OK .. MB_CANCELTRYCONTINUE).
pub fn message_box_buttons(utype: u32) -> Vec<(u32, &'static str)> {
    const OK: (u32, &str) = (1, "OK");
    const CANCEL: (u32, &str) = (2, "Cancel");
    const ABORT: (u32, &str) = (3, "Abort");
    const RETRY: (u32, &str) = (4, "Retry");
    const IGNORE: (u32, &str) = (5, "Ignore");
    const YES: (u32, &str) = (6, "Yes");
    const NO: (u32, &str) = (7, "No");
    const TRY: (u32, &str) = (10, "Try Again");
    const CONTINUE: (u32, &str) = (11, "Continue");
    match utype & 0xf {
        1 => vec![OK, CANCEL],
        2 => vec![ABORT, RETRY, IGNORE],
        3 => vec![YES, NO, CANCEL],
        4 => vec![YES, NO],
        5 => vec![RETRY, CANCEL],
        6 => vec![CANCEL, TRY, CONTINUE],
        _ => vec![OK],
    }
}

/// What a host that can start child processes runs for CreateProcess.
pub type Launcher = Box<
    dyn Fn(
            &crate::kernel32::createprocess::ChildSpec,
        ) -> Result<std::process::Child, crate::kernel32::createprocess::StartError>
        + Send
        + Sync,
>;

/// Passes standard streams through to the host process's own.
pub struct ConsoleHost {
    start: Instant,
    launcher: Option<Launcher>,
}

impl Default for ConsoleHost {
    fn default() -> Self {
        ConsoleHost {
            start: Instant::now(),
            launcher: None,
        }
    }
}

impl ConsoleHost {
    /// A console host whose CreateProcess children are started by `launcher`.
    pub fn with_launcher(launcher: Launcher) -> ConsoleHost {
        ConsoleHost {
            launcher: Some(launcher),
            ..ConsoleHost::default()
        }
    }
}

impl Host for ConsoleHost {
    fn stdout(&self, bytes: &[u8]) {
        use std::io::Write;
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(bytes);
        let _ = o.flush();
    }
    fn stderr(&self, bytes: &[u8]) {
        use std::io::Write;
        let _ = std::io::stderr().lock().write_all(bytes);
    }
    fn stdin(&self, buf: &mut [u8]) -> usize {
        use std::io::Read;
        std::io::stdin().lock().read(buf).unwrap_or(0)
    }
    fn millis(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }
    fn micros(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }
    fn start_process(
        &self,
        spec: &crate::kernel32::createprocess::ChildSpec,
    ) -> Result<std::process::Child, crate::kernel32::createprocess::StartError> {
        match &self.launcher {
            Some(l) => l(spec),
            None => Err(crate::kernel32::createprocess::StartError::Unsupported(
                "no launcher given to the console host".into(),
            )),
        }
    }
}

/// Captures the standard streams (tests).
#[derive(Default)]
pub struct CaptureHost {
    pub out: Mutex<Vec<u8>>,
    pub err: Mutex<Vec<u8>>,
    pub input: Mutex<Vec<u8>>,
}

impl Host for CaptureHost {
    fn stdout(&self, bytes: &[u8]) {
        self.out
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(bytes);
    }
    fn stderr(&self, bytes: &[u8]) {
        self.err
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(bytes);
    }
    fn stdin(&self, buf: &mut [u8]) -> usize {
        let mut i = self.input.lock().unwrap_or_else(|e| e.into_inner());
        let n = buf.len().min(i.len());
        buf[..n].copy_from_slice(&i[..n]);
        i.drain(..n);
        n
    }
    fn millis(&self) -> u64 {
        0
    }
}
