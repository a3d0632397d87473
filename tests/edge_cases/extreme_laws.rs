//! Exponents far above 1, forces that overflow f64 (at the inputs, over a step, summed into
//! `E_loss`, in the partial derivatives), and reference forces of 0 and near the top of the f64
//! range.

use crate::common::{constant_velocity, each_case, Expect, OneStep, Run, Setup, DAMPED, H, SPRING};
use crate::support::gap_law::{assert_close, Law};
use crate::support::{Fmu, Status, VarType};
/// The exponent far above 1 with compressions from 0.02 to 1.6 `s_ref`, so that the force spans
/// from 1e-168 to 3e22 N, and a compression of 1e-6 `s_ref`, where `ratio^100` underflows to 0.
///
/// The FMU's 3-point Gauss rule per substep is exact for polynomials of degree 5; `x^n` with
/// n >= 10 is not one, so the default substeps (1e-4 s) leave a quadrature error that grows with
/// `n` times the relative change of the compression over a substep; substeps of 1e-6 s resolve it.
#[test]
fn exponents_far_above_one() {
    let fmu = Fmu::load_default();
    let base = Law {
        s_ref: 0.01,
        ..DAMPED
    };
    let mut cases = Vec::new();
    for n in [10.0, 50.0, 100.0] {
        let law = Law { n, ..base };
        for (s0, v0, default_tolerance) in [
            (-0.005, -0.5, 1e-6),
            (-0.015, -0.5, 1e-6),
            (-0.016, 0.5, 1e-6),
            // Lift-off after 0.4 ms: the 4 substeps see x^n fall by 0.75^n each, and the
            // 3-point rule is off by 4e-5 (n = 10), 14 % (n = 50) and 60 % (n = 100) of an
            // E_loss of 1.9e-20, 4.4e-89 and 2.5e-174 J.
            (-0.0002, 0.5, 1.0),
        ] {
            let step = OneStep::new(
                format!("n = {n}, s0 = {s0}, v0 = {v0}"),
                law,
                (s0, v0, 0.0),
                1e-3,
            );
            cases.push(step.clone().expect_constant_velocity(default_tolerance));
            cases.push(OneStep {
                name: format!("{}, substeps of 1e-6 s", step.name),
                ..step.substeps(1e-6).expect_constant_velocity(1e-9)
            });
        }
    }
    let underflow = Law {
        n: 100.0,
        s_ref: 1.0,
        ..DAMPED
    };
    cases.push(
        OneStep::new(
            "n = 100, ratio^n underflows",
            underflow,
            (-1e-6, -0.5, 0.0),
            1e-3,
        )
        .expect(Expect::AtMost {
            force: f64::MIN_POSITIVE,
            dissipated: f64::MIN_POSITIVE,
        }),
    );
    each_case(cases, |case| {
        let (run, out) = case.run(&fmu, false);
        if let Expect::Integral {
            impulse,
            dissipated,
            ..
        } = case.expect
        {
            eprintln!(
                "{}: f_mean = {:e} (relative error {:.1e}), E_loss = {:e} (relative error {:.1e})",
                case.name,
                out.f_mean,
                (out.f_mean * case.h - impulse) / impulse,
                run.e_loss,
                (run.e_loss - dissipated) / dissipated
            );
        }
    });
}

/// Settings where the force overflows f64 (`|f_c| > 1.8e308`), at the inputs or during the step:
/// the FMU must refuse with fmi2Error and a message, or return finite values; never fmi2OK with
/// an infinite or NaN output.
#[test]
fn overflowing_forces_are_refused_or_finite_never_silent() {
    let fmu = Fmu::load_default();
    let stiff = Law {
        c: 1e4,
        d: 30.0,
        s_ref: 1e-3,
        ..SPRING
    };
    let cases: [(&str, Law, f64, f64); 7] = [
        // 10 N * 2000^100 = 1.3e331.
        (
            "n = 100, 2000 s_ref deep",
            Law { n: 100.0, ..stiff },
            -2.0,
            0.0,
        ),
        (
            "n = 1000, 3 s_ref deep",
            Law { n: 1000.0, ..stiff },
            -3e-3,
            0.0,
        ),
        // Finite at the inputs (1e301 N), beyond f64 within the step (2000^100).
        (
            "n = 100, overflowing within the step",
            Law { n: 100.0, ..stiff },
            -1.0,
            -1e3,
        ),
        // F = 0 and ratio^n = inf: the law is 0 * inf.
        (
            "c = 0, f_ref = 0, n = 1000, 3 s_ref deep",
            Law {
                c: 0.0,
                n: 1000.0,
                ..stiff
            },
            -3e-3,
            0.0,
        ),
        (
            "f_ref = 1e300, 1e9 s_ref deep",
            Law {
                f_ref: 1e300,
                s_ref: 1.0,
                ..stiff
            },
            -1e9,
            0.0,
        ),
        // Both parts finite (-1.2e308 each), their sum not: f = 2 f_c approaching.
        (
            "f_ref = 1.2e308, bounded damper doubles f_c",
            Law {
                f_ref: 1.2e308,
                d: f64::MAX,
                s_ref: 1.0,
                ..stiff
            },
            -1.0,
            -1.0,
        ),
        // s_ref = 1e-320 (denormal): ratio = inf although F*ratio = c*x = 1e2 N for n = 1.
        (
            "s_ref = 1e-320, n = 1",
            Law {
                s_ref: 1e-320,
                ..stiff
            },
            -1e-2,
            0.0,
        ),
    ];
    each_case(cases, |(label, law, s0, v0)| {
        let mut run = Run::start(&fmu, label, Setup::exact(law));
        let what = match run.set([0.0, 0.0, s0, v0], None) {
            Err(message) => format!("inputs refused: {message}"),
            Ok(_) => match run.step(1e-3) {
                Err(message) => format!("step refused: {message}"),
                Ok(out) => format!("finite: f_mean = {:e}", out.f_mean),
            },
        };
        eprintln!("{label}: {what}");
    });
}

