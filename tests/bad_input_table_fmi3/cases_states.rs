//! The cases of Model Exchange (and of one interface's functions on the other's instance), of FMU
//! states, and of the features the FMU does not have, and logging.

use std::ffi::CString;
use std::ptr;
use std::sync::Arc;

use super::step;
use crate::harness::*;
use crate::support::damaged_state::*;
use crate::support::fmi3::{Fmu3, Instance3};
use crate::support::{ok, vr, Status};
use elastogap::variables::Var;
use fmi_sys::fmi3;

/// The serialized state of a running instance, changed by `damage`, deserialized into `inst`.
fn deserialize_damaged(inst: &mut Instance3, damage: fn(Vec<u8>) -> Vec<u8>) -> Status {
    running(inst);
    let state = get_fmu_state(inst);
    let bytes = damage(serialize(inst, state));
    let mut target: fmi3::fmi3FMUState = ptr::null_mut();
    let status = deserialize(inst, &bytes, &mut target);
    assert!(
        status == Status::Ok || target.is_null(),
        "a refused buffer hands out no state"
    );
    status
}

/// A running instance and a state it took, for the cases that pass it to another instance.
fn foreign_state(fmu: &Arc<Fmu3>) -> (Instance3, fmi3::fmi3FMUState) {
    let mut owner = fresh(fmu);
    running(&mut owner);
    let state = get_fmu_state(&mut owner);
    (owner, state)
}

/// [`call`] whose bad call needs something made outside it (a foreign state, bytes): `bad` gets
/// the instance after the stage.
fn call_with(
    inst: Instance3,
    stage: fn(&mut Instance3),
    bad: impl FnOnce(&mut Instance3) -> Status,
) -> Outcome {
    let mut outcome = call_on(inst, stage, |_| Status::Ok);
    if let After::Instance(inst) = &mut outcome.after {
        outcome.returned = Returned::Status(bad(inst));
        outcome.logs = take_logs(inst);
    }
    outcome
}

/// The cases of the damaged states both FMI versions refuse (`support::damaged_state`).
pub const DAMAGED_STATES: &[(&str, Case)] = &crate::support::damaged_state::damaged_state_cases!();

