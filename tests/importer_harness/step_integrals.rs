//! Directional derivatives against central differences; input and output derivatives and the step
//! integral against an independent quadrature; the heat port.

use std::sync::Arc;

use crate::common::{
    expect_error, initialize, ok, real_vrs, record, set, set_inputs, vr, Oscillation,
    OSCILLATION_SETTINGS,
};
use crate::support;
use crate::support::gap_law::{assert_close, reference_integral, Law};
use crate::support::{Fmu, Instance, VarType, INPUTS};

// ---------------------------------------------------------------------------------------------
// Directional derivatives
// ---------------------------------------------------------------------------------------------

/// The unknowns of the directional-derivative checks.
const DIRECT_FEEDTHROUGH: [&str; 6] = ["f", "s_rel", "v_rel", "lossPower", "f_c", "f_d"];

#[test]
fn directional_derivatives_match_central_differences() {
    let fmu = Fmu::load_default();
    let laws = [
        Law {
            c: 1e4,
            d: 30.0,
            s_rel0: 0.001,
            n: 1.5,
            s_ref: 0.01,
            f_ref: 0.0,
        },
        Law {
            c: 1.0,
            d: 5.0,
            s_rel0: -0.02,
            n: 1.0,
            s_ref: 0.5,
            f_ref: 80.0,
        },
        Law {
            c: 2e3,
            d: 0.0,
            s_rel0: 0.0,
            n: 2.5,
            s_ref: 0.1,
            f_ref: 0.0,
        },
    ];
    for (l, law) in laws.iter().enumerate() {
        let mut inst = Instance::new(&fmu, &format!("dd-{l}"));
        initialize(&mut inst, &law.settings());
        set_inputs(&mut inst, [0.0, 0.0, 0.5, 0.0]);
        ok(inst.do_step(0.0, 0.01, false));
        let (s_a, v_a) = (0.002, 0.1);
        let reference = law.reference_force();
        // Relative positions and velocities: out of contact, in contact with the linear damper
        // (both directions), with the damper bound acting from above and from below.
        let compression = 0.4 * law.s_ref;
        let s_in = law.s_rel0 - compression;
        let f_c = reference * 0.4f64.powf(law.n);
        let v_linear = if law.d > 0.0 { 0.3 * f_c / law.d } else { 0.7 };
        let v_bound = if law.d > 0.0 { 3.0 * f_c / law.d } else { 2.0 };
        let mut points = vec![
            ("out of contact", law.s_rel0 + 0.5 * law.s_ref, -0.3),
            ("contact, linear damper, closing", s_in, -v_linear),
            ("contact, linear damper, opening", s_in, v_linear),
        ];
        if law.d > 0.0 {
            points.push(("contact, damper bound from above", s_in, v_bound));
            points.push(("contact, damper bound from below", s_in, -v_bound));
        }
        for (label, s_rel, v_rel) in points {
            let point = [s_a, v_a, s_a + s_rel, v_a + v_rel];
            check_directional_derivatives(&mut inst, law, point, &format!("law {l}, {label}"));
        }
        let logs = inst.logs();
        assert!(logs.is_empty(), "{logs:#?}");
    }
}

