//! The ElastoGap law of the Modelica Standard Library 4.1: a spring and a damper in contact while
//! `s_rel < s_rel0`, the damper force bounded by the spring force so that the contact never pulls.

use super::{AffineRegion, ContactLaw, Forces, Partials};

/// The parameters of the force law. `f_ref == 0` selects the Modelica default `c * s_ref`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GapLaw {
    pub c: f64,
    pub d: f64,
    pub s_rel0: f64,
    pub n: f64,
    pub s_ref: f64,
    pub f_ref: f64,
}

impl Default for GapLaw {
    fn default() -> Self {
        GapLaw {
            c: 1.0,
            d: 1.0,
            s_rel0: 0.0,
            n: 1.0,
            s_ref: 1.0,
            f_ref: 0.0,
        }
    }
}

/// Which branch of `min(max(d*v_rel, f_c), -f_c)` is active.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DamperBranch {
    Linear,
    BoundedAbove,
    BoundedBelow,
}

/// `compression^n` and its slope for any other exponent. Out of line: inlined, LLVM may fold the
/// `n == 1` fast path into this branch (`powf(x, 0.0) * x` is exactly `x`) and call `pow` for the
/// most common law.
#[cold]
#[inline(never)]
fn general_power(compression: f64, n: f64) -> (f64, f64) {
    let lower = compression.powf(n - 1.0);
    (lower * compression, n * lower)
}

impl GapLaw {
    /// The spring force at `|s_rel - s_rel0| = s_ref`.
    pub fn reference_force(&self) -> f64 {
        if self.f_ref == 0.0 {
            self.c * self.s_ref
        } else {
            self.f_ref
        }
    }

    /// `|ratio|^n` and its derivative with respect to `|ratio|`; the common exponents avoid `powf`.
    fn compression_power(&self, compression: f64) -> (f64, f64) {
        if self.n == 1.0 {
            (compression, 1.0)
        } else if self.n == 2.0 {
            (compression * compression, 2.0 * compression)
        } else {
            general_power(compression, self.n)
        }
    }

    fn damper(&self, f_c: f64, v_rel: f64) -> (f64, DamperBranch) {
        let linear = self.d * v_rel;
        if linear > -f_c {
            (-f_c, DamperBranch::BoundedAbove)
        } else if linear < f_c {
            (f_c, DamperBranch::BoundedBelow)
        } else {
            (linear, DamperBranch::Linear)
        }
    }

    /// False for a NaN `s_rel`, as every comparison with NaN is.
    pub(crate) fn in_contact(&self, s_rel: f64) -> bool {
        s_rel < self.s_rel0
    }

    /// `|s_rel - s_rel0| / s_ref` in contact, as a product with the reciprocal: a step waits on
    /// every force it evaluates, and a division takes three times a multiplication's latency.
    /// The reciprocal depends on the parameter alone, so it is computed alongside (the product
    /// may differ from the quotient in the last bit where `s_ref` is not a power of two).
    #[inline(always)]
    fn compression(&self, s_rel: f64) -> f64 {
        (self.s_rel0 - s_rel) * (1.0 / self.s_ref)
    }

    /// The spring part `f_c` and its slope `df_c/ds_rel` (>= 0), 0 out of contact: what every
    /// law of [`super`] builds on.
    pub(crate) fn spring_force_and_slope(&self, s_rel: f64) -> (f64, f64) {
        if !self.in_contact(s_rel) {
            return (0.0, 0.0);
        }
        let (power, power_slope) = self.compression_power(self.compression(s_rel));
        let reference = self.reference_force();
        // d(compression)/d(s_rel) = -1/s_ref: the spring force rises towards 0 as s_rel grows.
        (-reference * power, reference * power_slope / self.s_ref)
    }

    /// With n = 1, the spring's stiffness: `f_c = k*(s_rel - s_rel0)` in contact.
    pub(crate) fn linear_stiffness(&self) -> f64 {
        self.reference_force() / self.s_ref
    }

    /// With n = 1, the branch `f = stiffness*x + damping*v_rel` (`x = s_rel - s_rel0`) of a law
    /// built on this spring.
    pub(crate) fn affine_branch(&self, stiffness: f64, damping: f64) -> AffineRegion {
        AffineRegion {
            stiffness,
            damping,
            offset: 0.0,
            spring_stiffness: self.linear_stiffness(),
            spring_offset: 0.0,
        }
    }

