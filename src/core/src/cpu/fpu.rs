//! x87 and MMX state. (Placeholder until the x87 module lands.)

#[derive(Clone, Debug)]
pub struct Fpu {
    pub st: [f64; 8],
    pub top: u8,
    pub cw: u16,
    pub sw: u16,
    pub tags: u16,
}

impl Default for Fpu {
    fn default() -> Self {
        Fpu {
            st: [0.0; 8],
            top: 0,
            cw: 0x27f,
            sw: 0,
            tags: 0xffff,
        }
    }
}
