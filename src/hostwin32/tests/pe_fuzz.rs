//! Bounded mutation fuzzing of the PE loader (issue 3, item 11), with no tools
//! beyond `cargo test`: the committed sample images (tests/data) are mutated
//! deterministically — bit flips, random bytes, header and section fields set to
//! boundary values, huge sizes and counts, damaged tables, truncation, insertions
//! and deletions — and each result is loaded into a fresh process. The loader must
//! return `Ok` or a `LoadError` for every input: no panic, no hang (a watchdog
//! aborts the run if one input takes more than a minute, and each input is timed),
//! no absurd allocation (peak RSS is checked at the end).
//!
//! `WINTERP_PE_FUZZ_INPUTS` overrides the number of inputs (default 10,000) and
//! `WINTERP_PE_FUZZ_SEED` the seed; a failure names the input's index and mutations,
//! which reproduce with the same seed.

use object::LittleEndian as LE;
use object::read::pe::PeFile32;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use winterp_hostwin32::hle_dlls;
use winterp_hostwin32::host::CaptureHost;
use winterp_hostwin32::loader::{
    self, ExportName, LoadError, MemoryDlls, ResId, find_resource, resolve_export,
    resource_children,
};
use winterp_hostwin32::process::{Process, ProcessConfig};
use winterp_hostwin32::startup;

/// Slowest acceptable single input (the largest legal image, 256 MiB, takes a
/// fraction of this to map).
const PER_INPUT: Duration = Duration::from_secs(20);
/// The watchdog's limit: past this an input is considered hung.
const HANG: Duration = Duration::from_secs(60);
/// Peak resident memory allowed for the whole run.
const MAX_RSS_KB: u64 = 1536 * 1024;

/// SplitMix64: small, deterministic, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Where the interesting fields of a sample are (file offsets).
struct Layout {
    /// (offset, width) of header and section-table fields.
    fields: Vec<(usize, usize)>,
    /// File ranges of the data directories' contents.
    tables: Vec<(usize, usize)>,
    headers_end: usize,
}

fn layout(bytes: &[u8]) -> Layout {
    let pe = PeFile32::parse(bytes).expect("sample parses");
    let nt = u32::from_le_bytes(bytes[0x3c..0x40].try_into().unwrap()) as usize;
    let fh = nt + 4;
    let opt = fh + 20;
    let opt_size = u16::from_le_bytes([bytes[fh + 16], bytes[fh + 17]]) as usize;
    let mut fields = vec![(0x3c, 4), (fh, 2), (fh + 2, 2), (fh + 16, 2), (fh + 18, 2)];
    // Magic, entry, ImageBase, alignments, SizeOfImage/Headers, subsystem, stack
    // and heap sizes, NumberOfRvaAndSizes.
    for (o, w) in [
        (0, 2),
        (16, 4),
        (28, 4),
        (32, 4),
        (36, 4),
        (56, 4),
        (60, 4),
        (68, 2),
        (72, 4),
        (76, 4),
        (92, 4),
    ] {
        fields.push((opt + o, w));
    }
    for k in 0..16 {
        fields.push((opt + 96 + 8 * k, 4));
        fields.push((opt + 96 + 8 * k + 4, 4));
    }
    let sections = opt + opt_size;
    let nsec = u16::from_le_bytes([bytes[fh + 2], bytes[fh + 3]]) as usize;
    for s in 0..nsec {
        for o in [8, 12, 16, 20, 36] {
            fields.push((sections + 40 * s + o, 4));
        }
    }
    let mut tables = Vec::new();
    let table = pe.section_table();
    for d in pe.data_directories().iter() {
        let (rva, size) = (d.virtual_address.get(LE), d.size.get(LE));
        if rva == 0 || size == 0 {
            continue;
        }
        if let Some((off, _)) = table.pe_file_range_at(rva) {
            let len = (size as usize).min(bytes.len().saturating_sub(off as usize));
            if len > 0 {
                tables.push((off as usize, len));
            }
        }
    }
    Layout {
        fields,
        tables,
        headers_end: sections + 40 * nsec,
    }
}

const INTERESTING: [u32; 18] = [
    0,
    1,
    2,
    0x7f,
    0x80,
    0xff,
    0x200,
    0xfff,
    0x1000,
    0xffff,
    0x1_0000,
    0x0fff_ffff,
    0x1000_0000,
    0x1000_1000,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_fff0,
    0xffff_ffff,
];

