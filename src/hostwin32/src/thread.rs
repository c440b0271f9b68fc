//! A guest thread: its CPU, executor (with its own block cache) and TEB, and the
//! loop that runs guest code, serves API thunks and calls back into guest code.

use crate::hle::thunks::{CALL_RETURN, THREAD_RETURN, THUNK_BASE, THUNK_SIZE, ThunkTarget};
use crate::hle::{ApiError, Conv, Ctx, Outcome};
use crate::process::Process;
use std::sync::Arc;
use winterp_core::cpu::{EAX, EBP, EBX, EDI, EDX, ESI, ESP, flags};
use winterp_core::tiers::hot::HotTracker;
use winterp_core::{Cpu, Exception, Executor, StopReason};

/// How a thread's run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThreadEnd {
    /// The thread returned from its start routine or called ExitThread.
    Exited(u32),
    /// The process is ending with this code (ExitProcess, exit, or another thread).
    ProcessExit(u32),
    /// An error the guest cannot continue from; the text is the report.
    Crashed(String),
    /// The instruction limit of the run was reached.
    InstructionLimit,
}

pub struct GuestThread {
    pub cpu: Cpu,
    pub exec: Executor,
    pub tid: u32,
    /// Guest address of the TEB (FS base).
    pub teb: u32,
    /// Stack slots of the API being served (for variadic arguments).
    pub call_nargs: u32,
    /// Depth of host-initiated guest calls in progress.
    pub call_depth: u32,
    /// Waits, time slices and the thread's kernel object ([`crate::scheduler`]).
    pub sched: crate::scheduler::ThreadSched,
    /// What this thread last published into [`Process::hot`].
    hot: HotTracker,
}

/// Instructions per executor run between checks for process exit.
const QUANTUM: u64 = 200_000;

impl GuestThread {
    pub fn new(proc: &Process, tid: u32, teb: u32) -> GuestThread {
        let mut cpu = Cpu::new(proc.mem.clone());
        cpu.set_seg_base(winterp_core::cpu::seg::FS, teb);
        let mut exec = Executor::new();
        exec.set_stop_range(THUNK_BASE, THUNK_BASE + THUNK_SIZE);
        GuestThread {
            cpu,
            exec,
            tid,
            teb,
            call_nargs: 0,
            call_depth: 0,
            sched: Default::default(),
            hot: HotTracker::new(),
        }
    }

    /// Runs from the current EIP until the thread or process ends, then records the
    /// thread's counters in the process.
    pub fn run(&mut self, proc: &Arc<Process>) -> ThreadEnd {
        let end = loop {
            if let Some(e) = self.run_slice(proc) {
                break e;
            }
            // Deterministic mode: the slice ended or the thread blocked.
            if let Err(e) = crate::scheduler::reschedule(self, proc) {
                break e;
            }
        };
        self.finish(proc);
        end
    }

    /// Runs one executor quantum (and the thunk or exception that ended it).
    /// `Some` when the thread ended. The deterministic scheduler drives threads
    /// with this.
    pub fn run_quantum(&mut self, proc: &Arc<Process>) -> Option<ThreadEnd> {
        match self.step(proc) {
            Some(Step::Returned) => Some(ThreadEnd::Crashed(format!(
                "guest returned to a host call sentinel outside a call (eip {:#010x})",
                self.cpu.eip
            ))),
            Some(Step::End(e)) => Some(e),
            Some(Step::Slice) | None => None,
        }
    }

    /// Runs until the thread ends (`Some`) or, in deterministic mode, its time slice
    /// ends or it blocks in a wait (`None`); see [`crate::scheduler`].
    pub fn run_slice(&mut self, proc: &Arc<Process>) -> Option<ThreadEnd> {
        loop {
            match self.step(proc) {
                Some(Step::Returned) => {
                    return Some(ThreadEnd::Crashed(format!(
                        "guest returned to a host call sentinel outside a call (eip {:#010x})",
                        self.cpu.eip
                    )));
                }
                Some(Step::End(e)) => return Some(e),
                Some(Step::Slice) => return None,
                None => {}
            }
        }
    }

