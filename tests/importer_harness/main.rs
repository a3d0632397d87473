//! Drives the packaged `ElastoGap.fmu` the way real importers do (fmusim in C and Rust, FMPy), and
//! the way careless or hostile ones do: every call goes through the C ABI of the binary unpacked
//! from the archive, via the test importer in `tests/support`.
//!
//! The FMU under test is `$ELASTOGAP_FMU`, else `target/fmu/ElastoGap.fmu`.
//!
//! The physics is checked against this target's own reading of the MSL 4.1 law (in [`law`]):
//! `s_rel = flange_b.s - flange_a.s`, `v_rel = flange_b.v - flange_a.v`, `contact = s_rel < s_rel0`,
//! `f_c = -f_ref*|(s_rel - s_rel0)/s_ref|^n` in contact (`f_ref = 0` means `c*s_ref`),
//! `f_d = min(max(d*v_rel, f_c), -f_c)` in contact, `f = f_c + f_d`, `lossPower = f_d*v_rel`.
//!
//! The modules:
//!
//! - [`common`]: the variable lists, small helpers around the support importer, and the motions
//!   the tests drive (the bounce, the oscillation, [`common::drive`]);
//! - [`law`]: the law above and a high-accuracy quadrature of it along a motion;
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
mod law;
mod sequences;
mod states;
mod step_integrals;
mod threads;
