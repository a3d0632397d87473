//! Contact start and end exactly on a substep boundary, a step end or a communication point,
//! grazing and hair-thin contacts, inputs exactly at `s_rel0`.

use crate::common::{
    constant_velocity, dip_impulse, from_rest_impulse, Expect, OneStep, Run, Setup, DAMPED, H,
    SPRING, SUBSTEP,
};
use crate::support::gap_law::{assert_close, Law};
use crate::support::{Fmu, PROBE_SHARE};
#[test]
fn contact_start_and_end_exactly_on_substep_boundaries_and_step_ends() {
    let fmu = Fmu::load_default();
    let cases = [
        // Touch-down at 3 substeps into the step at 1 m/s, then 5 substeps of contact.
        OneStep::new(
            "touch-down on substep boundary 3",
            SPRING,
            (3.0 * SUBSTEP, -1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP)
        .expect_constant_velocity(1e-13),
        OneStep::new(
            "touch-down on substep boundary 3, damped",
            DAMPED,
            (3.0 * SUBSTEP, -1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP)
        .expect_constant_velocity(1e-12),
        OneStep::new(
            "lift-off on substep boundary 5, damped",
            DAMPED,
            (-5.0 * SUBSTEP, 1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP)
        .expect_constant_velocity(1e-12),
        OneStep::new(
            "touch-down on substep boundary 3, n = 2",
            Law { n: 2.0, ..DAMPED },
            (3.0 * SUBSTEP, -1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP)
        .expect_constant_velocity(1e-12),
        OneStep::new(
            "touch-down exactly at the step end",
            DAMPED,
            (H, -1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP),
        OneStep::new(
            "touch-down exactly at the step start",
            DAMPED,
            (0.0, -1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP)
        .expect_constant_velocity(1e-12),
        OneStep::new(
            "lift-off exactly at the step end",
            DAMPED,
            (-H, 1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP)
        .expect_constant_velocity(1e-12),
        OneStep::new(
            "lift-off exactly at the step start",
            DAMPED,
            (0.0, 1.0, 0.0),
            H,
        )
        .substeps(SUBSTEP),
    ];
    for case in cases {
        let (run, _) = case.run(&fmu, true);
        // A transition strictly inside the step is logged at its exact time.
        let inside = case.s0 != 0.0 && case.s0 != -case.v0 * case.h;
        let expected: Vec<(f64, bool)> = if inside {
            vec![(-case.s0 / case.v0, case.v0 < 0.0)]
        } else {
            Vec::new()
        };
        assert_eq!(run.contact_events(), expected, "{}", case.name);
    }
}

/// Touch-down exactly at a communication point, at 1 m/s: the step before ends at `s_rel0` and
/// sees no force at all, the step after is in contact from its start. Under the default
/// parameters the contact's first two steps hold probes; the motion, prescribed, answers neither,
/// and from the third step on each step holds the law's integral along it (the closed form), and
/// `E_loss` is the closed form over the contact so far.
#[test]
fn touch_down_exactly_at_a_communication_point() {
    let fmu = Fmu::load_default();
    for law in [SPRING, DAMPED, Law { n: 1.5, ..DAMPED }] {
        let label = format!("touch-down at t = 2h, n = {}, d = {}", law.n, law.d);
        let setup = Setup {
            max_substep_size: Some(SUBSTEP),
            log_events: true,
            ..Setup::exact(law)
        };
        let mut run = Run::start(&fmu, &label, setup);
        // n = 1.5: the force grows like t^1.5 from the contact's start, which the 3-point rule
        // per substep integrates to a few 1e-7 of the impulse.
        let tolerance = if law.n == 1.0 { 1e-12 } else { 2e-6 };
        for k in 0..7 {
            let t = f64::from(k) * H;
            let s_rel = 2.0 * H - t;
            run.set([0.0, 0.0, s_rel, -1.0], None).unwrap();
            let out = run.step(H).unwrap();
            if k < 2 {
                assert_eq!(out.f_mean, 0.0, "{label}: step {k}");
                assert_eq!(out.e_loss, 0.0, "{label}: step {k}");
            }
            if k == 1 {
                // Exactly at s_rel0 at the end of the step: no contact yet.
                assert_eq!(out.s_rel, 0.0, "{label}");
                assert!(!out.contact, "{label}");
                assert_eq!(out.f, 0.0, "{label}");
            }
            if k >= 4 {
                let (expected, _) = constant_velocity(&law, s_rel, -1.0, H);
                assert_close(
                    out.f_mean * H,
                    expected,
                    tolerance,
                    &format!("{label}: step {k}"),
                );
                let (_, dissipated) = constant_velocity(&law, 2.0 * H, -1.0, t + H);
                if law.d > 0.0 {
                    assert_close(
                        out.e_loss,
                        dissipated,
                        tolerance,
                        &format!("{label}: E_loss {k}"),
                    );
                }
            }
        }
        let starts: Vec<f64> = run
            .contact_events()
            .into_iter()
            .filter_map(|(t, entering)| entering.then_some(t))
            .collect();
        assert!(
            starts.is_empty() || starts == [2.0 * H],
            "{label}: contact starts logged at {starts:?}"
        );
    }
}

#[test]
fn grazing_and_hair_thin_contacts() {
    let fmu = Fmu::load_default();
    // s_rel = s0 + v0 t + a t^2/2 touching s_rel0 = 0 with v_rel = 0 at t* = -v0/a; all values
    // are binary-exact so the motion touches exactly.
    let a = 1024.0;
    let grazing = |t_star: f64| (0.5 * a * t_star * t_star, -a * t_star, a);
    // The deepest point `depth` below s_rel0 at t* = H/2: in and out within a tiny fraction of
    // the step.
    let dip = |depth: f64| {
        let (s0, v0, a) = grazing(0.5 * H);
        (s0 - depth, v0, a)
    };
    let thin = 2f64.powi(-40);
    // A damper strong enough to be bounded through the dip, except for a window of relative
    // size |f_c|/(d*a*half_width) = 9e-9/(1e4*1024*4.2e-8) = 2e-8 around the deepest point.
    let bounded_damper = Law { d: 1e4, ..SPRING };
    let cases = [
        OneStep::new("grazing at mid-step", DAMPED, grazing(0.5 * H), H),
        OneStep::new("grazing at a quarter step", DAMPED, grazing(0.25 * H), H),
        OneStep::new("grazing at the step end", DAMPED, grazing(H), H),
        OneStep::new("grazing at the step start", DAMPED, (0.0, 0.0, a), H),
        OneStep::new(
            "from rest at s_rel0 into contact",
            SPRING,
            (0.0, 0.0, -a),
            H,
        )
        .expect(Expect::Integral {
            impulse: from_rest_impulse(&SPRING, -a, H),
            dissipated: 0.0,
            tolerance: 1e-13,
        }),
        // Contact of 2*sqrt(2*2^-40/1024) = 8.4e-8 s, 2^-40 m deep: the positions round at
        // 1.4e-20 m, 1.5e-8 of the depth.
        OneStep::new("dip 2^-40 m deep", SPRING, dip(thin), H).expect(Expect::Integral {
            impulse: dip_impulse(&SPRING, thin, a),
            dissipated: 0.0,
            tolerance: 1e-6,
        }),
        // One substep covers the whole 8.4e-8 s contact: the 3-point Gauss rule on
        // (1 - x^2)^1.5 gives 1.1703 for 3 pi/8 = 1.1781, 0.69 % low.
        OneStep::new(
            "dip 2^-40 m deep, n = 1.5",
            Law { n: 1.5, ..SPRING },
            dip(thin),
            H,
        )
        .expect(Expect::Integral {
            impulse: dip_impulse(&Law { n: 1.5, ..SPRING }, thin, a),
            dissipated: 0.0,
            tolerance: 7.5e-3,
        }),
        // Substeps of H/1e6 = 9.8e-10 s: 86 of them over the contact.
        OneStep {
            max_substep_count: Some(1_000_000),
            ..OneStep::new(
                "dip 2^-40 m deep, n = 1.5, substeps of 1e-9 s",
                Law { n: 1.5, ..SPRING },
                dip(thin),
                H,
            )
            .substeps(1e-10)
            .expect(Expect::Integral {
                impulse: dip_impulse(&Law { n: 1.5, ..SPRING }, thin, a),
                dissipated: 0.0,
                tolerance: 1e-6,
            })
        },
        OneStep::new("dip 2^-40 m deep, damped", bounded_damper, dip(thin), H).expect(
            Expect::Integral {
                impulse: dip_impulse(&bounded_damper, thin, a),
                dissipated: 2.0 * bounded_damper.spring_work(thin),
                tolerance: 1e-6,
            },
        ),
        // 2^-70 m is below the rounding of s_rel (1.4e-20 m): whatever is found, the force is
        // at most c times the rounding error.
        OneStep::new("dip at the rounding level", DAMPED, dip(2f64.powi(-70)), H).expect(
            Expect::AtMost {
                force: SPRING.c * 1e-19,
                dissipated: 1e-30,
            },
        ),
    ];
    for case in cases {
        case.run(&fmu, false);
    }
}

/// Inputs whose difference is exactly `s_rel0`: no contact and no force at the inputs, whatever
/// the velocity; moving into the gap gives the closed form of the step, moving out or standing
/// nothing.
#[test]
fn inputs_exactly_at_s_rel0() {
    let fmu = Fmu::load_default();
    for (s_a, s_rel0) in [(0.0, 0.0), (1.0, 0.25), (1e6, 0.25), (-3.0, -0.5)] {
        for v_rel in [1.0, 0.0, -1.0, 1e-300, -1e-300] {
            let law = Law { s_rel0, ..DAMPED };
            let label = format!("s_a = {s_a}, s_rel0 = {s_rel0}, v_rel = {v_rel}");
            let mut run = Run::start(&fmu, &label, Setup::exact(law));
            let s_b = s_a + s_rel0;
            assert_eq!(s_b - s_a, s_rel0, "the test's inputs are exact");
            let at = run.set([s_a, 0.5, s_b, 0.5 + v_rel], None).unwrap();
            assert_eq!(at.s_rel, s_rel0, "{label}");
            assert!(
                !at.contact && at.f == 0.0 && at.loss_power == 0.0,
                "{label}: {at:?}"
            );
            let out = run.step(H).unwrap();
            let relative_velocity = (0.5 + v_rel) - 0.5;
            if relative_velocity >= 0.0 {
                assert_eq!(out.f_mean, 0.0, "{label}");
                assert_eq!(out.e_loss, 0.0, "{label}");
            } else {
                // A contact that begins in the step, probed (docs/coupling.md).
                let (impulse, dissipated) = constant_velocity(&law, s_rel0, relative_velocity, H);
                let (impulse, dissipated) = (PROBE_SHARE * impulse, PROBE_SHARE * dissipated);
                assert_close(out.f_mean, impulse / H, 1e-12, &format!("{label}: f_mean"));
                assert_close(out.e_loss, dissipated, 1e-12, &format!("{label}: E_loss"));
            }
        }
    }
    // Positions that a master believes are s_rel0 apart but whose f64 difference is 2.8e-17 m
    // less: a contact of rounding size, with a force of rounding size.
    let law = Law {
        s_rel0: 0.1,
        ..DAMPED
    };
    let mut run = Run::start(&fmu, "0.3 - 0.2 vs 0.1", Setup::exact(law));
    let at = run.set([0.2, 0.0, 0.3, 0.0], None).unwrap();
    assert!(at.contact, "0.3 - 0.2 < 0.1 in f64");
    assert!(at.f.abs() <= law.c * 1e-16, "{at:?}");
    let out = run.step(H).unwrap();
    assert!(out.f_mean.abs() <= law.c * 1e-16, "{out:?}");
}