    /// Records this thread's executor counters for the process statistics.
    pub fn finish(&mut self, proc: &Process) {
        self.hot.publish(&self.exec, &proc.hot);
        proc.thread_stats
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((self.tid, self.exec.counters));
    }

    /// Calls guest code at `addr` with `args` (pushed right to left) and returns EAX.
    /// Registers other than EAX/EDX/ECX and the stack pointer are restored.
    ///
    /// The callee is entered with the direction flag clear, as the Win32 calling
    /// convention promises every function, even when the guest called the API
    /// that makes this call with DF set; the caller's DF is back when the call
    /// returns, whatever the callee left.
    pub fn call_guest(
        &mut self,
        proc: &Arc<Process>,
        addr: u32,
        args: &[u32],
    ) -> Result<u32, ThreadEnd> {
        let saved_eip = self.cpu.eip;
        let saved_esp = self.cpu.regs[ESP];
        // The callee-saved registers, one by one: a copy of the whole register
        // file right after the executor's scalar stores stalls on store forwarding
        // (this runs for every qsort comparison).
        let saved = [EBX, EBP, ESI, EDI].map(|r| self.cpu.regs[r]);
        let saved_df = self.cpu.eflags_sys & flags::DF;
        for &a in args.iter().rev() {
            self.push(a)?;
        }
        self.push(CALL_RETURN)?;
        self.cpu.eflags_sys &= !flags::DF;
        self.cpu.eip = addr;
        self.call_depth += 1;
        let r = loop {
            match self.step(proc) {
                Some(Step::Returned) => break Ok(self.cpu.regs[EAX]),
                Some(Step::End(e)) => break Err(e),
                // Deterministic mode: other threads run until this one may continue.
                Some(Step::Slice) => {
                    if let Err(e) = crate::scheduler::reschedule(self, proc) {
                        break Err(e);
                    }
                }
                None => {}
            }
        };
        self.call_depth -= 1;
        // EAX, ECX and EDX stay as the callee left them (slots 8-15 are always 0).
        for (r, v) in [EBX, EBP, ESI, EDI].into_iter().zip(saved) {
            self.cpu.regs[r] = v;
        }
        self.cpu.regs[ESP] = saved_esp;
        self.cpu.eflags_sys = (self.cpu.eflags_sys & !flags::DF) | saved_df;
        self.cpu.eip = saved_eip;
        r
    }

    fn push(&mut self, v: u32) -> Result<(), ThreadEnd> {
        self.cpu.push(32, v).map(|_| ()).map_err(|f| {
            ThreadEnd::Crashed(format!(
                "stack overflow pushing a call frame at {:#010x}",
                f.addr
            ))
        })
    }

    /// One executor run and whatever stopped it.
    fn step(&mut self, proc: &Arc<Process>) -> Option<Step> {
        if let Some(code) = proc.exited() {
            return Some(Step::End(ThreadEnd::ProcessExit(code)));
        }
        if let Some(max) = proc.config.max_instructions
            && self.exec.counters.insns >= max
        {
            return Some(Step::End(ThreadEnd::InstructionLimit));
        }
        let left = self
            .sched
            .slice_end
            .saturating_sub(self.exec.counters.insns);
        if left == 0 || self.sched.yield_requested {
            return Some(Step::Slice);
        }
        let stop = self.exec.run(&mut self.cpu, QUANTUM.min(left));
        // Between runs, so the block counters are this thread's to read.
        if self.hot.due(self.exec.counters.insns, &proc.hot) {
            self.hot.publish(&self.exec, &proc.hot);
        }
        match stop {
            StopReason::BudgetSpent => None,
            // Suspension or TerminateThread by another thread.
            StopReason::Halt => crate::scheduler::on_halt(self, proc).err().map(Step::End),
            StopReason::Thunk(eip) => match self.thunk(proc, eip) {
                // A deterministic-mode wait blocked or the API gave up the slice.
                None if self.sched.wait.is_some() || self.sched.yield_requested => {
                    Some(Step::Slice)
                }
                r => r,
            },
            StopReason::Exception(e) => match crate::seh::dispatch(self, proc, e) {
                Ok(()) => None,
                Err(end) => Some(Step::End(end)),
            },
        }
    }