/// A mean force of half the largest double held for 4 s: the impulse overflows although the mean
/// would not. The step tests the integrals before dividing by `h`, and for an `h` that overflows
/// that bound too, an infinite impulse must still be refused rather than handed out as an
/// infinite `f_mean`. Half the step length keeps the impulse finite, and that step is taken.
#[test]
fn an_impulse_that_overflows_over_a_long_step_is_refused() {
    let fmu = Fmu::load_default();
    let law = Law {
        f_ref: f64::MAX,
        ..SPRING
    };
    for (h, finite) in [(4.0, false), (1.5, true)] {
        let label = format!("f = -f64::MAX/2 held over h = {h} s");
        let mut run = Run::start(&fmu, &label, Setup::exact(law));
        run.set([0.0, 0.0, -0.5, 0.0], None)
            .unwrap_or_else(|m| panic!("{label}: inputs refused: {m}"));
        match run.step(h) {
            Ok(out) => {
                assert!(finite, "{label}: taken, f_mean = {:e}", out.f_mean);
                let expected = -0.5 * f64::MAX;
                assert!(
                    (out.f_mean - expected).abs() <= 1e-12 * expected.abs(),
                    "{label}: f_mean = {:e}",
                    out.f_mean
                );
            }
            Err(message) => {
                assert!(!finite, "{label}: refused: {message}");
                assert!(message.contains("non-finite"), "{label}: {message}");
            }
        }
    }
}

/// `f_ref = 0` selects `F = c*s_ref`: the same run with `f_ref = c*s_ref` set explicitly gives
/// bit-identical outputs. `c = 0` with `f_ref = 0` is no spring, and so no damper either.
#[test]
fn zero_reference_force_is_c_times_s_ref() {
    let fmu = Fmu::load_default();
    // c*s_ref = 1e4 * 2^-7 = 78.125 exactly.
    let implicit = Law {
        n: 1.5,
        s_ref: 1.0 / 128.0,
        ..DAMPED
    };
    let explicit = Law {
        f_ref: implicit.c * implicit.s_ref,
        ..implicit
    };
    let mut rows = Vec::new();
    for law in [implicit, explicit] {
        let setup = Setup {
            acceleration_estimate: 3,
            ..Setup::exact(law)
        };
        let mut run = Run::start(&fmu, &format!("f_ref = {}", law.f_ref), setup);
        let mut row = Vec::new();
        // In and out of contact: s_rel = 0.002 - t + 5 t^2.
        for k in 0..200 {
            let t = f64::from(k) * 1e-3;
            run.set([0.0, 0.0, 0.002 - t + 5.0 * t * t, -1.0 + 10.0 * t], None)
                .unwrap();
            let out = run.step(1e-3).unwrap();
            row.push(
                [out.f, out.f_mean, out.e_loss, out.f_c, out.f_d, out.q_flow].map(f64::to_bits),
            );
        }
        rows.push(row);
    }
    assert!(
        rows[0].iter().any(|r| f64::from_bits(r[1]) < 0.0),
        "no contact"
    );
    assert_eq!(rows[0], rows[1]);

    let no_spring = Law {
        c: 0.0,
        f_ref: 0.0,
        ..DAMPED
    };
    let (mut run, out) = OneStep::new("c = 0, f_ref = 0", no_spring, (-0.01, -1.0, 0.0), H)
        .expect_constant_velocity(0.0)
        .run(&fmu, false);
    assert!(out.contact);
    assert_eq!(out.f, 0.0);
    let out = run.step(H).unwrap();
    assert_eq!((out.f_mean, out.e_loss), (0.0, 0.0));
}

