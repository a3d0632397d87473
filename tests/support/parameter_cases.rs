//! The cases of the parameter rules that both bad-input tables (`docs/bad-input.md`,
//! `docs/bad-input-fmi3.md`) make the same way, one row of each table apiece: a parameter value
//! that initialization refuses alone or after others, a tunable or fixed parameter changed while
//! running, a refused slip input, a `tableFile` the FMU cannot read. Both harnesses make their
//! cases from this one list.

/// The cases, `(table key, case)`, in a bad-input harness: each calls that harness's own
/// `call`, `instantiated`, `running`, `ok`, `set`, `exit_with`, `write_table`,
/// `exit_gap_force_with_table` and `tune_while_running` (the FMI 2.0 or the FMI 3.0 one).
macro_rules! parameter_cases {
    () => {
        [
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
            ("gap-dampers-without-gap-force", |fmu| {
                call(fmu, instantiated, |i| exit_with(i, Var::DY, 40.0))
            }),
            ("range-end-not-finite", |fmu| {
                call(fmu, instantiated, |i| {
                    exit_with(i, Var::RangeMin, f64::NEG_INFINITY)
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
            ("negative-f_t_max", |fmu| {
                call(fmu, instantiated, |i| exit_with(i, Var::FTMax, -1.0))
            }),
            ("stiction-without-friction", |fmu| {
                call(fmu, instantiated, |i| {
                    exit_with(i, Var::MaxStictionDeformation, 1e-4)
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
            ("gap-force-empty-range", |fmu| {
                call(fmu, instantiated, |i| {
                    ok(set(i, Var::ForceLaw, 7.0));
                    ok(set(i, Var::RangeMin, 0.0));
                    exit_with(i, Var::RangeMax, -0.5)
                })
            }),
            ("v_d-not-above-v_s", |fmu| {
                call(fmu, instantiated, |i| {
                    ok(set(i, Var::FrictionLaw, 2.0));
                    ok(set(i, Var::VS, 0.01));
                    exit_with(i, Var::VD, 0.01)
                })
            }),
            ("negative-maxStictionDeformation", |fmu| {
                call(fmu, instantiated, |i| {
                    ok(set(i, Var::FrictionLaw, 2.0));
                    exit_with(i, Var::MaxStictionDeformation, -1e-4)
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
            ("tableFile-foreign-uri", |fmu| {
                call(fmu, instantiated, |i| {
                    exit_gap_force_with_table(i, "file://otherhost/t.json")
                })
            }),
            ("fixed-forceLaw-while-running", |fmu| {
                call(fmu, running, |i| set(i, Var::ForceLaw, 4.0))
            }),
            ("tunable-parameter-while-running", |fmu| {
                call(fmu, instantiated, |i| tune_while_running(i, Var::N, 0.5))
            }),
        ]
    };
}
pub(crate) use parameter_cases;
