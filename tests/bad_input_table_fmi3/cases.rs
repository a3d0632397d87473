//! The case of each row of `docs/bad-input-fmi3.md`, by key.

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

/// Sets `var` before initialization (accepted: parameters are checked when they take effect) and
/// returns the status of `fmi3ExitInitializationMode`.
fn exit_with(inst: &mut Instance3, var: Var, value: f64) -> Status {
    ok(set(inst, var, value));
    initializing(inst);
    inst.exit_initialization_mode()
}

fn write_table(fmu: &Arc<Fmu3>, name: &str, text: &str) {
    std::fs::write(fmu.resource_path().join(name), text)
        .expect("the unpacked FMU's resources folder is writable");
}

fn exit_gap_force_with_table(inst: &mut Instance3, table: &str) -> Status {
    ok(set(inst, Var::ForceLaw, 7.0));
    ok(set_string(inst, Var::TableFile, table));
    initializing(inst);
    inst.exit_initialization_mode()
}

fn running_gap_force_with_table(inst: &mut Instance3) {
    ok(exit_gap_force_with_table(inst, "gap_force_example.json"));
    for (var, value) in INPUTS {
        ok(set(inst, var, value));
    }
    ok(inst.do_step(0.0, STEP).status);
}

/// Sets a tunable `var` while running; a refused value must leave the old one (reading is allowed
/// in the Error state).
fn tune_while_running(inst: &mut Instance3, var: Var, value: f64) -> Status {
    running(inst);
    let reference = [vr(var)];
    let before = get_floats(inst, &reference);
    let status = set(inst, var, value);
    if status != Status::Ok {
        assert_eq!(
            get_floats(inst, &reference).1,
            before.1,
            "a refused value leaves the previous one"
        );
    }
    status
}

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

fn step(inst: &mut Instance3, time: f64, h: f64) -> Status {
    inst.do_step(time, h).status
}

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

/// Offset of the f64 slot of `c` in a serialized state: after the 8-byte magic and the 4-byte
/// format version (the FMI 2 layer's format).
const C_SLOT: usize = 12;

fn one_byte_short(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.pop();
    bytes
}

fn wrong_magic(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes[..8].copy_from_slice(b"NOTAGAP!");
    bytes
}

fn next_format_version(mut bytes: Vec<u8>) -> Vec<u8> {
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    bytes[8..12].copy_from_slice(&(version + 1).to_le_bytes());
    bytes
}

fn nan_in_a_slot(mut bytes: Vec<u8>) -> Vec<u8> {
    let last = bytes.len() - 8;
    bytes[last..].copy_from_slice(&f64::NAN.to_le_bytes());
    bytes
}

fn pulling_probe_rest(mut bytes: Vec<u8>) -> Vec<u8> {
    let at = elastogap::snapshot::HEADER_SIZE + 8 * 128;
    bytes[at..at + 8].copy_from_slice(&1e-300f64.to_le_bytes());
    bytes
}

/// The heat port's mean flow (slot 32) into the gap, of an instance without the heat port.
fn heat_flowing_in(mut bytes: Vec<u8>) -> Vec<u8> {
    let at = elastogap::snapshot::HEADER_SIZE + 8 * 32;
    bytes[at..at + 8].copy_from_slice(&1e-300f64.to_le_bytes());
    bytes
}

