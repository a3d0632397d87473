//! The passivity controller: energy the port returned beyond what the contact dissipated is
//! damped out of the bodies in the following steps.

/// The share of the last contact's dissipation by which `E_loss` may exceed what the port
/// received before the excess counts as energy the contact gave back (beyond the model's own
/// error: the contact integrated with the external acceleration taken as constant).
pub const PASSIVITY_TOLERANCE: f64 = 0.01;

/// The passivity controller's force (at flange_b, N) over a step that starts at relative velocity
/// `v`, where the port has returned `deficit` (J) more than the contact dissipated: a damper that
/// takes the deficit back over the step, `F*v*h = deficit`, at most so strong that it halves the
/// relative velocity (it never reverses the motion, whatever the mass's error). 0 without a
/// deficit or without motion to damp.
pub fn passivity_force(deficit: f64, v: f64, mass: f64, h: f64) -> f64 {
    if deficit.is_nan() || deficit <= 0.0 || v == 0.0 {
        return 0.0;
    }
    let wanted = deficit / (v * h);
    let bound = 0.5 * mass * v.abs() / h;
    let force = wanted.clamp(-bound, bound);
    if force.is_finite() {
        force
    } else {
        0.0
    }
}
