//! The kinematic step against a brute-force trapezoid, and the adaptive pieces against their
//! tolerance and count limit.

use super::super::roots::contact_crossings;
use super::*;
use crate::laws::GapLaw;

const LAW: GapLaw = crate::laws::checks::SPRING;

fn limits(max_size: f64) -> SubstepLimits {
    SubstepLimits {
        max_size,
        max_count: 1_000_000,
        tolerance: 1e-9,
    }
}

/// Trapezoid rule on a very fine uniform grid: independent of the Gauss/root-finding path.
fn brute_force(law: &GapLaw, motion: Motion, h: f64) -> (f64, f64) {
    let n = 2_000_000;
    let dt = h / n as f64;
    let mut impulse = 0.0;
    let mut dissipated = 0.0;
    for k in 0..=n {
        let w = if k == 0 || k == n { 0.5 } else { 1.0 };
        let p = motion.at(k as f64 * dt);
        let forces = law.evaluate(p.s, p.v);
        impulse += w * forces.f * dt;
        dissipated += w * forces.loss_power * dt;
    }
    (impulse, dissipated)
}

/// The step integral over `h` in one substep against [`brute_force`], to 1e-8.
fn matches_brute_force_in_one_substep(law: &GapLaw, motion: Motion, h: f64) {
    let exact = integrate_step(law, motion, h, limits(1.0));
    let (impulse, dissipated) = brute_force(law, motion, h);
    assert!(
        (exact.impulse - impulse).abs() <= 1e-8 * impulse.abs(),
        "{} vs {impulse}",
        exact.impulse
    );
    assert!(
        (exact.dissipated - dissipated).abs() <= 1e-8 * dissipated.abs(),
        "{} vs {dissipated}",
        exact.dissipated
    );
}

#[test]
fn crossings_of_a_motion_entering_and_leaving() {
    // s = 0.01 - tau + 20 tau^2 /2 ... roots of 10 tau^2 - tau + 0.01: tau = (1 -+ sqrt(0.6))/20.
    let motion = Motion {
        s: 0.01,
        v: -1.0,
        a: 20.0,
    };
    let (roots, count) = contact_crossings(motion, 0.0, 1.0);
    assert_eq!(count, 2);
    assert!((roots[0] - (1.0 - 0.6f64.sqrt()) / 20.0).abs() < 1e-15);
    assert!((roots[1] - (1.0 + 0.6f64.sqrt()) / 20.0).abs() < 1e-15);
}

#[test]
fn step_integral_matches_fine_trapezoid_across_touch_down_bound_and_lift_off() {
    for (law, motion, h) in [
        (
            LAW,
            Motion {
                s: 0.002,
                v: -1.0,
                a: 50.0,
            },
            0.04,
        ),
        (
            GapLaw { d: 500.0, ..LAW },
            Motion {
                s: 0.001,
                v: -1.0,
                a: 40.0,
            },
            0.05,
        ),
        (
            GapLaw {
                n: 1.5,
                f_ref: 300.0,
                s_rel0: 0.2,
                ..LAW
            },
            Motion {
                s: 0.21,
                v: -0.8,
                a: 9.0,
            },
            0.2,
        ),
    ] {
        let exact = integrate_step(&law, motion, h, limits(1e-3));
        let (impulse, dissipated) = brute_force(&law, motion, h);
        assert!(exact.transition_count >= 1);
        assert!(
            (exact.impulse - impulse).abs() <= 1e-7 * impulse.abs().max(1e-9),
            "{exact:?} vs {impulse}"
        );
        assert!(
            (exact.dissipated - dissipated).abs() <= 1e-7 * dissipated.abs().max(1e-9),
            "{exact:?} vs {dissipated}"
        );
    }
}

#[test]
fn a_short_linear_damper_window_between_both_bounds_is_not_skipped() {
    // Lower bound, then linear around v_rel = 0 for a few microseconds, then upper bound:
    // both switches fall between the start, middle and end of the one substep.
    let law = GapLaw {
        d: 30.0,
        s_ref: 0.01,
        ..LAW
    };
    let motion = Motion {
        s: 2e-4,
        v: -0.5,
        a: 600.0,
    };
    matches_brute_force_in_one_substep(&law, motion, 9e-4);
}

#[test]
fn a_piece_with_a_kink_on_each_side_of_the_turn_and_one_after_it() {
    // n = 1.5 is not piecewise affine, so the piece goes through `integrate_phase`. The body
    // leaves slowly (damper bound on), turns 0.83 ms in (bound off: d*|v| < |f_c|), gains
    // speed inward (bound on again) and goes deep enough for the spring to win (off): the
    // indicator changes sign between all four samples (start, turn, middle, end), three kinks.
    // fuzz/deserialize_state feeds states that step into this, which must not index past them.
    let law = GapLaw { n: 1.5, ..LAW };
    let motion = Motion {
        s: -0.0052,
        v: 1.0,
        a: -1200.0,
    };
    let h = 0.025;
    let still = -motion.v / motion.a;
    let sample = |tau: f64| (tau, indicator_at(&law, motion, tau));
    let (_, count) = kinks_between(&law, motion, still, sample(0.0), sample(0.5 * h), sample(h));
    assert_eq!(
        count, 3,
        "the motion must exercise three kinks in one piece"
    );
    matches_brute_force_in_one_substep(&law, motion, h);
}

