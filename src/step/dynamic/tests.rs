//! The dynamic step against a fine Runge–Kutta integration of the same motion, and the known
//! rebound of a whole impact.

use super::*;
use crate::laws::GapLaw;

const LAW: GapLaw = crate::laws::checks::SPRING;

/// A fine RK4 of the same ODE with the law evaluated as is (kinks not located): an
/// independent route whose error is of the order of its step.
fn rk4(law: &GapLaw, mass: f64, a: f64, s: f64, v: f64, h: f64) -> (f64, f64, f64) {
    let steps = (h / 2e-8).ceil() as usize;
    let dt = h / steps as f64;
    let acc = |s: f64, v: f64| a - law.evaluate(s, v).f / mass;
    let power = |s: f64, v: f64| law.evaluate(s, v).loss_power;
    let (mut s, mut v, mut e) = (s, v, 0.0);
    for _ in 0..steps {
        let (k1s, k1v, k1e) = (v, acc(s, v), power(s, v));
        let (s2, v2) = (s + 0.5 * dt * k1s, v + 0.5 * dt * k1v);
        let (k2s, k2v, k2e) = (v2, acc(s2, v2), power(s2, v2));
        let (s3, v3) = (s + 0.5 * dt * k2s, v + 0.5 * dt * k2v);
        let (k3s, k3v, k3e) = (v3, acc(s3, v3), power(s3, v3));
        let (s4, v4) = (s + dt * k3s, v + dt * k3v);
        let (k4s, k4v, k4e) = (v4, acc(s4, v4), power(s4, v4));
        s += dt / 6.0 * (k1s + 2.0 * k2s + 2.0 * k3s + k4s);
        v += dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
        e += dt / 6.0 * (k1e + 2.0 * k2e + 2.0 * k3e + k4e);
    }
    (s, v, e)
}

fn dynamics(a_ext: f64) -> Dynamics {
    Dynamics {
        mass: 1.0,
        a_ext,
        tolerance: 1e-9,
    }
}

#[test]
fn a_whole_impact_in_one_step_gives_the_known_rebound_and_loss() {
    // 1 kg at 1 m/s, c = 1e4, d = 20: rebound coefficient 0.7586, 0.2122 J dissipated.
    let start = Motion {
        s: 1e-3,
        v: -1.0,
        a: 0.0,
    };
    let step = integrate_dynamics(&LAW, start, dynamics(0.0), 0.1);
    assert!((step.end.v - 0.7586).abs() < 5e-5, "{step:?}");
    assert!((step.integral.dissipated - 0.2122).abs() < 5e-5, "{step:?}");
    // The impulse is the momentum change of the 1 kg body.
    assert!((step.integral.impulse + (step.end.v + 1.0)).abs() < 1e-12);
    assert_eq!(step.integral.transition_count, 2);
    let (s, v, e) = rk4(&LAW, 1.0, 0.0, 1e-3, -1.0, 0.1);
    assert!((step.end.v - v).abs() < 1e-6, "{} vs {v}", step.end.v);
    assert!((step.end.s - s).abs() < 1e-7, "{} vs {s}", step.end.s);
    assert!((step.integral.dissipated - e).abs() < 1e-6);
}

#[test]
fn stiff_nonlinear_and_gravity_cases_match_a_fine_runge_kutta() {
    for (law, a, s, v, h) in [
        (
            GapLaw {
                c: 1e6,
                d: 200.0,
                ..LAW
            },
            0.0,
            2e-4,
            -1.0,
            0.01,
        ),
        (GapLaw { n: 1.5, ..LAW }, 0.0, 1e-3, -1.0, 0.1),
        (
            GapLaw {
                n: 1.5,
                c: 1e6,
                d: 200.0,
                ..LAW
            },
            -9.81,
            1e-3,
            -1.0,
            0.02,
        ),
        (
            GapLaw {
                c: 1e5,
                d: 50.0,
                ..LAW
            },
            -9.81,
            0.0,
            -0.3,
            0.05,
        ),
        (
            GapLaw {
                n: 2.3,
                d: 5.0,
                s_ref: 0.01,
                ..LAW
            },
            -3.0,
            -2e-4,
            0.2,
            0.05,
        ),
    ] {
        let step = integrate_dynamics(&law, Motion { s, v, a: 0.0 }, dynamics(a), h);
        let (s_ref, v_ref, e_ref) = rk4(&law, 1.0, a, s, v, h);
        let scale = v.abs().max(1.0);
        assert!(
            (step.end.v - v_ref).abs() < 2e-6 * scale,
            "{law:?}: {step:?} vs {v_ref}"
        );
        assert!(
            (step.end.s - s_ref).abs() < 2e-7 * scale * h.max(1e-3) * 100.0,
            "{law:?}: {step:?} vs {s_ref}"
        );
        assert!(
            (step.integral.dissipated - e_ref).abs() < 2e-6 * e_ref.max(1e-3),
            "{law:?}: {step:?} vs {e_ref}"
        );
    }
}