/// These cases by key.
pub const CASES: &[(&str, Case)] = &[
    // ---- Model Exchange, and one interface's functions on the other's instance
    ("co-simulation-call-on-model-exchange", |fmu| {
        call_model_exchange(fmu, event_mode, |i| step(i, 0.0, STEP))
    }),
    ("step-mode-on-model-exchange", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| i.enter_step_mode())
    }),
    ("model-exchange-call-on-co-simulation", |fmu| {
        call(fmu, running, |i| set_time(i, STEP))
    }),
    ("continuous-states-of-co-simulation", |fmu| {
        call(fmu, running, |i| get_continuous_states(i, 3))
    }),
    ("derivatives-before-initialization", |fmu| {
        call_model_exchange(fmu, instantiated, |i| continuous_state_derivatives(i, 3))
    }),
    ("continuous-states-in-event-mode", |fmu| {
        call_model_exchange(fmu, event_mode, |i| {
            set_continuous_states(i, &[1.0, 0.0, 0.0])
        })
    }),
    ("tunable-parameter-in-continuous-time-mode", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| set(i, Var::D, 5.0))
    }),
    ("wrong-number-of-states", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| get_continuous_states(i, 2))
    }),
    ("wrong-number-of-event-indicators", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| {
            let mut z = [0.0; 3];
            // SAFETY: an array of 3 values.
            Status::from(unsafe { i.b().fmi3GetEventIndicators(i.instance, z.as_mut_ptr(), 3) })
        })
    }),
    ("non-finite-continuous-state", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| {
            set_continuous_states(i, &[f64::NAN, 0.0, 0.0])
        })
    }),
    ("non-finite-time", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| set_time(i, f64::INFINITY))
    }),
    ("null-discrete-states-flag", |fmu| {
        call_model_exchange(fmu, event_mode, |i| {
            let (mut a, mut b, mut c, mut d) = (false, false, false, false);
            let mut next = 0.0;
            // SAFETY: a deliberately NULL first out-pointer; the others valid.
            Status::from(unsafe {
                i.b().fmi3UpdateDiscreteStates(
                    i.instance,
                    ptr::null_mut(),
                    &mut a,
                    &mut b,
                    &mut c,
                    &mut d,
                    &mut next,
                )
            })
        })
    }),
    ("fmu-state-of-other-interface", |fmu| {
        let mut co_simulation = fresh(fmu);
        running(&mut co_simulation);
        let state = get_fmu_state(&mut co_simulation);
        let bytes = serialize(&mut co_simulation, state);
        call_with(fresh_model_exchange(fmu), continuous_time_mode, |i| {
            let mut into: fmi3::fmi3FMUState = ptr::null_mut();
            deserialize(i, &bytes, &mut into)
        })
    }),
    // ---- FMU states
    ("foreign-fmu-state", |fmu| {
        let (_owner, state) = foreign_state(fmu);
        call_with(fresh(fmu), running, |i| {
            // SAFETY: the FMU must refuse a state it did not hand out without using it.
            Status::from(unsafe { i.b().fmi3SetFMUState(i.instance, state) })
        })
    }),
    ("freed-fmu-state", |fmu| {
        call(fmu, running, |i| {
            let mut state = get_fmu_state(i);
            let stale = state;
            // SAFETY: a state of this instance, freed once; the stale copy must be refused.
            unsafe {
                ok(Status::from(i.b().fmi3FreeFMUState(i.instance, &mut state)));
                assert!(state.is_null(), "fmi3FreeFMUState sets the pointer to NULL");
                Status::from(i.b().fmi3SetFMUState(i.instance, stale))
            }
        })
    }),
    ("null-fmu-state", |fmu| {
        call(fmu, running, |i| {
            // SAFETY: a NULL state, which the FMU must refuse.
            Status::from(unsafe { i.b().fmi3SetFMUState(i.instance, ptr::null_mut()) })
        })
    }),
    ("free-foreign-fmu-state", |fmu| {
        let (_owner, state) = foreign_state(fmu);
        let mut problems = Vec::new();
        let mut outcome = call_with(fresh(fmu), running, |i| {
            let mut copy = state;
            // SAFETY: a state of another instance, which the FMU must refuse to free.
            let status = Status::from(unsafe { i.b().fmi3FreeFMUState(i.instance, &mut copy) });
            if copy != state {
                problems.push("a refused free changed the pointer".to_string());
            }
            status
        });
        outcome.problems = problems;
        outcome
    }),
    ("free-null-fmu-state", |fmu| {
        call(fmu, running, |i| {
            let mut state: fmi3::fmi3FMUState = ptr::null_mut();
            // SAFETY: a pointer to a NULL state.
            Status::from(unsafe { i.b().fmi3FreeFMUState(i.instance, &mut state) })
        })
    }),
    ("serialize-wrong-size", |fmu| {
        call(fmu, running, |i| {
            let state = get_fmu_state(i);
            let size = serialize(i, state).len();
            let mut buffer = vec![0u8; size + 1];
            // SAFETY: a buffer of size + 1 bytes, announced as such.
            Status::from(unsafe {
                i.b()
                    .fmi3SerializeFMUState(i.instance, state, buffer.as_mut_ptr(), buffer.len())
            })
        })
    }),
    ("deserialize-into-foreign-state", |fmu| {
        let (mut owner, state) = foreign_state(fmu);
        let bytes = serialize(&mut owner, state);
        call_with(fresh(fmu), running, |i| {
            let mut target = state;
            deserialize(i, &bytes, &mut target)
        })
    }),
    // ---- features the FMU does not have, and logging
    ("interval-decimal", |fmu| {
        call(fmu, running, |i| {
            let reference = vr(Var::C);
            let mut interval = 0.0;
            let mut qualifier: fmi3::fmi3IntervalQualifier = 0;
            // SAFETY: arrays of one element.
            Status::from(unsafe {
                i.b().fmi3GetIntervalDecimal(
                    i.instance,
                    &reference,
                    1,
                    &mut interval,
                    &mut qualifier,
                )
            })
        })
    }),
    ("interval-fraction", |fmu| {
        call(fmu, running, |i| {
            let reference = vr(Var::C);
            // SAFETY: arrays of one element.
            Status::from(unsafe {
                i.b()
                    .fmi3SetIntervalFraction(i.instance, &reference, 1, &1, &1000)
            })
        })
    }),
    ("shift-decimal", |fmu| {
        call(fmu, running, |i| {
            let reference = vr(Var::C);
            let mut shift = 0.0;
            // SAFETY: arrays of one element.
            Status::from(unsafe {
                i.b()
                    .fmi3GetShiftDecimal(i.instance, &reference, 1, &mut shift)
            })
        })
    }),
    ("adjoint-derivative", |fmu| {
        call(fmu, running, |i| {
            let (unknowns, knowns, seeds) = ([vr(Var::F)], [vr(Var::FlangeBS)], [1.0]);
            let mut sensitivity = [0.0];
            // SAFETY: arrays of one element each.
            Status::from(unsafe {
                i.b().fmi3GetAdjointDerivative(
                    i.instance,
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
        })
    }),
    ("configuration-mode", |fmu| {
        call(fmu, instantiated, |i| {
            // SAFETY: a live instance.
            Status::from(unsafe { i.b().fmi3EnterConfigurationMode(i.instance) })
        })
    }),
    ("activate-model-partition", |fmu| {
        call(fmu, running, |i| {
            // SAFETY: a live instance.
            Status::from(unsafe { i.b().fmi3ActivateModelPartition(i.instance, 1, STEP) })
        })
    }),
    ("evaluate-discrete-states", |fmu| {
        call(fmu, running, |i| {
            // SAFETY: a live instance.
            Status::from(unsafe { i.b().fmi3EvaluateDiscreteStates(i.instance) })
        })
    }),
    ("variable-dependencies", |fmu| {
        call(fmu, running, |i| {
            let mut n = 0;
            // SAFETY: a valid out-pointer.
            Status::from(unsafe {
                i.b()
                    .fmi3GetNumberOfVariableDependencies(i.instance, vr(Var::F), &mut n)
            })
        })
    }),
    ("unknown-log-category", |fmu| {
        call(fmu, instantiated, |i| {
            let name = CString::new("logEverything").unwrap();
            let categories = [name.as_ptr()];
            // SAFETY: an array of one string.
            Status::from(unsafe {
                i.b()
                    .fmi3SetDebugLogging(i.instance, true, 1, categories.as_ptr())
            })
        })
    }),
];

fn get_continuous_states(inst: &mut Instance3, n: usize) -> Status {
    let mut x = vec![0.0; n];
    // SAFETY: an array of n values.
    Status::from(unsafe {
        inst.b()
            .fmi3GetContinuousStates(inst.instance, x.as_mut_ptr(), n)
    })
}

fn set_continuous_states(inst: &mut Instance3, x: &[f64]) -> Status {
    // SAFETY: an array of x.len() values.
    Status::from(unsafe {
        inst.b()
            .fmi3SetContinuousStates(inst.instance, x.as_ptr(), x.len())
    })
}
