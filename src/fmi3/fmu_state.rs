//! Getting, setting and serializing the FMU state: the same snapshots, and the same serialized
//! format, as the FMI 2 layer's (`crate::snapshot`).

#![allow(non_snake_case)]

use fmi_sys::fmi3::{fmi3Byte, fmi3FMUState, fmi3Instance, fmi3Status};

use super::arguments::{slice, slice_mut};
use super::instance::{run, Instance};
use super::logging::{error, Failure};
use super::state::{interface_name, Call, State};
use crate::model::ElastoGap;
use crate::snapshot;

/// Stores `model` into the importer's FMU state variable: a new snapshot for NULL, or over one
/// this instance handed out.
fn store(
    instance: &mut Instance,
    FMUState: *mut fmi3FMUState,
    model: ElastoGap,
) -> Result<(), Failure> {
    if FMUState.is_null() {
        return Err(error("FMUState is NULL"));
    }
    // SAFETY: non-NULL pointer to the importer's fmi3FMUState variable.
    let existing = unsafe { *FMUState }.cast::<ElastoGap>();
    if existing.is_null() {
        let snapshot = Box::into_raw(Box::new(model));
        instance.snapshots.push(snapshot);
        // SAFETY: as above.
        unsafe { *FMUState = snapshot.cast() };
    } else if instance.owns_snapshot(existing) {
        // SAFETY: a live snapshot of this instance.
        unsafe { *existing = model };
    } else {
        return Err(error(
            "*FMUState is neither NULL nor a state of this instance",
        ));
    }
    Ok(())
}

fn owned(instance: &Instance, FMUState: fmi3FMUState) -> Result<*mut ElastoGap, Failure> {
    let snapshot = FMUState.cast::<ElastoGap>();
    if instance.owns_snapshot(snapshot) {
        Ok(snapshot)
    } else {
        Err(error(
            "FMUState is not a state of this instance (NULL, freed or foreign)",
        ))
    }
}

/// # Safety
/// `FMUState` points to NULL or to a state from this instance.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetFMUState(
    instance: fmi3Instance,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    run(instance, Call::FmuState("fmi3GetFMUState"), |fmu| {
        let model = fmu.model.clone();
        store(fmu, FMUState, model)
    })
}

/// # Safety
/// `FMUState` is a state from this instance.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetFMUState(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
) -> fmi3Status {
    run(instance, Call::FmuState("fmi3SetFMUState"), |fmu| {
        let snapshot = owned(fmu, FMUState)?;
        // SAFETY: a live snapshot of this instance.
        let mut model = unsafe { (*snapshot).clone() };
        check_same_interface(fmu, &model)?;
        let resumed_state = if fmu.state == State::Error {
            fmu.state_before_error
        } else {
            fmu.state
        };
        // A state taken before initialization ended holds parameters that were never checked;
        // once they are in effect, restoring it must not bypass their rules.
        let parameters_in_effect = !matches!(
            resumed_state,
            State::Instantiated | State::InitializationMode
        );
        if parameters_in_effect {
            model.check_parameters().map_err(|violation| {
                error(format!(
                    "the state holds {violation}; it was taken before initialization checked the parameters"
                ))
            })?;
            if model.tables.is_none() {
                model.tables = fmu
                    .table_file
                    .load(model.parameters.options.force_law)
                    .map_err(error)?;
            }
        }
        fmu.model = model;
        fmu.state = resumed_state;
        Ok(())
    })
}

/// # Safety
/// `FMUState` points to NULL or to a state from this instance.
#[no_mangle]
pub unsafe extern "C" fn fmi3FreeFMUState(
    instance: fmi3Instance,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    run(instance, Call::FmuState("fmi3FreeFMUState"), |fmu| {
        if FMUState.is_null() {
            return Ok(());
        }
        // SAFETY: non-NULL pointer to the importer's fmi3FMUState variable.
        let snapshot = unsafe { *FMUState }.cast::<ElastoGap>();
        if snapshot.is_null() {
            return Ok(());
        }
        let Some(position) = fmu.snapshots.iter().position(|s| *s == snapshot) else {
            return Err(error(
                "*FMUState is not a state of this instance (freed or foreign)",
            ));
        };
        fmu.snapshots.swap_remove(position);
        // SAFETY: it was in the list, so it came from Box::into_raw and is freed only here.
        drop(unsafe { Box::from_raw(snapshot) });
        // SAFETY: as above.
        unsafe { *FMUState = std::ptr::null_mut() };
        Ok(())
    })
}

/// # Safety
/// `size` points to writable memory.
#[no_mangle]
pub unsafe extern "C" fn fmi3SerializedFMUStateSize(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
    size: *mut usize,
) -> fmi3Status {
    run(
        instance,
        Call::FmuState("fmi3SerializedFMUStateSize"),
        |fmu| {
            owned(fmu, FMUState)?;
            let size = slice_mut(size, 1, "size")?;
            size[0] = snapshot::SERIALIZED_SIZE;
            Ok(())
        },
    )
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
    run(instance, Call::FmuState("fmi3SerializeFMUState"), |fmu| {
        let state = owned(fmu, FMUState)?;
        if size != snapshot::SERIALIZED_SIZE {
            return Err(error(format!(
                "size = {size}, but fmi3SerializedFMUStateSize gives {}",
                snapshot::SERIALIZED_SIZE
            )));
        }
        let target = slice_mut(serializedState, size, "serializedState")?;
        let mut bytes = [0u8; snapshot::SERIALIZED_SIZE];
        // SAFETY: a live snapshot of this instance.
        snapshot::write(unsafe { &*state }, &mut bytes).map_err(error)?;
        target.copy_from_slice(&bytes);
        Ok(())
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
    run(instance, Call::FmuState("fmi3DeserializeFMUState"), |fmu| {
        if FMUState.is_null() {
            return Err(error("FMUState is NULL"));
        }
        let bytes = slice(serializedState, size, "serializedState")?;
        let (mut model, fingerprint) = snapshot::read(bytes).map_err(error)?;
        check_same_interface(fmu, &model)?;
        model.tables = fmu.tables_for_state(&model, fingerprint)?;
        store(fmu, FMUState, model)
    })
}

/// A state is restored only into an instance of the interface it was taken from: the outputs mean
/// different things in each.
fn check_same_interface(instance: &Instance, model: &ElastoGap) -> Result<(), Failure> {
    if model.interface == instance.interface() {
        return Ok(());
    }
    Err(error(format!(
        "the state was taken from a {} instance; this instance was instantiated for {}",
        interface_name(model.interface),
        interface_name(instance.interface())
    )))
}
