//! ElastoGap: an FMI 2.0 and FMI 3.0 co-simulation FMU of `Modelica.Mechanics.Translational.Components.ElastoGap`
//! (Modelica Standard Library 4.1).
//!
//! - [`laws`]: the contact force laws behind one interface; pure Rust.
//! - [`step`]: their integration over a communication step, kinematic or dynamic; pure Rust.
//! - [`coupling`]: how a co-simulation step hands the contact to the master's bodies (the
//!   model of the relative motion, its position correction and the effective-mass estimate).
//! - [`model`]: one instance's parameters, inputs and step bookkeeping; pure Rust.
//! - [`variables`]: the interface table, the single source of the get/set mapping, the
//!   `modelDescription.xml` and the GUID.
//! - [`snapshot`]: the serialized FMU state.
//! - [`layer`]: what both FMI layers share that is not FMI-typed (`tableFile`, `file:` URIs).
//! - `runtime`: the FMI runtime both layers run on (instances, `run`, values, FMU states, the
//!   step), generic over the standard.
//! - `fmi2`, `fmi3`: the exported C ABIs (co-simulation and Model Exchange), one per binary (cargo
//!   features `fmi2`, the default, and `fmi3`); with `runtime`, the only modules with `unsafe`.

#![deny(unsafe_code)]

pub mod coupling;
pub mod laws;
pub mod layer;
pub mod model;
pub mod snapshot;
pub mod step;
pub mod variables;

#[cfg(test)]
mod test_random;

/// The FMI runtime both layers run on, generic over the standard. A binary builds one layer, which
/// uses part of it: its dead code shows where both layers are built.
#[cfg(any(feature = "fmi2", feature = "fmi3"))]
#[cfg_attr(not(all(feature = "fmi2", feature = "fmi3")), allow(dead_code))]
#[allow(unsafe_code)]
pub(crate) mod runtime;

/// The exported FMI 2.0 functions of both interfaces; public so that in-process tests can call
/// them without a loader.
#[cfg(feature = "fmi2")]
#[allow(unsafe_code)]
pub mod fmi2;

/// The exported FMI 3.0 functions: co-simulation (early return, event mode, intermediate update)
/// and Model Exchange.
#[cfg(feature = "fmi3")]
#[allow(unsafe_code)]
pub mod fmi3;

/// The GUID written into `modelDescription.xml`: a hash of the variable table.
pub const GUID: &str = env!("ELASTOGAP_GUID");
