//! The getters and setters of variables, with value references and counts of any kind, and the
//! setters of the values the integration and the force laws depend on most.

use std::ffi::CString;

use elastogap::fmi2::*;
use elastogap::variables::{Causality, Var};
use elastogap_fuzz::{Instance, OK};
use fmi_sys::fmi2::{fmi2Boolean, fmi2Integer, fmi2Real, fmi2String};

use super::{table_files, Call, Real};

/// Runs fmi2GetReal, fmi2GetInteger, fmi2GetBoolean or fmi2GetString.
pub(super) fn get(instance: &Instance, call: &Call) {
    match call {
        Call::GetReal {
            references,
            array,
            out,
        } => {
            let vrs: Vec<_> = references.iter().map(|r| r.value()).collect();
            let mut values = vec![0.0 as fmi2Real; vrs.len()];
            let (p, n) = array.pass(&vrs);
            let (q, _) = out.pass_mut(&mut values);
            let status = instance.call("fmi2GetReal", |c| unsafe { fmi2GetReal(c, p, n, q) });
            if status == OK {
                // Parameters echo what was set before initialization; computed values must
                // be finite.
                for (reference, x) in vrs.iter().zip(&values).take(n) {
                    let variable = elastogap::variables::by_value_reference(*reference)
                        .expect("an OK call names known variables");
                    if matches!(variable.causality, Causality::Output | Causality::Local) {
                        assert!(
                            x.is_finite(),
                            "fmi2GetReal returned fmi2OK with {} = {x}",
                            variable.name
                        );
                    }
                }
            }
        }
        Call::GetInteger {
            references,
            array,
            out,
        } => {
            let vrs: Vec<_> = references.iter().map(|r| r.value()).collect();
            let mut values = vec![0 as fmi2Integer; vrs.len()];
            let (p, n) = array.pass(&vrs);
            let (q, _) = out.pass_mut(&mut values);
            instance.call("fmi2GetInteger", |c| unsafe { fmi2GetInteger(c, p, n, q) });
        }
        Call::GetBoolean {
            references,
            array,
            out,
        } => {
            let vrs: Vec<_> = references.iter().map(|r| r.value()).collect();
            let mut values = vec![0 as fmi2Boolean; vrs.len()];
            let (p, n) = array.pass(&vrs);
            let (q, _) = out.pass_mut(&mut values);
            instance.call("fmi2GetBoolean", |c| unsafe { fmi2GetBoolean(c, p, n, q) });
            if values.iter().any(|b| *b != 0 && *b != 1) {
                panic!("fmi2GetBoolean wrote a value other than fmi2True/fmi2False: {values:?}");
            }
        }
        Call::GetString {
            references,
            array,
            out,
        } => {
            let vrs: Vec<_> = references.iter().map(|r| r.value()).collect();
            let mut values = vec![std::ptr::null() as fmi2String; vrs.len()];
            let (p, n) = array.pass(&vrs);
            let (q, _) = out.pass_mut(&mut values);
            instance.call("fmi2GetString", |c| unsafe { fmi2GetString(c, p, n, q) });
        }
        _ => unreachable!("not a getter"),
    }
}

/// Runs fmi2SetReal, fmi2SetInteger, fmi2SetBoolean or fmi2SetString.
pub(super) fn set(instance: &Instance, call: &Call) {
    match call {
        Call::SetReal {
            values,
            array,
            values_array,
        } => {
            let vrs: Vec<_> = values.iter().map(|(r, _)| r.value()).collect();
            let xs: Vec<fmi2Real> = values.iter().map(|(_, x)| x.value()).collect();
            let (p, n) = array.pass(&vrs);
            let (q, _) = values_array.pass(&xs);
            instance.call("fmi2SetReal", |c| unsafe { fmi2SetReal(c, p, n, q) });
        }
        Call::SetInteger {
            values,
            array,
            values_array,
        } => {
            let vrs: Vec<_> = values.iter().map(|(r, _)| r.value()).collect();
            let xs: Vec<fmi2Integer> = values.iter().map(|(_, x)| *x).collect();
            let (p, n) = array.pass(&vrs);
            let (q, _) = values_array.pass(&xs);
            instance.call("fmi2SetInteger", |c| unsafe { fmi2SetInteger(c, p, n, q) });
        }
        Call::SetBoolean {
            values,
            array,
            values_array,
        } => {
            let vrs: Vec<_> = values.iter().map(|(r, _)| r.value()).collect();
            let xs: Vec<fmi2Boolean> = values.iter().map(|(_, x)| *x).collect();
            let (p, n) = array.pass(&vrs);
            let (q, _) = values_array.pass(&xs);
            instance.call("fmi2SetBoolean", |c| unsafe { fmi2SetBoolean(c, p, n, q) });
        }
        Call::SetString {
            references,
            strings,
            array,
        } => {
            let vrs: Vec<_> = references.iter().map(|r| r.value()).collect();
            let owned: Vec<Option<CString>> = (0..vrs.len())
                .map(|k| strings.get(k).and_then(|s| s.make("text")))
                .collect();
            let pointers: Vec<fmi2String> = owned
                .iter()
                .map(|s| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()))
                .collect();
            let (p, n) = array.pass(&vrs);
            instance.call("fmi2SetString", |c| unsafe {
                fmi2SetString(c, p, n, pointers.as_ptr())
            });
        }
        _ => unreachable!("not a setter"),
    }
}

