//! Driving an instance of `ElastoGap.fmu` for the bad-input cases: the stages a case starts from,
//! reading an instance's state without changing it, a legal continuation from each state, and how
//! a case is run and what it returns.

use std::sync::Arc;

use crate::support::{ok, vr, Fmu, FmuState, Instance, InstantiateOptions, LogRecord, Status};
use crate::table::Returned;
use elastogap::variables::{by_var, Kind, Var};
use fmi_sys::fmi2;

// ---------------------------------------------------------------------------------------------
// The FMU side: driving an instance
// ---------------------------------------------------------------------------------------------

/// Sets `var` with the setter of its type (Integers and Booleans given as f64).
pub fn set(inst: &mut Instance, var: Var, value: f64) -> Status {
    let reference = [vr(var)];
    match by_var(var).kind {
        Kind::Real => inst.set_real(&reference, &[value]),
        Kind::Integer => inst.set_integer(&reference, &[value as i32]),
        Kind::Boolean => inst.set_boolean(&reference, &[value != 0.0]),
        Kind::String => panic!("{var:?} is text: set it with set_string"),
    }
}

/// The motion the running instances are given: flange_b pushed into flange_a.
pub const INPUTS: [(Var, f64); 4] = [
    (Var::FlangeAS, 0.0),
    (Var::FlangeAV, 0.0),
    (Var::FlangeBS, -0.001),
    (Var::FlangeBV, -0.1),
];
pub const STEP: f64 = 0.01;

pub fn instantiated(_: &mut Instance) {}

pub fn initializing(inst: &mut Instance) {
    ok(inst.setup_experiment(None, 0.0, None));
    ok(inst.enter_initialization_mode());
}

/// Initialized with c = 1e4 and one step taken: the FMU's time is [`STEP`].
pub fn running(inst: &mut Instance) {
    ok(set(inst, Var::C, 1e4));
    initializing(inst);
    ok(inst.exit_initialization_mode());
    for (var, value) in INPUTS {
        ok(set(inst, var, value));
    }
    ok(inst.do_step(0.0, STEP, false));
}

/// A Model Exchange instance initialized with c = 1e4 and the inputs of [`INPUTS`]: in Event Mode.
pub fn event_mode(inst: &mut Instance) {
    ok(set(inst, Var::C, 1e4));
    initializing(inst);
    for (var, value) in INPUTS {
        ok(set(inst, var, value));
    }
    ok(inst.exit_initialization_mode());
}

/// [`event_mode`], then on to Continuous-Time Mode.
pub fn continuous_time_mode(inst: &mut Instance) {
    event_mode(inst);
    ok(inst.new_discrete_states().0);
    ok(inst.enter_continuous_time_mode());
}

pub fn terminated(inst: &mut Instance) {
    running(inst);
    ok(inst.terminate());
}

/// Running, then put into the Error state by an unknown value reference.
pub fn failed(inst: &mut Instance) {
    running(inst);
    assert_eq!(inst.get_real(&[99]).0, Status::Error);
    inst.sink().take();
}