    /// The spring part `f_c` in contact.
    fn spring_force(&self, s_rel: f64) -> f64 {
        let compression = self.compression(s_rel);
        -self.reference_force() * self.compression_power(compression).0
    }

    pub fn evaluate(&self, s_rel: f64, v_rel: f64) -> Forces {
        if !self.in_contact(s_rel) {
            return Forces::default();
        }
        let f_c = self.spring_force(s_rel);
        let (f_d, _) = self.damper(f_c, v_rel);
        Forces::in_contact(f_c, f_d, v_rel)
    }

    pub fn partials(&self, s_rel: f64, v_rel: f64) -> Partials {
        if !self.in_contact(s_rel) {
            return Partials::default();
        }
        let (f_c, f_c_ds) = self.spring_force_and_slope(s_rel);
        let (f_d, branch) = self.damper(f_c, v_rel);
        let (f_d_ds, f_d_dv) = match branch {
            DamperBranch::Linear => (0.0, self.d),
            DamperBranch::BoundedAbove => (-f_c_ds, 0.0),
            DamperBranch::BoundedBelow => (f_c_ds, 0.0),
        };
        Partials::of_parts(f_c_ds, f_d, f_d_ds, f_d_dv, v_rel)
    }

    /// Positive where the damper bound acts (`|d*v_rel| > |f_c|`), negative where the damper is
    /// linear; its roots are where the law switches branch.
    pub fn bound_indicator(&self, s_rel: f64, v_rel: f64) -> f64 {
        // Only the spring part is needed: no damper, no loss power.
        let f_c = if self.in_contact(s_rel) {
            self.spring_force(s_rel)
        } else {
            0.0
        };
        self.bound_indicator_with(f_c, v_rel)
    }

    /// The bound indicator from a spring force already evaluated at the same point.
    pub(crate) fn bound_indicator_with(&self, f_c: f64, v_rel: f64) -> f64 {
        (self.d * v_rel).abs() + f_c
    }
}

impl ContactLaw for GapLaw {
    fn s_rel0(&self) -> f64 {
        self.s_rel0
    }

    fn evaluate(&self, s_rel: f64, v_rel: f64) -> Forces {
        GapLaw::evaluate(self, s_rel, v_rel)
    }

    fn partials(&self, s_rel: f64, v_rel: f64) -> Partials {
        GapLaw::partials(self, s_rel, v_rel)
    }

    fn kink_indicator(&self, s_rel: f64, v_rel: f64) -> f64 {
        self.bound_indicator(s_rel, v_rel)
    }

    fn kink_indicator_with(&self, forces: &Forces, _s_rel: f64, v_rel: f64) -> f64 {
        self.bound_indicator_with(forces.f_c, v_rel)
    }

    fn kink_indicator_rate(&self, s_rel: f64, v_rel: f64, a_rel: f64) -> f64 {
        // d/dt (d*|v_rel| + f_c): the spring part moves with s_rel only in contact.
        let (_, f_c_ds) = self.spring_force_and_slope(s_rel);
        self.d * v_rel.signum() * a_rel + f_c_ds * v_rel
    }

    fn affine_region(&self, s_rel: f64, v_rel: f64) -> Option<AffineRegion> {
        if self.n != 1.0 {
            return None;
        }
        if !self.in_contact(s_rel) {
            return Some(AffineRegion::default());
        }
        // With n = 1, f_c = k*x (x = s_rel - s_rel0 < 0); the damper branch picks f_d.
        let k = self.linear_stiffness();
        let f_c = self.spring_force(s_rel);
        Some(match self.damper(f_c, v_rel).1 {
            DamperBranch::Linear => self.affine_branch(k, self.d),
            // f_d = -f_c: the forces cancel, the flanges move freely until the bound releases.
            DamperBranch::BoundedAbove => self.affine_branch(0.0, 0.0),
            // f_d = f_c: twice the spring, no damping.
            DamperBranch::BoundedBelow => self.affine_branch(2.0 * k, 0.0),
        })
    }

    fn is_piecewise_affine(&self) -> bool {
        self.n == 1.0
    }

    fn length_scale(&self) -> f64 {
        self.s_ref
    }
}
