//! The cases of values beyond the numeric range of the law, of the state machine, of the
//! experiment's and the step's arguments, and of derivatives.

use std::sync::Arc;

use super::step;
use crate::harness::*;
use crate::support::fmi3::{Fmu3, Instance3};
use crate::support::{ok, vr, Status};
use elastogap::variables::Var;

/// Initialized with parameters that each keep their rule, and a compression at which the spring
/// force exceeds the largest double: c*s_ref*10 with c = 1e308.
fn overflowing_force(inst: &mut Instance3) {
    ok(set(inst, Var::C, 1e308));
    initializing(inst);
    ok(inst.exit_initialization_mode());
    ok(set(inst, Var::FlangeBS, -10.0));
}

/// Initialized so that the force is finite but its slope n*f_ref/s_ref = 1e310 is not.
fn overflowing_stiffness(inst: &mut Instance3) {
    ok(set(inst, Var::FRef, 1e300));
    ok(set(inst, Var::SRef, 1e-10));
    initializing(inst);
    ok(inst.exit_initialization_mode());
    ok(set(inst, Var::FlangeBS, -1e-10));
    ok(set(inst, Var::FlangeBV, -1.0));
}

fn directional_derivative(inst: &mut Instance3, unknown: Var, known: Var, seed: f64) -> Status {
    let (unknowns, knowns, seeds) = ([vr(unknown)], [vr(known)], [seed]);
    let mut sensitivity = [0.0];
    // SAFETY: arrays of one element each.
    Status::from(unsafe {
        inst.b().fmi3GetDirectionalDerivative(
            inst.instance,
            unknowns.as_ptr(),
            1,
            knowns.as_ptr(),
            1,
            seeds.as_ptr(),
            1,
            sensitivity.as_mut_ptr(),
            1,
        )
    })
}

fn output_derivative(inst: &mut Instance3, var: Var, order: i32) -> Status {
    let (references, orders) = ([vr(var)], [order]);
    let mut values = [0.0];
    // SAFETY: arrays of one element each.
    Status::from(unsafe {
        inst.b().fmi3GetOutputDerivatives(
            inst.instance,
            references.as_ptr(),
            1,
            orders.as_ptr(),
            values.as_mut_ptr(),
            1,
        )
    })
}

/// A step into contact (touch-down at t = 0.005 inside a step of 0.01) of an instance made with
/// the intermediate-update callback and without early return; `prepare` sets up what the callback
/// does. Problems: the step returned early, or the callback never came.
fn step_into_contact_with_callback(
    fmu: &Arc<Fmu3>,
    prepare: fn(&mut crate::support::fmi3::Seen),
) -> (Instance3, crate::support::fmi3::StepOutcome, Vec<String>) {
    let mut inst = fresh_with(fmu, |make| make.intermediate_update = true);
    ok(set(&mut inst, Var::C, 1e4));
    initializing(&mut inst);
    ok(inst.exit_initialization_mode());
    ok(set(&mut inst, Var::FlangeBS, 5e-4));
    ok(set(&mut inst, Var::FlangeBV, -0.1));
    take_logs(&inst);
    prepare(&mut inst.seen());
    let outcome = inst.do_step(0.0, STEP);
    let mut problems = Vec::new();
    if outcome.early_return || outcome.last_successful_time != STEP {
        problems.push(format!(
            "returned early where early return was not allowed: {outcome:?}"
        ));
    }
    let seen = inst.seen().intermediate.clone();
    if seen.is_empty() {
        problems.push("the intermediate-update callback never came at the touch-down".into());
    }
    if seen.iter().any(|(_, can_return_early)| *can_return_early) {
        problems.push(format!(
            "the callback was offered canReturnEarly = true without early return: {seen:?}"
        ));
    }
    (inst, outcome, problems)
}

