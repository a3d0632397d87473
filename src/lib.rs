//! ElastoGap: an FMI 2.0 co-simulation FMU of `Modelica.Mechanics.Translational.Components.ElastoGap`
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
//! - `fmi2`: the exported C ABI (co-simulation and Model Exchange), the only module with `unsafe`.

#![deny(unsafe_code)]

pub mod coupling;
pub mod laws;
pub mod model;
pub mod snapshot;
pub mod step;
pub mod variables;

#[cfg(test)]
mod test_random;

/// The exported C functions of both interfaces; public so that in-process tests can call them
/// without a loader.
#[allow(unsafe_code)]
pub mod fmi2;

/// The GUID written into `modelDescription.xml`: a hash of the variable table.
pub const GUID: &str = env!("ELASTOGAP_GUID");
