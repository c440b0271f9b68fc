//! x87 unit tests: expectations from the Intel SDM and known hardware results.

#[test]
fn probe_opcodes() {
    use iced_x86::{Decoder, DecoderOptions};
    for bytes in [
        &[0xd8u8, 0xc1][..],
        &[0xdc, 0x0d, 0, 0, 0x60, 0],
        &[0xd9, 0xe8],
        &[0x9b, 0xdb, 0xe3],
        &[0x9b, 0xdd, 0x30],
        &[0xdf, 0xe0],
        &[0x0f, 0x0e],
    ] {
        let mut d = Decoder::with_ip(32, bytes, 0, DecoderOptions::NONE);
        let ins = d.decode();
        let oc = ins.op_code();
        eprintln!(
            "{:?} len {} opc {:x} l{} grp {} ops {}",
            ins.code(),
            ins.len(),
            oc.op_code(),
            oc.op_code_len(),
            oc.group_index(),
            ins.op_count()
        );
    }
}
