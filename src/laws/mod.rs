//! The contact force laws, one module per family behind one interface, [`ContactLaw`]. The
//! integrators in [`crate::step`] know a law only through this trait, so a new law is a new file
//! here. Pure Rust: no FFI, no allocation, nothing about FMI.

/// An Integer parameter that chooses among items valued 1, 2, ... (an FMI Enumeration of the
/// interface, whose items must be these in this order): the enum, `ALL` and `from_index`.
macro_rules! indexed_choice {
    ($(#[$meta:meta])* $name:ident { $($item:ident = $value:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name {
            $($item = $value),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$item),+];

            /// The item with this value, if there is one.
            pub fn from_index(index: i32) -> Option<Self> {
                Self::ALL.iter().copied().find(|item| *item as i32 == index)
            }
        }
    };
}

mod adams;
#[cfg(test)]
pub(crate) mod checks;
mod choice;
mod elasto_gap;
mod friction;
mod gap_force;
mod hunt_crossley;
mod recurdyn;
mod spring_damper;
mod stiction;
mod table;
mod tangential;

pub use adams::{step, step_slope, AdamsImpact};
pub use choice::{ForceLaw, Law, LawOptions};
pub use elasto_gap::GapLaw;
pub use friction::{Friction, FrictionInterpolation, FrictionLaw, PassRate, TangentialPass};
pub use gap_force::GapForce;
pub use hunt_crossley::{hysteresis_factor, HuntCrossley, Hysteresis};
pub use recurdyn::{RecurDynContact, RecurDynDamping};
pub use spring_damper::SpringDamper;
pub use stiction::{
    advance as advance_deformation, deformation_rate, on_circle as on_stiction_circle,
    pushed_out as pushed_out_of_stiction_circle, within_circle as within_stiction_circle,
};
pub use table::{gap_force_tables, GapTables, Table, TableError};
pub use tangential::{dot, slip_speed, GapDampers, PlaneForce, Tangential, TangentialStep};

/// How far `s_rel` is outside the contact range `(lower, upper)` of
/// [`ContactLaw::contact_ends`]: negative inside, 0 on an end, NaN for a NaN `s_rel` (so that
/// neither `< 0` nor `>= 0` holds for it). Continuous in `s_rel`, so that roots can be sought on it.
#[inline(always)]
pub fn distance_outside((lower, upper): (Option<f64>, f64), s_rel: f64) -> f64 {
    let above = s_rel - upper;
    match lower {
        Some(lower) if lower - s_rel > above => lower - s_rel,
        _ => above,
    }
}

/// [`distance_outside`] and its rate of change at relative velocity `v_rel`.
pub fn distance_outside_and_rate(
    (lower, upper): (Option<f64>, f64),
    s_rel: f64,
    v_rel: f64,
) -> (f64, f64) {
    let above = s_rel - upper;
    match lower {
        Some(lower) if lower - s_rel > above => (lower - s_rel, -v_rel),
        _ => (above, v_rel),
    }
}

/// The work of the spring part along the relative position from `from` to `to`, `∫ f_c ds_rel`
/// (J): the spring energy stored at `to` less that at `from`, since the body at flange_b feels
/// `-f_c`. Gauss–Legendre quadrature on panels that end at the contact's ends and at `s_rel0`,
/// where the law has a kink, and that shrink geometrically towards them, where a power law's
/// higher derivatives are unbounded: 1e-10 relative for `n` = 1.5.
pub fn spring_work<L: ContactLaw>(law: &L, from: f64, to: f64) -> f64 {
    if from == to {
        return 0.0;
    }
    let (lo, hi) = if from < to { (from, to) } else { (to, from) };
    let (lower, upper) = law.contact_ends();
    let mut cuts = [lo, hi, law.s_rel0(), upper, lower.unwrap_or(lo)];
    cuts.sort_by(f64::total_cmp);
    let spring = |s: f64| law.evaluate(s, 0.0).f_c;
    let mut work = 0.0;
    for pair in cuts.windows(2) {
        let (a, b) = (pair[0].max(lo), pair[1].min(hi));
        if b > a {
            work += graded_quadrature(&spring, a, b);
        }
    }
    if from < to {
        work
    } else {
        -work
    }
}

