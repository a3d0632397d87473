//! Numerical edge cases of the packaged `ElastoGap.fmu`, driven through its C API as an importer
//! drives it (`tests/support`): contact start and end exactly on a substep boundary or a
//! communication point, grazing and hair-thin contacts, inputs exactly at `s_rel0`, exponents far
//! above 1, reference forces of 0 and near the top of the f64 range, denormal velocities, and
//! communication steps of 1e-12 s and 1e3 s.
//!
//! Every value the FMU hands out is checked against the invariants of the law (see
//! [`common::Run::check_point`] and [`common::Run::step`]) and, where there is a closed form,
//! against it. An extreme input may be refused, but only with `fmi2Error` and a logged message:
//! `fmi2OK` with a non-finite value is a failure.
//!
//! The law is the tests' shared reading of MSL 4.1, [`support::gap_law`]; `f_mean` is the mean of
//! `f` over the last step along the extrapolated motion, `E_loss` the dissipated energy so far and
//! `heatPort.Q_flow` the mean heat flow of the last step, `-(dissipated energy)/h`.
//!
//! The modules:
//! - [`common`]: the closed forms of the step integrals under that law, driving
//!   one instance and checking everything it says ([`common::Run`]), one step from given relative
//!   motion ([`common::OneStep`]) and [`common::each_case`].
//! - [`boundaries`]: contact start and end exactly on a substep boundary, a step end or a
//!   communication point, grazing and hair-thin contacts, inputs exactly at `s_rel0`.
//! - [`extreme_laws`]: exponents far above 1, forces that overflow f64 (at the inputs, over a
//!   step, summed into `E_loss`, in the partial derivatives), reference forces of 0 and near the
//!   top of the f64 range.
//! - [`extreme_steps`]: denormal velocities, communication steps of 1e-12 s (also where the time
//!   does not advance) and of 1e3 s.

#[path = "../support/mod.rs"]
mod support;

mod boundaries;
mod common;
mod extreme_laws;
mod extreme_steps;
