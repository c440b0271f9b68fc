//! The host-CPU oracle: a 32-bit static Linux helper (`oracle32.c` beside this file)
//! that runs instruction bytes natively and reports the resulting state. This module
//! builds it with `gcc -m32 -static` into the test's target tmp dir (once, rebuilt
//! when the source changes), spawns it and exchanges batches of cases over pipes.
//! The protocol is described at the top of `oracle32.c`.

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

const SOURCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oracle/oracle32.c");
const MAGIC_INIT: u32 = 0x5449_4e49;
const MAGIC_READY: u32 = 0x5944_4552;
const MAGIC_BATCH: u32 = 0x4843_5442;
const MAGIC_RESULT: u32 = 0x544c_5352;

pub const FSAVE_SIZE: usize = 108;

/// One test case: code bytes and the complete initial machine state.
#[derive(Clone, Debug)]
pub struct Case {
    pub code: Vec<u8>,
    /// EAX, ECX, EDX, EBX, ESP, EBP, ESI, EDI.
    pub regs: [u32; 8],
    pub eflags: u32,
    /// x87 state in the 32-bit protected-mode FSAVE layout.
    pub fsave: [u8; FSAVE_SIZE],
    /// (offset into the data window, bytes) written over the pristine window.
    pub patches: Vec<(u16, Vec<u8>)>,
    /// Code the host runs in place of `code` (same length), for forms whose
    /// documented behaviour under Windows the host CPU cannot show in user mode:
    /// the host runs instructions that leave that documented state.
    pub host_code: Option<Vec<u8>>,
}

/// What the host reported for a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostResult {
    pub regs: [u32; 8],
    /// Address after the code on success, else the faulting EIP from the ucontext.
    pub eip: u32,
    pub eflags: u32,
    pub fsave: [u8; FSAVE_SIZE],
    /// None if the code ran to its end.
    pub fault: Option<HostFault>,
    /// Window bytes that differ from the pristine window: (offset, value), ascending.
    pub mem: Vec<(u16, u8)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostFault {
    pub signo: u32,
    /// x86 vector (0 #DE, 3 #BP, 6 #UD, 13 #GP, 14 #PF, 16 #MF, ...), u32::MAX: timeout.
    pub trapno: u32,
    /// Page-fault error code (bit 1: write, bit 4: instruction fetch).
    pub err: u32,
    pub addr: u32,
}

pub struct Oracle {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    buf: Vec<u8>,
}