/// [`Call::SetKey`]: sets maxSubstepSize, maxSubstepCount, an input or a parameter to `value`.
pub(super) fn set_key(instance: &Instance, which: u8, value: Real) {
    let x = value.value();
    match which % 7 {
        0 => {
            instance.set_reals(&[(Var::MaxSubstepSize, x)]);
        }
        1 => {
            let vr = [elastogap::variables::by_var(Var::MaxSubstepCount).value_reference];
            let n = [x as fmi2Integer];
            instance.call("fmi2SetInteger", |c| unsafe {
                fmi2SetInteger(c, vr.as_ptr(), 1, n.as_ptr())
            });
        }
        2 => {
            instance.set_reals(&[(Var::FlangeBS, x)]);
        }
        3 => {
            instance.set_reals(&[(Var::FlangeBV, x)]);
        }
        4 => {
            instance.set_reals(&[(Var::SRel0, x)]);
        }
        5 => {
            instance.set_reals(&[(Var::VTx, x), (Var::VTy, -0.5 * x)]);
        }
        _ => {
            instance.set_reals(&[(Var::N, x)]);
        }
    }
}

/// [`Call::ChooseLaw`]: chooses a force law, its variant and a parameter's value.
pub(super) fn choose_law(instance: &Instance, law: u8, variant: u8, which: u8, value: Real) {
    let choices = [
        (Var::ForceLaw, 1 + i32::from(law % 7)),
        (Var::Hysteresis, 1 + i32::from(variant % 5)),
        (Var::RecurDynDamping, 1 + i32::from(variant % 2)),
        // Friction (refused with the Gap Force) in about half the choices.
        (Var::FrictionLaw, 1 + i32::from(law / 7 % 3)),
        (Var::FrictionInterpolation, 1 + i32::from(variant / 4 % 2)),
    ];
    for (var, choice) in choices {
        let vr = [elastogap::variables::by_var(var).value_reference];
        let n = [choice];
        instance.call("fmi2SetInteger", |c| unsafe {
            fmi2SetInteger(c, vr.as_ptr(), 1, n.as_ptr())
        });
    }
    let parameter = [
        Var::Chi,
        Var::E,
        Var::V0Min,
        Var::DMax,
        Var::ND,
        Var::Rdf,
        Var::NV,
        Var::Preload,
        Var::RangeMin,
        Var::RangeMax,
        Var::MuS,
        Var::MuD,
        Var::VS,
        Var::VD,
        Var::FTMax,
        Var::VTy,
        Var::DX,
        Var::DY,
        Var::NX,
        Var::NY,
        Var::PreloadX,
        Var::PreloadY,
        Var::MaxStictionDeformation,
    ][usize::from(which) % 23];
    instance.set_reals(&[(parameter, value.value())]);
    // The Gap Force's tables: none, or one of the files `table_files` wrote (valid
    // ones and a refused one).
    let vr = [elastogap::variables::by_var(Var::TableFile).value_reference];
    let file = table_files()[usize::from(variant) % 4].as_ptr();
    instance.call("fmi2SetString", |c| unsafe {
        fmi2SetString(c, vr.as_ptr(), 1, &file)
    });
}
