//! The cases of Model Exchange, of FMU states, and of status queries and logging.

use std::sync::Arc;

use crate::harness::*;
use crate::support::damaged_state::*;
use crate::support::{ok, Fmu, FmuState, Instance, Status};
use crate::table::Returned;
use elastogap::variables::Var;
use fmi_sys::fmi2;

/// The serialized state of a running instance and a copy changed by `damage`, deserialized into
/// `inst`.
fn deserialize_damaged(inst: &mut Instance, damage: fn(Vec<u8>) -> Vec<u8>) -> Status {
    running(inst);
    let state = own_state(inst);
    let (status, bytes) = inst.serialize_fmu_state(&state);
    ok(status);
    let bytes = damage(bytes);
    let mut target = FmuState::null();
    let status = inst.deserialize_fmu_state(&bytes, &mut target);
    assert!(
        status == Status::Ok || target.is_null(),
        "a refused buffer hands out no state"
    );
    status
}

/// A state taken by another instance of the same FMU.
fn foreign_state(fmu: &Arc<Fmu>) -> (Instance, FmuState) {
    let mut owner = fresh(fmu);
    running(&mut owner);
    let state = own_state(&mut owner);
    (owner, state)
}

fn status_kind_call(inst: &mut Instance, which: &str) -> Status {
    use fmi2::{
        fmi2StatusKind_fmi2DoStepStatus as DO_STEP, fmi2StatusKind_fmi2PendingStatus as PENDING,
        fmi2StatusKind_fmi2Terminated as TERMINATED,
    };
    running(inst);
    match which {
        "do-step" => inst.get_status(DO_STEP).0,
        "pending" => inst.get_string_status(PENDING).0,
        "integer" => inst.get_integer_status(DO_STEP).0,
        "real-terminated" => inst.get_real_status(TERMINATED).0,
        "unknown" => inst.get_boolean_status(99).0,
        other => unreachable!("{other}"),
    }
}

/// The cases of the damaged states both FMI versions refuse (`support::damaged_state`).
pub const DAMAGED_STATES: &[(&str, Case)] = &crate::support::damaged_state::damaged_state_cases!();

