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

/// How many times the fastest relative speed seen while the port was passive a held force may
/// take the master's bodies to. The bound for a mass off by up to 2 is 3 times the impact speed;
/// a correction that takes a body a first step let through the stop back to where the contact
/// would have thrown it needs more than that, and the more the livelier the rebound (at 4 times,
/// such corrections of a rebound near 1 would be cut short).
pub const SPEED_FUSE_FACTOR: f64 = 5.0;

/// The last guard of passivity: no held force may take the master's bodies faster than
/// [`SPEED_FUSE_FACTOR`] times the fastest relative speed they had while the port had returned
/// nothing beyond what it received (a run gaining energy from the contact cannot raise it). The
/// bodies' speed at the step's end is predicted with the external acceleration of the last step
/// the master held no force over: one measured through a wrong mass carries that mass's error
/// (through a mass lighter than the body's, gravity can read many times larger and upward), and
/// through it a bound on the end speed lets any force pass. Whatever the mass's error, the speed
/// then stays within a few times the bound, step after step: bounded, never a blow-up.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpeedFuse {
    /// The speed limit (m/s); 0: none yet.
    pub limit: f64,
    /// The external acceleration of the last step without a held force (m/s^2).
    pub a_free: f64,
}

impl SpeedFuse {
    /// The held force nearest to `force` that leaves the relative velocity at the end of a step
    /// of `h` from `v`, through `mass`, within the limit (or no faster than no force would).
    pub fn apply(self, force: f64, v: f64, mass: f64, h: f64) -> f64 {
        if self.limit.is_nan() || self.limit <= 0.0 || mass.is_nan() || mass <= 0.0 || h <= 0.0 {
            return force;
        }
        let unforced = v + self.a_free * h;
        let bound = self.limit.max(unforced.abs());
        let end = unforced - force * h / mass;
        // A NaN end speed is left to the step's own check of finite values.
        if end.is_nan() || end.abs() <= bound {
            return force;
        }
        let fused = (unforced - bound.copysign(end)) * mass / h;
        if fused.is_finite() {
            fused
        } else {
            force
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_force_that_would_throw_the_bodies_past_the_limit_is_cut_to_reach_it() {
        let fuse = SpeedFuse {
            limit: 5.0,
            a_free: -10.0,
        };
        let (v, mass, h) = (-2.0, 3.0, 0.1);
        // Without a force the bodies end at -3 m/s; -300 N through 3 kg over 0.1 s adds +10.
        let cut = fuse.apply(-300.0, v, mass, h);
        let end = v + fuse.a_free * h - cut * h / mass;
        assert!((end - 5.0).abs() < 1e-12, "{cut} N leaves {end} m/s");
        // Within the limit, and slowing a free motion faster than it, forces pass untouched; one
        // that would speed that motion up is cut to leave it as fast as it was.
        assert_eq!(fuse.apply(-150.0, v, mass, h), -150.0);
        let fast = SpeedFuse {
            limit: 1.0,
            a_free: 0.0,
        };
        assert_eq!(fast.apply(-30.0, -4.0, mass, h), -30.0);
        assert_eq!(fast.apply(30.0, -4.0, mass, h), 0.0);
        // No limit before any passive speed was seen.
        assert_eq!(SpeedFuse::default().apply(-1e9, v, mass, h), -1e9);
    }
}
