use std::sync::Arc;
use winterp_hostwin32::host::CaptureHost;
use winterp_hostwin32::loader::{self, FolderDlls, ResId};
use winterp_hostwin32::process::{Process, ProcessConfig};
use winterp_hostwin32::{hle_dlls, startup};

#[test]
fn real_pe() {
    for p in std::env::var("PES").unwrap().split(':') {
        let bytes = std::fs::read(p).unwrap();
        let cfg = ProcessConfig::new(p.into(), "C:\\X\\prog.exe".into());
        let proc = Process::new(cfg, Arc::new(CaptureHost::default()), &hle_dlls()).unwrap();
        let dir = std::path::Path::new(p).parent().unwrap();
        match startup::load_program(&proc, &bytes, Arc::new(FolderDlls::new(dir))) {
            Ok(_) => {
                let st = loader::state(&proc);
                let prog = st.program().unwrap();
                let types = loader::resource_children(&proc, prog.base, &[]);
                println!(
                    "{p}: OK base {:#x} size {:#x} entry {:#x} tls {:?} exports {} res types {:?}",
                    prog.base,
                    prog.size,
                    prog.entry,
                    prog.tls,
                    prog.exports.names.len(),
                    types
                );
                let mods: Vec<String> = proc
                    .modules
                    .read()
                    .unwrap()
                    .iter()
                    .map(|m| format!("{}@{:#x}", m.name, m.base))
                    .collect();
                println!("   modules {mods:?}");
                if let Some(ResId::Id(t)) = types.first().cloned() {
                    let _ = t;
                }
            }
            Err(e) => println!("{p}: ERR {e}"),
        }
    }
}