/// About how long a contact lasts (s) for a body of `mass` (kg) that meets it at `speed` (m/s):
/// pi times the deepest penetration its kinetic energy reaches against the spring, over the speed.
/// The spring is taken as the power law `k*delta^n` through its force at two depths, fitted again
/// where the first fit says the body stops: four evaluations, no search, so that the short-step
/// rules can ask at every step. Exact for a linear undamped spring (`pi*sqrt(m/c)`); a Hertz
/// contact (`n` = 1.5) lasts 6 % less, and damping changes it by its share. None where no power
/// law fits (no spring force) or an input is not a positive finite number.
pub fn contact_duration<L: ContactLaw>(law: &L, mass: f64, speed: f64) -> Option<f64> {
    let kinetic = 0.5 * mass * speed * speed;
    if !(kinetic.is_finite() && kinetic > 0.0) {
        return None;
    }
    let upper = law.contact_ends().1;
    let force = |depth: f64| law.evaluate(upper - depth, 0.0).f_c.abs();
    let scale = law.length_scale();
    let mut depth = if scale > 0.0 { scale } else { 1e-3 };
    for _ in 0..2 {
        let (near, far) = (force(depth), force(2.0 * depth));
        if far == 2.0 * near && near > 0.0 {
            // A linear spring: the fit is exact at once, and needs a square root, not powers.
            let stops = (2.0 * kinetic * depth / near).sqrt();
            return stops
                .is_finite()
                .then(|| std::f64::consts::PI * stops / speed);
        }
        let n = (far / near).log2();
        let k = near / depth.powf(n);
        let stops = ((n + 1.0) * kinetic / k).powf(1.0 / (n + 1.0));
        if !(stops.is_finite() && stops > 0.0 && n > 0.0) {
            return None;
        }
        depth = stops;
    }
    Some(std::f64::consts::PI * depth / speed)
}

/// `∫ g` over `[a, b]` where `g` is smooth inside and may have unbounded higher derivatives at
/// either end: panels halving towards both ends, 8 Gauss–Legendre points each.
fn graded_quadrature(g: &impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    const NODES: [(f64, f64); 4] = [
        (0.183_434_642_495_649_8, 0.362_683_783_378_362),
        (0.525_532_409_916_329, 0.313_706_645_877_887_3),
        (0.796_666_477_413_626_7, 0.222_381_034_453_374_5),
        (0.960_289_856_497_536_3, 0.101_228_536_290_376_3),
    ];
    let panel = |p: f64, q: f64| {
        let (mid, half) = (0.5 * (p + q), 0.5 * (q - p));
        NODES.iter().fold(0.0, |sum, &(x, w)| {
            sum + w * (g(mid - half * x) + g(mid + half * x))
        }) * half
    };
    // Halves of halves towards each end: 2^-20 of the half-width is below what the spring's
    // singular derivatives can spoil at 1e-10.
    const LEVELS: i32 = 20;
    let mid = 0.5 * (a + b);
    let mut total = 0.0;
    for (end, sign) in [(a, 1.0), (b, -1.0)] {
        let half = (mid - end) * sign;
        let mut outer = half;
        for _ in 0..LEVELS {
            let inner = 0.5 * outer;
            let (p, q) = (end + sign * inner, end + sign * outer);
            total += panel(p.min(q), p.max(q));
            outer = inner;
        }
        let (p, q) = (end, end + sign * outer);
        total += panel(p.min(q), p.max(q));
    }
    total
}

/// A law's values at one relative position and velocity.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Forces {
    pub contact: bool,
    /// Spring part.
    pub f_c: f64,
    /// Damper part.
    pub f_d: f64,
    /// Force at flange_b, `f_c + f_d` (the body at flange_b feels `-f`).
    pub f: f64,
    /// `f_d * v_rel`.
    pub loss_power: f64,
}

/// A law that adds a damper part to the spring force every law shares (`f = f_c + f_d`, the
/// spring part `f_c = -F_c` of [`GapLaw`]): it gives the damper part and its slopes, and
/// [`damped_forces`] and [`damped_partials`] make the law's values from them.
pub(crate) trait DamperPart {
    fn spring(&self) -> &GapLaw;

    /// The damper part `f_d` in contact, where the spring part is `f_c`.
    fn damper(&self, f_c: f64, s_rel: f64, v_rel: f64) -> f64;

    /// `(f_d, df_d/ds_rel, df_d/dv_rel)` in contact, where the spring part is `f_c` with the slope
    /// `f_c_ds`.
    fn damper_slopes(&self, f_c: f64, f_c_ds: f64, s_rel: f64, v_rel: f64) -> (f64, f64, f64);
}

