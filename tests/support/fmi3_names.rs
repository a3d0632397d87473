//! The names of the FMI 3.0 functions, written out from the standard (fmi3Functions.h), not from
//! the FMU's source: every one of them, as the FMI 3.0 binary exports them all (those it does not
//! support return fmi3Error with a logged reason; fmusim resolves every `fmi3*` symbol at load time
//! and treats a missing one as fatal). Plain data, so that tests that need no importer can include
//! this file alone (`#[path = "support/fmi3_names.rs"] mod fmi3_names;`). `tests/exports.rs`
//! checks the list against fmi-sys's copy of the header when that is at hand.

/// Inquire the version, debug logging, instantiation, the life cycle (fmi3Functions.h, in its order).
pub const COMMON_FUNCTIONS: &[&str] = &[
    "fmi3GetVersion",
    "fmi3SetDebugLogging",
    "fmi3InstantiateModelExchange",
    "fmi3InstantiateCoSimulation",
    "fmi3InstantiateScheduledExecution",
    "fmi3FreeInstance",
    "fmi3EnterInitializationMode",
    "fmi3ExitInitializationMode",
    "fmi3EnterEventMode",
    "fmi3Terminate",
    "fmi3Reset",
];

/// Getting and setting variable values, one pair per type of the standard.
pub const VALUE_FUNCTIONS: &[&str] = &[
    "fmi3GetFloat32",
    "fmi3GetFloat64",
    "fmi3GetInt8",
    "fmi3GetUInt8",
    "fmi3GetInt16",
    "fmi3GetUInt16",
    "fmi3GetInt32",
    "fmi3GetUInt32",
    "fmi3GetInt64",
    "fmi3GetUInt64",
    "fmi3GetBoolean",
    "fmi3GetString",
    "fmi3GetBinary",
    "fmi3GetClock",
    "fmi3SetFloat32",
    "fmi3SetFloat64",
    "fmi3SetInt8",
    "fmi3SetUInt8",
    "fmi3SetInt16",
    "fmi3SetUInt16",
    "fmi3SetInt32",
    "fmi3SetUInt32",
    "fmi3SetInt64",
    "fmi3SetUInt64",
    "fmi3SetBoolean",
    "fmi3SetString",
    "fmi3SetBinary",
    "fmi3SetClock",
];

/// Variable dependencies, FMU state, derivatives, configuration mode, clocks and discrete states.
pub const OTHER_COMMON_FUNCTIONS: &[&str] = &[
    "fmi3GetNumberOfVariableDependencies",
    "fmi3GetVariableDependencies",
    "fmi3GetFMUState",
    "fmi3SetFMUState",
    "fmi3FreeFMUState",
    "fmi3SerializedFMUStateSize",
    "fmi3SerializeFMUState",
    "fmi3DeserializeFMUState",
    "fmi3GetDirectionalDerivative",
    "fmi3GetAdjointDerivative",
    "fmi3EnterConfigurationMode",
    "fmi3ExitConfigurationMode",
    "fmi3GetIntervalDecimal",
    "fmi3GetIntervalFraction",
    "fmi3GetShiftDecimal",
    "fmi3GetShiftFraction",
    "fmi3SetIntervalDecimal",
    "fmi3SetIntervalFraction",
    "fmi3SetShiftDecimal",
    "fmi3SetShiftFraction",
    "fmi3EvaluateDiscreteStates",
    "fmi3UpdateDiscreteStates",
];

/// Model Exchange.
pub const MODEL_EXCHANGE_FUNCTIONS: &[&str] = &[
    "fmi3EnterContinuousTimeMode",
    "fmi3CompletedIntegratorStep",
    "fmi3SetTime",
    "fmi3SetContinuousStates",
    "fmi3GetContinuousStateDerivatives",
    "fmi3GetEventIndicators",
    "fmi3GetContinuousStates",
    "fmi3GetNominalsOfContinuousStates",
    "fmi3GetNumberOfEventIndicators",
    "fmi3GetNumberOfContinuousStates",
];

/// Co-simulation.
pub const CO_SIMULATION_FUNCTIONS: &[&str] = &[
    "fmi3EnterStepMode",
    "fmi3GetOutputDerivatives",
    "fmi3DoStep",
];

/// Scheduled Execution.
pub const SCHEDULED_EXECUTION_FUNCTIONS: &[&str] = &["fmi3ActivateModelPartition"];

/// How many functions fmi3Functions.h declares.
pub const COUNT: usize = 75;

/// Every function of fmi3Functions.h.
pub fn all() -> impl Iterator<Item = &'static str> {
    COMMON_FUNCTIONS
        .iter()
        .chain(VALUE_FUNCTIONS)
        .chain(OTHER_COMMON_FUNCTIONS)
        .chain(MODEL_EXCHANGE_FUNCTIONS)
        .chain(CO_SIMULATION_FUNCTIONS)
        .chain(SCHEDULED_EXECUTION_FUNCTIONS)
        .copied()
}
