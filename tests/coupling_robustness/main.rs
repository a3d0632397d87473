//! The acceptance cases of the co-simulation coupling, through the packaged FMU: three
//! masters (Gauss–Seidel with the gap first, Gauss–Seidel with the body first, both holding
//! `f_mean`; Jacobi holding `f_next`; tests/support/masters.rs), steps from a tenth of the contact
//! to a hundred contact durations, c from 1e4 to 1e8 N/m, against references computed here without
//! the FMU (hybrid RK4 with located contact events, tests/support/reference.rs).
//!
//! One test per kind of case sweeps its parameters (tests/support/scenarios.rs), prints the worst
//! value of every criterion per master and case, and fails if any check failed.
//! `COUPLING_REPORT_ONLY=1` prints without failing. Run with `--nocapture` to see the tables.
//!
//! Every run also compares the FMU's output `E_port`, where it has one, with the energy the master
//! put into the port, `sum held * (s_rel(t_{k+1}) - s_rel(t_k))` over the steps whose both ends the
//! gap has been given: those before the last inputs it received.
//!
//! The modules:
//! - [`common`]: what the tests share: the lone body's impact against its exact run
//!   ([`common::LoneImpact`]), the dropped ball, the `E_port` check, the worst value of a run and
//!   `COUPLING_TRACE`'s trace; case 4's systems with more than the contacting body
//!   ([`common::System`]: a second body behind, a driven body on a spring).
//! - [`acceptance`]: the acceptance cases 1 to 4 (and 4c, with the default `m_eff` = 0), and the
//!   checks of what they rest on: the reference against the closed form, the masters against a
//!   free throw, the `E_port` check against made-up records.
//! - [`held_force`]: which force the master holds: reading every output moves nothing, and
//!   `E_port` is the Jacobi masters' own count where a step's answer could mislead the FMU.
//! - [`first_step`]: balls met in the first step, of known, wrong or unknown mass, never thrown
//!   out, held to case 2's bounds.
//! - [`bounded`]: energies that stay bounded: case 4's systems of unknown mass, the random
//!   systems of the stress sweep (`Loose`) and the sweeps built on its failures.

#[path = "../support/mod.rs"]
mod support;

mod acceptance;
mod bounded;
mod common;
mod first_step;
mod held_force;