/// The [`ContactLaw`] methods every [`DamperPart`] law shares, written inside its `impl
/// ContactLaw`: the spring's `s_rel0`, and the values and slopes made from the damper part.
macro_rules! damper_part_law {
    () => {
        fn s_rel0(&self) -> f64 {
            self.spring.s_rel0
        }

        fn evaluate(&self, s_rel: f64, v_rel: f64) -> $crate::laws::Forces {
            $crate::laws::damped_forces(self, s_rel, v_rel)
        }

        fn partials(&self, s_rel: f64, v_rel: f64) -> $crate::laws::Partials {
            $crate::laws::damped_partials(self, s_rel, v_rel)
        }
    };
}
pub(crate) use damper_part_law;

/// [`ContactLaw::evaluate`] of a [`DamperPart`] law.
pub(crate) fn damped_forces<L: DamperPart>(law: &L, s_rel: f64, v_rel: f64) -> Forces {
    let spring = law.spring();
    if !spring.in_contact(s_rel) {
        return Forces::default();
    }
    let (f_c, _) = spring.spring_force_and_slope(s_rel);
    Forces::in_contact(f_c, law.damper(f_c, s_rel, v_rel), v_rel)
}

/// [`ContactLaw::partials`] of a [`DamperPart`] law.
pub(crate) fn damped_partials<L: DamperPart>(law: &L, s_rel: f64, v_rel: f64) -> Partials {
    let spring = law.spring();
    if !spring.in_contact(s_rel) {
        return Partials::default();
    }
    let (f_c, f_c_ds) = spring.spring_force_and_slope(s_rel);
    let (f_d, f_d_ds, f_d_dv) = law.damper_slopes(f_c, f_c_ds, s_rel, v_rel);
    Partials::of_parts(f_c_ds, f_d, f_d_ds, f_d_dv, v_rel)
}

/// Partial derivatives of the law's outputs with respect to `s_rel` (`ds`) and `v_rel` (`dv`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Partials {
    pub f_c_ds: f64,
    pub f_d_ds: f64,
    pub f_d_dv: f64,
    pub loss_power_ds: f64,
    pub loss_power_dv: f64,
}

impl Forces {
    /// In contact, from the spring part and the rest: `f = f_c + f_d`, `lossPower = f_d*v_rel`.
    #[inline(always)]
    pub(crate) fn in_contact(f_c: f64, f_d: f64, v_rel: f64) -> Forces {
        Forces {
            contact: true,
            f_c,
            f_d,
            f: f_c + f_d,
            loss_power: f_d * v_rel,
        }
    }
}

impl Partials {
    /// From the slopes of the spring part and of the rest (`f_d`), with `lossPower = f_d*v_rel`.
    pub(crate) fn of_parts(f_c_ds: f64, f_d: f64, f_d_ds: f64, f_d_dv: f64, v_rel: f64) -> Self {
        Partials {
            f_c_ds,
            f_d_ds,
            f_d_dv,
            loss_power_ds: v_rel * f_d_ds,
            loss_power_dv: f_d + v_rel * f_d_dv,
        }
    }

    pub fn f_ds(&self) -> f64 {
        self.f_c_ds + self.f_d_ds
    }
    pub fn f_dv(&self) -> f64 {
        self.f_d_dv
    }
}

/// Where a law is affine in the relative motion: with `x = s_rel - s_rel0`,
/// `f = stiffness*x + damping*v_rel + offset` and its spring part `f_c = spring_stiffness*x +
/// spring_offset`. The motion under such a force has a closed form, which the dynamic step uses
/// instead of a numerical integrator.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AffineRegion {
    pub stiffness: f64,
    pub damping: f64,
    pub offset: f64,
    pub spring_stiffness: f64,
    pub spring_offset: f64,
}

/// What the step integrators need of a force law.
pub trait ContactLaw {
    /// The origin of the integrators' coordinate `x = s_rel - s_rel0`, where the spring part is 0.
    fn s_rel0(&self) -> f64;

    /// Contact while `lower < s_rel < upper` (no `lower`: no lower end); outside, the law gives no
    /// force. The one-sided laws are in contact while `s_rel < s_rel0`.
    fn contact_ends(&self) -> (Option<f64>, f64) {
        (None, self.s_rel0())
    }

    fn evaluate(&self, s_rel: f64, v_rel: f64) -> Forces;

    fn partials(&self, s_rel: f64, v_rel: f64) -> Partials;

    /// In contact, a function whose sign changes exactly where the law has a kink (a switch of
    /// branch); the integrators locate its roots and never integrate across one.
    fn kink_indicator(&self, s_rel: f64, v_rel: f64) -> f64;

    /// The kink indicator from the forces already evaluated at the same point; override it where
    /// that saves work.
    fn kink_indicator_with(&self, forces: &Forces, s_rel: f64, v_rel: f64) -> f64 {
        let _ = forces;
        self.kink_indicator(s_rel, v_rel)
    }

