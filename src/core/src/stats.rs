//! Deterministic execution counters, declared once: the list below generates the
//! struct, its reset, its JSON/overlay labels and its name/value iteration.

macro_rules! counters {
    ($(#[$m:meta])* $name:ident { $($(#[doc = $doc:literal])* $field:ident),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name { $($(#[doc = $doc])* pub $field: u64,)* }

        impl $name {
            pub const NAMES: &'static [&'static str] = &[$(stringify!($field)),*];

            pub fn reset(&mut self) { *self = Self::default(); }

            /// (name, value) pairs in declaration order.
            pub fn fields(&self) -> Vec<(&'static str, u64)> {
                vec![$((stringify!($field), self.$field)),*]
            }

            /// Field-wise difference (for per-interval rates).
            pub fn since(&self, earlier: &Self) -> Self {
                Self { $($field: self.$field.wrapping_sub(earlier.$field)),* }
            }

            pub fn to_json(&self) -> String {
                let parts: Vec<String> =
                    self.fields().iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                format!("{{{}}}", parts.join(","))
            }
        }
    };
}

counters! {
    /// What one guest thread's executor did. Equal counts prove equal work.
    ExecCounters {
        /// Guest instructions retired.
        insns,
        /// Blocks entered from the run loop (block transfers).
        blocks,
        /// Ops executed through handlers (one per instruction in the plain interpreter).
        dispatches,
        /// Blocks decoded.
        decodes,
        /// Blocks retired because their bytes changed.
        invalidations,
        /// Whole-cache flushes (code log overrun, explicit flush).
        flushes,
    }
}