    fn thunk(&mut self, proc: &Arc<Process>, eip: u32) -> Option<Step> {
        // The return sentinel of `call_guest` (every qsort comparison ends here) is
        // slot 0 of every thunk table: no lock needed to recognise it.
        if eip == CALL_RETURN {
            return Some(Step::Returned);
        }
        let api = {
            let thunks = proc.thunks.read().unwrap_or_else(|e| e.into_inner());
            match thunks.target(eip) {
                Some(&ThunkTarget::Api { dll, index }) => Ok((dll, index)),
                other => Err(other.cloned()),
            }
        };
        match api {
            Ok((dll, index)) | Err(Some(ThunkTarget::Api { dll, index })) => {
                self.call_api(proc, dll, index).err().map(Step::End)
            }
            Err(Some(ThunkTarget::CallReturn)) => Some(Step::Returned),
            Err(Some(ThunkTarget::ThreadReturn)) => {
                Some(Step::End(ThreadEnd::Exited(self.cpu.regs[EAX])))
            }
            Err(Some(ThunkTarget::Missing { dll, name })) => {
                self.call_missing(proc, &dll, &name).err().map(Step::End)
            }
            Err(None) => Some(Step::End(ThreadEnd::Crashed(self.report(
                proc,
                &format!("jump into the HLE thunk area at {eip:#010x}"),
            )))),
        }
    }

    /// A call to an export winterp does not implement. The system export table says
    /// how many argument bytes it takes (shown in the report) and who pops them (so
    /// `--stub-unimplemented` returns 0 with the stack as the real function leaves it).
    fn call_missing(
        &mut self,
        proc: &Arc<Process>,
        dll: &str,
        name: &str,
    ) -> Result<(), ThreadEnd> {
        let at = self.call_site(proc);
        let real = match name.strip_prefix('#').and_then(|o| o.parse::<u16>().ok()) {
            Some(o) => crate::sysexports::lookup_ordinal(dll, o),
            None => crate::sysexports::lookup(dll, name),
        };
        let kind = real.map(|e| e.kind);
        let nargs = kind.and_then(|k| k.arg_bytes()).map(|b| b / 4);
        let esp = self.cpu.regs[ESP];
        let args: Vec<String> = (0..nargs.unwrap_or(0) as u32)
            .map(
                |k| match self.cpu.mem.read_u32(esp.wrapping_add(4 + 4 * k)) {
                    Ok(v) => format!("{v:#x}"),
                    Err(_) => "?".to_string(),
                },
            )
            .collect();
        let call = match (real, nargs) {
            (Some(_), Some(_)) => format!("{dll}!{name}({})", args.join(", ")),
            (Some(_), None) => format!("{dll}!{name}(arguments unknown)"),
            (None, _) => format!("{dll}!{name} (not an export of the real DLL)"),
        };
        proc.note_call(crate::process::RecentCall::Text(call.clone()));
        proc.counters.note_unimplemented(&call);
        if !proc.config.stub_unimplemented {
            return Err(ThreadEnd::Crashed(self.report(
                proc,
                &format!("{call} is not implemented; called at {at:#010x}"),
            )));
        }
        let pops = kind.and_then(|k| k.callee_pops());
        if pops.is_none() {
            log::warn!(
                "{call} is not implemented and its argument bytes are unknown (called at \
                 {at:#010x}); returning 0 without popping arguments"
            );
        } else {
            log::warn!("{call} is not implemented (called at {at:#010x}); returning 0");
        }
        self.cpu.regs[EAX] = 0;
        let pops = pops.unwrap_or(0);
        self.return_from_api(proc, Conv::Stdcall, (pops / 4) as u8)
    }

