//! Getting and setting variables. The table's Reals are Float64, its Integers Int32, its
//! Enumerations (Integers with a declared type) are got and set as Int64, its Booleans are
//! fmi3Boolean and `tableFile` is the one String. The FMU has no variable of the other types:
//! their functions accept an empty call and refuse any value reference.

#![allow(non_snake_case)]

use fmi_sys::fmi3::{
    fmi3Binary, fmi3Boolean, fmi3Clock, fmi3Float32, fmi3Float64, fmi3Instance, fmi3Int16,
    fmi3Int32, fmi3Int64, fmi3Int8, fmi3Status, fmi3String, fmi3UInt16, fmi3UInt32, fmi3UInt64,
    fmi3UInt8, fmi3ValueReference,
};

use super::arguments::{check_scalars, slice, slice_mut, string};
use super::instance::{run, Type};
use super::logging::error;
use super::state::Call;
use crate::variables::by_value_reference;

/// # Safety
/// Arrays of the announced lengths, as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetFloat64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Float64,
    nValues: usize,
) -> fmi3Status {
    run(instance, Call::Get("fmi3GetFloat64"), |fmu| {
        check_scalars(nValueReferences, nValues)?;
        let references = slice(valueReferences, nValueReferences, "valueReferences[]")?;
        let values = slice_mut(values, nValues, "values[]")?;
        fmu.get_values(references, Type::Float64, |k, x| values[k] = x)
    })
}

/// # Safety
/// Arrays of the announced lengths, as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetInt32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Int32,
    nValues: usize,
) -> fmi3Status {
    run(instance, Call::Get("fmi3GetInt32"), |fmu| {
        check_scalars(nValueReferences, nValues)?;
        let references = slice(valueReferences, nValueReferences, "valueReferences[]")?;
        let values = slice_mut(values, nValues, "values[]")?;
        fmu.get_values(references, Type::Int32, |k, x| values[k] = x as fmi3Int32)
    })
}

/// # Safety
/// Arrays of the announced lengths, as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetInt64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Int64,
    nValues: usize,
) -> fmi3Status {
    run(instance, Call::Get("fmi3GetInt64"), |fmu| {
        check_scalars(nValueReferences, nValues)?;
        let references = slice(valueReferences, nValueReferences, "valueReferences[]")?;
        let values = slice_mut(values, nValues, "values[]")?;
        fmu.get_values(references, Type::Int64, |k, x| values[k] = x as fmi3Int64)
    })
}

/// # Safety
/// Arrays of the announced lengths, as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetBoolean(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Boolean,
    nValues: usize,
) -> fmi3Status {
    run(instance, Call::Get("fmi3GetBoolean"), |fmu| {
        check_scalars(nValueReferences, nValues)?;
        let references = slice(valueReferences, nValueReferences, "valueReferences[]")?;
        let values = slice_mut(values, nValues, "values[]")?;
        fmu.get_values(references, Type::Boolean, |k, x| values[k] = x != 0.0)
    })
}

/// # Safety
/// Arrays of the announced lengths, as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetString(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3String,
    nValues: usize,
) -> fmi3Status {
    run(instance, Call::Get("fmi3GetString"), |fmu| {
        check_scalars(nValueReferences, nValues)?;
        let references = slice(valueReferences, nValueReferences, "valueReferences[]")?;
        let values = slice_mut(values, nValues, "values[]")?;
        for (k, reference) in references.iter().enumerate() {
            fmu.variable(*reference, Type::String)?;
            values[k] = fmu.table_file.text().as_ptr();
        }
        Ok(())
    })
}

/// # Safety
/// Arrays of the announced lengths, as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetFloat64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Float64,
    nValues: usize,
) -> fmi3Status {
    run(instance, Call::SetFloat64, |fmu| {
        check_scalars(nValueReferences, nValues)?;
        let references = slice(valueReferences, nValueReferences, "valueReferences[]")?;
        let values = slice(values, nValues, "values[]")?;
        fmu.set_values(
            references.iter().copied().zip(values.iter().copied()),
            Type::Float64,
        )
    })
}

/// # Safety
/// Arrays of the announced lengths, as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetInt32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Int32,
    nValues: usize,
) -> fmi3Status {
    run(instance, Call::Set("fmi3SetInt32"), |fmu| {
        check_scalars(nValueReferences, nValues)?;
        let references = slice(valueReferences, nValueReferences, "valueReferences[]")?;
        let values = slice(values, nValues, "values[]")?;
        fmu.set_values(
            references
                .iter()
                .copied()
                .zip(values.iter().map(|x| f64::from(*x))),
            Type::Int32,
        )
    })
}

/// # Safety
/// Arrays of the announced lengths, as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetInt64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Int64,
    nValues: usize,
) -> fmi3Status {
    run(instance, Call::Set("fmi3SetInt64"), |fmu| {
        check_scalars(nValueReferences, nValues)?;
        let references = slice(valueReferences, nValueReferences, "valueReferences[]")?;
        let values = slice(values, nValues, "values[]")?;
        // The Enumerations' items are numbered from 1: a value beyond the Int32 range is refused
        // here rather than rounded on its way to a double.
        if let Some(k) = values.iter().position(|x| i32::try_from(*x).is_err()) {
            return Err(error(format!(
                "values[{k}] = {} is not an item of an Enumeration",
                values[k]
            )));
        }
        fmu.set_values(
            references
                .iter()
                .copied()
                .zip(values.iter().map(|x| *x as f64)),
            Type::Int64,
        )
    })
}

