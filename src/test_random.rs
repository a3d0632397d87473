//! A small seeded generator for the unit tests that draw their cases (xorshift64, the top 53
//! bits), so that every run draws the same ones.

pub(crate) struct Xorshift(pub u64);

impl Xorshift {
    /// Uniform in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}
