//! The case of each row of `docs/bad-input-fmi3.md`, by key.
//!
//! The cases are in groups by what they cover, one module each; [`all`] chains them. The parameter
//! rules' cases that both tables make the same way are `tests/support/parameter_cases.rs`'.

#[path = "cases_calls.rs"]
mod calls;
#[path = "cases_instance.rs"]
mod instance;
#[path = "cases_parameters.rs"]
mod parameters;
#[path = "cases_states.rs"]
mod states;

use crate::harness::Case;
use crate::support::fmi3::Instance3;
use crate::support::Status;

/// Every case, by key.
pub fn all() -> impl Iterator<Item = &'static (&'static str, Case)> {
    [
        instance::CASES,
        parameters::CASES,
        parameters::SHARED_CASES,
        calls::CASES,
        states::CASES,
        states::DAMAGED_STATES,
    ]
    .into_iter()
    .flatten()
}

fn step(inst: &mut Instance3, time: f64, h: f64) -> Status {
    inst.do_step(time, h).status
}