/// These cases by table key.
pub const CASES: &[(&str, Case)] = &[
    // ---- Model Exchange
    ("co-simulation-call-on-model-exchange", |fmu| {
        call_model_exchange(fmu, event_mode, |i| i.do_step(0.0, STEP, false))
    }),
    ("model-exchange-call-on-co-simulation", |fmu| {
        call(fmu, running, |i| i.set_time(STEP))
    }),
    ("derivatives-before-initialization", |fmu| {
        call_model_exchange(fmu, instantiated, |i| i.get_derivatives(3).0)
    }),
    ("continuous-states-in-event-mode", |fmu| {
        call_model_exchange(fmu, event_mode, |i| {
            i.set_continuous_states(&[1.0, 0.0, 0.0])
        })
    }),
    ("tunable-parameter-in-continuous-time-mode", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| set(i, Var::D, 5.0))
    }),
    ("wrong-number-of-states", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| i.get_continuous_states(2).0)
    }),
    ("wrong-number-of-event-indicators", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| i.get_event_indicators(3).0)
    }),
    ("non-finite-continuous-state", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| {
            i.set_continuous_states(&[f64::NAN, 0.0, 0.0])
        })
    }),
    ("non-finite-time", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| i.set_time(f64::INFINITY))
    }),
    ("null-event-info", |fmu| {
        call_model_exchange(fmu, event_mode, |i| {
            let f = *i.binding().fmi2NewDiscreteStates.as_ref().unwrap();
            // SAFETY: the FMU must refuse the NULL pointer without writing through it.
            Status::from(unsafe { f(i.component(), std::ptr::null_mut()) })
        })
    }),
    ("fmu-state-of-other-interface", |fmu| {
        let mut co_simulation = fresh(fmu);
        running(&mut co_simulation);
        let mut state = FmuState::null();
        ok(co_simulation.get_fmu_state(&mut state));
        let (status, bytes) = co_simulation.serialize_fmu_state(&state);
        ok(status);
        let mut outcome = call_model_exchange(fmu, continuous_time_mode, |_| Status::Ok);
        if let After::Instance(inst) = &mut outcome.after {
            let mut into = FmuState::null();
            outcome.returned = Returned::Status(inst.deserialize_fmu_state(&bytes, &mut into));
            outcome.logs = inst.sink().take();
        }
        outcome
    }),
    // ---- FMU states
    ("foreign-fmu-state", |fmu| {
        let (_owner, state) = foreign_state(fmu);
        let mut outcome = call(fmu, running, |_| Status::Ok);
        if let After::Instance(inst) = &mut outcome.after {
            outcome.returned = Returned::Status(inst.set_fmu_state(&state));
            outcome.logs = inst.sink().take();
        }
        outcome
    }),
    ("freed-fmu-state", |fmu| {
        call(fmu, running, |i| {
            let mut state = own_state(i);
            let stale = FmuState(state.0);
            ok(i.free_fmu_state(&mut state));
            assert!(state.is_null(), "fmi2FreeFMUstate sets the pointer to NULL");
            i.set_fmu_state(&stale)
        })
    }),
    ("null-fmu-state", |fmu| {
        call(fmu, running, |i| i.set_fmu_state(&FmuState::null()))
    }),
    ("free-foreign-fmu-state", |fmu| {
        let (_owner, state) = foreign_state(fmu);
        let mut outcome = call(fmu, running, |_| Status::Ok);
        if let After::Instance(inst) = &mut outcome.after {
            let mut copy = FmuState(state.0);
            outcome.returned = Returned::Status(inst.free_fmu_state(&mut copy));
            assert_eq!(copy.0, state.0, "a refused free leaves the pointer");
            outcome.logs = inst.sink().take();
        }
        outcome
    }),
    ("free-null-fmu-state", |fmu| {
        call(fmu, running, |i| i.free_fmu_state(&mut FmuState::null()))
    }),
    ("serialize-wrong-size", |fmu| {
        call(fmu, running, |i| {
            let state = own_state(i);
            let (status, size) = i.serialized_fmu_state_size(&state);
            ok(status);
            let mut buffer = vec![0u8; size + 1];
            let serialize = *i.binding().fmi2SerializeFMUstate.as_ref().unwrap();
            // SAFETY: a buffer of size + 1 bytes, announced as such.
            Status::from(unsafe {
                serialize(
                    i.component(),
                    state.0,
                    buffer.as_mut_ptr().cast(),
                    buffer.len(),
                )
            })
        })
    }),
    ("deserialize-latched-contact", |fmu| {
        call(fmu, instantiated, |i| {
            deserialize_damaged(i, latched_contact)
        })
    }),
    ("deserialize-into-foreign-state", |fmu| {
        let (mut owner, state) = foreign_state(fmu);
        let (status, bytes) = owner.serialize_fmu_state(&state);
        ok(status);
        let mut outcome = call(fmu, running, |_| Status::Ok);
        if let After::Instance(inst) = &mut outcome.after {
            let mut target = FmuState(state.0);
            outcome.returned = Returned::Status(inst.deserialize_fmu_state(&bytes, &mut target));
            outcome.logs = inst.sink().take();
        }
        outcome
    }),
    // ---- status queries and logging
    ("do-step-status", |fmu| {
        call(fmu, instantiated, |i| status_kind_call(i, "do-step"))
    }),
    ("pending-status", |fmu| {
        call(fmu, instantiated, |i| status_kind_call(i, "pending"))
    }),
    ("integer-status", |fmu| {
        call(fmu, instantiated, |i| status_kind_call(i, "integer"))
    }),
    ("status-of-other-type", |fmu| {
        call(fmu, instantiated, |i| {
            status_kind_call(i, "real-terminated")
        })
    }),
    ("unknown-status-kind", |fmu| {
        call(fmu, instantiated, |i| status_kind_call(i, "unknown"))
    }),
    ("unknown-log-category", |fmu| {
        call(fmu, instantiated, |i| {
            i.set_debug_logging(true, &["logEverything"])
        })
    }),
];