    /// The time derivative of the kink indicator along a motion with relative acceleration
    /// `a_rel`: root searches take Newton steps with it.
    fn kink_indicator_rate(&self, s_rel: f64, v_rel: f64, a_rel: f64) -> f64;

    /// The affine branch the law is on at this point in contact, if its force is piecewise affine
    /// there (`None` selects the adaptive integrator).
    fn affine_region(&self, s_rel: f64, v_rel: f64) -> Option<AffineRegion>;

    /// Whether the law is affine in `(s_rel, v_rel)` between kinks, with
    /// [`ContactLaw::affine_region`] giving each branch, and its kink indicator affine in `s_rel`
    /// and `|v_rel|`. Along a quadratic motion the indicator is then a quadratic on either side
    /// of `v_rel = 0`, and the kinematic step integrates each piece in closed form.
    fn is_piecewise_affine(&self) -> bool {
        false
    }

    /// A length that sets the scale of the penetration, for relative tolerances.
    fn length_scale(&self) -> f64;

    /// The law for a contact that touched down at relative velocity `v_rel` (< 0, approaching),
    /// for laws whose parameters depend on the impact speed; `None` where the law stays as it is.
    /// The integrators call it at every located touch-down.
    fn touched_down(&self, v_rel: f64) -> Option<Self>
    where
        Self: Sized,
    {
        let _ = v_rel;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spring energy of `f_c = -f_ref*(delta/s_ref)^n` is `f_ref*s_ref/(n+1)*(delta/s_ref)^(n+1)`.
    #[test]
    fn the_spring_work_is_the_power_laws_closed_form() {
        for n in [1.0, 1.5, 2.2, 3.3] {
            let law = GapLaw {
                c: 2e5,
                d: 0.0,
                s_rel0: 0.01,
                n,
                s_ref: 1e-3,
                f_ref: 0.0,
            };
            let f_ref = law.reference_force();
            let stored = |s_rel: f64| {
                let delta = (law.s_rel0 - s_rel).max(0.0) / law.s_ref;
                f_ref * law.s_ref / (n + 1.0) * delta.powf(n + 1.0)
            };
            for (from, to) in [(0.02, 0.007), (0.0095, 0.004), (0.006, 0.03), (0.02, 0.015)] {
                let expected = stored(to) - stored(from);
                let work = spring_work(&law, from, to);
                let scale = stored(from.min(to)).max(1e-300);
                assert!(
                    (work - expected).abs() <= 1e-10 * scale,
                    "n = {n}, {from} -> {to}: {work} against {expected}"
                );
            }
        }
    }

    /// A linear spring's contact lasts pi*sqrt(m/c) at any speed; a Hertz contact (`n` = 1.5)
    /// 2.9432*delta_max/v, delta_max = (5*m*v^2/(4*k))^(2/5) with `k = c` in N/m^1.5.
    #[test]
    fn the_contact_duration_is_the_springs_half_period() {
        let mut random = crate::test_random::Xorshift(0x5eed_d00d);
        for _ in 0..200 {
            let c = 10f64.powf(4.0 + 4.0 * random.unit());
            let mass = 0.05 * 400f64.powf(random.unit());
            let speed = 0.1 * 50f64.powf(random.unit());
            let linear = GapLaw {
                c,
                d: 0.0,
                s_rel0: 0.0,
                n: 1.0,
                s_ref: 1.0,
                f_ref: 0.0,
            };
            let duration = contact_duration(&linear, mass, speed).unwrap();
            let exact = std::f64::consts::PI * (mass / c).sqrt();
            assert!(
                (duration / exact - 1.0).abs() <= 2e-3,
                "linear: {duration} against {exact}"
            );
            let hertz = GapLaw { n: 1.5, ..linear };
            let depth = (5.0 * mass * speed * speed / (4.0 * c)).powf(0.4);
            let exact = 2.9432 * depth / speed;
            let duration = contact_duration(&hertz, mass, speed).unwrap();
            assert!(
                (duration / exact - 1.0 - 0.0674).abs() <= 3e-3,
                "Hertz: {duration} against {exact}"
            );
        }
        let law = GapLaw {
            c: 1e5,
            d: 0.0,
            s_rel0: 0.0,
            n: 1.0,
            s_ref: 1.0,
            f_ref: 0.0,
        };
        for (mass, speed) in [
            (0.0, 1.0),
            (1.0, 0.0),
            (f64::NAN, 1.0),
            (1.0, f64::INFINITY),
        ] {
            assert_eq!(
                contact_duration(&law, mass, speed),
                None,
                "{mass} kg at {speed} m/s"
            );
        }
    }
}