fn check_directional_derivatives(inst: &mut Instance, law: &Law, point: [f64; 4], label: &str) {
    let unknowns = real_vrs(inst, &DIRECT_FEEDTHROUGH);
    let knowns = real_vrs(inst, &INPUTS);
    ok(inst.set_real(&knowns, &point));
    let (status, base) = inst.get_real(&unknowns);
    ok(status);

    // The outputs are the law's.
    let (s_rel, v_rel) = (point[2] - point[0], point[3] - point[1]);
    let forces = law.forces(s_rel, v_rel);
    let expected = [
        forces.f,
        s_rel,
        v_rel,
        forces.loss_power,
        forces.f_c,
        forces.f_d,
    ];
    for ((name, value), wanted) in DIRECT_FEEDTHROUGH.iter().zip(&base).zip(expected) {
        assert!(
            (value - wanted).abs() <= 1e-13 * wanted.abs().max(1e-300),
            "{label}: {name} = {value} but the law gives {wanted}"
        );
    }
    assert_eq!(inst.boolean("contact"), forces.contact, "{label}");

    let mut columns = Vec::new();
    for (j, known) in knowns.iter().enumerate() {
        let (status, derivative) = inst.get_directional_derivative(&unknowns, &[*known], &[1.0]);
        ok(status);
        let delta = 1e-7;
        let mut shifted = point;
        shifted[j] = point[j] + delta;
        ok(inst.set_real(&knowns, &shifted));
        let (_, plus) = inst.get_real(&unknowns);
        shifted[j] = point[j] - delta;
        ok(inst.set_real(&knowns, &shifted));
        let (_, minus) = inst.get_real(&unknowns);
        ok(inst.set_real(&knowns, &point));
        for (i, name) in DIRECT_FEEDTHROUGH.iter().enumerate() {
            let difference = (plus[i] - minus[i]) / (2.0 * delta);
            let scale = derivative[i].abs().max(difference.abs());
            assert!(
                (derivative[i] - difference).abs() <= 1e-6 * scale + 1e-6,
                "{label}: d{name}/d{} = {} but central differences give {difference}",
                INPUTS[j],
                derivative[i]
            );
        }
        columns.push(derivative);
    }
    // Several knowns at once: the seeds combine the columns linearly.
    let seed = [0.3, -1.2, 2.0, 0.7];
    let (status, combined) = inst.get_directional_derivative(&unknowns, &knowns, &seed);
    ok(status);
    for (i, name) in DIRECT_FEEDTHROUGH.iter().enumerate() {
        let sum: f64 = columns.iter().zip(seed).map(|(c, s)| c[i] * s).sum();
        assert!(
            (combined[i] - sum).abs() <= 1e-12 * sum.abs().max(1.0),
            "{label}: seeded d{name} = {} vs {sum}",
            combined[i]
        );
    }
    // No knowns, no change.
    let (status, none) = inst.get_directional_derivative(&unknowns, &[], &[]);
    ok(status);
    assert!(none.iter().all(|x| *x == 0.0));
}

// ---------------------------------------------------------------------------------------------
// Input and output derivatives; the step integral against an independent quadrature
// ---------------------------------------------------------------------------------------------

/// One step from a fresh instance: flange_a at `(s_a, v_a)` accelerating with `a_a`, flange_b at
/// `(s_a + s0, v_a + v0)`; the relative acceleration `a` supplied as the first derivative of the
/// velocities (if `supplied`). Returns the instance after the step.
#[derive(Clone, Copy, Debug)]
struct OneStep {
    law: Law,
    s0: f64,
    v0: f64,
    a: f64,
    h: f64,
    /// `maxSubstepSize` (and a `maxSubstepCount` that allows it), if not the default.
    substep: Option<f64>,
}

impl OneStep {
    fn run(
        &self,
        fmu: &Arc<Fmu>,
        name: &str,
        flange_a: (f64, f64, f64),
        supply: Supply,
    ) -> Instance {
        let mut inst = Instance::new(fmu, name);
        let mut settings = self.law.settings().to_vec();
        settings.push(("useHeatPort", 1.0));
        if let Some(size) = self.substep {
            settings.push(("maxSubstepSize", size));
            settings.push(("maxSubstepCount", 1e6));
        }
        initialize(&mut inst, &settings);
        let (s_a, v_a, a_a) = flange_a;
        set_inputs(&mut inst, [s_a, v_a, s_a + self.s0, v_a + self.v0]);
        let references = real_vrs(&inst, &INPUTS);
        match supply {
            Supply::Nothing => {}
            Supply::VelocityOrder1 => ok(inst.set_real_input_derivatives(
                &[references[1], references[3]],
                &[1, 1],
                &[a_a, a_a + self.a],
            )),
            Supply::PositionOrder2 => ok(inst.set_real_input_derivatives(
                &[references[0], references[2]],
                &[2, 2],
                &[a_a, a_a + self.a],
            )),
        }
        ok(inst.do_step(0.0, self.h, false));
        inst
    }