    fn call_api(&mut self, proc: &Arc<Process>, dll: usize, index: usize) -> Result<(), ThreadEnd> {
        let def = &proc.dlls[dll].1[index];
        let dll_name = proc.dlls[dll].0;
        let (conv, nargs) = def.conv_nargs().unwrap_or((Conv::Cdecl, 0));
        let esp = self.cpu.regs[ESP];
        let mut stack = [0u32; 32];
        for k in 0..nargs as usize {
            stack[k] = self
                .cpu
                .mem
                .read_u32(esp.wrapping_add(4 + 4 * k as u32))
                .map_err(|f| {
                    ThreadEnd::Crashed(self.report(
                        proc,
                        &format!(
                            "{dll_name}!{}: argument {k} unreadable at {:#010x}",
                            def.name, f.addr
                        ),
                    ))
                })?;
        }
        let args = &stack[..nargs as usize];
        proc.note_api_call(dll_name, def.name, args);
        self.call_nargs = nargs as u32;
        let result = {
            let mut cx = Ctx { proc, thread: self };
            def.call(&mut cx, args)
        };
        if proc.config.trace_api {
            log::info!(
                "[tid {}] {dll_name}!{}({:x?}) -> {:x?}",
                self.tid,
                def.name,
                args,
                result
            );
        }
        match result {
            Ok(Outcome::Return(v)) => {
                self.cpu.regs[EAX] = v as u32;
                self.cpu.regs[EDX] = (v >> 32) as u32;
                self.return_from_api(proc, conv, nargs)
            }
            Ok(Outcome::ReturnF64(v)) => {
                self.cpu.fpu.push_raw(v);
                self.return_from_api(proc, conv, nargs)
            }
            Ok(Outcome::Resume) => Ok(()),
            Ok(Outcome::ExitProcess(c)) => {
                // As on Windows, DllMain(DLL_PROCESS_DETACH) runs on the exiting
                // thread, once, before the exit code stops all guest calls.
                if proc.exited().is_none()
                    && !proc
                        .detaching
                        .swap(true, std::sync::atomic::Ordering::SeqCst)
                    && let Err(e) = crate::loader::process_detach(proc, self)
                {
                    log::warn!("DLL_PROCESS_DETACH did not complete: {e:?}");
                }
                proc.set_exit(c);
                Err(ThreadEnd::ProcessExit(c))
            }
            Ok(Outcome::ExitThread(c)) => Err(ThreadEnd::Exited(c)),
            Err(ApiError::Unimplemented { dll, name }) if proc.config.stub_unimplemented => {
                proc.counters.note_unimplemented(&format!("{dll}!{name}"));
                log::warn!("{dll}!{name} is not implemented; returning 0");
                self.cpu.regs[EAX] = 0;
                self.return_from_api(proc, conv, nargs)
            }
            Err(e) => {
                if let ApiError::Unimplemented { dll, name } = &e {
                    proc.counters.note_unimplemented(&format!("{dll}!{name}"));
                } else if let ApiError::UnimplementedCase(what) = &e {
                    proc.counters.note_unimplemented(what);
                }
                let at = self.call_site(proc);
                Err(ThreadEnd::Crashed(self.report(
                    proc,
                    &format!("{dll_name}!{} called at {at:#010x}: {e}", def.name),
                )))
            }
        }
    }

    /// Pops the return address (and the arguments for stdcall) and returns.
    fn return_from_api(&mut self, proc: &Process, conv: Conv, nargs: u8) -> Result<(), ThreadEnd> {
        let esp = self.cpu.regs[ESP];
        let ret = self
            .cpu
            .mem
            .read_u32(esp)
            .map_err(|_| ThreadEnd::Crashed(self.report(proc, "return address unreadable")))?;
        let pop = 4 + if conv == Conv::Stdcall {
            4 * nargs as u32
        } else {
            0
        };
        self.cpu.regs[ESP] = esp.wrapping_add(pop);
        self.cpu.eip = ret;
        Ok(())
    }

    /// Address of the call instruction that reached the current thunk.
    fn call_site(&self, _proc: &Process) -> u32 {
        let ret = self.cpu.mem.read_u32(self.cpu.regs[ESP]).unwrap_or(0);
        let mut b = [0u8; 6];
        if self.cpu.mem.read_bytes(ret.wrapping_sub(6), &mut b).is_ok() {
            if b[0] == 0xff && b[1] == 0x15 {
                return ret - 6;
            }
            if b[1] == 0xe8 {
                return ret - 5;
            }
        }
        ret
    }