/// The instance's state, read without changing it: `fmi2CancelStep` is refused in every state the
/// FMU can reach (steps complete synchronously) and its message names the state.
pub fn state_of(inst: &mut Instance) -> String {
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

/// A legal continuation from `state` succeeds without a message: what an importer does next.
pub fn continue_from(inst: &mut Instance, state: &str) -> Result<(), String> {
    if inst.is_model_exchange() {
        return continue_model_exchange_from(inst, state);
    }
    let mut calls: Vec<(&str, Status)> = Vec::new();
    let from_instantiated = |inst: &mut Instance, calls: &mut Vec<(&str, Status)>| {
        calls.push((
            "fmi2SetupExperiment",
            inst.setup_experiment(None, 0.0, None),
        ));
        calls.push((
            "fmi2EnterInitializationMode",
            inst.enter_initialization_mode(),
        ));
        calls.push((
            "fmi2ExitInitializationMode",
            inst.exit_initialization_mode(),
        ));
        calls.push(("fmi2DoStep", inst.do_step(0.0, STEP, false)));
    };
    match state {
        "Instantiated" => from_instantiated(inst, &mut calls),
        "InitializationMode" => {
            calls.push((
                "fmi2ExitInitializationMode",
                inst.exit_initialization_mode(),
            ));
            let (status, time) = inst.get_real_status(fmi2::fmi2StatusKind_fmi2LastSuccessfulTime);
            calls.push(("fmi2GetRealStatus", status));
            calls.push(("fmi2DoStep", inst.do_step(time, STEP, false)));
        }
        "StepComplete" => {
            let (status, time) = inst.get_real_status(fmi2::fmi2StatusKind_fmi2LastSuccessfulTime);
            calls.push(("fmi2GetRealStatus", status));
            calls.push(("fmi2DoStep", inst.do_step(time, STEP, false)));
        }
        "Terminated" | "Error" => {
            calls.push(("fmi2Reset", inst.reset()));
            from_instantiated(inst, &mut calls);
        }
        other => return Err(format!("no legal continuation from {other}")),
    }
    continuation_succeeded(inst, state, &calls)
}

/// [`continue_from`] for a Model Exchange instance: on to Continuous-Time Mode and one
/// integrator step there.
pub fn continue_model_exchange_from(inst: &mut Instance, state: &str) -> Result<(), String> {
    let mut calls: Vec<(&str, Status)> = Vec::new();
    let mut from = state;
    if matches!(from, "Terminated" | "Error") {
        calls.push(("fmi2Reset", inst.reset()));
        from = "Instantiated";
    }
    if from == "Instantiated" {
        calls.push((
            "fmi2SetupExperiment",
            inst.setup_experiment(None, 0.0, None),
        ));
        calls.push((
            "fmi2EnterInitializationMode",
            inst.enter_initialization_mode(),
        ));
        from = "InitializationMode";
    }
    if from == "InitializationMode" {
        calls.push((
            "fmi2ExitInitializationMode",
            inst.exit_initialization_mode(),
        ));
        from = "EventMode";
    }
    if from == "EventMode" {
        calls.push(("fmi2NewDiscreteStates", inst.new_discrete_states().0));
        calls.push((
            "fmi2EnterContinuousTimeMode",
            inst.enter_continuous_time_mode(),
        ));
        from = "ContinuousTimeMode";
    }
    if from != "ContinuousTimeMode" {
        return Err(format!("no legal continuation from {state}"));
    }
    calls.push(("fmi2SetTime", inst.set_time(STEP)));
    calls.push(("fmi2GetDerivatives", inst.get_derivatives(3).0));
    calls.push((
        "fmi2CompletedIntegratorStep",
        inst.completed_integrator_step(true).0,
    ));
    continuation_succeeded(inst, state, &calls)
}

/// Every call of a continuation returned fmi2OK and nothing was logged.
pub fn continuation_succeeded(
    inst: &mut Instance,
    state: &str,
    calls: &[(&str, Status)],
) -> Result<(), String> {
    let logs = inst.sink().take();
    if calls.iter().any(|(_, s)| *s != Status::Ok) || !logs.is_empty() {
        return Err(format!(
            "continuing from {state}: {calls:?}, log {:?}",
            messages(&logs)
        ));
    }
    Ok(())
}

pub fn messages(logs: &[LogRecord]) -> Vec<String> {
    logs.iter()
        .map(|r| format!("{:?} {:?}: {}", r.status, r.category, r.message))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The cases
// ---------------------------------------------------------------------------------------------

/// What a case did: the return of the bad call, everything logged by it, and where the instance
/// is left.
pub struct Outcome {
    pub returned: Returned,
    pub logs: Vec<LogRecord>,
    pub after: After,
}

pub enum After {
    /// The instance the bad call was made on, to probe its state.
    Instance(Instance),
    /// No instance exists (fmi2Instantiate failed, or the call had none).
    NoInstance,
    /// The case had no logger to probe with and established the state itself.
    Checked(&'static str),
}

pub type Case = fn(&Arc<Fmu>) -> Outcome;

pub fn fresh(fmu: &Arc<Fmu>) -> Instance {
    fresh_of_type(fmu, fmi2::fmi2Type_fmi2CoSimulation)
}

pub fn fresh_of_type(fmu: &Arc<Fmu>, fmu_type: fmi2::fmi2Type) -> Instance {
    let options = InstantiateOptions {
        fmu_type,
        ..InstantiateOptions::named("bad-input")
    };
    Instance::instantiate(fmu, &options)
        .unwrap_or_else(|f| panic!("fmi2Instantiate failed: {:#?}", f.logs))
}

/// A fresh instance brought to `stage` (which must log nothing), then `bad`.
pub fn call(fmu: &Arc<Fmu>, stage: fn(&mut Instance), bad: fn(&mut Instance) -> Status) -> Outcome {
    call_on(fresh(fmu), stage, bad)
}

/// [`call`] on an instance made for Model Exchange.
pub fn call_model_exchange(
    fmu: &Arc<Fmu>,
    stage: fn(&mut Instance),
    bad: fn(&mut Instance) -> Status,
) -> Outcome {
    call_on(
        fresh_of_type(fmu, fmi2::fmi2Type_fmi2ModelExchange),
        stage,
        bad,
    )
}

pub fn call_on(
    mut inst: Instance,
    stage: fn(&mut Instance),
    bad: fn(&mut Instance) -> Status,
) -> Outcome {
    stage(&mut inst);
    let staged = inst.sink().take();
    assert!(
        staged.is_empty(),
        "the stage logged {:?}",
        messages(&staged)
    );
    let status = bad(&mut inst);
    Outcome {
        returned: Returned::Status(status),
        logs: inst.sink().take(),
        after: After::Instance(inst),
    }
}

/// A state of this instance, taken while running.
pub fn own_state(inst: &mut Instance) -> FmuState {
    let mut state = FmuState::null();
    ok(inst.get_fmu_state(&mut state));
    state
}