#[test]
fn an_offset_gap_gives_the_same_impact() {
    // Far from 0, s_rel0 + x rounds tiny penetrations away: contact must be decided as the
    // law sees it, or the motion enters unopposed (the co-simulation tests reach such offsets).
    let at = |s_rel0: f64| {
        let law = GapLaw { s_rel0, ..LAW };
        let start = Motion {
            s: s_rel0 + 0.009_424_777_960_769_3,
            v: -1.0,
            a: 0.0,
        };
        integrate_dynamics(&law, start, dynamics(0.0), 0.0628)
    };
    let reference = at(0.0);
    for s_rel0 in [0.1, 1.5, -3.0, 1e3] {
        let offset = at(s_rel0);
        assert!(
            (offset.end.v - reference.end.v).abs() < 1e-9,
            "{s_rel0}: {offset:?}"
        );
        assert!((offset.integral.dissipated - reference.integral.dissipated).abs() < 1e-9);
    }
}

#[test]
fn a_body_entering_at_the_edge_against_a_strong_pull_out_does_not_chatter() {
    // As in tests/memcheck.rs's workload: the coupling starts its model on the contact's
    // edge, entering slowly while the extrapolated acceleration pulls hard the other way.
    let law = GapLaw {
        c: 59_192.078,
        d: 15.998,
        ..LAW
    };
    let (mass, a_ext, h) = (9.4833e-3, 22_904.8, 1e-3);
    // Grazes that end within one sampling interval (an eighth of the period). One whose turn
    // falls in an interval before the one it leaves in (here from -3 m/s) is sampled past its
    // kinks: docs/m-eff.md.
    for v in [-0.0319, -0.19, -1e-6, -0.5] {
        let start = Motion { s: 0.0, v, a: 0.0 };
        let dynamics = Dynamics {
            mass,
            a_ext,
            tolerance: 1e-9,
        };
        let step = integrate_dynamics(&law, start, dynamics, h);
        assert!(step.evaluations < 1_000, "{v}: {step:?}");
        let (s_ref, v_ref, e_ref) = rk4(&law, mass, a_ext, 0.0, v, h);
        // A graze short against the oscillation's period, which sets the sampling: its
        // kinks are found at the turn, and its exit after it.
        assert!(
            (step.end.v - v_ref).abs() < 1e-8 * v_ref.abs(),
            "{v}: {step:?} vs {v_ref}"
        );
        assert!(
            (step.end.s - s_ref).abs() < 1e-8 * s_ref.abs(),
            "{v}: {step:?} vs {s_ref}"
        );
        // Against the work the pull does over the step.
        let work = mass * a_ext * s_ref.abs();
        assert!(
            (step.integral.dissipated - e_ref).abs() < 1e-9 * work,
            "{v}: {step:?} vs {e_ref}"
        );
    }
}

/// A motion on the contact's edge at the step's start, heading in, enters at once: as one a
/// rounding inside it, and against the fine Runge–Kutta route. (Where the edge lies far from
/// zero, a time step of the smallest double's size moves the position by less than its rounding,
/// and the motion could fly the whole step outside, to touch down at its end.)
#[test]
fn a_motion_on_the_edge_heading_in_enters_at_once() {
    for s_rel0 in [0.0, 1.5, -40.0] {
        let law = GapLaw {
            c: 10.0,
            d: 1.5,
            s_rel0,
            n: 1.0,
            s_ref: 1.0,
            f_ref: 10.0,
        };
        let dynamics = Dynamics {
            mass: 1.0,
            a_ext: 0.0,
            tolerance: 1e-9,
        };
        let h = 0.005;
        let edge = Motion {
            s: s_rel0,
            v: -3.4,
            a: 0.0,
        };
        let on = integrate_dynamics(&law, edge, dynamics, h);
        let (s_ref, v_ref, _) = rk4(&law, 1.0, 0.0, s_rel0 - 1e-15, -3.4, h);
        assert!(
            (on.end.v - v_ref).abs() <= 1e-9,
            "s_rel0 {s_rel0}: {} against {v_ref}",
            on.end.v
        );
        assert!(
            (on.end.s - s_ref).abs() <= 1e-9,
            "s_rel0 {s_rel0}: {} against {s_ref}",
            on.end.s
        );
        assert!(
            on.integral.impulse < 0.0,
            "s_rel0 {s_rel0}: no contact impulse"
        );
        let touch = on.integral.transitions().next();
        assert!(
            touch.is_none_or(|t| t.entering && t.tau < 1e-12),
            "{touch:?}"
        );
    }
}
