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
