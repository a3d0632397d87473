/* Compile-time check of the FMU's exported functions against the FMI 2.0 standard.
 *
 * Built by tests/c_header.rs with
 *     cc -std=c99 -pedantic -Wall -Wextra -Werror -I <fmi-sys>/fmi-standard2/headers
 *        -I <dir of the generated header> -c
 * where <fmi-sys> is the source folder of the fmi-sys crate (cargo metadata names it), which ships
 * the FMI 2.0 standard's headers, and elastogap_fmi2.h is the header cbindgen generates from the
 * files of src/fmi2/.
 *
 * 1. The standard's fmi2Functions.h comes first and declares every function through its
 *    fmi2XXXTYPE typedef. The generated header then declares the same functions again with the
 *    Rust signatures; C requires the two declarations to be compatible, so any difference in a
 *    return type, parameter count or parameter type is a "conflicting types" error.
 * 2. The address of every FMI 2.0 common and co-simulation function is taken into a pointer of
 *    the standard's fmi2XXXTYPE: a drifted declaration is also an incompatible-pointer-types
 *    error there. (A function missing from the generated header is caught by tests/c_header.rs,
 *    which compares the declared names with the standard's list, and by tests/exports.rs.)
 */

#include "fmi2Functions.h"

#include <stdbool.h>
#include <stdint.h>

#include "elastogap_fmi2.h"

/* One pointer per function, typed by the standard: name##TYPE is its function type. */
#define FMI2_CHECK(name) name##TYPE *const elastogap_check_##name = &name

/* Common functions (FMI 2.0.4 section 2.1). */
FMI2_CHECK(fmi2GetTypesPlatform);
FMI2_CHECK(fmi2GetVersion);
FMI2_CHECK(fmi2SetDebugLogging);
FMI2_CHECK(fmi2Instantiate);
FMI2_CHECK(fmi2FreeInstance);
FMI2_CHECK(fmi2SetupExperiment);
FMI2_CHECK(fmi2EnterInitializationMode);
FMI2_CHECK(fmi2ExitInitializationMode);
FMI2_CHECK(fmi2Terminate);
FMI2_CHECK(fmi2Reset);
FMI2_CHECK(fmi2GetReal);
FMI2_CHECK(fmi2GetInteger);
FMI2_CHECK(fmi2GetBoolean);
FMI2_CHECK(fmi2GetString);
FMI2_CHECK(fmi2SetReal);
FMI2_CHECK(fmi2SetInteger);
FMI2_CHECK(fmi2SetBoolean);
FMI2_CHECK(fmi2SetString);
FMI2_CHECK(fmi2GetFMUstate);
FMI2_CHECK(fmi2SetFMUstate);
FMI2_CHECK(fmi2FreeFMUstate);
FMI2_CHECK(fmi2SerializedFMUstateSize);
FMI2_CHECK(fmi2SerializeFMUstate);
FMI2_CHECK(fmi2DeSerializeFMUstate);
FMI2_CHECK(fmi2GetDirectionalDerivative);

/* Co-simulation functions (FMI 2.0.4 section 4.2). */
FMI2_CHECK(fmi2SetRealInputDerivatives);
FMI2_CHECK(fmi2GetRealOutputDerivatives);
FMI2_CHECK(fmi2DoStep);
FMI2_CHECK(fmi2CancelStep);
FMI2_CHECK(fmi2GetStatus);
FMI2_CHECK(fmi2GetRealStatus);
FMI2_CHECK(fmi2GetIntegerStatus);
FMI2_CHECK(fmi2GetBooleanStatus);
FMI2_CHECK(fmi2GetStringStatus);

/* 25 common + 9 co-simulation functions; the model-exchange ones are not part of this FMU. */
