//! Derivatives (directional, and co-simulation's input and output derivatives), co-simulation
//! steps and the status queries.

use elastogap::fmi2::*;
use elastogap_fuzz::{check_step, Instance, OK};
use fmi_sys::fmi2::{fmi2Boolean, fmi2Integer, fmi2Real, fmi2Status, fmi2StatusKind, fmi2String};

use super::{Call, When};

/// Runs fmi2GetDirectionalDerivative, fmi2SetRealInputDerivatives or
/// fmi2GetRealOutputDerivatives.
pub(super) fn derivatives(instance: &Instance, call: &Call) {
    match call {
        Call::GetDirectionalDerivative {
            unknowns,
            knowns,
            arrays,
        } => {
            let unknown_refs: Vec<_> = unknowns.iter().map(|r| r.value()).collect();
            let known_refs: Vec<_> = knowns.iter().map(|(r, _)| r.value()).collect();
            let seeds: Vec<fmi2Real> = knowns.iter().map(|(_, x)| x.value()).collect();
            let mut results = vec![f64::NAN; unknown_refs.len()];
            let (pu, nu) = arrays[0].pass(&unknown_refs);
            let (pk, nk) = arrays[1].pass(&known_refs);
            let (ps, _) = arrays[2].pass(&seeds);
            let (pr, _) = arrays[3].pass_mut(&mut results);
            let status = instance.call("fmi2GetDirectionalDerivative", |c| unsafe {
                fmi2GetDirectionalDerivative(c, pu, nu, pk, nk, ps, pr)
            });
            if status == OK {
                assert!(
                    results[..nu].iter().all(|x| x.is_finite()),
                    "fmi2GetDirectionalDerivative returned fmi2OK with {results:?}"
                );
            }
        }
        Call::SetRealInputDerivatives { values, arrays } => {
            let vrs: Vec<_> = values.iter().map(|(r, _, _)| r.value()).collect();
            let orders: Vec<fmi2Integer> = values.iter().map(|(_, o, _)| *o).collect();
            let xs: Vec<fmi2Real> = values.iter().map(|(_, _, x)| x.value()).collect();
            let (p, n) = arrays[0].pass(&vrs);
            let (po, _) = arrays[1].pass(&orders);
            let (px, _) = arrays[2].pass(&xs);
            instance.call("fmi2SetRealInputDerivatives", |c| unsafe {
                fmi2SetRealInputDerivatives(c, p, n, po, px)
            });
        }
        Call::GetRealOutputDerivatives { values, arrays } => {
            let vrs: Vec<_> = values.iter().map(|(r, _)| r.value()).collect();
            let orders: Vec<fmi2Integer> = values.iter().map(|(_, o)| *o).collect();
            let mut xs = vec![f64::NAN; vrs.len()];
            let (p, n) = arrays[0].pass(&vrs);
            let (po, _) = arrays[1].pass(&orders);
            let (px, _) = arrays[2].pass_mut(&mut xs);
            let status = instance.call("fmi2GetRealOutputDerivatives", |c| unsafe {
                fmi2GetRealOutputDerivatives(c, p, n, po, px)
            });
            if status == OK {
                assert!(
                    xs[..n].iter().all(|x| x.is_finite()),
                    "fmi2GetRealOutputDerivatives returned fmi2OK with {xs:?}"
                );
            }
        }
        _ => unreachable!("not a derivative call"),
    }
}

/// Runs fmi2DoStep or fmi2CancelStep.
pub(super) fn step(instance: &Instance, call: &Call) {
    match call {
        Call::DoStep {
            when,
            h,
            no_set_prior,
        } => {
            instance.cap_substeps();
            let now = instance.time();
            let base = now.unwrap_or(0.0);
            let t = match when {
                When::Now => base,
                When::NowPlus(dt) => base + dt.value(),
                When::NowScaled(factor) => base * factor.value(),
                When::At(t) => t.value(),
            };
            let h = h.value();
            let before = now.and_then(|_| instance.check_outputs("before fmi2DoStep"));
            let status = instance.call("fmi2DoStep", |c| unsafe {
                fmi2DoStep(c, t, h, fmi2Boolean::from(*no_set_prior))
            });
            if status == OK {
                let after = instance
                    .check_outputs("after fmi2DoStep")
                    .expect("outputs are readable after an OK step");
                check_step(before, after, h);
            }
        }
        Call::CancelStep => {
            instance.call("fmi2CancelStep", |c| unsafe { fmi2CancelStep(c) });
        }
        _ => unreachable!("not a step call"),
    }
}

/// Runs fmi2GetStatus, fmi2GetRealStatus, fmi2GetIntegerStatus, fmi2GetBooleanStatus or
/// fmi2GetStringStatus.
pub(super) fn status(instance: &Instance, call: &Call) {
    match call {
        Call::GetStatus { kind, null } => {
            let mut value: fmi2Status = 0;
            let p = if *null {
                std::ptr::null_mut()
            } else {
                &mut value
            };
            instance.call("fmi2GetStatus", |c| unsafe {
                fmi2GetStatus(c, *kind as fmi2StatusKind, p)
            });
        }
        Call::GetRealStatus { kind, null } => {
            let mut value = 0.0;
            let p = if *null {
                std::ptr::null_mut()
            } else {
                &mut value
            };
            instance.call("fmi2GetRealStatus", |c| unsafe {
                fmi2GetRealStatus(c, *kind as fmi2StatusKind, p)
            });
        }
        Call::GetIntegerStatus { kind, null } => {
            let mut value = 0;
            let p = if *null {
                std::ptr::null_mut()
            } else {
                &mut value
            };
            instance.call("fmi2GetIntegerStatus", |c| unsafe {
                fmi2GetIntegerStatus(c, *kind as fmi2StatusKind, p)
            });
        }
        Call::GetBooleanStatus { kind, null } => {
            let mut value = 0;
            let p = if *null {
                std::ptr::null_mut()
            } else {
                &mut value
            };
            instance.call("fmi2GetBooleanStatus", |c| unsafe {
                fmi2GetBooleanStatus(c, *kind as fmi2StatusKind, p)
            });
        }
        Call::GetStringStatus { kind, null } => {
            let mut value: fmi2String = std::ptr::null();
            let p = if *null {
                std::ptr::null_mut()
            } else {
                &mut value
            };
            instance.call("fmi2GetStringStatus", |c| unsafe {
                fmi2GetStringStatus(c, *kind as fmi2StatusKind, p)
            });
        }
        _ => unreachable!("not a status query"),
    }
}
