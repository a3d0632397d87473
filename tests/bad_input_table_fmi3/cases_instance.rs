//! The cases of instantiation, of the instance and pointer arguments, and of value references,
//! types and causality.

use std::ffi::{c_char, CString};
use std::ptr;
use std::sync::Arc;

use crate::harness::*;
use crate::support::fmi3::{Fmu3, Instance3};
use crate::support::{ok, vr, Status};
use elastogap::variables::Var;
use fmi_sys::fmi3;

/// A case whose outcome is that of instantiation with `make`.
fn instantiate_outcome(fmu: &Arc<Fmu3>, change: impl FnOnce(&mut Make)) -> Outcome {
    let mut make = Make::standard(fmu);
    change(&mut make);
    match instantiate_co_simulation(fmu, &make) {
        Ok(inst) => Outcome {
            returned: Returned::Instance(true),
            logs: take_logs(&inst),
            after: After::Instance(inst),
            problems: Vec::new(),
        },
        Err(logs) => Outcome {
            returned: Returned::Instance(false),
            logs,
            after: After::NoInstance,
            problems: Vec::new(),
        },
    }
}

/// Every function that takes an instance, called with NULL: all must refuse alike.
fn null_instance_calls(fmu: &Arc<Fmu3>) -> Status {
    let b = &fmu.binding;
    let c: fmi3::fmi3Instance = ptr::null_mut();
    let reference = vr(Var::C);
    let mut real = 0.0;
    let mut flag = false;
    let mut state: fmi3::fmi3FMUState = ptr::null_mut();
    let mut x = [0.0; 3];
    // SAFETY: the FMU must refuse a NULL instance before touching any other argument; the others
    // are valid anyway.
    let statuses = unsafe {
        [
            b.fmi3DoStep(
                c, 0.0, STEP, false, &mut flag, &mut flag, &mut flag, &mut real,
            ),
            b.fmi3GetFloat64(c, &reference, 1, &mut real, 1),
            b.fmi3SetFloat64(c, &reference, 1, &real, 1),
            b.fmi3EnterInitializationMode(c, false, 0.0, 0.0, false, 0.0),
            b.fmi3Reset(c),
            b.fmi3Terminate(c),
            b.fmi3GetFMUState(c, &mut state),
            b.fmi3SetDebugLogging(c, true, 0, ptr::null()),
            b.fmi3EnterEventMode(c),
            b.fmi3EnterStepMode(c),
            b.fmi3SetTime(c, 0.0),
            b.fmi3GetContinuousStates(c, x.as_mut_ptr(), 3),
            b.fmi3GetIntervalDecimal(c, &reference, 1, &mut real, ptr::null_mut()),
            b.fmi3EvaluateDiscreteStates(c),
        ]
    };
    // SAFETY: fmi3FreeInstance(NULL) must be a no-op.
    unsafe { b.fmi3FreeInstance(c) };
    let first = Status::from(statuses[0]);
    assert!(
        statuses.iter().all(|s| Status::from(*s) == first),
        "all calls with a NULL instance return the same: {statuses:?}"
    );
    first
}