fn negative_c(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes[C_SLOT..C_SLOT + 8].copy_from_slice(&(-1.0f64).to_le_bytes());
    bytes
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
    // ---- parameter rules
    ("negative-c", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::C, -1.0))
    }),
    ("infinite-c", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::C, f64::INFINITY))
    }),
    ("negative-d", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::D, -0.5))
    }),
    ("non-finite-s_rel0", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::SRel0, f64::NAN))
    }),
    ("n-below-1", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::N, 0.5))
    }),
    ("s_ref-not-positive", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::SRef, 0.0))
    }),
    ("negative-f_ref", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::FRef, -1.0))
    }),
    ("maxSubstepSize-not-positive", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::MaxSubstepSize, 0.0)
        })
    }),
    ("maxSubstepCount-below-1", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::MaxSubstepCount, 0.0)
        })
    }),
    ("accelerationEstimate-out-of-range", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::AccelerationEstimate, 4.0)
        })
    }),
    ("negative-m_eff", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::MEff, -1.0))
    }),
    ("relativeTolerance-not-positive", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::RelativeTolerance, 0.0)
        })
    }),
    ("forceLaw-out-of-range", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::ForceLaw, 8.0))
    }),
    ("hysteresis-out-of-range", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::Hysteresis, 0.0))
    }),
    ("negative-chi", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::Chi, -0.1))
    }),
    ("e-not-in-unit-interval", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::E, 0.0))
    }),
    ("e-above-1", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::E, 1.5))
    }),
    ("v0_min-not-positive", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::V0Min, 0.0))
    }),
    ("d_max-not-positive", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::DMax, -1e-3))
    }),
    ("recurDynDamping-out-of-range", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::RecurDynDamping, 3.0)
        })
    }),
    ("negative-n_d", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::ND, -1.0))
    }),
    ("rdf-out-of-range", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::Rdf, f64::NAN))
    }),
    ("n_v-below-1", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::NV, 0.5))
    }),
    ("preload-not-finite", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::Preload, f64::INFINITY)
        })
    }),
    ("negative-d_x", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            exit_with(i, Var::DX, -3.0)
        })
    }),
    ("n_y-below-1", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            exit_with(i, Var::NY, 0.5)
        })
    }),
    ("preload_x-not-finite", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            exit_with(i, Var::PreloadX, f64::NAN)
        })
    }),
    ("gap-dampers-without-gap-force", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::DY, 40.0))
    }),
    ("range-end-not-finite", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::RangeMin, f64::NEG_INFINITY)
        })
    }),
    ("gap-force-empty-range", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            ok(set(i, Var::RangeMin, 0.0));
            exit_with(i, Var::RangeMax, -0.5)
        })
    }),
    ("gap-force-range-emptied-while-running", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            let status = tune_while_running(i, Var::RangeMin, 1.0);
            assert_eq!(get_floats(i, &[vr(Var::RangeMax)]).1, vec![0.0]);
            status
        })
    }),
    ("frictionLaw-out-of-range", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::FrictionLaw, 4.0))
    }),
    ("frictionInterpolation-out-of-range", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::FrictionInterpolation, 0.0)
        })
    }),
    ("heldForce-out-of-range", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::HeldForce, 5.0))
    }),
    ("negative-mu", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::MuS, -0.1))
    }),
    ("v_s-not-positive", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::VS, 0.0))
    }),
    ("v_d-not-above-v_s", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::FrictionLaw, 2.0));
            ok(set(i, Var::VS, 0.01));
            exit_with(i, Var::VD, 0.01)
        })
    }),
    ("negative-f_t_max", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::FTMax, -1.0))
    }),
    ("negative-maxStictionDeformation", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::FrictionLaw, 2.0));
            exit_with(i, Var::MaxStictionDeformation, -1e-4)
        })
    }),
    ("stiction-without-friction", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::MaxStictionDeformation, 1e-4)
        })
    }),
    ("friction-with-gap-force", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            exit_with(i, Var::FrictionLaw, 2.0)
        })
    }),
    ("fixed-forceLaw-while-running", |fmu| {
        call(fmu, running, |i| set(i, Var::ForceLaw, 4.0))
    }),
    ("tunable-parameter-while-running", |fmu| {
        call(fmu, instantiated, |i| tune_while_running(i, Var::N, 0.5))
    }),
    ("nan-input", |fmu| {
        call(fmu, running, |i| set(i, Var::FlangeBS, f64::NAN))
    }),
    ("nan-v_tx", |fmu| {
        call(fmu, running, |i| set(i, Var::VTx, f64::NAN))
    }),
    ("infinite-v_ty", |fmu| {
        call(fmu, running, |i| set(i, Var::VTy, f64::INFINITY))
    }),
    ("infinite-input", |fmu| {
        call(fmu, instantiated, |i| {
            set(i, Var::FlangeAV, f64::NEG_INFINITY)
        })
    }),
    // ---- the table file
    ("tableFile-missing", |fmu| {
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "no_such_table.json")
        })
    }),
    ("tableFile-malformed-json", |fmu| {
        write_table(fmu, "malformed.json", r#"{"stiffness": [[0, 0], [1, 1]"#);
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "malformed.json")
        })
    }),
    ("tableFile-unknown-key", |fmu| {
        write_table(fmu, "unknown_key.json", r#"{"stifness": [[0, 0], [1, 1]]}"#);
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "unknown_key.json")
        })
    }),
    ("tableFile-unsorted", |fmu| {
        write_table(
            fmu,
            "unsorted.json",
            r#"{"stiffness": [[0, 0], [-0.001, 10]]}"#,
        );
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "unsorted.json")
        })
    }),
    ("tableFile-repeated", |fmu| {
        write_table(fmu, "repeated.json", r#"{"damping": [[0, 0], [0, 1]]}"#);
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "repeated.json")
        })
    }),
    ("tableFile-too-few-points", |fmu| {
        write_table(fmu, "too_few.json", r#"{"stiffness": [[0, 0]]}"#);
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "too_few.json")
        })
    }),
    ("tableFile-not-finite", |fmu| {
        write_table(
            fmu,
            "not_finite.json",
            r#"{"stiffness": [[0, 0], [1, 1e999]]}"#,
        );
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "not_finite.json")
        })
    }),
    ("tableFile-damping-feeds-energy", |fmu| {
        write_table(
            fmu,
            "pushing_damper.json",
            r#"{"damping": [[-1, 1], [1, 3]]}"#,
        );
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "pushing_damper.json")
        })
    }),
    ("tableFile-relative-without-resources", |fmu| {
        let inst = fresh_with(fmu, |m| m.resources = None);
        call_on(inst, instantiated, |i| {
            exit_gap_force_with_table(i, "gap_force_example.json")
        })
    }),
    ("tableFile-foreign-uri", |fmu| {
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "file://otherhost/t.json")
        })
    }),
    ("fixed-tableFile-while-running", |fmu| {
        call(fmu, running_gap_force_with_table, |i| {
            set_string(i, Var::TableFile, "other.json")
        })
    }),
    ("state-with-other-tables", |fmu| {
        call(fmu, running_gap_force_with_table, |i| {
            let state = get_fmu_state(i);
            let bytes = serialize(i, state);
            ok(reset(i));
            let mut target: fmi3::fmi3FMUState = ptr::null_mut();
            let status = deserialize(i, &bytes, &mut target);
            assert!(target.is_null(), "a refused buffer hands out no state");
            status
        })
    }),
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
    ("deserialize-truncated", |fmu| {
        call(fmu, instantiated, |i| {
            deserialize_damaged(i, one_byte_short)
        })
    }),
    ("deserialize-wrong-header", |fmu| {
        call(fmu, instantiated, |i| deserialize_damaged(i, wrong_magic))
    }),
    ("deserialize-wrong-version", |fmu| {
        call(fmu, instantiated, |i| {
            deserialize_damaged(i, next_format_version)
        })
    }),
    ("deserialize-non-finite", |fmu| {
        call(fmu, instantiated, |i| deserialize_damaged(i, nan_in_a_slot))
    }),
    ("deserialize-pulling-probe-rest", |fmu| {
        call(fmu, instantiated, |i| {
            deserialize_damaged(i, pulling_probe_rest)
        })
    }),
    ("deserialize-heat-flowing-in", |fmu| {
        call(fmu, instantiated, |i| {
            deserialize_damaged(i, heat_flowing_in)
        })
    }),
    ("deserialize-invalid-parameter", |fmu| {
        call(fmu, instantiated, |i| deserialize_damaged(i, negative_c))
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