/// Reference forces near the top of the f64 range, with compressions that keep the force finite.
#[test]
fn huge_reference_forces() {
    let fmu = Fmu::load_default();
    let huge = Law {
        f_ref: 1e300,
        ..SPRING
    };
    let cases = [
        OneStep::new("f_ref = 1e300", huge, (-1e-3, -1.0, 0.0), 1e-3)
            .expect_constant_velocity(1e-13),
        OneStep::new(
            "f_ref = 1e300, d = 1e300 (damper bounded throughout)",
            Law { d: 1e300, ..huge },
            (-1e-3, -1.0, 0.0),
            1e-3,
        )
        .expect_constant_velocity(1e-12),
        OneStep::new(
            "f_ref = 1e300, d = 1e300, leaving",
            Law { d: 1e300, ..huge },
            (-1e-3, 0.5, 0.0),
            1e-3,
        )
        .expect_constant_velocity(1e-12),
        OneStep::new(
            "f_ref = 1e300, n = 1.5, s_ref = 1e-2",
            Law {
                n: 1.5,
                s_ref: 1e-2,
                d: 30.0,
                ..huge
            },
            (-0.02, -1.0, 0.0),
            1e-3,
        )
        .expect_constant_velocity(1e-6),
        OneStep::new(
            "f_ref = f64::MAX at half s_ref",
            Law {
                f_ref: f64::MAX,
                ..SPRING
            },
            (-0.5, -1e-3, 0.0),
            1e-3,
        )
        .expect_constant_velocity(1e-13),
    ];
    for case in cases {
        let (_, out) = case.run(&fmu, false);
        eprintln!("{}: f_mean = {:e}", case.name, out.f_mean);
    }
}

/// Each step alone is finite (5.95e307 J dissipated, |f| <= 2.1e307 N), but four of them add up
/// to more than f64 holds: `E_loss` must not turn into inf under fmi2OK.
#[test]
fn dissipated_energy_beyond_f64_is_refused_or_finite() {
    let fmu = Fmu::load_default();
    let law = Law {
        f_ref: 1e306,
        d: 1e306,
        ..SPRING
    };
    let (_, per_step) = constant_velocity(&law, -1.0, -10.0, 1.0);
    assert!(per_step.is_finite() && 4.0 * per_step > f64::MAX);
    let mut run = Run::start(&fmu, "E_loss overflow", Setup::exact(law));
    for k in 0..4 {
        // The master moves the flanges back each step (the FMU does not check the positions
        // against the velocities).
        if let Err(message) = run.set([0.0, 0.0, -1.0, -10.0], None) {
            eprintln!("step {k}: inputs refused: {message}");
            return;
        }
        match run.step(1.0) {
            Ok(out) => assert_close(
                out.e_loss,
                per_step * f64::from(k + 1),
                1e-12,
                &format!("E_loss after step {k}"),
            ),
            Err(message) => {
                eprintln!("step {k}: refused: {message}");
                return;
            }
        }
    }
}

/// Near the overflow of the force its slope overflows first: `f` = 1.2e307 N but `df/ds_rel`
/// = F*n*ratio^99/s_ref = 1e309. The partial derivatives the FMU hands out must be finite when it
/// says fmi2OK.
#[test]
fn derivatives_near_overflow_are_refused_or_finite() {
    let fmu = Fmu::load_default();
    let law = Law {
        n: 100.0,
        s_ref: 1e-3,
        ..DAMPED
    };
    let mut run = Run::start(&fmu, "slope overflow", Setup::exact(law));
    let at = run.set([0.0, 0.0, -1.15, -1.0], None).unwrap();
    assert!(at.f.is_finite() && at.f < -1e307, "{at:?}");
    let f = run.inst.vr("f", VarType::Real);
    let f_c = run.inst.vr("f_c", VarType::Real);
    let s_b = run.inst.vr("flange_b.s", VarType::Real);
    let (status, partials) = run
        .inst
        .get_directional_derivative(&[f, f_c], &[s_b], &[1.0]);
    if status == Status::Ok {
        assert!(
            partials.iter().all(|x| x.is_finite()),
            "fmi2GetDirectionalDerivative returned fmi2OK with d(f, f_c)/d(flange_b.s) = {partials:?}"
        );
    } else {
        run.refusal(status, "fmi2GetDirectionalDerivative");
    }
    // The output derivative is evaluated at the end of a step: this one stays finite in f. A
    // refusal above left the instance in the Error state, so a fresh one takes the step.
    let mut run = Run::start(&fmu, "slope overflow, output derivative", Setup::exact(law));
    run.set([0.0, 0.0, -1.15, -1.0], None).unwrap();
    let out = run.step(1e-6).unwrap();
    assert!(out.f < -1e307);
    let (status, derivative) = run.inst.get_real_output_derivatives(&[f], &[1]);
    if status == Status::Ok {
        assert!(
            derivative[0].is_finite(),
            "fmi2GetRealOutputDerivatives returned fmi2OK with df/dt = {}",
            derivative[0]
        );
    } else {
        run.refusal(status, "fmi2GetRealOutputDerivatives");
    }
}