/// These cases by key.
pub const CASES: &[(&str, Case)] = &[
    // ---- instantiation
    ("wrong-instantiation-token", |fmu| {
        instantiate_outcome(fmu, |m| {
            m.token = Some(CString::new("{00000000-0000-0000-0000-000000000000}").unwrap())
        })
    }),
    ("null-instantiation-token", |fmu| {
        instantiate_outcome(fmu, |m| m.token = None)
    }),
    ("scheduled-execution", |fmu| {
        let (created, logs) = instantiate_scheduled_execution(fmu);
        Outcome {
            returned: Returned::Instance(created),
            logs,
            after: After::NoInstance,
            problems: Vec::new(),
        }
    }),
    ("empty-instance-name", |fmu| {
        instantiate_outcome(fmu, |m| m.name = Some(CString::default()))
    }),
    ("null-instance-name", |fmu| {
        instantiate_outcome(fmu, |m| m.name = None)
    }),
    ("resource-path-not-utf8", |fmu| {
        instantiate_outcome(fmu, |m| {
            m.resources = Some(CString::new(vec![0xff, 0xfe]).unwrap())
        })
    }),
    ("null-resource-path", |fmu| {
        instantiate_outcome(fmu, |m| m.resources = None)
    }),
    ("null-required-intermediate-variables", |fmu| {
        instantiate_outcome(fmu, |m| m.null_required = Some(2))
    }),
    ("null-log-message", |fmu| {
        let mut inst = fresh_with(fmu, |m| m.logger = false);
        let mut problems = Vec::new();
        if get_floats(&inst, &[99]).0 != Status::Error {
            problems.push("errors are still returned, only not reported".to_string());
        }
        let sequence = [
            reset(&mut inst),
            inst.enter_initialization_mode(0.0),
            inst.exit_initialization_mode(),
            inst.do_step(0.0, STEP).status,
        ];
        if sequence.iter().any(|s| *s != Status::Ok) {
            problems.push(format!("usable after fmi3Reset: {sequence:?}"));
        }
        Outcome {
            returned: Returned::Instance(true),
            logs: take_logs(&inst),
            after: After::Checked("Instantiated"),
            problems,
        }
    }),
    // ---- the instance and pointer arguments
    ("null-instance", |fmu| {
        let witness = fresh(fmu);
        let status = null_instance_calls(fmu);
        Outcome {
            returned: Returned::Status(status),
            logs: take_logs(&witness),
            after: After::NoInstance,
            problems: Vec::new(),
        }
    }),
    ("null-vr-array", |fmu| {
        call(fmu, running, |i| {
            let mut values = [0.0; 2];
            // SAFETY: a deliberately NULL value-reference array with n = 2.
            Status::from(unsafe {
                i.b()
                    .fmi3GetFloat64(i.instance, ptr::null(), 2, values.as_mut_ptr(), 2)
            })
        })
    }),
    ("null-value-array", |fmu| {
        call(fmu, running, |i| {
            let references = [vr(Var::FlangeAS), vr(Var::FlangeBS)];
            // SAFETY: a deliberately NULL value array with n = 2.
            Status::from(unsafe {
                i.b()
                    .fmi3SetFloat64(i.instance, references.as_ptr(), 2, ptr::null(), 2)
            })
        })
    }),
    ("empty-null-arrays", |fmu| {
        call(fmu, running, |i| {
            // SAFETY: NULL arrays with n = 0.
            Status::from(unsafe {
                i.b()
                    .fmi3GetFloat64(i.instance, ptr::null(), 0, ptr::null_mut(), 0)
            })
        })
    }),
    ("values-count-mismatch", |fmu| {
        call(fmu, running, |i| {
            let references = [vr(Var::C), vr(Var::D)];
            let mut values = [0.0; 3];
            // SAFETY: valid arrays; nValues = 3 against 2 value references.
            Status::from(unsafe {
                i.b()
                    .fmi3GetFloat64(i.instance, references.as_ptr(), 2, values.as_mut_ptr(), 3)
            })
        })
    }),
    ("null-state-pointer", |fmu| {
        call(fmu, running, |i| {
            // SAFETY: a deliberately NULL out-pointer.
            Status::from(unsafe { i.b().fmi3GetFMUState(i.instance, ptr::null_mut()) })
        })
    }),
    ("null-size-pointer", |fmu| {
        call(fmu, running, |i| {
            let state = get_fmu_state(i);
            // SAFETY: a deliberately NULL out-pointer.
            Status::from(unsafe {
                i.b()
                    .fmi3SerializedFMUStateSize(i.instance, state, ptr::null_mut())
            })
        })
    }),
    ("null-step-out-pointer", |fmu| {
        call(fmu, running, |i| {
            let (mut event, mut terminate, mut last) = (false, false, 0.0);
            // SAFETY: a deliberately NULL earlyReturn; the others valid.
            Status::from(unsafe {
                i.b().fmi3DoStep(
                    i.instance,
                    STEP,
                    STEP,
                    false,
                    &mut event,
                    &mut terminate,
                    ptr::null_mut(),
                    &mut last,
                )
            })
        })
    }),
    ("null-category-name", |fmu| {
        call(fmu, running, |i| {
            let categories: [*const c_char; 1] = [ptr::null()];
            // SAFETY: an array of one (NULL) string.
            Status::from(unsafe {
                i.b()
                    .fmi3SetDebugLogging(i.instance, true, 1, categories.as_ptr())
            })
        })
    }),
    // ---- value references, types and causality
    ("unknown-value-reference", |fmu| {
        call(fmu, running, |i| get_floats(i, &[99]).0)
    }),
    ("wrong-type", |fmu| {
        call(fmu, running, |i| {
            get_floats(i, &[vr(Var::MaxSubstepCount)]).0
        })
    }),
    ("string-variable", |fmu| {
        call(fmu, running, |i| {
            let reference = vr(Var::C);
            let mut value: fmi3::fmi3String = ptr::null();
            // SAFETY: arrays of one element.
            Status::from(unsafe {
                i.b()
                    .fmi3GetString(i.instance, &reference, 1, &mut value, 1)
            })
        })
    }),
    ("enumeration-through-int32", |fmu| {
        call(fmu, instantiated, |i| {
            let reference = vr(Var::ForceLaw);
            // SAFETY: arrays of one element.
            Status::from(unsafe { i.b().fmi3SetInt32(i.instance, &reference, 1, &2, 1) })
        })
    }),
    ("int32-through-int64", |fmu| {
        call(fmu, running, |i| get_int64(i, vr(Var::MaxSubstepCount)).0)
    }),
    ("enumeration-beyond-int32", |fmu| {
        call(fmu, instantiated, |i| {
            let reference = vr(Var::ForceLaw);
            let value: i64 = (1 << 32) + 2;
            // SAFETY: arrays of one element.
            Status::from(unsafe { i.b().fmi3SetInt64(i.instance, &reference, 1, &value, 1) })
        })
    }),
    ("boolean-any-nonzero-byte", |fmu| {
        fn set_byte_two(i: &mut Instance3) -> Status {
            let reference = vr(Var::UseHeatPort);
            let byte = [2u8];
            // SAFETY: one byte, read by the FMU as an fmi3Boolean.
            Status::from(unsafe {
                i.b()
                    .fmi3SetBoolean(i.instance, &reference, 1, byte.as_ptr().cast::<bool>(), 1)
            })
        }
        // The value it takes, read on a second instance after initialization.
        let mut other = fresh(fmu);
        let mut problems = Vec::new();
        if set_byte_two(&mut other) == Status::Ok {
            initializing(&mut other);
            ok(other.exit_initialization_mode());
            if !other.get_bool("useHeatPort") {
                problems.push("the byte 2 was not taken as true".to_string());
            }
        }
        let mut outcome = call(fmu, instantiated, set_byte_two);
        outcome.problems = problems;
        outcome
    }),
    ("boolean-of-float64", |fmu| {
        call(fmu, running, |i| get_floats(i, &[vr(Var::Contact)]).0)
    }),
    ("absent-type-getter", |fmu| {
        call(fmu, running, |i| {
            let reference = vr(Var::C);
            let mut value = 0f32;
            // SAFETY: arrays of one element.
            Status::from(unsafe {
                i.b()
                    .fmi3GetFloat32(i.instance, &reference, 1, &mut value, 1)
            })
        })
    }),
    ("absent-type-setter", |fmu| {
        call(fmu, running, |i| {
            let reference = vr(Var::MaxSubstepCount);
            // SAFETY: arrays of one element.
            Status::from(unsafe { i.b().fmi3SetInt8(i.instance, &reference, 1, &1, 1) })
        })
    }),
    ("absent-type-empty-call", |fmu| {
        call(fmu, running, |i| {
            // SAFETY: NULL arrays with n = 0.
            Status::from(unsafe {
                i.b()
                    .fmi3GetUInt64(i.instance, ptr::null(), 0, ptr::null_mut(), 0)
            })
        })
    }),
    ("clock-getter", |fmu| {
        call(fmu, running, |i| {
            let reference = vr(Var::C);
            let mut value = false;
            // SAFETY: arrays of one element.
            Status::from(unsafe { i.b().fmi3GetClock(i.instance, &reference, 1, &mut value) })
        })
    }),
    ("set-output", |fmu| {
        call(fmu, running, |i| set(i, Var::F, 0.0))
    }),
    ("set-time", |fmu| {
        call(fmu, running, |i| set(i, Var::Time, 1.0))
    }),
    ("set-local", |fmu| {
        call(fmu, running, |i| set(i, Var::FC, 0.0))
    }),
    ("fixed-parameter-while-running", |fmu| {
        call(fmu, running, |i| set(i, Var::UseHeatPort, 1.0))
    }),
];
