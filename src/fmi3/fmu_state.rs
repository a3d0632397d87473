//! Getting, setting and serializing the FMU state (`crate::runtime::fmu_state`): the same
//! snapshots, and the same serialized format, as the FMI 2 layer's.

#![allow(non_snake_case)]

use fmi_sys::fmi3::{fmi3Byte, fmi3FMUState, fmi3Instance, fmi3Status};

use super::state::Call;
use super::Instance;

/// # Safety
/// `FMUState` points to NULL or to a state from this instance.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetFMUState(
    instance: fmi3Instance,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    let call = Call::FmuState("fmi3GetFMUState");
    Instance::run(instance, call, |fmu| fmu.get_fmu_state(FMUState))
}

/// # Safety
/// `FMUState` is a state from this instance.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetFMUState(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
) -> fmi3Status {
    let call = Call::FmuState("fmi3SetFMUState");
    Instance::run(instance, call, |fmu| fmu.set_fmu_state(FMUState))
}

/// # Safety
/// `FMUState` points to NULL or to a state from this instance.
#[no_mangle]
pub unsafe extern "C" fn fmi3FreeFMUState(
    instance: fmi3Instance,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    let call = Call::FmuState("fmi3FreeFMUState");
    Instance::run(instance, call, |fmu| fmu.free_fmu_state(FMUState))
}

/// # Safety
/// `size` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi3SerializedFMUStateSize(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
    size: *mut usize,
) -> fmi3Status {
    let call = Call::FmuState("fmi3SerializedFMUStateSize");
    Instance::run(instance, call, |fmu| fmu.serialized_size(FMUState, size))
}

/// # Safety
/// `serializedState` holds `size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn fmi3SerializeFMUState(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
    serializedState: *mut fmi3Byte,
    size: usize,
) -> fmi3Status {
    let call = Call::FmuState("fmi3SerializeFMUState");
    Instance::run(instance, call, |fmu| {
        fmu.serialize(FMUState, serializedState, size)
    })
}

/// # Safety
/// `serializedState` holds `size` bytes; `FMUState` points to NULL or to a state of this instance.
#[no_mangle]
pub unsafe extern "C" fn fmi3DeserializeFMUState(
    instance: fmi3Instance,
    serializedState: *const fmi3Byte,
    size: usize,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    let call = Call::FmuState("fmi3DeserializeFMUState");
    Instance::run(instance, call, |fmu| {
        fmu.deserialize(serializedState, size, FMUState)
    })
}
