//! The functions of FMI 3.0 features ElastoGap does not have: clocks (intervals, shifts, model
//! partitions), structural parameters (Configuration Mode), per-element dependencies, adjoint
//! derivatives and clocked discrete states. They are exported so that every importer links;
//! each refuses with fmi3Error and a logged reason, never aborting, and so reads no argument but
//! the instance.

#![allow(non_snake_case, unused_variables)]

use fmi_sys::fmi3::{
    fmi3DependencyKind, fmi3Float64, fmi3Instance, fmi3IntervalQualifier, fmi3Status, fmi3UInt64,
    fmi3ValueReference,
};

use super::state::Call;
use super::Instance;
use crate::runtime::error;

fn refuse(instance: fmi3Instance, name: &'static str, reason: &str) -> fmi3Status {
    Instance::run(instance, Call::Unsupported(name), |_| {
        Err(error(format!("not supported: {reason}")))
    })
}

const NO_CLOCKS: &str = "ElastoGap has no clocks";
const NO_DEPENDENCIES: &str =
    "providesPerElementDependencies is false; the dependencies are in modelDescription.xml";
const NO_ADJOINTS: &str = "providesAdjointDerivatives is false; use fmi3GetDirectionalDerivative";
const NO_STRUCTURE: &str = "ElastoGap has no structural parameters";
const NO_CLOCKED_STATES: &str =
    "providesEvaluateDiscreteStates is false (ElastoGap has no clocked discrete states)";
const NO_SCHEDULING: &str = "ElastoGap has no Scheduled Execution interface";

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetNumberOfVariableDependencies(
    instance: fmi3Instance,
    valueReference: fmi3ValueReference,
    nDependencies: *mut usize,
) -> fmi3Status {
    refuse(
        instance,
        "fmi3GetNumberOfVariableDependencies",
        NO_DEPENDENCIES,
    )
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetVariableDependencies(
    instance: fmi3Instance,
    dependent: fmi3ValueReference,
    elementIndicesOfDependent: *mut usize,
    independents: *mut fmi3ValueReference,
    elementIndicesOfIndependents: *mut usize,
    dependencyKinds: *mut fmi3DependencyKind,
    nDependencies: usize,
) -> fmi3Status {
    refuse(instance, "fmi3GetVariableDependencies", NO_DEPENDENCIES)
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetAdjointDerivative(
    instance: fmi3Instance,
    unknowns: *const fmi3ValueReference,
    nUnknowns: usize,
    knowns: *const fmi3ValueReference,
    nKnowns: usize,
    seed: *const fmi3Float64,
    nSeed: usize,
    sensitivity: *mut fmi3Float64,
    nSensitivity: usize,
) -> fmi3Status {
    refuse(instance, "fmi3GetAdjointDerivative", NO_ADJOINTS)
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3EnterConfigurationMode(instance: fmi3Instance) -> fmi3Status {
    refuse(instance, "fmi3EnterConfigurationMode", NO_STRUCTURE)
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3ExitConfigurationMode(instance: fmi3Instance) -> fmi3Status {
    refuse(instance, "fmi3ExitConfigurationMode", NO_STRUCTURE)
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetIntervalDecimal(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    intervals: *mut fmi3Float64,
    qualifiers: *mut fmi3IntervalQualifier,
) -> fmi3Status {
    refuse(instance, "fmi3GetIntervalDecimal", NO_CLOCKS)
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetIntervalFraction(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    counters: *mut fmi3UInt64,
    resolutions: *mut fmi3UInt64,
    qualifiers: *mut fmi3IntervalQualifier,
) -> fmi3Status {
    refuse(instance, "fmi3GetIntervalFraction", NO_CLOCKS)
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetShiftDecimal(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    shifts: *mut fmi3Float64,
) -> fmi3Status {
    refuse(instance, "fmi3GetShiftDecimal", NO_CLOCKS)
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetShiftFraction(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    counters: *mut fmi3UInt64,
    resolutions: *mut fmi3UInt64,
) -> fmi3Status {
    refuse(instance, "fmi3GetShiftFraction", NO_CLOCKS)
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetIntervalDecimal(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    intervals: *const fmi3Float64,
) -> fmi3Status {
    refuse(instance, "fmi3SetIntervalDecimal", NO_CLOCKS)
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetIntervalFraction(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    counters: *const fmi3UInt64,
    resolutions: *const fmi3UInt64,
) -> fmi3Status {
    refuse(instance, "fmi3SetIntervalFraction", NO_CLOCKS)
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetShiftDecimal(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    shifts: *const fmi3Float64,
) -> fmi3Status {
    refuse(instance, "fmi3SetShiftDecimal", NO_CLOCKS)
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetShiftFraction(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    counters: *const fmi3UInt64,
    resolutions: *const fmi3UInt64,
) -> fmi3Status {
    refuse(instance, "fmi3SetShiftFraction", NO_CLOCKS)
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3EvaluateDiscreteStates(instance: fmi3Instance) -> fmi3Status {
    refuse(instance, "fmi3EvaluateDiscreteStates", NO_CLOCKED_STATES)
}

/// # Safety
/// `instance` as for every instance call.
#[no_mangle]
pub unsafe extern "C" fn fmi3ActivateModelPartition(
    instance: fmi3Instance,
    clockReference: fmi3ValueReference,
    activationTime: fmi3Float64,
) -> fmi3Status {
    refuse(instance, "fmi3ActivateModelPartition", NO_SCHEDULING)
}
