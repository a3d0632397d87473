/* Compile-time check of the FMI 3.0 binary's exported functions against the FMI 3.0 standard.
 *
 * Built by tests/c_header.rs with
 *     cc -std=c99 -pedantic -Wall -Wextra -Werror -I <fmi-sys>/fmi-standard3/headers
 *        -I <dir of the generated header> -c
 * where elastogap_fmi3.h is the header cbindgen generates from the files of src/fmi3/, as
 * check_exports.c does for FMI 2.0:
 *
 * 1. fmi3Functions.h declares every function through its fmi3XXXTYPE typedef; the generated header
 *    declares them again with the Rust signatures, and any difference is a "conflicting types"
 *    error. cbindgen does not expand macros: the getters and setters of the types ElastoGap has
 *    no variable of (src/fmi3/values.rs, absent_type!) are not in the generated header, and are
 *    checked by the standard's declarations alone (tests/exports.rs checks that they are exported).
 * 2. The address of every FMI 3.0 function is taken into a pointer of the standard's type.
 */

#include "fmi3Functions.h"

#include <stdbool.h>
#include <stdint.h>

#include "elastogap_fmi3.h"

/* One pointer per function, typed by the standard: name##TYPE is its function type. */
#define FMI3_CHECK(name) name##TYPE *const elastogap_check_##name = &name

FMI3_CHECK(fmi3GetVersion);
FMI3_CHECK(fmi3SetDebugLogging);
FMI3_CHECK(fmi3InstantiateModelExchange);
FMI3_CHECK(fmi3InstantiateCoSimulation);
FMI3_CHECK(fmi3InstantiateScheduledExecution);
FMI3_CHECK(fmi3FreeInstance);
FMI3_CHECK(fmi3EnterInitializationMode);
FMI3_CHECK(fmi3ExitInitializationMode);
FMI3_CHECK(fmi3EnterEventMode);
FMI3_CHECK(fmi3Terminate);
FMI3_CHECK(fmi3Reset);
FMI3_CHECK(fmi3GetFloat32);
FMI3_CHECK(fmi3GetFloat64);
FMI3_CHECK(fmi3GetInt8);
FMI3_CHECK(fmi3GetUInt8);
FMI3_CHECK(fmi3GetInt16);
FMI3_CHECK(fmi3GetUInt16);
FMI3_CHECK(fmi3GetInt32);
FMI3_CHECK(fmi3GetUInt32);
FMI3_CHECK(fmi3GetInt64);
FMI3_CHECK(fmi3GetUInt64);
FMI3_CHECK(fmi3GetBoolean);
FMI3_CHECK(fmi3GetString);
FMI3_CHECK(fmi3GetBinary);
FMI3_CHECK(fmi3GetClock);
FMI3_CHECK(fmi3SetFloat32);
FMI3_CHECK(fmi3SetFloat64);
FMI3_CHECK(fmi3SetInt8);
FMI3_CHECK(fmi3SetUInt8);
FMI3_CHECK(fmi3SetInt16);
FMI3_CHECK(fmi3SetUInt16);
FMI3_CHECK(fmi3SetInt32);
FMI3_CHECK(fmi3SetUInt32);
FMI3_CHECK(fmi3SetInt64);
FMI3_CHECK(fmi3SetUInt64);
FMI3_CHECK(fmi3SetBoolean);
FMI3_CHECK(fmi3SetString);
FMI3_CHECK(fmi3SetBinary);
FMI3_CHECK(fmi3SetClock);
FMI3_CHECK(fmi3GetNumberOfVariableDependencies);
FMI3_CHECK(fmi3GetVariableDependencies);
FMI3_CHECK(fmi3GetFMUState);
FMI3_CHECK(fmi3SetFMUState);
FMI3_CHECK(fmi3FreeFMUState);
FMI3_CHECK(fmi3SerializedFMUStateSize);
FMI3_CHECK(fmi3SerializeFMUState);
FMI3_CHECK(fmi3DeserializeFMUState);
FMI3_CHECK(fmi3GetDirectionalDerivative);
FMI3_CHECK(fmi3GetAdjointDerivative);
FMI3_CHECK(fmi3EnterConfigurationMode);
FMI3_CHECK(fmi3ExitConfigurationMode);
FMI3_CHECK(fmi3GetIntervalDecimal);
FMI3_CHECK(fmi3GetIntervalFraction);
FMI3_CHECK(fmi3GetShiftDecimal);
FMI3_CHECK(fmi3GetShiftFraction);
FMI3_CHECK(fmi3SetIntervalDecimal);
FMI3_CHECK(fmi3SetIntervalFraction);
FMI3_CHECK(fmi3SetShiftDecimal);
FMI3_CHECK(fmi3SetShiftFraction);
FMI3_CHECK(fmi3EvaluateDiscreteStates);
FMI3_CHECK(fmi3UpdateDiscreteStates);
FMI3_CHECK(fmi3EnterContinuousTimeMode);
FMI3_CHECK(fmi3CompletedIntegratorStep);
FMI3_CHECK(fmi3SetTime);
FMI3_CHECK(fmi3SetContinuousStates);
FMI3_CHECK(fmi3GetContinuousStateDerivatives);
FMI3_CHECK(fmi3GetEventIndicators);
FMI3_CHECK(fmi3GetContinuousStates);
FMI3_CHECK(fmi3GetNominalsOfContinuousStates);
FMI3_CHECK(fmi3GetNumberOfEventIndicators);
FMI3_CHECK(fmi3GetNumberOfContinuousStates);
FMI3_CHECK(fmi3EnterStepMode);
FMI3_CHECK(fmi3GetOutputDerivatives);
FMI3_CHECK(fmi3DoStep);
FMI3_CHECK(fmi3ActivateModelPartition);

/* The 75 functions of fmi3Functions.h. */
