//! Checks every law's unit tests share: partial derivatives and kink-indicator rates against
//! finite differences, and a whole impact through the dynamic step against a fine Runge–Kutta
//! integration with the lift-off located. Test-only.

use super::{ContactLaw, GapLaw};
use crate::step::dynamic::Dynamics;
use crate::step::{integrate_dynamics, Motion};

/// The contact of the tests' impacts: c = 1e4 N/m, d = 20 N.s/m, n = 1, s_ref = 1 m, s_rel0 = 0
/// (1 kg on it: a contact of 31 ms).
pub const SPRING: GapLaw = GapLaw {
    c: 1e4,
    d: 20.0,
    s_rel0: 0.0,
    n: 1.0,
    s_ref: 1.0,
    f_ref: 0.0,
};

/// Every entry of `partials` at `(s, v)` against central differences of `evaluate`, to `tolerance`
/// relative to the entry's scale.
pub fn partials_match_differences<L: ContactLaw>(law: &L, s: f64, v: f64, tolerance: f64) {
    let p = law.partials(s, v);
    // Steps relative to the penetration and the speed, so that differences neither round away
    // nor reach a kink.
    let (hs, hv) = (
        1e-6 * (s - law.s_rel0()).abs().max(1e-9),
        1e-7 * v.abs().max(1e-3),
    );
    let ds = |pick: fn(&super::Forces) -> f64| {
        (pick(&law.evaluate(s + hs, v)) - pick(&law.evaluate(s - hs, v))) / (2.0 * hs)
    };
    let dv = |pick: fn(&super::Forces) -> f64| {
        (pick(&law.evaluate(s, v + hv)) - pick(&law.evaluate(s, v - hv))) / (2.0 * hv)
    };
    let pairs = [
        ("f_c_ds", p.f_c_ds, ds(|f| f.f_c)),
        ("f_d_ds", p.f_d_ds, ds(|f| f.f_d)),
        ("f_d_dv", p.f_d_dv, dv(|f| f.f_d)),
        ("loss_power_ds", p.loss_power_ds, ds(|f| f.loss_power)),
        ("loss_power_dv", p.loss_power_dv, dv(|f| f.loss_power)),
        ("f_dv", p.f_dv(), dv(|f| f.f)),
        ("f_ds", p.f_ds(), ds(|f| f.f)),
    ];
    for (name, analytic, numeric) in pairs {
        assert!(
            (analytic - numeric).abs() <= tolerance * analytic.abs().max(numeric.abs()).max(1.0),
            "{name} at s = {s}, v = {v}: {analytic} analytic, {numeric} by differences ({law:?})",
            law = std::any::type_name::<L>()
        );
    }
}

/// `kink_indicator_rate` along `s + v t + a t^2/2` against a central difference in time.
pub fn rate_matches_difference<L: ContactLaw>(law: &L, s: f64, v: f64, a: f64) {
    let motion = Motion { s, v, a };
    let dt = 1e-8;
    let at = |t: f64| {
        let p = motion.at(t);
        law.kink_indicator(p.s, p.v)
    };
    let numeric = (at(dt) - at(-dt)) / (2.0 * dt);
    let analytic = law.kink_indicator_rate(s, v, a);
    assert!(
        (analytic - numeric).abs() <= 1e-5 * analytic.abs().max(numeric.abs()).max(1.0),
        "rate at s = {s}, v = {v}, a = {a}: {analytic} analytic, {numeric} by differences"
    );
}

/// A body of 1 kg arriving at 1 m/s at `s_rel0` (no other force): rebound speed over arrival
/// speed and dissipated energy.
#[derive(Clone, Copy, Debug)]
pub struct Impact {
    pub restitution: f64,
    pub dissipated: f64,
}

/// The impact through the dynamic step: one step far longer than the contact.
pub fn dynamic_impact<L: ContactLaw>(law: &L) -> Impact {
    let start = Motion {
        s: law.s_rel0() + 1e-3,
        v: -1.0,
        a: 0.0,
    };
    let dynamics = Dynamics {
        mass: 1.0,
        a_ext: 0.0,
        tolerance: 1e-10,
    };
    let step = integrate_dynamics(law, start, dynamics, 0.2);
    assert!(step.end.s > law.s_rel0(), "still in contact after 0.2 s");
    Impact {
        restitution: step.end.v,
        dissipated: step.integral.dissipated,
    }
}

/// The same impact by classical RK4 at `dt` from the touch-down, the law made with
/// `touched_down` there, the lift-off located by bisecting the last step to 1e-15 s.
pub fn rk4_impact<L: ContactLaw + Copy>(law: &L, dt: f64) -> Impact {
    let law = law.touched_down(-1.0).unwrap_or(*law);
    let s0 = law.s_rel0();
    // A femtometre inside the contact: the first stage sees a force that jumps at the
    // touch-down, and the stages of the last step that reach past the lift-off see the law
    // continued, not the jump there, which would cost RK4 its order.
    let inside = s0 - 1e-15 * (1.0 + s0.abs());
    let rhs = |y: [f64; 3]| {
        let forces = law.evaluate(y[0].min(inside), y[1]);
        [y[1], -forces.f, forces.loss_power]
    };
    let step = |y: [f64; 3], h: f64| -> [f64; 3] {
        let k1 = rhs(y);
        let k2 = rhs(std::array::from_fn(|i| y[i] + 0.5 * h * k1[i]));
        let k3 = rhs(std::array::from_fn(|i| y[i] + 0.5 * h * k2[i]));
        let k4 = rhs(std::array::from_fn(|i| y[i] + h * k3[i]));
        std::array::from_fn(|i| y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
    };
    let mut y = [inside, -1.0, 0.0];
    for _ in 0..10_000_000 {
        let next = step(y, dt);
        if next[0] < s0 {
            y = next;
            continue;
        }
        let (mut inside, mut outside) = (0.0, dt);
        while outside - inside > 1e-15 {
            let middle = 0.5 * (inside + outside);
            if step(y, middle)[0] < s0 {
                inside = middle;
            } else {
                outside = middle;
            }
        }
        let end = step(y, outside);
        return Impact {
            restitution: end[1],
            dissipated: end[2],
        };
    }
    panic!("no lift-off");
}

/// The dynamic step's impact against RK4 at 1 µs: rebound and dissipated energy to `tolerance`.
pub fn impact_matches_rk4<L: ContactLaw + Copy>(law: &L, tolerance: f64) {
    let exact = rk4_impact(law, 1e-6);
    if std::env::var_os("ELASTOGAP_RK4_CONVERGENCE").is_some() {
        eprintln!(
            "{exact:?} at 1 us, {:?} at 0.25 us",
            rk4_impact(law, 0.25e-6)
        );
    }
    let step = dynamic_impact(law);
    let relative = |a: f64, b: f64| (a - b).abs() / b.abs().max(1e-12);
    assert!(
        relative(step.restitution, exact.restitution) < tolerance
            && relative(step.dissipated, exact.dissipated) < tolerance,
        "dynamic step {step:?}, RK4 {exact:?}"
    );
}