/// Builds the helper if needed and returns its path.
fn build() -> Result<PathBuf, String> {
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let exe = out_dir.join("oracle32");
    let src_time = std::fs::metadata(SOURCE)
        .and_then(|m| m.modified())
        .map_err(|e| format!("cannot stat {SOURCE}: {e}"))?;
    if let Ok(t) = std::fs::metadata(&exe).and_then(|m| m.modified())
        && t >= src_time
    {
        return Ok(exe);
    }
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("create {}: {e}", out_dir.display()))?;
    let tmp = out_dir.join(format!("oracle32.tmp{}", std::process::id()));
    let out = Command::new("gcc")
        .args(["-m32", "-static", "-O2", "-fno-pie", "-no-pie", "-o"])
        .arg(&tmp)
        .arg(SOURCE)
        .output()
        .map_err(|e| {
            format!("cannot run gcc ({e}); the differential test needs gcc with 32-bit support: install gcc-multilib")
        })?;
    if !out.status.success() {
        return Err(format!(
            "gcc -m32 -static failed to build the host oracle; install gcc-multilib \
             (apt-get install gcc-multilib).\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    std::fs::rename(&tmp, &exe).map_err(|e| format!("rename oracle: {e}"))?;
    Ok(exe)
}

impl Oracle {
    /// Builds and starts the oracle with code at `code_addr` (one page) and a data
    /// window of `window.len()` bytes at `win_addr` holding `window` before each case.
    pub fn spawn(code_addr: u32, win_addr: u32, window: &[u8]) -> Result<Oracle, String> {
        let exe = build()?;
        let mut child = Command::new(&exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
        let stdin = BufWriter::with_capacity(1 << 20, child.stdin.take().expect("piped stdin"));
        let stdout = BufReader::with_capacity(1 << 20, child.stdout.take().expect("piped stdout"));
        let mut o = Oracle {
            child,
            stdin,
            stdout,
            buf: Vec::new(),
        };
        let mut init = Vec::with_capacity(16 + window.len());
        for v in [MAGIC_INIT, code_addr, win_addr, window.len() as u32] {
            init.extend_from_slice(&v.to_le_bytes());
        }
        init.extend_from_slice(window);
        o.stdin
            .write_all(&init)
            .map_err(|e| format!("oracle init: {e}"))?;
        o.stdin.flush().map_err(|e| format!("oracle init: {e}"))?;
        let mut ready = [0u8; 8];
        o.stdout
            .read_exact(&mut ready)
            .map_err(|e| format!("oracle did not start: {e}"))?;
        if u32::from_le_bytes(ready[..4].try_into().unwrap()) != MAGIC_READY {
            return Err("oracle: bad ready message".into());
        }
        Ok(o)
    }

    /// Runs a batch of cases on the host.
    pub fn run(&mut self, cases: &[Case]) -> Result<Vec<HostResult>, String> {
        let b = &mut self.buf;
        b.clear();
        for c in cases {
            let code = c.host_code.as_ref().unwrap_or(&c.code);
            assert!(code.len() == c.code.len(), "host code of another length");
            assert!(code.len() < 250 && c.patches.len() < 256);
            b.push(code.len() as u8);
            b.push(c.patches.len() as u8);
            b.extend_from_slice(&[0, 0]);
            for r in c.regs {
                b.extend_from_slice(&r.to_le_bytes());
            }
            b.extend_from_slice(&c.eflags.to_le_bytes());
            b.extend_from_slice(&c.fsave);
            b.extend_from_slice(code);
            for (off, data) in &c.patches {
                b.extend_from_slice(&off.to_le_bytes());
                b.extend_from_slice(&(data.len() as u16).to_le_bytes());
                b.extend_from_slice(data);
            }
        }
        let io = |e: std::io::Error| format!("oracle I/O: {e}");
        let mut hdr = Vec::with_capacity(12);
        for v in [MAGIC_BATCH, cases.len() as u32, b.len() as u32] {
            hdr.extend_from_slice(&v.to_le_bytes());
        }
        self.stdin.write_all(&hdr).map_err(io)?;
        self.stdin.write_all(b).map_err(io)?;
        self.stdin.flush().map_err(io)?;

        let mut rh = [0u8; 12];
        self.stdout.read_exact(&mut rh).map_err(io)?;
        let word = |k: usize| u32::from_le_bytes(rh[4 * k..4 * k + 4].try_into().unwrap());
        if word(0) != MAGIC_RESULT || word(1) as usize != cases.len() {
            return Err(format!(
                "oracle: bad result header {:08x} {}",
                word(0),
                word(1)
            ));
        }
        b.resize(word(2) as usize, 0);
        self.stdout.read_exact(b).map_err(io)?;
        let mut r = Reader { b, p: 0 };
        let mut out = Vec::with_capacity(cases.len());
        for _ in cases {
            let mut regs = [0u32; 8];
            for v in &mut regs {
                *v = r.u32();
            }
            let eip = r.u32();
            let eflags = r.u32();
            let mut fsave = [0u8; FSAVE_SIZE];
            fsave.copy_from_slice(r.bytes(FSAVE_SIZE));
            let (signo, trapno, err, addr) = (r.u32(), r.u32(), r.u32(), r.u32());
            let nruns = r.u16();
            r.u16();
            let mut mem = Vec::new();
            for _ in 0..nruns {
                let off = r.u16();
                let len = r.u16() as usize;
                for (k, &v) in r.bytes(len).iter().enumerate() {
                    mem.push((off + k as u16, v));
                }
            }
            let fault = (signo != 0).then_some(HostFault {
                signo,
                trapno,
                err,
                addr,
            });
            out.push(HostResult {
                regs,
                eip,
                eflags,
                fsave,
                fault,
                mem,
            });
        }
        Ok(out)
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Reader<'a> {
    b: &'a [u8],
    p: usize,
}

impl Reader<'_> {
    fn bytes(&mut self, n: usize) -> &[u8] {
        let s = &self.b[self.p..self.p + n];
        self.p += n;
        s
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.bytes(4).try_into().unwrap())
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.bytes(2).try_into().unwrap())
    }
}