/// Applies 1-4 random mutations; returns the description of each.
fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>, lay: &Layout) -> Vec<String> {
    let mut did = Vec::new();
    for _ in 0..1 + rng.below(4) {
        if bytes.is_empty() {
            break;
        }
        let len = bytes.len();
        match rng.below(10) {
            0 => {
                let at = rng.below(len);
                let bit = rng.below(8);
                bytes[at] ^= 1 << bit;
                did.push(format!("flip {at:#x}.{bit}"));
            }
            1 => {
                // Random bytes, mostly in the headers.
                let end = if rng.chance(70) {
                    lay.headers_end.min(len)
                } else {
                    len
                };
                let at = rng.below(end);
                let n = 1 + rng.below(8);
                for k in at..(at + n).min(len) {
                    bytes[k] = rng.next() as u8;
                }
                did.push(format!("random {n} at {at:#x}"));
            }
            2..=4 => {
                let (at, w) = lay.fields[rng.below(lay.fields.len())];
                if at + w > len {
                    continue;
                }
                let old = if w == 2 {
                    u16::from_le_bytes([bytes[at], bytes[at + 1]]) as u32
                } else {
                    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
                };
                let v = match rng.below(8) {
                    0..=2 => INTERESTING[rng.below(INTERESTING.len())],
                    3 => old.wrapping_add(1 + rng.below(0x10) as u32),
                    4 => old.wrapping_sub(1 + rng.below(0x10) as u32),
                    5 => old.wrapping_mul(2 + rng.below(0x100) as u32),
                    6 => old ^ (1 << rng.below(32)),
                    _ => rng.next() as u32,
                };
                bytes[at..at + w].copy_from_slice(&v.to_le_bytes()[..w]);
                did.push(format!("field {at:#x}/{w}: {old:#x} -> {v:#x}"));
            }
            5..=6 => {
                // Damage a table: imports, exports, relocations, TLS, resources.
                if lay.tables.is_empty() {
                    continue;
                }
                let (off, tlen) = lay.tables[rng.below(lay.tables.len())];
                let at = off + rng.below(tlen);
                let n = 1 + rng.below(4);
                let big = rng.chance(30);
                for k in at..(at + n).min(len) {
                    bytes[k] = if big { 0xff } else { rng.next() as u8 };
                }
                did.push(format!(
                    "table {n} at {at:#x}{}",
                    if big { " 0xff" } else { "" }
                ));
            }
            7 => {
                let cut = if rng.chance(50) {
                    rng.below(lay.headers_end.min(len) + 1)
                } else {
                    rng.below(len + 1)
                };
                bytes.truncate(cut);
                did.push(format!("truncate {cut:#x}"));
            }
            8 => {
                let at = rng.below(len);
                let n = 1 + rng.below(16);
                if rng.chance(50) {
                    let ins: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                    bytes.splice(at..at, ins);
                    did.push(format!("insert {n} at {at:#x}"));
                } else {
                    let end = (at + n).min(len);
                    bytes.drain(at..end);
                    did.push(format!("delete {} at {at:#x}", end - at));
                }
            }
            _ => {
                let from = rng.below(len);
                let to = rng.below(len);
                let n = (1 + rng.below(64)).min(len - from).min(len - to);
                let chunk = bytes[from..from + n].to_vec();
                bytes[to..to + n].copy_from_slice(&chunk);
                did.push(format!("copy {n} {from:#x}->{to:#x}"));
            }
        }
    }
    did
}

