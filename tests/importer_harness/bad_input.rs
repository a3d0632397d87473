//! Bad input: fmi2Error, a message naming the variable or call and the rule, the Error state, and
//! recovery by fmi2Reset.

use std::ptr;

use crate::common::{
    bounce, check_records, expect_error, initialize, instance_with, ok, record, set, set_inputs, vr,
};
use crate::support::{Fmu, Instance, InstantiateOptions, Status, VarType};

// ---------------------------------------------------------------------------------------------
// Bad input: fmi2Error, a message naming the variable or call and the rule, the Error state
// ---------------------------------------------------------------------------------------------

/// Brings a fresh instance to where the bad call is made and makes it.
type BadCall = fn(&mut Instance) -> Status;

struct Case {
    what: &'static str,
    bad: BadCall,
    needles: &'static [&'static str],
    /// The state afterwards: "Error" when the call failed on its arguments, the state it was
    /// called in when it was refused by the state machine.
    state_after: &'static str,
}

/// The instance's state, read without changing it: `fmi2CancelStep` is refused in every state the
/// FMU can reach (steps complete synchronously) and its message names the state. Clears the log.
fn state_of(inst: &mut Instance) -> String {
    inst.sink().take();
    assert_eq!(inst.cancel_step(), Status::Error);
    let logs = inst.sink().take();
    let message = &logs.last().expect("fmi2CancelStep logs why").message;
    message
        .split("not allowed in state ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("unexpected message {message:?}"))
        .to_string()
}

fn running(inst: &mut Instance) {
    initialize(inst, &[("c", 1e4)]);
    set_inputs(inst, bounce(0.0));
    ok(inst.do_step(0.0, 0.01, false));
}

fn in_instantiated_then_exit(inst: &mut Instance, name: &str, value: f64) -> Status {
    // Parameters are checked when they take effect, so the set itself succeeds.
    ok(set(inst, name, value));
    ok(inst.setup_experiment(None, 0.0, None));
    ok(inst.enter_initialization_mode());
    inst.exit_initialization_mode()
}

fn raw_get_real(inst: &mut Instance, null_vr: bool, null_value: bool) -> Status {
    let vrs = [1u32, 2];
    let mut values = [0.0; 2];
    let f = *inst.binding().fmi2GetReal.as_ref().unwrap();
    // SAFETY: deliberately NULL arrays with nvr = 2; the FMU must check them.
    Status::from(unsafe {
        f(
            inst.component(),
            if null_vr { ptr::null() } else { vrs.as_ptr() },
            2,
            if null_value {
                ptr::null_mut()
            } else {
                values.as_mut_ptr()
            },
        )
    })
}

fn raw_set_real(inst: &mut Instance, null_vr: bool, null_value: bool) -> Status {
    let vrs = [
        vr(inst, "flange_a.s", VarType::Real),
        vr(inst, "flange_b.s", VarType::Real),
    ];
    let values = [0.0; 2];
    let f = *inst.binding().fmi2SetReal.as_ref().unwrap();
    // SAFETY: deliberately NULL arrays with nvr = 2; the FMU must check them.
    Status::from(unsafe {
        f(
            inst.component(),
            if null_vr { ptr::null() } else { vrs.as_ptr() },
            2,
            if null_value {
                ptr::null()
            } else {
                values.as_ptr()
            },
        )
    })
}

const CASES: &[Case] = &[
    Case {
        what: "negative c, checked at fmi2ExitInitializationMode",
        bad: |i| in_instantiated_then_exit(i, "c", -1.0),
        needles: &[
            "fmi2ExitInitializationMode",
            "c = -1",
            "a finite number >= 0",
        ],
        state_after: "Error",
    },
    Case {
        what: "negative tunable c during the run",
        bad: |i| {
            running(i);
            set(i, "c", -1.0)
        },
        needles: &["fmi2SetReal", "c = -1", "a finite number >= 0"],
        state_after: "Error",
    },
    Case {
        what: "negative d",
        bad: |i| in_instantiated_then_exit(i, "d", -2.0),
        needles: &["d = -2", ">= 0"],
        state_after: "Error",
    },
    Case {
        what: "n < 1 at initialization",
        bad: |i| in_instantiated_then_exit(i, "n", 0.5),
        needles: &[
            "fmi2ExitInitializationMode",
            "n = 0.5",
            "a finite number >= 1",
        ],
        state_after: "Error",
    },
    Case {
        what: "n < 1 during the run",
        bad: |i| {
            running(i);
            set(i, "n", 0.9)
        },
        needles: &["fmi2SetReal", "n = 0.9", ">= 1"],
        state_after: "Error",
    },
    Case {
        what: "s_ref = 0",
        bad: |i| in_instantiated_then_exit(i, "s_ref", 0.0),
        needles: &["s_ref = 0", "a finite number > 0"],
        state_after: "Error",
    },
    Case {
        what: "s_ref < 0 during the run",
        bad: |i| {
            running(i);
            set(i, "s_ref", -0.5)
        },
        needles: &["fmi2SetReal", "s_ref = -0.5", "> 0"],
        state_after: "Error",
    },
    Case {
        what: "negative f_ref",
        bad: |i| in_instantiated_then_exit(i, "f_ref", -3.0),
        needles: &["f_ref = -3", ">= 0"],
        state_after: "Error",
    },
    Case {
        what: "NaN parameter",
        bad: |i| in_instantiated_then_exit(i, "s_rel0", f64::NAN),
        needles: &["s_rel0 = NaN", "a finite number"],
        state_after: "Error",
    },
    Case {
        what: "maxSubstepCount = 0",
        bad: |i| in_instantiated_then_exit(i, "maxSubstepCount", 0.0),
        needles: &["maxSubstepCount = 0", "an integer from 1 to 1000000"],
        state_after: "Error",
    },
    Case {
        what: "negative accelerationEstimate during the run",
        bad: |i| {
            running(i);
            set(i, "accelerationEstimate", -1.0)
        },
        needles: &[
            "fmi2SetInteger",
            "accelerationEstimate = -1",
            "an integer from 0 to",
        ],
        state_after: "Error",
    },
    Case {
        what: "maxSubstepSize = 0 during the run",
        bad: |i| {
            running(i);
            set(i, "maxSubstepSize", 0.0)
        },
        needles: &["maxSubstepSize = 0", "> 0"],
        state_after: "Error",
    },
    Case {
        what: "NaN input",
        bad: |i| {
            running(i);
            set(i, "flange_b.s", f64::NAN)
        },
        needles: &["fmi2SetReal", "flange_b.s = NaN", "a finite number"],
        state_after: "Error",
    },
    Case {
        what: "infinite input",
        bad: |i| {
            running(i);
            set(i, "flange_a.v", f64::INFINITY)
        },
        needles: &["flange_a.v = inf", "a finite number"],
        state_after: "Error",
    },
    Case {
        what: "-inf input as a start value",
        bad: |i| set(i, "flange_b.v", f64::NEG_INFINITY),
        needles: &["flange_b.v = -inf", "a finite number"],
        state_after: "Error",
    },
    Case {
        what: "unknown value reference in fmi2GetReal",
        bad: |i| {
            running(i);
            i.get_real(&[999]).0
        },
        needles: &["fmi2GetReal", "unknown value reference 999"],
        state_after: "Error",
    },
    Case {
        what: "unknown value reference in fmi2SetReal",
        bad: |i| {
            running(i);
            i.set_real(&[11, 999], &[0.0, 1.0])
        },
        needles: &["fmi2SetReal", "unknown value reference 999"],
        state_after: "Error",
    },
    Case {
        what: "unknown value reference in fmi2SetInteger before initialization",
        bad: |i| i.set_integer(&[12345], &[1]),
        needles: &["fmi2SetInteger", "unknown value reference 12345"],
        state_after: "Error",
    },
    Case {
        what: "Real value reference of a Boolean",
        bad: |i| {
            running(i);
            let reference = vr(i, "useHeatPort", VarType::Boolean);
            i.get_real(&[reference]).0
        },
        needles: &["fmi2GetReal", "useHeatPort (Boolean)", "not Real"],
        state_after: "Error",
    },
    Case {
        what: "Integer access to a Real",
        bad: |i| {
            running(i);
            let reference = vr(i, "c", VarType::Real);
            i.get_integer(&[reference]).0
        },
        needles: &["fmi2GetInteger", "c (Real)", "not Integer"],
        state_after: "Error",
    },
    Case {
        what: "Boolean set of a Real input",
        bad: |i| {
            let reference = vr(i, "flange_a.s", VarType::Real);
            i.set_boolean(&[reference], &[true])
        },
        needles: &["fmi2SetBoolean", "flange_a.s (Real)", "not Boolean"],
        state_after: "Error",
    },
    Case {
        what: "String access",
        bad: |i| {
            running(i);
            let reference = vr(i, "c", VarType::Real);
            i.get_string(&[reference]).0
        },
        needles: &["fmi2GetString", "c (Real), not String"],
        state_after: "Error",
    },
    Case {
        what: "setting an output",
        bad: |i| {
            running(i);
            set(i, "f", -1.0)
        },
        needles: &[
            "fmi2SetReal",
            "f is an output",
            "only parameters and inputs can be set",
        ],
        state_after: "Error",
    },
    Case {
        what: "setting a Boolean output as a start value",
        bad: |i| set(i, "contact", 1.0),
        needles: &["fmi2SetBoolean", "contact is an output"],
        state_after: "Error",
    },
    Case {
        what: "setting a local",
        bad: |i| {
            running(i);
            set(i, "f_c", -1.0)
        },
        needles: &[
            "f_c is a local variable",
            "only parameters and inputs can be set",
        ],
        state_after: "Error",
    },
    Case {
        what: "setting the fixed useHeatPort after initialization",
        bad: |i| {
            running(i);
            set(i, "useHeatPort", 1.0)
        },
        needles: &[
            "fmi2SetBoolean",
            "useHeatPort is a fixed parameter",
            "cannot change after initialization",
        ],
        state_after: "Error",
    },
    Case {
        what: "fmi2GetReal before fmi2EnterInitializationMode",
        bad: |i| i.get_real(&[1]).0,
        needles: &["fmi2GetReal: not allowed in state Instantiated"],
        state_after: "Instantiated",
    },
    Case {
        what: "fmi2GetDirectionalDerivative before fmi2EnterInitializationMode",
        bad: |i| {
            let (f, s_b) = (
                vr(i, "f", VarType::Real),
                vr(i, "flange_b.s", VarType::Real),
            );
            i.get_directional_derivative(&[f], &[s_b], &[1.0]).0
        },
        needles: &["fmi2GetDirectionalDerivative: not allowed in state Instantiated"],
        state_after: "Instantiated",
    },
    Case {
        what: "fmi2DoStep before initialization",
        bad: |i| i.do_step(0.0, 0.01, false),
        needles: &["fmi2DoStep: not allowed in state Instantiated"],
        state_after: "Instantiated",
    },
    Case {
        what: "fmi2DoStep in initialization mode",
        bad: |i| {
            ok(i.setup_experiment(None, 0.0, None));
            ok(i.enter_initialization_mode());
            i.do_step(0.0, 0.01, false)
        },
        needles: &["fmi2DoStep: not allowed in state InitializationMode"],
        state_after: "InitializationMode",
    },
    Case {
        what: "fmi2ExitInitializationMode without entering it",
        bad: |i| i.exit_initialization_mode(),
        needles: &["fmi2ExitInitializationMode: not allowed in state Instantiated"],
        state_after: "Instantiated",
    },
    Case {
        what: "fmi2SetupExperiment after initialization",
        bad: |i| {
            running(i);
            i.setup_experiment(None, 0.0, None)
        },
        needles: &["fmi2SetupExperiment: not allowed in state StepComplete"],
        state_after: "StepComplete",
    },
    Case {
        what: "fmi2Terminate before initialization",
        bad: |i| i.terminate(),
        needles: &["fmi2Terminate: not allowed in state Instantiated"],
        state_after: "Instantiated",
    },
    Case {
        what: "fmi2DoStep after fmi2Terminate",
        bad: |i| {
            running(i);
            ok(i.terminate());
            i.do_step(0.01, 0.01, false)
        },
        needles: &["fmi2DoStep: not allowed in state Terminated"],
        state_after: "Terminated",
    },
    Case {
        what: "fmi2SetReal after fmi2Terminate",
        bad: |i| {
            running(i);
            ok(i.terminate());
            set(i, "flange_a.s", 0.0)
        },
        needles: &["fmi2SetReal: not allowed in state Terminated"],
        state_after: "Terminated",
    },
    Case {
        what: "h = 0",
        bad: |i| {
            running(i);
            i.do_step(0.01, 0.0, false)
        },
        needles: &[
            "fmi2DoStep",
            "communicationStepSize = 0",
            "a finite number > 0",
        ],
        state_after: "Error",
    },
    Case {
        what: "h < 0",
        bad: |i| {
            running(i);
            i.do_step(0.01, -0.01, false)
        },
        needles: &["communicationStepSize = -0.01", "> 0"],
        state_after: "Error",
    },
    Case {
        what: "h = NaN",
        bad: |i| {
            running(i);
            i.do_step(0.01, f64::NAN, false)
        },
        needles: &["communicationStepSize = NaN", "> 0"],
        state_after: "Error",
    },
    Case {
        what: "h = inf",
        bad: |i| {
            initialize(i, &[]);
            i.do_step(0.0, f64::INFINITY, false)
        },
        needles: &["communicationStepSize = inf"],
        state_after: "Error",
    },
    Case {
        what: "currentCommunicationPoint ahead of the FMU",
        bad: |i| {
            initialize(i, &[]);
            i.do_step(0.5, 0.01, false)
        },
        needles: &["currentCommunicationPoint = 0.5", "is not the FMU's time 0"],
        state_after: "Error",
    },
    Case {
        what: "currentCommunicationPoint half a step off",
        bad: |i| {
            running(i);
            i.do_step(0.015, 0.01, false)
        },
        needles: &[
            "currentCommunicationPoint = 0.015",
            "is not the FMU's time 0.01",
        ],
        state_after: "Error",
    },
    Case {
        what: "currentCommunicationPoint repeating the last step",
        bad: |i| {
            running(i);
            i.do_step(0.0, 0.01, false)
        },
        needles: &["currentCommunicationPoint = 0 ", "FMU's time 0.01"],
        state_after: "Error",
    },
    Case {
        what: "NULL vr[] with nvr > 0 in fmi2GetReal",
        bad: |i| {
            running(i);
            raw_get_real(i, true, false)
        },
        needles: &["fmi2GetReal", "vr[] is NULL but 2 values were announced"],
        state_after: "Error",
    },
    Case {
        what: "NULL value[] with nvr > 0 in fmi2GetReal",
        bad: |i| {
            running(i);
            raw_get_real(i, false, true)
        },
        needles: &["fmi2GetReal", "value[] is NULL but 2 values were announced"],
        state_after: "Error",
    },
    Case {
        what: "NULL vr[] with nvr > 0 in fmi2SetReal",
        bad: |i| raw_set_real(i, true, false),
        needles: &["fmi2SetReal", "vr[] is NULL"],
        state_after: "Error",
    },
    Case {
        what: "NULL value[] with nvr > 0 in fmi2SetReal",
        bad: |i| {
            running(i);
            raw_set_real(i, false, true)
        },
        needles: &["fmi2SetReal", "value[] is NULL"],
        state_after: "Error",
    },
    Case {
        what: "NULL dvKnown[] in fmi2GetDirectionalDerivative",
        bad: |i| {
            running(i);
            let f = *i.binding().fmi2GetDirectionalDerivative.as_ref().unwrap();
            let unknown = [vr(i, "f", VarType::Real)];
            let known = [vr(i, "flange_b.s", VarType::Real)];
            let mut out = [0.0];
            // SAFETY: deliberately NULL seed array with nKnown = 1.
            Status::from(unsafe {
                f(
                    i.component(),
                    unknown.as_ptr(),
                    1,
                    known.as_ptr(),
                    1,
                    ptr::null(),
                    out.as_mut_ptr(),
                )
            })
        },
        needles: &["fmi2GetDirectionalDerivative", "dvKnown[] is NULL"],
        state_after: "Error",
    },
    Case {
        what: "directional derivative of an input",
        bad: |i| {
            running(i);
            let (s_a, s_b) = (
                vr(i, "flange_a.s", VarType::Real),
                vr(i, "flange_b.s", VarType::Real),
            );
            i.get_directional_derivative(&[s_a], &[s_b], &[1.0]).0
        },
        needles: &["flange_a.s is not an output, local or state derivative"],
        state_after: "Error",
    },
    Case {
        what: "directional derivative with respect to a parameter",
        bad: |i| {
            running(i);
            let (f, c) = (vr(i, "f", VarType::Real), vr(i, "c", VarType::Real));
            i.get_directional_derivative(&[f], &[c], &[1.0]).0
        },
        needles: &["c is not an input"],
        state_after: "Error",
    },
    Case {
        what: "input derivative of order 3",
        bad: |i| {
            running(i);
            let reference = vr(i, "flange_b.v", VarType::Real);
            i.set_real_input_derivatives(&[reference], &[3], &[1.0])
        },
        needles: &[
            "fmi2SetRealInputDerivatives",
            "order 3 of flange_b.v is not supported",
        ],
        state_after: "Error",
    },
    Case {
        what: "input derivative of an output",
        bad: |i| {
            running(i);
            let reference = vr(i, "f", VarType::Real);
            i.set_real_input_derivatives(&[reference], &[1], &[1.0])
        },
        needles: &["fmi2SetRealInputDerivatives", "f is not an input"],
        state_after: "Error",
    },
    Case {
        what: "NaN input derivative",
        bad: |i| {
            running(i);
            let reference = vr(i, "flange_a.v", VarType::Real);
            i.set_real_input_derivatives(&[reference], &[1], &[f64::NAN])
        },
        needles: &["flange_a.v", "NaN is not finite"],
        state_after: "Error",
    },
    Case {
        what: "output derivative of order 2",
        bad: |i| {
            running(i);
            let reference = vr(i, "s_rel", VarType::Real);
            i.get_real_output_derivatives(&[reference], &[2]).0
        },
        needles: &[
            "fmi2GetRealOutputDerivatives",
            "order 2 of s_rel is not available",
            "maxOutputDerivativeOrder is 1",
        ],
        state_after: "Error",
    },
    Case {
        what: "output derivative of an input",
        bad: |i| {
            running(i);
            let reference = vr(i, "flange_b.s", VarType::Real);
            i.get_real_output_derivatives(&[reference], &[1]).0
        },
        needles: &["flange_b.s is not an output"],
        state_after: "Error",
    },
    Case {
        what: "fmi2GetFMUstate with a NULL FMUstate pointer",
        bad: |i| {
            running(i);
            let f = *i.binding().fmi2GetFMUstate.as_ref().unwrap();
            // SAFETY: deliberately NULL out pointer.
            Status::from(unsafe { f(i.component(), ptr::null_mut()) })
        },
        needles: &["fmi2GetFMUstate", "FMUstate is NULL"],
        state_after: "Error",
    },
    Case {
        what: "unknown log category",
        bad: |i| i.set_debug_logging(true, &["logNonsense"]),
        needles: &["fmi2SetDebugLogging", "unknown log category 'logNonsense'"],
        state_after: "Error",
    },
    Case {
        what: "stopTime before startTime",
        bad: |i| i.setup_experiment(None, 0.0, Some(-1.0)),
        needles: &[
            "fmi2SetupExperiment",
            "stopTime = -1",
            "before startTime = 0",
        ],
        state_after: "Error",
    },
    Case {
        what: "non-finite startTime",
        bad: |i| i.setup_experiment(None, f64::NAN, None),
        needles: &["fmi2SetupExperiment", "startTime = NaN", "finite"],
        state_after: "Error",
    },
];

#[test]
fn every_bad_input_gets_fmi2error_with_a_message_and_reset_recovers() {
    let fmu = Fmu::load_default();
    // A clean run to compare the recovered instances with.
    let mut clean = Instance::new(&fmu, "clean");
    initialize(&mut clean, &[("c", 2e4)]);
    set_inputs(&mut clean, bounce(0.05));
    ok(clean.do_step(0.0, 0.02, false));
    let expected = record(&mut clean);

    for case in CASES {
        let mut inst = instance_with(
            &fmu,
            InstantiateOptions {
                instance_name: case.what.to_string(),
                logging_on: true,
                ..Default::default()
            },
        );
        let status = (case.bad)(&mut inst);
        let message = expect_error(&inst, status, case.needles);
        assert_eq!(
            state_of(&mut inst),
            case.state_after,
            "{}: state after {message:?}",
            case.what
        );
        if case.state_after == "Error" {
            // Only reading, logging switches, states, reset and free are left.
            let status = inst.do_step(0.0, 0.01, false);
            expect_error(&inst, status, &["fmi2DoStep: not allowed in state Error"]);
            let status = set(&mut inst, "flange_a.s", 0.0);
            expect_error(&inst, status, &["fmi2SetReal: not allowed in state Error"]);
            let status = inst.terminate();
            expect_error(
                &inst,
                status,
                &["fmi2Terminate: not allowed in state Error"],
            );
        }
        if case.state_after != "Instantiated" {
            ok(inst.reset());
            assert_eq!(state_of(&mut inst), "Instantiated", "{}", case.what);
        }
        // Reset gives back a new instance: start values again, time 0, nothing accumulated.
        ok(inst.setup_experiment(None, 0.0, None));
        ok(inst.enter_initialization_mode());
        ok(inst.exit_initialization_mode());
        assert_eq!(inst.real("c"), 1.0, "{}: c after reset", case.what);
        ok(set(&mut inst, "c", 2e4));
        set_inputs(&mut inst, bounce(0.05));
        ok(inst.do_step(0.0, 0.02, false));
        assert_eq!(
            record(&mut inst),
            expected,
            "{}: run after recovery",
            case.what
        );
        let logs = inst.sink().take();
        check_records(&logs, inst.environment_pointer() as usize, case.what, &inst);
        assert!(
            logs.iter().all(|r| r.status == Status::Ok),
            "{}: {logs:#?}",
            case.what
        );
    }
}

#[test]
fn a_refused_tunable_value_leaves_the_previous_one() {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, "tunable");
    running(&mut inst);
    ok(set(&mut inst, "c", 3e4));
    let status = set(&mut inst, "c", -1.0);
    expect_error(&inst, status, &["c = -1"]);
    assert_eq!(inst.real("c"), 3e4);
    let status = set(&mut inst, "flange_b.s", f64::NAN);
    expect_error(&inst, status, &["fmi2SetReal: not allowed in state Error"]);
}

#[test]
fn a_wrong_state_call_leaves_the_state_alone() {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, "wrong-state");
    assert_eq!(inst.get_real(&[1]).0, Status::Error);
    assert_eq!(inst.do_step(0.0, 0.01, false), Status::Error);
    // Still Instantiated: the whole normal sequence works.
    initialize(&mut inst, &[("c", 1e4)]);
    assert_eq!(inst.setup_experiment(None, 0.0, None), Status::Error);
    set_inputs(&mut inst, bounce(0.0));
    ok(inst.do_step(0.0, 0.01, false));
    ok(inst.terminate());
    assert_eq!(inst.terminate(), Status::Error);
    assert_eq!(state_of(&mut inst), "Terminated");
}
