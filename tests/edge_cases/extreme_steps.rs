//! Denormal velocities, and communication steps of 1e-12 s (also where the time does not
//! advance) and of 1e3 s.

use crate::common::{
    constant_velocity, dip_impulse, each_case, Expect, OneStep, Run, Setup, DAMPED, SPRING,
};
use crate::support::gap_law::{assert_close, Law};
use crate::support::Fmu;
/// Relative velocities of 5e-324 (the smallest denormal) and 1e-310, both signs, at `s_rel0`, in
/// contact and in the gap, over steps of 1 ms and 1000 s.
#[test]
fn denormal_velocities() {
    let fmu = Fmu::load_default();
    let law = Law {
        n: 1.5,
        d: 1e4,
        ..SPRING
    };
    let mut cases = Vec::new();
    for h in [1e-3, 1e3] {
        for v in [5e-324, -5e-324, 1e-310, -1e-310] {
            for s0 in [0.0, -1e-3, 1e-3] {
                let name = format!("v_rel = {v:e}, s_rel = {s0}, h = {h}");
                let case = OneStep::new(name, law, (s0, v, 0.0), h);
                cases.push(if s0 > 0.0 || (s0 == 0.0 && v > 0.0) {
                    case
                } else if s0 == 0.0 {
                    // At most |v|*h = 1e-307 m deep: (1e-307)^1.5 underflows.
                    case.expect(Expect::AtMost {
                        force: 1e-300,
                        dissipated: 1e-300,
                    })
                } else {
                    // The compression moves by at most 1e-307 m: the force of the start point.
                    let start = law.forces(s0, v);
                    case.expect(Expect::Integral {
                        impulse: start.f * h,
                        dissipated: start.loss_power * h,
                        tolerance: 1e-14,
                    })
                });
            }
        }
    }
    for case in cases {
        case.run(&fmu, false);
    }
}

#[test]
fn communication_steps_of_a_picosecond() {
    let fmu = Fmu::load_default();
    let cases = [
        // n = 1, d = 0: f_mean is the spring force at the mid-step compression.
        OneStep::new(
            "1e-12 s in contact, linear spring",
            SPRING,
            (-1e-3, -1.0, 0.0),
            1e-12,
        )
        .expect(Expect::Integral {
            impulse: -SPRING.c * (1e-3 + 0.5e-12) * 1e-12,
            dissipated: 0.0,
            tolerance: 1e-14,
        }),
        // f varies by 1e-9 relative over the step: the mid-step values are the mean to 1e-18.
        {
            let law = Law { n: 1.5, ..DAMPED };
            let mid = law.forces(-1e-3 - 0.5e-12, -1.0);
            OneStep::new(
                "1e-12 s in contact, n = 1.5, damped",
                law,
                (-1e-3, -1.0, 0.0),
                1e-12,
            )
            .expect(Expect::Integral {
                impulse: mid.f * 1e-12,
                dissipated: mid.loss_power * 1e-12,
                tolerance: 1e-13,
            })
        },
        OneStep::new(
            "1e-12 s touching down mid-step",
            DAMPED,
            (0.5e-12, -1.0, 0.0),
            1e-12,
        )
        .expect_constant_velocity(1e-9),
    ];
    for case in cases {
        case.run(&fmu, false);
    }

    // 1000 steps of 1e-12 s through a touch-down at step 500, with the default acceleration
    // estimate. The contact's first two steps are probed (docs/coupling.md); the prescribed motion
    // answers neither, and from the third each step holds the law's integral along it; E_loss is
    // the closed form over the whole nanosecond.
    let setup = Setup {
        acceleration_estimate: 3,
        ..Setup::exact(DAMPED)
    };
    let mut run = Run::start(&fmu, "1000 steps of 1e-12 s", setup);
    for k in 0..1000 {
        let s_rel = 5e-10 - run.time;
        run.set([0.0, 0.0, s_rel, -1.0], None).unwrap();
        let f_mean = run.step(1e-12).unwrap().f_mean;
        if k >= 502 {
            let (expected, _) = constant_velocity(&DAMPED, s_rel, -1.0, 1e-12);
            assert_close(
                f_mean * 1e-12,
                expected,
                1e-9,
                &format!("impulse of step {k}"),
            );
        }
    }
    let (_, dissipated) = constant_velocity(&DAMPED, 5e-10, -1.0, run.time);
    assert_close(run.e_loss, dissipated, 1e-9, "E_loss over 1000 steps");
}

