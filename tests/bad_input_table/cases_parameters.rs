//! The cases of the parameter rules, the table file of the Gap Force, and parameters set while
//! running.

use std::sync::Arc;

use crate::harness::*;
use crate::support::{ok, vr, Fmu, FmuState, Instance, InstantiateOptions, ResourceUri, Status};
use elastogap::variables::Var;

/// Sets `var` before initialization (accepted: parameters are checked when they take effect) and
/// returns the status of `fmi2ExitInitializationMode`.
fn exit_with(inst: &mut Instance, var: Var, value: f64) -> Status {
    ok(set(inst, var, value));
    initializing(inst);
    inst.exit_initialization_mode()
}

/// Writes a table file into the unpacked FMU's `resources/` folder, where a relative `tableFile`
/// is looked up.
fn write_table(fmu: &Arc<Fmu>, name: &str, text: &str) {
    std::fs::write(fmu.dir().join("resources").join(name), text)
        .expect("the unpacked FMU's resources folder is writable");
}

/// Chooses the Gap Force with `table` as its table file and returns the status of
/// `fmi2ExitInitializationMode`, where the file is read.
fn exit_gap_force_with_table(inst: &mut Instance, table: &str) -> Status {
    ok(set(inst, Var::ForceLaw, 7.0));
    ok(inst.set_string(&[vr(Var::TableFile)], &[table]));
    initializing(inst);
    inst.exit_initialization_mode()
}

/// A Gap Force with the FMU's example table, initialized and stepped once.
fn running_gap_force_with_table(inst: &mut Instance) {
    ok(exit_gap_force_with_table(inst, "gap_force_example.json"));
    for (var, value) in INPUTS {
        ok(set(inst, var, value));
    }
    ok(inst.do_step(0.0, STEP, false));
}

/// Sets a tunable `var` while running; when refused, checks the old value is still in place
/// (reading is allowed in the Error state).
fn tune_while_running(inst: &mut Instance, var: Var, value: f64) -> Status {
    running(inst);
    let reference = [vr(var)];
    let before = inst.get_real(&reference);
    let status = set(inst, var, value);
    if status != Status::Ok {
        assert_eq!(
            inst.get_real(&reference),
            before,
            "a refused value leaves the previous one"
        );
    }
    status
}

