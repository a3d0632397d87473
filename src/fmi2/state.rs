//! The state machines of FMI 2.0 co-simulation (section 4.2.4) and Model Exchange (section 3.2.3)
//! in one table: each call lists the states it is allowed in, and calls of one interface are
//! refused on an instance of the other.

use crate::model::Interface;
use crate::runtime::{call_table, state_machine, ANY, CS, ME};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub(crate) enum State {
    Instantiated = 1 << 0,
    InitializationMode = 1 << 1,
    StepComplete = 1 << 2,
    StepInProgress = 1 << 3,
    StepFailed = 1 << 4,
    StepCanceled = 1 << 5,
    Terminated = 1 << 6,
    Error = 1 << 7,
    Fatal = 1 << 8,
    EventMode = 1 << 9,
    ContinuousTimeMode = 1 << 10,
}

impl State {
    /// The state after initialization: where the simulation runs.
    pub(super) fn running(interface: Interface) -> State {
        match interface {
            Interface::CoSimulation => State::StepComplete,
            Interface::ModelExchange => State::EventMode,
        }
    }
}

state_machine!(State; running: StepComplete | EventMode | ContinuousTimeMode);

const INSTANTIATED: u16 = State::Instantiated as u16;
const INITIALIZATION: u16 = State::InitializationMode as u16;
const STEP_COMPLETE: u16 = State::StepComplete as u16;
const STEP_IN_PROGRESS: u16 = State::StepInProgress as u16;
const STEP_FAILED: u16 = State::StepFailed as u16;
const STEP_CANCELED: u16 = State::StepCanceled as u16;
const TERMINATED: u16 = State::Terminated as u16;
const ERROR_STATE: u16 = State::Error as u16;
const EVENT: u16 = State::EventMode as u16;
const CONTINUOUS: u16 = State::ContinuousTimeMode as u16;

/// Every state but Fatal (the bits of no state allow nothing).
const ANY_BUT_FATAL: u16 = !(State::Fatal as u16);
const AFTER_INSTANTIATION: u16 = ANY_BUT_FATAL & !STEP_IN_PROGRESS;
const READABLE: u16 = AFTER_INSTANTIATION & !INSTANTIATED;
/// Continuous-time Real inputs may also change in Continuous-Time Mode; everything else only
/// where the discrete equations are active.
const REAL_SETTABLE: u16 = INSTANTIATED | INITIALIZATION | STEP_COMPLETE | EVENT | CONTINUOUS;
const SETTABLE: u16 = INSTANTIATED | INITIALIZATION | STEP_COMPLETE | EVENT;
const STATUS_QUERY: u16 = STEP_COMPLETE | STEP_IN_PROGRESS | STEP_FAILED | TERMINATED;
const MODEL_EXCHANGE_RUNNING: u16 = EVENT | CONTINUOUS;

const EVALUATED: u16 = MODEL_EXCHANGE_RUNNING | TERMINATED | ERROR_STATE;
const AFTER_STEP: u16 = STEP_COMPLETE | STEP_FAILED | STEP_CANCELED | TERMINATED | ERROR_STATE;

call_table! {
    "fmi2";
    SetDebugLogging: ANY_BUT_FATAL, ANY;
    SetupExperiment: INSTANTIATED, ANY;
    EnterInitializationMode: INSTANTIATED, ANY;
    ExitInitializationMode: INITIALIZATION, ANY;
    Terminate: STEP_COMPLETE | STEP_FAILED | MODEL_EXCHANGE_RUNNING, ANY;
    Reset: AFTER_INSTANTIATION, ANY;
    GetReal: READABLE, ANY;
    GetInteger: READABLE, ANY;
    GetBoolean: READABLE, ANY;
    GetString: READABLE, ANY;
    SetReal: REAL_SETTABLE, ANY;
    SetInteger: SETTABLE, ANY;
    SetBoolean: SETTABLE, ANY;
    SetString: SETTABLE, ANY;
    GetFMUstate: AFTER_INSTANTIATION, ANY;
    SetFMUstate: AFTER_INSTANTIATION, ANY;
    FreeFMUstate: AFTER_INSTANTIATION, ANY;
    SerializedFMUstateSize: AFTER_INSTANTIATION, ANY;
    SerializeFMUstate: AFTER_INSTANTIATION, ANY;
    DeSerializeFMUstate: AFTER_INSTANTIATION, ANY;
    GetDirectionalDerivative: READABLE, ANY;
    SetRealInputDerivatives: INSTANTIATED | INITIALIZATION | STEP_COMPLETE, CS;
    GetRealOutputDerivatives: AFTER_STEP, CS;
    DoStep: STEP_COMPLETE, CS;
    CancelStep: STEP_IN_PROGRESS, CS;
    GetStatus: STATUS_QUERY, CS;
    GetRealStatus: STATUS_QUERY, CS;
    GetIntegerStatus: STATUS_QUERY, CS;
    GetBooleanStatus: STATUS_QUERY, CS;
    GetStringStatus: STATUS_QUERY, CS;
    EnterEventMode: MODEL_EXCHANGE_RUNNING, ME;
    NewDiscreteStates: EVENT, ME;
    EnterContinuousTimeMode: EVENT, ME;
    CompletedIntegratorStep: CONTINUOUS, ME;
    // The standard allows it from Event Mode on, but its own pseudo-code, the FMU Checker and
    // OpenModelica's import before 2022 call it right after instantiation; it only records the
    // time, so it is accepted there too.
    SetTime: INSTANTIATED | INITIALIZATION | MODEL_EXCHANGE_RUNNING, ME;
    SetContinuousStates: CONTINUOUS, ME;
    GetDerivatives: EVALUATED, ME;
    GetEventIndicators: INITIALIZATION | EVALUATED, ME;
    GetContinuousStates: INITIALIZATION | EVALUATED, ME;
    GetNominalsOfContinuousStates: INSTANTIATED | EVALUATED, ME;
}
