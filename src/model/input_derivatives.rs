//! The master's input derivatives, as far as the step uses them: the flanges' accelerations.

use super::SuppliedAccelerations;
use crate::variables::Var;

impl SuppliedAccelerations {
    /// Takes the derivative of `order` of the input `var` the master supplied for the next step;
    /// `false` for an order the step cannot use. Acceleration is what the extrapolation uses:
    /// order 1 of a velocity or order 2 of a position. Order 1 of a position repeats the
    /// velocity input and is accepted; the friction holds v_t over the step, so its derivatives
    /// are accepted and not used (a master that interpolates every input sends them).
    pub fn supply(&mut self, var: Var, order: i32, value: f64) -> bool {
        match (var, order) {
            (Var::FlangeAV, 1) | (Var::FlangeAS, 2) => self.a = Some(value),
            (Var::FlangeBV, 1) | (Var::FlangeBS, 2) => self.b = Some(value),
            (Var::FlangeAS | Var::FlangeBS, 1) | (Var::VTx | Var::VTy, 1 | 2) => {}
            _ => return false,
        }
        true
    }
}