    fn check(&self, inst: &mut Instance, a: f64, tolerance: f64, label: &str) {
        let (impulse, dissipated) = reference_integral(&self.law, self.s0, self.v0, a, self.h);
        // Without a mass, a contact that begins in the step is probed: the step holds
        // PROBE_SHARE of the integral along the motion (docs/coupling.md).
        let share = if self.s0 >= self.law.s_rel0 {
            support::PROBE_SHARE
        } else {
            1.0
        };
        let (impulse, dissipated) = (share * impulse, share * dissipated);
        assert_close(
            inst.real("f_mean"),
            impulse / self.h,
            tolerance,
            &format!("{label}: f_mean"),
        );
        assert_close(
            inst.real("E_loss"),
            dissipated,
            tolerance,
            &format!("{label}: E_loss"),
        );
        assert_close(
            inst.real("heatPort.Q_flow"),
            -dissipated / self.h,
            tolerance,
            &format!("{label}: heatPort.Q_flow"),
        );
        let (s_end, v_end) = (
            self.s0 + self.v0 * self.h + 0.5 * a * self.h * self.h,
            self.v0 + a * self.h,
        );
        assert!(
            (inst.real("s_rel") - s_end).abs() <= 1e-15 + 1e-12 * s_end.abs(),
            "{label}"
        );
        assert!(
            (inst.real("v_rel") - v_end).abs() <= 1e-15 + 1e-12 * v_end.abs(),
            "{label}"
        );
    }
}

#[derive(Clone, Copy, Debug)]
enum Supply {
    Nothing,
    VelocityOrder1,
    PositionOrder2,
}

const STIFF_LAW: Law = Law {
    c: 1e4,
    d: 30.0,
    s_rel0: 0.0,
    n: 1.5,
    s_ref: 0.01,
    f_ref: 0.0,
};

#[test]
fn input_derivatives_give_the_step_integral_along_the_accelerated_motion() {
    let fmu = Fmu::load_default();
    // In contact all through the step, linear damper.
    let in_contact = OneStep {
        law: STIFF_LAW,
        s0: -0.004,
        v0: -0.2,
        a: 150.0,
        h: 1e-3,
        substep: None,
    };
    let mut with = in_contact.run(&fmu, "supplied", (0.0, 0.0, 0.0), Supply::VelocityOrder1);
    in_contact.check(&mut with, in_contact.a, 1e-9, "in contact, a supplied");
    let mut without = in_contact.run(&fmu, "estimated", (0.0, 0.0, 0.0), Supply::Nothing);
    in_contact.check(
        &mut without,
        0.0,
        1e-9,
        "in contact, first step without derivatives",
    );
    let (f_with, f_without) = (with.real("f_mean"), without.real("f_mean"));
    assert!(
        (f_with - f_without).abs() > 1e-3 * f_with.abs(),
        "the derivative must matter: {f_with} vs {f_without}"
    );
    // Order 2 of the positions is the same information.
    let mut by_position = in_contact.run(&fmu, "order-2", (0.0, 0.0, 0.0), Supply::PositionOrder2);
    assert_eq!(record(&mut by_position), record(&mut with));
    // Both flanges moving and accelerating: only the relative motion counts.
    let mut moving = in_contact.run(&fmu, "moving", (0.3, 0.1, -40.0), Supply::VelocityOrder1);
    in_contact.check(&mut moving, in_contact.a, 1e-9, "both flanges moving");

    // Output derivatives at the end of the step.
    let (s_rel, v_rel, f) = (
        vr(&with, "s_rel", VarType::Real),
        vr(&with, "v_rel", VarType::Real),
        vr(&with, "f", VarType::Real),
    );
    let (e_loss, loss_power) = (
        vr(&with, "E_loss", VarType::Real),
        vr(&with, "lossPower", VarType::Real),
    );
    let (status, derivatives) =
        with.get_real_output_derivatives(&[s_rel, v_rel, f, e_loss], &[1, 1, 1, 1]);
    ok(status);
    let (status, values) = with.get_real(&[v_rel, loss_power, s_rel]);
    ok(status);
    assert_eq!(
        derivatives[0].to_bits(),
        values[0].to_bits(),
        "d s_rel/dt = v_rel"
    );
    assert_eq!(derivatives[1], in_contact.a, "d v_rel/dt = a");
    assert_eq!(derivatives[3], values[1], "d E_loss/dt = lossPower");
    let law = &in_contact.law;
    let compression = (law.s_rel0 - values[2]) / law.s_ref;
    let df_dt = law.c * law.s_ref * law.n * compression.powf(law.n - 1.0) * values[0] / law.s_ref
        + law.d * in_contact.a;
    assert_close(derivatives[2], df_dt, 1e-12, "d f/dt");
    let status = with.get_real_output_derivatives(&[s_rel], &[2]).0;
    expect_error(&with, status, &["order 2 of s_rel is not available"]);

    // The damper bound switches off inside the step.
    let bound_switch = OneStep {
        law: Law {
            d: 300.0,
            ..STIFF_LAW
        },
        ..in_contact
    };
    let mut inst = bound_switch.run(
        &fmu,
        "bound-switch",
        (0.0, 0.0, 0.0),
        Supply::VelocityOrder1,
    );
    bound_switch.check(&mut inst, bound_switch.a, 1e-9, "damper bound switching");
}