/// At t >= 2^14 s a step of 1e-12 s is below half an ulp of the time, so `t + h == t`: a step
/// that cannot advance the time would leave the acceleration estimate a zero time difference to
/// divide by. It is refused with a reason under every estimate, never run into NaN outputs.
#[test]
fn picosecond_steps_where_the_time_does_not_advance_are_refused() {
    let fmu = Fmu::load_default();
    let start_time = 1e5;
    assert_eq!(start_time + 1e-12, start_time);
    each_case(0..=3, |estimate| {
        let setup = Setup {
            acceleration_estimate: estimate,
            start_time,
            ..Setup::exact(DAMPED)
        };
        let label = format!("t = 1e5 s, h = 1e-12 s, accelerationEstimate = {estimate}");
        let mut run = Run::start(&fmu, &label, setup);
        run.set([0.0, 0.0, -1e-3, 0.0], None).unwrap();
        let refused = run
            .step(1e-12)
            .expect_err("a step that does not advance the time must be refused");
        assert!(
            refused.contains("does not advance the time"),
            "{label}: {refused}"
        );
    });
}

/// A 1000 s step with the default maxSubstepSize (1e-4 s) would want 1e7 substeps;
/// maxSubstepCount (default 1000) caps them, so the contact is integrated in substeps of 1 s. The
/// step integral stays accurate for smooth motion: checked against closed forms.
#[test]
fn communication_step_of_1000_s_with_the_default_substep_limits() {
    let fmu = Fmu::load_default();
    let h = 1e3;
    // A dip 0.01 m deep around t = 500 s, 200 s long.
    let (a, t_star, depth) = (2e-6, 500.0, 0.01);
    let dip = (0.5 * a * t_star * t_star - depth, -a * t_star, a);
    let dip_law = Law { n: 1.5, ..SPRING };
    let dip_depth = dip.1 * dip.1 / (2.0 * a) - dip.0;
    let dip_expect = |tolerance| Expect::Integral {
        impulse: dip_impulse(&dip_law, dip_depth, a),
        dissipated: 0.0,
        tolerance,
    };
    let cases = [
        OneStep::new(
            "1000 s in contact, n = 1.5, damped",
            Law { n: 1.5, ..DAMPED },
            (0.0, -1e-3, 0.0),
            h,
        )
        // Contact from the step start: the damper is bounded for the first 0.21 s, where the
        // loss grows like t^1.5, which the 3-point rule integrates to 5e-4 (4e-8 of E_loss).
        .expect_constant_velocity(1e-7),
        OneStep::new("1000 s, dip inside, n = 1.5", dip_law, dip, h).expect(dip_expect(1e-6)),
        // One substep for the whole 200 s contact: the 3-point Gauss rule on (1 - x^2)^1.5 is
        // 0.7 % off (1.1703 against 3 pi/8 = 1.1781), still finite and pushing.
        OneStep {
            max_substep_count: Some(1),
            ..OneStep::new(
                "1000 s, dip inside, n = 1.5, maxSubstepCount = 1",
                dip_law,
                dip,
                h,
            )
        }
        .expect(dip_expect(1e-2)),
    ];
    for case in cases {
        let (_, out) = case.run(&fmu, false);
        if let Expect::Integral { impulse, .. } = case.expect {
            eprintln!(
                "{}: f_mean = {:e}, relative error {:e}",
                case.name,
                out.f_mean,
                (out.f_mean - impulse / h) / (impulse / h)
            );
        }
    }
}