#[test]
fn linear_law_is_integrated_exactly_with_one_substep() {
    let motion = Motion {
        s: 0.003,
        v: -1.0,
        a: 30.0,
    };
    let coarse = integrate_step(&LAW, motion, 0.05, limits(1.0));
    let fine = integrate_step(&LAW, motion, 0.05, limits(1e-5));
    assert!((coarse.impulse - fine.impulse).abs() <= 1e-12 * fine.impulse.abs());
    assert!((coarse.dissipated - fine.dissipated).abs() <= 1e-12 * fine.dissipated.abs());
}

/// A law with a reference force of 100 N at 10 mm: along the motions below the damper bound
/// switches while in contact.
fn power_law(n: f64) -> GapLaw {
    GapLaw {
        n,
        s_ref: 0.01,
        ..LAW
    }
}

/// Touches down at `0.1 h` and lifts off at `0.9 h`, at 1 m/s both times, 0.2 h deep at most.
fn whole_contact(h: f64) -> Motion {
    let (enter, leave) = (0.1 * h, 0.9 * h);
    let a = 2.5 / h;
    Motion {
        s: 0.5 * a * enter * leave,
        v: -0.5 * a * (enter + leave),
        a,
    }
}

fn adaptive(h: f64, tolerance: f64) -> SubstepLimits {
    SubstepLimits {
        max_size: h,
        max_count: 1_000_000,
        tolerance,
    }
}

fn relative_error(value: f64, reference: f64) -> f64 {
    (value - reference).abs() / reference.abs()
}

#[test]
fn adaptive_pieces_meet_the_tolerance_for_laws_that_are_not_piecewise_affine() {
    let motions = [
        // Touch-down, then the bound releases the damper 1.4 mm deeper.
        (
            Motion {
                s: 0.002,
                v: -1.0,
                a: 0.0,
            },
            0.01,
        ),
        // Lift-off: the bound catches the damper shortly before.
        (
            Motion {
                s: -0.003,
                v: 0.2,
                a: 0.0,
            },
            0.02,
        ),
        // Touch-down, both bounds and lift-off in one step.
        (whole_contact(0.01), 0.01),
        (whole_contact(0.03), 0.03),
    ];
    for n in [1.5, 2.3] {
        let law = power_law(n);
        for (motion, h) in motions {
            let step = integrate_step(&law, motion, h, adaptive(h, 1e-6));
            let (impulse, dissipated) = brute_force(&law, motion, h);
            eprintln!(
                "n = {n}, h = {h}: {} pieces, impulse error {:.1e}, dissipated error {:.1e}",
                step.substeps,
                relative_error(step.impulse, impulse),
                relative_error(step.dissipated, dissipated)
            );
            assert!(step.transition_count >= 1);
            assert!(
                relative_error(step.impulse, impulse) <= 1e-6
                    && relative_error(step.dissipated, dissipated) <= 1e-6,
                "n = {n}, {motion:?}: {step:?} vs {impulse}, {dissipated}"
            );
        }
    }
}

#[test]
fn a_long_contact_takes_far_fewer_pieces_than_fixed_substeps() {
    let h = 0.03;
    let motion = whole_contact(h);
    let fixed_pieces = (0.8 * h / 1e-4_f64).ceil() as u32;
    for n in [1.5, 2.3] {
        let law = power_law(n);
        let step = integrate_step(&law, motion, h, adaptive(h, 1e-6));
        assert!(
            step.substeps * 5 <= fixed_pieces,
            "n = {n}: {} pieces against {fixed_pieces}",
            step.substeps
        );
        // The bound on the piece length still holds.
        let bounded = integrate_step(
            &law,
            motion,
            h,
            SubstepLimits {
                max_size: 1e-4,
                ..adaptive(h, 1e-6)
            },
        );
        assert!(bounded.substeps >= fixed_pieces);
        assert!(relative_error(bounded.impulse, step.impulse) <= 2e-6);
    }
}

#[test]
fn adaptive_pieces_respect_the_count_limit() {
    let law = power_law(1.5);
    let motion = whole_contact(0.03);
    let step = integrate_step(
        &law,
        motion,
        0.03,
        SubstepLimits {
            max_size: 1.0,
            max_count: 3,
            tolerance: 1e-12,
        },
    );
    assert_eq!(step.substeps, 3);
    let (impulse, _) = brute_force(&law, motion, 0.03);
    assert!(relative_error(step.impulse, impulse) <= 1e-2);
}

#[test]
fn tighter_tolerance_gives_smaller_error() {
    let law = power_law(1.5);
    let h = 0.03;
    let motion = whole_contact(h);
    let (impulse, _) = brute_force(&law, motion, h);
    let mut last = (f64::INFINITY, 0);
    for tolerance in [1e-4, 1e-6, 1e-8] {
        let step = integrate_step(&law, motion, h, adaptive(h, tolerance));
        let error = relative_error(step.impulse, impulse);
        eprintln!(
            "tolerance {tolerance:e}: {} pieces, error {error:e}",
            step.substeps
        );
        assert!(error <= tolerance.max(1e-9));
        assert!(step.substeps >= last.1 && error <= last.0.max(1e-9));
        last = (error, step.substeps);
    }
}