/// # Safety
/// Arrays of the announced lengths, as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetBoolean(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Boolean,
    nValues: usize,
) -> fmi3Status {
    run(instance, Call::Set("fmi3SetBoolean"), |fmu| {
        check_scalars(nValueReferences, nValues)?;
        let references = slice(valueReferences, nValueReferences, "valueReferences[]")?;
        // Read as bytes: a C importer may pass any nonzero byte for true.
        let values = slice(values.cast::<u8>(), nValues, "values[]")?;
        fmu.set_values(
            references
                .iter()
                .copied()
                .zip(values.iter().map(|x| f64::from(u8::from(*x != 0)))),
            Type::Boolean,
        )
    })
}

/// # Safety
/// Arrays of the announced lengths, as the FMI 3.0 standard requires.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetString(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3String,
    nValues: usize,
) -> fmi3Status {
    run(instance, Call::Set("fmi3SetString"), |fmu| {
        check_scalars(nValueReferences, nValues)?;
        let references = slice(valueReferences, nValueReferences, "valueReferences[]")?;
        let values = slice(values, nValues, "values[]")?;
        let mut pairs = Vec::with_capacity(nValues);
        for (k, (reference, text)) in references.iter().zip(values).enumerate() {
            let text =
                string(*text).ok_or_else(|| error(format!("values[{k}] is NULL or not UTF-8")))?;
            pairs.push((*reference, text));
        }
        fmu.set_strings(&pairs)
    })
}

/// A getter or setter of a type the FMU has no variable of: an empty call is fine, any value
/// reference is refused by name.
fn absent(
    instance: fmi3Instance,
    call: Call,
    type_name: &'static str,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
) -> fmi3Status {
    run(instance, call, |_| {
        let references = slice(valueReferences, nValueReferences, "valueReferences[]")?;
        match references.first() {
            None => Ok(()),
            Some(reference) => Err(error(format!(
                "value reference {reference}{} is not of type {type_name}: ElastoGap has no {type_name} variable",
                by_value_reference(*reference)
                    .map(|v| format!(" ({})", v.name))
                    .unwrap_or_default()
            ))),
        }
    })
}

/// The getter and setter of a numeric type the FMU has no variable of.
macro_rules! absent_type {
    ($get:ident, $set:ident, $t:ty, $type_name:literal) => {
        /// # Safety
        /// `instance` as for every instance call; the arrays of the announced lengths.
        #[no_mangle]
        pub unsafe extern "C" fn $get(
            instance: fmi3Instance,
            valueReferences: *const fmi3ValueReference,
            nValueReferences: usize,
            values: *mut $t,
            nValues: usize,
        ) -> fmi3Status {
            let _ = (values, nValues);
            let call = Call::Get(stringify!($get));
            absent(
                instance,
                call,
                $type_name,
                valueReferences,
                nValueReferences,
            )
        }

        /// # Safety
        /// `instance` as for every instance call; the arrays of the announced lengths.
        #[no_mangle]
        pub unsafe extern "C" fn $set(
            instance: fmi3Instance,
            valueReferences: *const fmi3ValueReference,
            nValueReferences: usize,
            values: *const $t,
            nValues: usize,
        ) -> fmi3Status {
            let _ = (values, nValues);
            let call = Call::Set(stringify!($set));
            absent(
                instance,
                call,
                $type_name,
                valueReferences,
                nValueReferences,
            )
        }
    };
}

absent_type!(fmi3GetFloat32, fmi3SetFloat32, fmi3Float32, "Float32");
absent_type!(fmi3GetInt8, fmi3SetInt8, fmi3Int8, "Int8");
absent_type!(fmi3GetUInt8, fmi3SetUInt8, fmi3UInt8, "UInt8");
absent_type!(fmi3GetInt16, fmi3SetInt16, fmi3Int16, "Int16");
absent_type!(fmi3GetUInt16, fmi3SetUInt16, fmi3UInt16, "UInt16");
absent_type!(fmi3GetUInt32, fmi3SetUInt32, fmi3UInt32, "UInt32");
absent_type!(fmi3GetUInt64, fmi3SetUInt64, fmi3UInt64, "UInt64");

/// # Safety
/// `instance` as for every instance call; the arrays of the announced lengths.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetBinary(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    valueSizes: *mut usize,
    values: *mut fmi3Binary,
    nValues: usize,
) -> fmi3Status {
    let _ = (valueSizes, values, nValues);
    let call = Call::Get("fmi3GetBinary");
    absent(instance, call, "Binary", valueReferences, nValueReferences)
}

/// # Safety
/// `instance` as for every instance call; the arrays of the announced lengths.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetBinary(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    valueSizes: *const usize,
    values: *const fmi3Binary,
    nValues: usize,
) -> fmi3Status {
    let _ = (valueSizes, values, nValues);
    let call = Call::Set("fmi3SetBinary");
    absent(instance, call, "Binary", valueReferences, nValueReferences)
}

/// # Safety
/// `instance` as for every instance call; the arrays of the announced lengths.
#[no_mangle]
pub unsafe extern "C" fn fmi3GetClock(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Clock,
) -> fmi3Status {
    let _ = values;
    let call = Call::Get("fmi3GetClock");
    absent(instance, call, "Clock", valueReferences, nValueReferences)
}

/// # Safety
/// `instance` as for every instance call; the arrays of the announced lengths.
#[no_mangle]
pub unsafe extern "C" fn fmi3SetClock(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Clock,
) -> fmi3Status {
    let _ = values;
    let call = Call::Set("fmi3SetClock");
    absent(instance, call, "Clock", valueReferences, nValueReferences)
}
