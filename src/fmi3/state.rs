//! The state machines of FMI 3.0 co-simulation (section 4.2) and Model Exchange (section 3.2) in
//! one table: each call lists the states it is allowed in, and calls of one interface are refused
//! on an instance of the other. Step Discarded, Configuration, Reconfiguration and Clock
//! Activation Mode never occur: steps are never discarded and there are no structural
//! parameters and no clocks.

use crate::runtime::{call_table, state_machine, ANY, CS, ME};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub(crate) enum State {
    Instantiated = 1 << 0,
    InitializationMode = 1 << 1,
    EventMode = 1 << 2,
    StepMode = 1 << 3,
    ContinuousTimeMode = 1 << 4,
    /// Inside fmi3DoStep, while the importer's intermediateUpdate callback runs.
    IntermediateUpdateMode = 1 << 5,
    Terminated = 1 << 6,
    Error = 1 << 7,
    Fatal = 1 << 8,
}

state_machine!(State; running: StepMode | EventMode | ContinuousTimeMode | IntermediateUpdateMode);

const INSTANTIATED: u16 = State::Instantiated as u16;
const INITIALIZATION: u16 = State::InitializationMode as u16;
const EVENT: u16 = State::EventMode as u16;
const STEP: u16 = State::StepMode as u16;
const CONTINUOUS: u16 = State::ContinuousTimeMode as u16;
const INTERMEDIATE: u16 = State::IntermediateUpdateMode as u16;
const TERMINATED: u16 = State::Terminated as u16;
const ERROR_STATE: u16 = State::Error as u16;

/// Every state but Fatal (the bits of no state allow nothing).
const ANY_BUT_FATAL: u16 = !(State::Fatal as u16);
/// Outside the importer's callback: the instance is not in the middle of a step.
const OUTSIDE_STEP: u16 = ANY_BUT_FATAL & !INTERMEDIATE;
const READABLE: u16 = ANY_BUT_FATAL & !INSTANTIATED;
/// Continuous-time Float64 inputs may also change in Continuous-Time Mode; everything else only
/// where the discrete equations are active.
const FLOAT_SETTABLE: u16 = INSTANTIATED | INITIALIZATION | STEP | EVENT | CONTINUOUS;
const SETTABLE: u16 = INSTANTIATED | INITIALIZATION | STEP | EVENT;
const MODEL_EXCHANGE_RUNNING: u16 = EVENT | CONTINUOUS;
const EVALUATED: u16 = INITIALIZATION | MODEL_EXCHANGE_RUNNING | TERMINATED | ERROR_STATE;

call_table! {
    "fmi3";
    SetDebugLogging: ANY_BUT_FATAL, ANY;
    EnterInitializationMode: INSTANTIATED, ANY;
    ExitInitializationMode: INITIALIZATION, ANY;
    // Co-simulation enters it from Step Mode (when eventModeUsed), Model Exchange from
    // Continuous-Time Mode; Event Mode again is accepted as FMI 2's layer accepts it.
    EnterEventMode: STEP | MODEL_EXCHANGE_RUNNING, ANY;
    Terminate: STEP | MODEL_EXCHANGE_RUNNING, ANY;
    Reset: OUTSIDE_STEP, ANY;
    SetFloat64: FLOAT_SETTABLE, ANY;
    GetDirectionalDerivative: READABLE & !INTERMEDIATE, ANY;
    UpdateDiscreteStates: EVENT, ANY;
    GetOutputDerivatives: STEP | INTERMEDIATE | TERMINATED | ERROR_STATE, CS;
    EnterStepMode: EVENT, CS;
    DoStep: STEP, CS;
    EnterContinuousTimeMode: EVENT, ME;
    CompletedIntegratorStep: CONTINUOUS, ME;
    // The standard allows it from Event Mode on; it only records the time, so it is accepted
    // before too, as in the FMI 2 layer.
    SetTime: INSTANTIATED | INITIALIZATION | MODEL_EXCHANGE_RUNNING, ME;
    SetContinuousStates: CONTINUOUS, ME;
    GetContinuousStateDerivatives: EVALUATED, ME;
    GetEventIndicators: EVALUATED, ME;
    GetContinuousStates: EVALUATED, ME;
    GetNominalsOfContinuousStates: INSTANTIATED | EVALUATED, ME;
    [
        /// A getter.
        Get: READABLE, ANY;
        /// A setter other than fmi3SetFloat64.
        Set: SETTABLE, ANY;
        FmuState: OUTSIDE_STEP, ANY;
        /// fmi3GetNumberOfEventIndicators and fmi3GetNumberOfContinuousStates.
        Count: ANY_BUT_FATAL, ANY;
        /// A function of a feature the FMU does not have.
        Unsupported: ANY_BUT_FATAL, ANY;
    ]
}