fn read(name: &str) -> Vec<u8> {
    let p = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn peak_rss_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Uses what a loaded process offers, as the Win32 layer will: export lookups and
/// a walk over every module's resources.
fn exercise(proc: &Arc<Process>) {
    let modules: Vec<u32> = proc
        .modules
        .read()
        .unwrap()
        .iter()
        .map(|m| m.base)
        .collect();
    for base in modules {
        for n in [
            "add",
            "prog_export",
            "fwd",
            "fwd_ord",
            "ktick",
            "real",
            "main",
        ] {
            let _ = resolve_export(proc, base, &ExportName::Name(n.into()));
        }
        for o in [0, 1, 5, 7, 8, 0xffff] {
            let _ = resolve_export(proc, base, &ExportName::Ordinal(o));
        }
        for ty in resource_children(proc, base, &[]).into_iter().take(16) {
            for name in resource_children(proc, base, std::slice::from_ref(&ty))
                .into_iter()
                .take(16)
            {
                let _ = resource_children(proc, base, &[ty.clone(), name.clone()]);
                let _ = find_resource(proc, base, &ty, &name, None);
            }
        }
        let _ = find_resource(proc, base, &ResId::Id(6), &ResId::Id(1), Some(0x409));
    }
}

fn variant(e: &LoadError) -> String {
    let d = format!("{e:?}");
    d.split([' ', '{', '(']).next().unwrap_or("?").to_string()
}

#[test]
fn pe_fuzz() {
    let inputs: usize = std::env::var("WINTERP_PE_FUZZ_INPUTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let seed: u64 = std::env::var("WINTERP_PE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_0003);
    let tprog = read("tprog.exe");
    let tcrt = read("tcrt.exe");
    let tlib = read("tlib.dll");
    let tlib2 = read("tlib2.dll");
    // (name, bytes, is the program) — DLL samples are loaded as tprog's imports.
    let samples: [(&str, &Vec<u8>, bool, usize); 4] = [
        ("tprog.exe", &tprog, true, 35),
        ("tcrt.exe", &tcrt, true, 25),
        ("tlib.dll", &tlib, false, 25),
        ("tlib2.dll", &tlib2, false, 15),
    ];
    let layouts: Vec<Layout> = samples.iter().map(|s| layout(s.1)).collect();

    // Watchdog: aborts the whole test binary if one input hangs.
    let started = Arc::new(AtomicU64::new(u64::MAX));
    let current = Arc::new(AtomicU64::new(0));
    let t0 = Instant::now();
    {
        let (started, current) = (started.clone(), current.clone());
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_secs(1));
                let s = started.load(Ordering::Relaxed);
                if s != u64::MAX && t0.elapsed().as_millis() as u64 > s + HANG.as_millis() as u64 {
                    eprintln!(
                        "pe_fuzz: input {} has run for over {HANG:?}: the loader hangs",
                        current.load(Ordering::Relaxed)
                    );
                    std::process::abort();
                }
            }
        });
    }

    let mut rng = Rng(seed);
    let (mut loaded, mut rejected) = (0usize, 0usize);
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    let mut slowest = (Duration::ZERO, 0usize);
    for i in 0..inputs {
        let mut pick = rng.below(100);
        let mut k = 0;
        while pick >= samples[k].3 {
            pick -= samples[k].3;
            k += 1;
        }
        let (name, orig, is_program, _) = samples[k];
        let mut bytes = orig.clone();
        let did = mutate(&mut rng, &mut bytes, &layouts[k]);
        let (program, dlls) = if is_program {
            (
                bytes,
                vec![("tlib.dll", tlib.clone()), ("tlib2.dll", tlib2.clone())],
            )
        } else if name == "tlib.dll" {
            (
                tprog.clone(),
                vec![("tlib.dll", bytes), ("tlib2.dll", tlib2.clone())],
            )
        } else {
            (
                tprog.clone(),
                vec![("tlib.dll", tlib.clone()), ("tlib2.dll", bytes)],
            )
        };
        let dlls = Arc::new(MemoryDlls {
            files: dlls.into_iter().map(|(n, b)| (n.to_string(), b)).collect(),
        });
        let prog_name = if is_program { name } else { "tprog.exe" };
        let cfg = ProcessConfig::new(prog_name.into(), format!("C:\\FUZZ\\{prog_name}"));
        current.store(i as u64, Ordering::Relaxed);
        started.store(t0.elapsed().as_millis() as u64, Ordering::Relaxed);
        let t = Instant::now();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let proc =
                Process::new(cfg, Arc::new(CaptureHost::default()), &hle_dlls()).expect("process");
            let r = startup::load_program(&proc, &program, dlls).map(|_| ());
            if r.is_ok() {
                exercise(&proc);
                let _ = loader::state(&proc).images.len();
            }
            r
        }));
        let took = t.elapsed();
        started.store(u64::MAX, Ordering::Relaxed);
        if took > slowest.0 {
            slowest = (took, i);
        }
        if took > PER_INPUT {
            failures.push(format!("input {i} ({name}: {did:?}) took {took:?}"));
        }
        match outcome {
            Ok(Ok(())) => loaded += 1,
            Ok(Err(e)) => {
                rejected += 1;
                *kinds.entry(variant(&e)).or_default() += 1;
            }
            Err(_) => failures.push(format!("input {i} ({name}: {did:?}) panicked")),
        }
    }
    println!("pe_fuzz: {inputs} inputs, {loaded} loaded, {rejected} rejected");
    println!(
        "pe_fuzz: seed {seed:#x}, {:?} in all, slowest input {} took {:?}",
        t0.elapsed(),
        slowest.1,
        slowest.0
    );
    println!("pe_fuzz: rejections by kind: {kinds:?}");
    if let Some(kb) = peak_rss_kb() {
        println!("pe_fuzz: peak RSS {} MiB", kb / 1024);
        assert!(kb < MAX_RSS_KB, "peak RSS {kb} KiB");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(loaded + rejected, inputs);
    // Mutations must leave many inputs loadable, or the fuzz only tests the header
    // checks.
    assert!(loaded > inputs / 10, "only {loaded} of {inputs} loaded");
}