#[test]
fn step_integral_across_contact_start_and_end() {
    let fmu = Fmu::load_default();
    // Touch-down inside the step with the linear spring.
    let touch_down = OneStep {
        law: Law {
            n: 1.0,
            ..STIFF_LAW
        },
        s0: 3e-4,
        v0: -0.5,
        a: 40.0,
        h: 1e-3,
        substep: None,
    };
    let mut inst = touch_down.run(&fmu, "touch-down", (0.0, 0.0, 0.0), Supply::VelocityOrder1);
    touch_down.check(&mut inst, touch_down.a, 1e-9, "touch-down, n = 1");
    let logs = inst.logs();
    assert!(logs.is_empty(), "loggingOn = 0: {logs:#?}");

    // Touch-down and lift-off inside one step, maximum compression on a substep boundary.
    let in_and_out = OneStep {
        law: Law {
            n: 1.0,
            ..STIFF_LAW
        },
        s0: 2e-4,
        v0: -0.5,
        a: 600.0,
        h: 2e-3,
        substep: None,
    };
    let mut inst = in_and_out.run(&fmu, "in-and-out", (0.0, 0.0, 0.0), Supply::VelocityOrder1);
    in_and_out.check(
        &mut inst,
        in_and_out.a,
        1e-9,
        "touch-down and lift-off, n = 1",
    );

    // With n = 1.5 the force grows like (t - t_touch)^1.5 after touch-down, which the fixed
    // quadrature of the substeps resolves to about 2e-4 with the default maxSubstepSize (1e-4 s)
    // over this short contact, and converging with order 2.5 as the substeps shrink.
    let in_and_out = OneStep {
        law: STIFF_LAW,
        ..in_and_out
    };
    let mut inst = in_and_out.run(
        &fmu,
        "n=1.5 default",
        (0.0, 0.0, 0.0),
        Supply::VelocityOrder1,
    );
    in_and_out.check(
        &mut inst,
        in_and_out.a,
        1e-3,
        "touch-down and lift-off, n = 1.5",
    );
    let fine = OneStep {
        substep: Some(1e-7),
        ..in_and_out
    };
    let mut inst = fine.run(&fmu, "n=1.5 fine", (0.0, 0.0, 0.0), Supply::VelocityOrder1);
    fine.check(
        &mut inst,
        fine.a,
        1e-9,
        "touch-down and lift-off, n = 1.5, substeps of 1e-7 s",
    );
}

/// In contact, where `v_rel` passes through 0 at the deepest compression, the damper leaves its
/// lower bound, is linear for a short time and reaches its upper bound (`f` from `2 f_c` to 0).
/// That window may lie inside one substep, away from the substep's start, middle and end, where no
/// sample sees it: both switches must still be found, or f_mean is off by per cent.
#[test]
fn damper_bound_switching_twice_inside_one_substep() {
    let fmu = Fmu::load_default();
    for (label, step) in [
        (
            "touch-down, deepest point inside a substep, n = 1",
            OneStep {
                law: Law {
                    n: 1.0,
                    ..STIFF_LAW
                },
                s0: 2e-4,
                v0: -0.5,
                a: 600.0,
                h: 9e-4,
                substep: None,
            },
        ),
        (
            "in contact all through, d = 3000, n = 1",
            OneStep {
                law: Law {
                    n: 1.0,
                    d: 3000.0,
                    ..STIFF_LAW
                },
                s0: -1e-5,
                v0: -0.052,
                a: 100.0,
                h: 1e-3,
                substep: None,
            },
        ),
    ] {
        let mut inst = step.run(&fmu, label, (0.0, 0.0, 0.0), Supply::VelocityOrder1);
        step.check(&mut inst, step.a, 1e-9, label);
    }
}

