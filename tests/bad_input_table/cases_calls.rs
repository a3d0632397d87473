//! The cases of values beyond the numeric range of the law, of inputs, of the state machine, of the
//! arguments of `fmi2SetupExperiment` and `fmi2DoStep`, and of input, output and directional
//! derivatives.

use crate::harness::*;
use crate::support::{ok, vr, Instance};
use elastogap::variables::Var;
use fmi_sys::fmi2;

/// Initialized with parameters that each keep their rule, and a compression at which the spring
/// force exceeds the largest double: c*s_ref*10 with c = 1e308.
fn overflowing_force(inst: &mut Instance) {
    ok(set(inst, Var::C, 1e308));
    initializing(inst);
    ok(inst.exit_initialization_mode());
    ok(set(inst, Var::FlangeBS, -10.0));
}

/// Initialized so that the force is finite (-f_ref = -1e300 at a compression of s_ref) but its
/// slope n*f_ref/s_ref = 1e310 is not; the flanges approach each other.
fn overflowing_stiffness(inst: &mut Instance) {
    ok(set(inst, Var::FRef, 1e300));
    ok(set(inst, Var::SRef, 1e-10));
    initializing(inst);
    ok(inst.exit_initialization_mode());
    ok(set(inst, Var::FlangeBS, -1e-10));
    ok(set(inst, Var::FlangeBV, -1.0));
}

/// These cases by table key.
pub const CASES: &[(&str, Case)] = &[
    // ---- values beyond the numeric range of the law
    ("non-finite-force", |fmu| {
        call(fmu, overflowing_force, |i| i.do_step(0.0, STEP, false))
    }),
    ("non-finite-output", |fmu| {
        call(fmu, overflowing_force, |i| i.get_real(&[vr(Var::F)]).0)
    }),
    ("non-finite-directional-derivative", |fmu| {
        call(fmu, overflowing_stiffness, |i| {
            i.get_directional_derivative(&[vr(Var::F)], &[vr(Var::FlangeBS)], &[1.0])
                .0
        })
    }),
    ("non-finite-output-derivative", |fmu| {
        call(fmu, overflowing_stiffness, |i| {
            i.get_real_output_derivatives(&[vr(Var::F)], &[1]).0
        })
    }),
    ("step-does-not-advance", |fmu| {
        call(fmu, running, |i| i.do_step(STEP, 1e-20, false))
    }),
    // ---- inputs
    ("nan-input", |fmu| {
        call(fmu, running, |i| set(i, Var::FlangeBS, f64::NAN))
    }),
    ("infinite-input", |fmu| {
        call(fmu, instantiated, |i| {
            set(i, Var::FlangeAV, f64::NEG_INFINITY)
        })
    }),
    // ---- the state machine
    ("step-before-initialization", |fmu| {
        call(fmu, instantiated, |i| i.do_step(0.0, STEP, false))
    }),
    ("step-in-initialization-mode", |fmu| {
        call(fmu, initializing, |i| i.do_step(0.0, STEP, false))
    }),
    ("read-before-initialization", |fmu| {
        call(fmu, instantiated, |i| i.get_real(&[vr(Var::F)]).0)
    }),
    ("exit-without-enter", |fmu| {
        call(fmu, instantiated, |i| i.exit_initialization_mode())
    }),
    ("setup-after-initialization", |fmu| {
        call(fmu, running, |i| i.setup_experiment(None, 0.0, None))
    }),
    ("step-after-terminate", |fmu| {
        call(fmu, terminated, |i| i.do_step(STEP, STEP, false))
    }),
    ("set-after-terminate", |fmu| {
        call(fmu, terminated, |i| set(i, Var::FlangeAS, 0.0))
    }),
    ("terminate-before-initialization", |fmu| {
        call(fmu, instantiated, |i| i.terminate())
    }),
    ("call-in-error-state", |fmu| {
        call(fmu, failed, |i| i.do_step(STEP, STEP, false))
    }),
    ("cancel-step", |fmu| call(fmu, running, |i| i.cancel_step())),
    ("status-before-initialization", |fmu| {
        call(fmu, instantiated, |i| {
            i.get_real_status(fmi2::fmi2StatusKind_fmi2LastSuccessfulTime)
                .0
        })
    }),
    // ---- fmi2SetupExperiment and fmi2DoStep arguments
    ("stop-before-start", |fmu| {
        call(fmu, instantiated, |i| {
            i.setup_experiment(None, 0.0, Some(-1.0))
        })
    }),
    ("non-finite-start-time", |fmu| {
        call(fmu, instantiated, |i| {
            i.setup_experiment(None, f64::NAN, None)
        })
    }),
    ("zero-step-size", |fmu| {
        call(fmu, running, |i| i.do_step(STEP, 0.0, false))
    }),
    ("negative-step-size", |fmu| {
        call(fmu, running, |i| i.do_step(STEP, -STEP, false))
    }),
    ("nan-step-size", |fmu| {
        call(fmu, running, |i| i.do_step(STEP, f64::NAN, false))
    }),
    ("wrong-communication-point", |fmu| {
        call(fmu, running, |i| i.do_step(0.5, STEP, false))
    }),
    ("rounded-communication-point", |fmu| {
        call(fmu, running, |i| {
            i.do_step(STEP * (1.0 + 1e-12), STEP, false)
        })
    }),
    ("no-set-fmu-state-prior", |fmu| {
        call(fmu, running, |i| {
            let mut state = own_state(i);
            ok(i.do_step(STEP, STEP, true));
            let status = i.set_fmu_state(&state);
            ok(i.free_fmu_state(&mut state));
            status
        })
    }),
    // ---- input and output derivatives, directional derivatives
    ("input-derivative-order", |fmu| {
        call(fmu, running, |i| {
            i.set_real_input_derivatives(&[vr(Var::FlangeBV)], &[2], &[1.0])
        })
    }),
    ("input-derivative-of-non-input", |fmu| {
        call(fmu, running, |i| {
            i.set_real_input_derivatives(&[vr(Var::F)], &[1], &[1.0])
        })
    }),
    ("non-finite-input-derivative", |fmu| {
        call(fmu, running, |i| {
            i.set_real_input_derivatives(&[vr(Var::FlangeAV)], &[1], &[f64::NAN])
        })
    }),
    ("output-derivative-order", |fmu| {
        call(fmu, running, |i| {
            i.get_real_output_derivatives(&[vr(Var::SRel)], &[2]).0
        })
    }),
    ("output-derivative-of-non-output", |fmu| {
        call(fmu, running, |i| {
            i.get_real_output_derivatives(&[vr(Var::FlangeBS)], &[1]).0
        })
    }),
    ("directional-derivative-known", |fmu| {
        call(fmu, running, |i| {
            i.get_directional_derivative(&[vr(Var::F)], &[vr(Var::C)], &[1.0])
                .0
        })
    }),
    ("directional-derivative-unknown", |fmu| {
        call(fmu, running, |i| {
            i.get_directional_derivative(&[vr(Var::FlangeAS)], &[vr(Var::FlangeBS)], &[1.0])
                .0
        })
    }),
    ("directional-derivative-indicator", |fmu| {
        call(fmu, running, |i| {
            let unknowns = [vr(Var::IndicatorContact)];
            i.get_directional_derivative(&unknowns, &[vr(Var::FlangeBS)], &[1.0])
                .0
        })
    }),
    ("directional-derivative-seed", |fmu| {
        call(fmu, running, |i| {
            i.get_directional_derivative(&[vr(Var::F)], &[vr(Var::FlangeBS)], &[f64::INFINITY])
                .0
        })
    }),
];