/// These cases by key.
pub const CASES: &[(&str, Case)] = &[
    // ---- values beyond the numeric range of the law
    ("non-finite-force", |fmu| {
        call(fmu, overflowing_force, |i| step(i, 0.0, STEP))
    }),
    ("non-finite-output", |fmu| {
        call(fmu, overflowing_force, |i| get_floats(i, &[vr(Var::F)]).0)
    }),
    ("non-finite-directional-derivative", |fmu| {
        call(fmu, overflowing_stiffness, |i| {
            directional_derivative(i, Var::F, Var::FlangeBS, 1.0)
        })
    }),
    ("non-finite-output-derivative", |fmu| {
        call(fmu, overflowing_stiffness, |i| {
            output_derivative(i, Var::F, 1)
        })
    }),
    ("step-does-not-advance", |fmu| {
        call(fmu, running, |i| step(i, STEP, 1e-20))
    }),
    // ---- the state machine
    ("step-before-initialization", |fmu| {
        call(fmu, instantiated, |i| step(i, 0.0, STEP))
    }),
    ("step-in-initialization-mode", |fmu| {
        call(fmu, initializing, |i| step(i, 0.0, STEP))
    }),
    ("read-before-initialization", |fmu| {
        call(fmu, instantiated, |i| get_floats(i, &[vr(Var::F)]).0)
    }),
    ("exit-without-enter", |fmu| {
        call(fmu, instantiated, |i| i.exit_initialization_mode())
    }),
    ("initialize-again", |fmu| {
        call(fmu, running, |i| i.enter_initialization_mode(0.0))
    }),
    ("terminate-before-initialization", |fmu| {
        call(fmu, instantiated, |i| i.terminate())
    }),
    ("step-after-terminate", |fmu| {
        call(fmu, terminated, |i| step(i, STEP, STEP))
    }),
    ("set-after-terminate", |fmu| {
        call(fmu, terminated, |i| set(i, Var::FlangeAS, 0.0))
    }),
    ("call-in-error-state", |fmu| {
        call(fmu, failed, |i| step(i, STEP, STEP))
    }),
    ("update-discrete-states-in-step-mode", |fmu| {
        call(fmu, running, |i| i.update_discrete_states().0)
    }),
    ("enter-step-mode-in-step-mode", |fmu| {
        call(fmu, running, |i| i.enter_step_mode())
    }),
    ("event-mode-not-used", |fmu| {
        call(fmu, running, |i| i.enter_event_mode())
    }),
    ("step-in-event-mode", |fmu| {
        let inst = fresh_with(fmu, |m| m.event_mode_used = true);
        call_on(
            inst,
            |i| {
                ok(set(i, Var::C, 1e4));
                initializing(i);
                ok(i.exit_initialization_mode());
            },
            |i| step(i, 0.0, STEP),
        )
    }),
    ("set-in-intermediate-update", |fmu| {
        let (inst, outcome, mut problems) = step_into_contact_with_callback(fmu, |seen| {
            seen.set_inside = Some((vr(Var::FlangeAS), 0.0));
        });
        if outcome.status != Status::Ok {
            problems.push(format!(
                "the step did not go on after the refused set: {outcome:?}"
            ));
        }
        // The continuation's steps run without it.
        inst.seen().set_inside = None;
        let statuses = inst.seen().set_inside_statuses.clone();
        Outcome {
            returned: Returned::Status(statuses.first().copied().unwrap_or(Status::Ok)),
            logs: take_logs(&inst),
            after: After::Instance(inst),
            problems,
        }
    }),
    // ---- experiment and step arguments
    ("stop-before-start", |fmu| {
        call(fmu, instantiated, |i| {
            // SAFETY: a live instance.
            Status::from(unsafe {
                i.b()
                    .fmi3EnterInitializationMode(i.instance, false, 0.0, 0.0, true, -1.0)
            })
        })
    }),
    ("non-finite-start-time", |fmu| {
        call(fmu, instantiated, |i| i.enter_initialization_mode(f64::NAN))
    }),
    ("zero-step-size", |fmu| {
        call(fmu, running, |i| step(i, STEP, 0.0))
    }),
    ("negative-step-size", |fmu| {
        call(fmu, running, |i| step(i, STEP, -STEP))
    }),
    ("nan-step-size", |fmu| {
        call(fmu, running, |i| step(i, STEP, f64::NAN))
    }),
    ("infinite-step-size", |fmu| {
        call(fmu, running, |i| step(i, STEP, f64::INFINITY))
    }),
    ("wrong-communication-point", |fmu| {
        call(fmu, running, |i| step(i, 0.5, STEP))
    }),
    ("rounded-communication-point", |fmu| {
        call(fmu, running, |i| step(i, STEP * (1.0 + 1e-12), STEP))
    }),
    ("no-set-fmu-state-prior", |fmu| {
        call(fmu, running, |i| {
            let mut state = get_fmu_state(i);
            ok(step(i, STEP, STEP));
            // SAFETY: a state of this instance, then freed once.
            unsafe {
                let status = Status::from(i.b().fmi3SetFMUState(i.instance, state));
                ok(Status::from(i.b().fmi3FreeFMUState(i.instance, &mut state)));
                status
            }
        })
    }),
    ("early-return-requested-where-not-allowed", |fmu| {
        let (inst, outcome, problems) = step_into_contact_with_callback(fmu, |seen| {
            seen.insist_on_early_return = true;
        });
        inst.seen().insist_on_early_return = false;
        Outcome {
            returned: Returned::Status(outcome.status),
            logs: take_logs(&inst),
            after: After::Instance(inst),
            problems,
        }
    }),
    // ---- derivatives
    ("output-derivative-order", |fmu| {
        call(fmu, running, |i| output_derivative(i, Var::SRel, 2))
    }),
    ("output-derivative-of-non-output", |fmu| {
        call(fmu, running, |i| output_derivative(i, Var::FlangeBS, 1))
    }),
    ("directional-derivative-known", |fmu| {
        call(fmu, running, |i| {
            directional_derivative(i, Var::F, Var::C, 1.0)
        })
    }),
    ("directional-derivative-unknown", |fmu| {
        call(fmu, running, |i| {
            directional_derivative(i, Var::FlangeAS, Var::FlangeBS, 1.0)
        })
    }),
    ("directional-derivative-indicator", |fmu| {
        call(fmu, running, |i| {
            directional_derivative(i, Var::IndicatorContact, Var::FlangeBS, 1.0)
        })
    }),
    ("directional-derivative-seed", |fmu| {
        call(fmu, running, |i| {
            directional_derivative(i, Var::F, Var::FlangeBS, f64::INFINITY)
        })
    }),
    ("directional-derivative-counts", |fmu| {
        call(fmu, running, |i| {
            let (unknowns, knowns, seeds) = ([vr(Var::F)], [vr(Var::FlangeBS)], [1.0, 1.0]);
            let mut sensitivity = [0.0];
            // SAFETY: arrays at least as long as announced.
            Status::from(unsafe {
                i.b().fmi3GetDirectionalDerivative(
                    i.instance,
                    unknowns.as_ptr(),
                    1,
                    knowns.as_ptr(),
                    1,
                    seeds.as_ptr(),
                    2,
                    sensitivity.as_mut_ptr(),
                    1,
                )
            })
        })
    }),
];