    /// A readable report: the message, where the thread was, registers and the
    /// last API calls.
    pub fn report(&self, proc: &Process, what: &str) -> String {
        let c = &self.cpu;
        let loc = proc
            .locate(c.eip)
            .map(|(m, off)| format!(" ({m}+{off:#x})"))
            .unwrap_or_default();
        let mut s = format!(
            "winterp: {what}\n  thread {} eip {:#010x}{loc}\n",
            self.tid, c.eip
        );
        let names = ["eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"];
        for (k, n) in names.iter().enumerate() {
            s += &format!("  {n}={:08x}", c.regs[k]);
            if k == 3 {
                s += "\n";
            }
        }
        s += &format!("\n  eflags={:08x}\n", c.eflags());
        let calls = proc.recent_calls.lock().unwrap_or_else(|e| e.into_inner());
        if !calls.is_empty() {
            s += "  last API calls:\n";
            for c in calls.iter() {
                s += &format!("    {c}\n");
            }
        }
        s
    }

    /// Report for an exception nobody handled.
    pub fn exception_report(&self, proc: &Process, e: &Exception) -> String {
        self.report(proc, &format!("unhandled exception: {e}"))
    }

    /// Sets up the stack so that returning from the start routine ends the thread.
    /// The routine starts with the direction flag clear.
    pub fn start_at(&mut self, entry: u32, args: &[u32]) -> Result<(), ThreadEnd> {
        for &a in args.iter().rev() {
            self.push(a)?;
        }
        self.push(THREAD_RETURN)?;
        self.cpu.eflags_sys &= !flags::DF;
        self.cpu.eip = entry;
        Ok(())
    }
}

enum Step {
    /// A host-initiated guest call returned.
    Returned,
    /// Deterministic mode: the time slice ended or the thread blocked.
    Slice,
    End(ThreadEnd),
}

#[cfg(test)]
mod tests {
    use crate::host::CaptureHost;
    use crate::process::{Process, ProcessConfig};
    use std::sync::Arc;
    use winterp_core::cpu::{EBX, ESI, ESP, flags};
    use winterp_core::mem::Prot;

    /// `call_guest` enters the callee with DF clear whatever the caller's DF, and
    /// gives the caller back its own DF and callee-saved registers whatever the
    /// callee left in them.
    #[test]
    fn call_guest_clears_df_on_entry_and_restores_the_callers_state() {
        let cfg = ProcessConfig::new("test.exe".into(), "C:\\TEST\\test.exe".into());
        let proc = Process::new(cfg, Arc::new(CaptureHost::default()), &crate::hle_dlls()).unwrap();
        let mut t = crate::startup::new_thread(&proc, 0, 0, 0).unwrap();
        let code = proc
            .vm
            .lock()
            .unwrap()
            .alloc(None, 0x1000, Prot::RWX, "test code")
            .unwrap();
        // pushf; pop eax; std; mov ebx, 0xbad0eb01; mov esi, 0xbad0e502; ret 4
        let body = [
            0x9c, 0x58, 0xfd, 0xbb, 0x01, 0xeb, 0xd0, 0xba, 0xbe, 0x02, 0xe5, 0xd0, 0xba, 0xc2,
            0x04, 0x00,
        ];
        proc.mem.write_bytes(code, &body).unwrap();
        for caller_df in [true, false] {
            if caller_df {
                t.cpu.eflags_sys |= flags::DF;
            } else {
                t.cpu.eflags_sys &= !flags::DF;
            }
            t.cpu.regs[EBX] = 0xeb0c_0de1;
            t.cpu.regs[ESI] = 0xe51c_0de2;
            let esp = t.cpu.regs[ESP];
            let eflags_on_entry = t.call_guest(&proc, code, &[7]).unwrap();
            assert_eq!(
                eflags_on_entry & flags::DF,
                0,
                "DF on entry (caller's DF {caller_df})"
            );
            assert_eq!(t.cpu.df(), caller_df, "DF after the call");
            assert_eq!(t.cpu.regs[EBX], 0xeb0c_0de1);
            assert_eq!(t.cpu.regs[ESI], 0xe51c_0de2);
            assert_eq!(t.cpu.regs[ESP], esp);
        }
    }
}