/// These cases by table key.
pub const CASES: &[(&str, Case)] = &[
    // ---- parameter rules
    ("negative-c", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::C, -1.0))
    }),
    ("infinite-c", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::C, f64::INFINITY))
    }),
    ("negative-d", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::D, -0.5))
    }),
    ("non-finite-s_rel0", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::SRel0, f64::NAN))
    }),
    ("n-below-1", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::N, 0.5))
    }),
    ("s_ref-not-positive", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::SRef, 0.0))
    }),
    ("negative-f_ref", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::FRef, -1.0))
    }),
    ("maxSubstepSize-not-positive", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::MaxSubstepSize, 0.0)
        })
    }),
    ("maxSubstepCount-below-1", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::MaxSubstepCount, 0.0)
        })
    }),
    ("accelerationEstimate-out-of-range", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::AccelerationEstimate, 4.0)
        })
    }),
    ("negative-m_eff", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::MEff, -1.0))
    }),
    ("relativeTolerance-not-positive", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::RelativeTolerance, 0.0)
        })
    }),
    ("forceLaw-out-of-range", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::ForceLaw, 8.0))
    }),
    ("hysteresis-out-of-range", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::Hysteresis, 0.0))
    }),
    ("negative-chi", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::Chi, -0.1))
    }),
    ("e-not-in-unit-interval", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::E, 0.0))
    }),
    ("e-above-1", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::E, 1.5))
    }),
    ("v0_min-not-positive", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::V0Min, 0.0))
    }),
    ("d_max-not-positive", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::DMax, -1e-3))
    }),
    ("recurDynDamping-out-of-range", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::RecurDynDamping, 3.0)
        })
    }),
    ("negative-n_d", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::ND, -1.0))
    }),
    ("rdf-out-of-range", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::Rdf, f64::NAN))
    }),
    ("n_v-below-1", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::NV, 0.5))
    }),
    ("preload-not-finite", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::Preload, f64::INFINITY)
        })
    }),
    ("negative-d_x", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            exit_with(i, Var::DX, -3.0)
        })
    }),
    ("n_y-below-1", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            exit_with(i, Var::NY, 0.5)
        })
    }),
    ("preload_x-not-finite", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            exit_with(i, Var::PreloadX, f64::NAN)
        })
    }),
    ("gap-dampers-without-gap-force", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::DY, 40.0))
    }),
    ("range-end-not-finite", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::RangeMin, f64::NEG_INFINITY)
        })
    }),
    ("gap-force-empty-range", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            ok(set(i, Var::RangeMin, 0.0));
            exit_with(i, Var::RangeMax, -0.5)
        })
    }),
    ("gap-force-range-emptied-while-running", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            let status = tune_while_running(i, Var::RangeMin, 1.0);
            assert_eq!(i.get_real(&[vr(Var::RangeMax)]).1, vec![0.0]);
            status
        })
    }),
    ("frictionLaw-out-of-range", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::FrictionLaw, 4.0))
    }),
    ("frictionInterpolation-out-of-range", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::FrictionInterpolation, 0.0)
        })
    }),
    ("heldForce-out-of-range", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::HeldForce, 5.0))
    }),
    ("negative-mu", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::MuS, -0.1))
    }),
    ("v_s-not-positive", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::VS, 0.0))
    }),
    ("v_d-not-above-v_s", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::FrictionLaw, 2.0));
            ok(set(i, Var::VS, 0.01));
            exit_with(i, Var::VD, 0.01)
        })
    }),
    ("negative-f_t_max", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::FTMax, -1.0))
    }),
    ("negative-maxStictionDeformation", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::FrictionLaw, 2.0));
            exit_with(i, Var::MaxStictionDeformation, -1e-4)
        })
    }),
    ("stiction-without-friction", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::MaxStictionDeformation, 1e-4)
        })
    }),
    ("friction-with-gap-force", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            exit_with(i, Var::FrictionLaw, 2.0)
        })
    }),
    ("nan-v_tx", |fmu| {
        call(fmu, running, |i| set(i, Var::VTx, f64::NAN))
    }),
    ("infinite-v_ty", |fmu| {
        call(fmu, running, |i| set(i, Var::VTy, f64::INFINITY))
    }),
    ("tableFile-missing", |fmu| {
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "no_such_table.json")
        })
    }),
    ("tableFile-malformed-json", |fmu| {
        write_table(fmu, "malformed.json", r#"{"stiffness": [[0, 0], [1, 1]"#);
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "malformed.json")
        })
    }),
    ("tableFile-unknown-key", |fmu| {
        write_table(fmu, "unknown_key.json", r#"{"stifness": [[0, 0], [1, 1]]}"#);
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "unknown_key.json")
        })
    }),
    ("tableFile-unsorted", |fmu| {
        write_table(
            fmu,
            "unsorted.json",
            r#"{"stiffness": [[0, 0], [-0.001, 10]]}"#,
        );
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "unsorted.json")
        })
    }),
    ("tableFile-repeated", |fmu| {
        write_table(fmu, "repeated.json", r#"{"damping": [[0, 0], [0, 1]]}"#);
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "repeated.json")
        })
    }),
    ("tableFile-too-few-points", |fmu| {
        write_table(fmu, "too_few.json", r#"{"stiffness": [[0, 0]]}"#);
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "too_few.json")
        })
    }),
    ("tableFile-not-finite", |fmu| {
        write_table(
            fmu,
            "not_finite.json",
            r#"{"stiffness": [[0, 0], [1, 1e999]]}"#,
        );
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "not_finite.json")
        })
    }),
    ("tableFile-damping-feeds-energy", |fmu| {
        write_table(
            fmu,
            "pushing_damper.json",
            r#"{"damping": [[-1, 1], [1, 3]]}"#,
        );
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "pushing_damper.json")
        })
    }),
    ("tableFile-relative-without-resources", |fmu| {
        let options = InstantiateOptions {
            resource_uri: ResourceUri::Null,
            ..InstantiateOptions::named("bad-input")
        };
        let inst = Instance::instantiate(fmu, &options)
            .unwrap_or_else(|f| panic!("fmi2Instantiate failed: {:#?}", f.logs));
        call_on(inst, instantiated, |i| {
            exit_gap_force_with_table(i, "gap_force_example.json")
        })
    }),
    ("tableFile-foreign-uri", |fmu| {
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "file://otherhost/t.json")
        })
    }),
    ("fixed-tableFile-while-running", |fmu| {
        call(fmu, running_gap_force_with_table, |i| {
            i.set_string(&[vr(Var::TableFile)], &["other.json"])
        })
    }),
    ("state-with-other-tables", |fmu| {
        call(fmu, running_gap_force_with_table, |i| {
            let state = own_state(i);
            let (status, bytes) = i.serialize_fmu_state(&state);
            ok(status);
            ok(i.reset());
            let mut target = FmuState::null();
            let status = i.deserialize_fmu_state(&bytes, &mut target);
            assert!(target.is_null(), "a refused buffer hands out no state");
            status
        })
    }),
    ("fixed-forceLaw-while-running", |fmu| {
        call(fmu, running, |i| set(i, Var::ForceLaw, 4.0))
    }),
    ("tunable-parameter-while-running", |fmu| {
        call(fmu, instantiated, |i| tune_while_running(i, Var::N, 0.5))
    }),
];
