//! Drives the packaged `ElastoGap.fmu` the way real importers do (fmusim in C and Rust, FMPy), and
//! the way careless or hostile ones do: every call goes through the C ABI of the binary unpacked
//! from the archive, via the test importer in `tests/support`.
//!
//! The FMU under test is `$ELASTOGAP_FMU`, else `target/fmu/ElastoGap.fmu`.
//!
//! The physics is checked against the tests' shared reading of the MSL 4.1 law and its quadrature
//! along a motion, [`support::gap_law`], which does not call into the FMU's source.
//!
//! The modules:
//!
//! - [`common`]: small helpers around the support importer, and the motions
//!   the tests drive (the bounce, the oscillation, [`common::drive`]);
//! - [`sequences`]: the exported functions, the call sequences of fmusim (C), fmusim 0.8 (Rust)
//!   and FMPy, and instantiation (refused and accepted arguments, every file URI form);
//! - [`bad_input`]: every bad input gets fmi2Error with a message and leaves the instance in the
//!   documented state, from which fmi2Reset recovers;
//! - [`states`]: FMU states: round trips, serialization, corrupt buffers, foreign and stale
//!   pointers;
//! - [`threads`]: no globals: instances on two threads match sequential runs;
//! - [`step_integrals`]: directional derivatives, input and output derivatives, the step integral
//!   against an independent quadrature, and the heat port;
//! - [`fuzz_and_recovery`]: inputs found by fuzzing the C ABI (refused steps, overflowing outputs,
//!   fuzzed states) and recovery from fmi2Error.

#[path = "../support/mod.rs"]
mod support;

mod bad_input;
mod common;
mod fuzz_and_recovery;
mod sequences;
mod states;
mod step_integrals;
mod threads;
