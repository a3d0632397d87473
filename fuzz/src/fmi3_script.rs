//! The byte format of `fmi3_calls`'s scripts: one opcode byte per call, then its arguments, read
//! by [`Reader`] (which yields zeros once the bytes run out, so every input decodes) and written by
//! [`Writer`] (`examples/write_seeds.rs` writes the committed seeds with it). A hand-made format
//! instead of a derived `Arbitrary` one, so that the seeds are written as scripts, not bytes.

/// The opcodes; the target takes each opcode byte modulo [`OP_COUNT`].
pub mod op {
    pub const INSTANTIATE_CO_SIMULATION: u8 = 0;
    pub const INSTANTIATE_MODEL_EXCHANGE: u8 = 1;
    pub const INSTANTIATE_SCHEDULED_EXECUTION: u8 = 2;
    pub const FREE_INSTANCE: u8 = 3;
    pub const USE_INSTANCE: u8 = 4;
    pub const SET_DEBUG_LOGGING: u8 = 5;
    pub const ENTER_INITIALIZATION_MODE: u8 = 6;
    pub const EXIT_INITIALIZATION_MODE: u8 = 7;
    pub const ENTER_EVENT_MODE: u8 = 8;
    pub const TERMINATE: u8 = 9;
    pub const RESET: u8 = 10;
    pub const GET_FLOAT64: u8 = 11;
    pub const SET_FLOAT64: u8 = 12;
    pub const GET_INT: u8 = 13;
    pub const SET_INT: u8 = 14;
    pub const GET_BOOLEAN: u8 = 15;
    pub const SET_BOOLEAN: u8 = 16;
    pub const GET_STRING: u8 = 17;
    pub const SET_STRING: u8 = 18;
    pub const ABSENT_TYPE: u8 = 19;
    pub const SET_KEY: u8 = 20;
    pub const CHOOSE_LAW: u8 = 21;
    pub const GET_FMU_STATE: u8 = 22;
    pub const SET_FMU_STATE: u8 = 23;
    pub const FREE_FMU_STATE: u8 = 24;
    pub const SERIALIZE: u8 = 25;
    pub const DESERIALIZE: u8 = 26;
    pub const DIRECTIONAL_DERIVATIVE: u8 = 27;
    pub const OUTPUT_DERIVATIVES: u8 = 28;
    pub const DO_STEP: u8 = 29;
    pub const UPDATE_DISCRETE_STATES: u8 = 30;
    pub const ENTER_STEP_MODE: u8 = 31;
    pub const ENTER_CONTINUOUS_TIME_MODE: u8 = 32;
    pub const COMPLETED_INTEGRATOR_STEP: u8 = 33;
    pub const SET_TIME: u8 = 34;
    pub const SET_CONTINUOUS_STATES: u8 = 35;
    pub const GET_MODEL_ARRAY: u8 = 36;
    pub const UNSUPPORTED: u8 = 37;
    pub const NULL_INSTANCE: u8 = 38;
    pub const CALLBACK: u8 = 39;
    pub const OP_COUNT: u8 = 40;
}

/// Special reals, by their selector byte; selector [`REAL_DECIMAL`] reads an i16 mantissa and an
/// i8 exponent, any larger selector eight bytes of bits.
pub const SPECIAL_REALS: [f64; 13] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MAX,
    f64::MIN,
    f64::MIN_POSITIVE,
    5e-324,
    f64::EPSILON,
];
pub const REAL_DECIMAL: u8 = SPECIAL_REALS.len() as u8;

pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.at >= self.bytes.len()
    }

    pub fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    pub fn flag(&mut self) -> bool {
        self.byte() & 1 != 0
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    pub fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }

    pub fn real(&mut self) -> f64 {
        let selector = self.byte();
        match selector {
            s if usize::from(s) < SPECIAL_REALS.len() => SPECIAL_REALS[usize::from(s)],
            REAL_DECIMAL => {
                let mantissa = self.u16() as i16;
                let exponent = self.byte() as i8;
                f64::from(mantissa) * 10f64.powi(i32::from(exponent) / 4)
            }
            _ => f64::from_bits(self.u64()),
        }
    }

    /// Up to `most` items, the count first.
    pub fn count(&mut self, most: u8) -> usize {
        usize::from(self.byte() % (most + 1))
    }
}

#[derive(Default)]
pub struct Writer {
    pub bytes: Vec<u8>,
}

impl Writer {
    pub fn op(&mut self, op: u8) -> &mut Self {
        self.bytes.push(op);
        self
    }

    pub fn byte(&mut self, b: u8) -> &mut Self {
        self.bytes.push(b);
        self
    }

    pub fn flag(&mut self, f: bool) -> &mut Self {
        self.byte(u8::from(f))
    }

    pub fn u32(&mut self, x: u32) -> &mut Self {
        self.bytes.extend_from_slice(&x.to_le_bytes());
        self
    }

    /// A real as its bits (the selector 255).
    pub fn real(&mut self, x: f64) -> &mut Self {
        self.byte(255);
        let bits = x.to_bits();
        self.u32(bits as u32).u32((bits >> 32) as u32)
    }
}
