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

use super::state::Call;
use super::{Instance, Type};
use crate::runtime::arguments::slice;
use crate::runtime::error;
use crate::runtime::instance::check_scalars;

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
    Instance::run(instance, Call::Get("fmi3GetFloat64"), |fmu| {
        check_scalars((nValueReferences, nValues))?;
        fmu.get((valueReferences, values), nValues, Type::Float64, |x| x)
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
    Instance::run(instance, Call::Get("fmi3GetInt32"), |fmu| {
        check_scalars((nValueReferences, nValues))?;
        fmu.get((valueReferences, values), nValues, Type::Int32, |x| {
            x as i32
        })
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
    Instance::run(instance, Call::Get("fmi3GetInt64"), |fmu| {
        check_scalars((nValueReferences, nValues))?;
        fmu.get((valueReferences, values), nValues, Type::Int64, |x| {
            x as i64
        })
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
    Instance::run(instance, Call::Get("fmi3GetBoolean"), |fmu| {
        check_scalars((nValueReferences, nValues))?;
        fmu.get((valueReferences, values), nValues, Type::Boolean, |x| {
            x != 0.0
        })
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
    Instance::run(instance, Call::Get("fmi3GetString"), |fmu| {
        check_scalars((nValueReferences, nValues))?;
        fmu.get_strings((valueReferences, values), nValues)
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
    Instance::run(instance, Call::SetFloat64, |fmu| {
        check_scalars((nValueReferences, nValues))?;
        fmu.set((valueReferences, values), nValues, Type::Float64, |x| x)
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
    Instance::run(instance, Call::Set("fmi3SetInt32"), |fmu| {
        check_scalars((nValueReferences, nValues))?;
        fmu.set((valueReferences, values), nValues, Type::Int32, f64::from)
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
    Instance::run(instance, Call::Set("fmi3SetInt64"), |fmu| {
        check_scalars((nValueReferences, nValues))?;
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
        let pairs = references.iter().copied();
        fmu.set_values(pairs.zip(values.iter().map(|x| *x as f64)), Type::Int64)
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
    Instance::run(instance, Call::Set("fmi3SetBoolean"), |fmu| {
        check_scalars((nValueReferences, nValues))?;
        // Read as bytes: a C importer may pass any nonzero byte for true.
        let bytes = values.cast::<u8>();
        fmu.set((valueReferences, bytes), nValues, Type::Boolean, |x| {
            f64::from(u8::from(x != 0))
        })
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
    Instance::run(instance, Call::Set("fmi3SetString"), |fmu| {
        check_scalars((nValueReferences, nValues))?;
        fmu.set_strings((valueReferences, values), nValues)
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
            Instance::run(instance, Call::Get(stringify!($get)), |_| {
                Instance::absent(valueReferences, nValueReferences, $type_name)
            })
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
            Instance::run(instance, Call::Set(stringify!($set)), |_| {
                Instance::absent(valueReferences, nValueReferences, $type_name)
            })
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
    Instance::run(instance, call, |_| {
        Instance::absent(valueReferences, nValueReferences, "Binary")
    })
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
    Instance::run(instance, call, |_| {
        Instance::absent(valueReferences, nValueReferences, "Binary")
    })
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
    Instance::run(instance, call, |_| {
        Instance::absent(valueReferences, nValueReferences, "Clock")
    })
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
    Instance::run(instance, call, |_| {
        Instance::absent(valueReferences, nValueReferences, "Clock")
    })
}