#[test]
fn supplied_derivatives_override_the_estimate_for_one_step_only() {
    let fmu = Fmu::load_default();
    let law = STIFF_LAW;
    let h = 1e-3;
    let mut settings = law.settings().to_vec();
    settings.push(("accelerationEstimate", 2.0));
    // The harness prescribes the motion (heldForce = None): the step is the law's integral
    // along it from the first contact step on.
    settings.push(("heldForce", 4.0));
    let mut inst = Instance::new(&fmu, "history");
    initialize(&mut inst, &settings);
    // A history whose estimate would be -300 m/s^2.
    let k0 = 5;
    for k in 0..k0 {
        let t = k as f64 * h;
        let v = -0.2 - 300.0 * (t - k0 as f64 * h);
        set_inputs(&mut inst, [0.0, 0.0, -0.004, v]);
        ok(inst.do_step(t, (k + 1) as f64 * h - t, false));
    }
    let t = k0 as f64 * h;
    let step = (k0 + 1) as f64 * h - t;
    let (s0, v0, a) = (-0.004, -0.2, 150.0);
    set_inputs(&mut inst, [0.0, 0.0, s0, v0]);
    let vb = vr(&inst, "flange_b.v", VarType::Real);
    ok(inst.set_real_input_derivatives(&[vb], &[1], &[a]));
    let e_before = inst.real("E_loss");
    ok(inst.do_step(t, step, false));
    let (impulse, dissipated) = reference_integral(&law, s0, v0, a, step);
    assert_close(
        inst.real("f_mean"),
        impulse / step,
        1e-9,
        "supplied over history",
    );
    assert_close(
        inst.real("E_loss") - e_before,
        dissipated,
        1e-9,
        "E_loss increment",
    );

    // accelerationEstimate = 0: without a new derivative the next step assumes no acceleration.
    ok(set(&mut inst, "accelerationEstimate", 0.0));
    let t = (k0 + 1) as f64 * h;
    let step = (k0 + 2) as f64 * h - t;
    let (s1, v1) = (-0.0041, -0.15);
    set_inputs(&mut inst, [0.0, 0.0, s1, v1]);
    ok(inst.do_step(t, step, false));
    let (impulse, _) = reference_integral(&law, s1, v1, 0.0, step);
    assert_close(
        inst.real("f_mean"),
        impulse / step,
        1e-9,
        "derivative not carried over",
    );
}

// ---------------------------------------------------------------------------------------------
// Heat port
// ---------------------------------------------------------------------------------------------

#[test]
fn heat_flow_is_the_negative_mean_dissipated_power() {
    let fmu = Fmu::load_default();
    let motion = Oscillation::DEFAULT;
    let h = 1e-3;
    for use_heat_port in [true, false] {
        let mut inst = Instance::new(&fmu, &format!("heat-port-{use_heat_port}"));
        let settings: Vec<(&str, f64)> = OSCILLATION_SETTINGS
            .iter()
            .map(|&(name, value)| {
                if name == "useHeatPort" {
                    (name, f64::from(u8::from(use_heat_port)))
                } else {
                    (name, value)
                }
            })
            .collect();
        initialize(&mut inst, &settings);
        assert_eq!(inst.boolean("useHeatPort"), use_heat_port);
        assert_eq!(inst.real("heatPort.Q_flow"), 0.0);
        let mut e_previous = inst.real("E_loss");
        assert_eq!(e_previous, 0.0);
        let mut flowing = 0;
        for k in 0..400 {
            let t = k as f64 * h;
            let step = (k + 1) as f64 * h - t;
            set_inputs(&mut inst, motion.inputs(t));
            ok(inst.do_step(t, step, k % 2 == 0));
            let (e, q) = (inst.real("E_loss"), inst.real("heatPort.Q_flow"));
            assert!(e >= e_previous, "E_loss is monotone");
            if use_heat_port {
                let expected = -(e - e_previous) / step;
                assert!(
                    (q - expected).abs() <= 1e-12 * (e / step) + 1e-300,
                    "step {k}: heatPort.Q_flow = {q} vs -(dE_loss)/h = {expected}"
                );
                if q < 0.0 {
                    flowing += 1;
                }
            } else {
                assert_eq!(q, 0.0, "useHeatPort = false: no heat flow");
            }
            e_previous = e;
        }
        assert!(e_previous > 0.0);
        if use_heat_port {
            assert!(flowing > 50, "{flowing} steps with heat flow");
        }
    }
}
