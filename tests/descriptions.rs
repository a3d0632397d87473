//! Every variable's description, as tools show it from the model description, names a rule or
//! defines a quantity. Each rule has a test: [`RULES`] says which, for every variable of the table
//! (a new variable fails here until it is placed), and the tests it names must exist. The rules no
//! other test held are checked here, through the packaged FMU (`$ELASTOGAP_FMU`): what
//! `m_eff_estimate` reads before and after an answer, the first probe's share of the impulse in
//! `f_mean`, and `E_loss` never decreasing.

mod support;

use std::f64::consts::PI;
use std::sync::Arc;

use elastogap::coupling::PROBE_SHARE;
use elastogap::variables::{Causality, Rule, VARIABLES};
use support::masters::{cosimulate_plant_with, Gap, Master, Plant, Sample, State};
use support::random::Random;
use support::Fmu;

/// A description that defines a quantity and states no rule of the FMU's beyond it.
const DEFINITION: &[&str] = &[];

/// Where each variable's rule is tested: `path::function` (Rust `fn`, Python `def`), or
/// [`DEFINITION`].
const RULES: &[(&str, &[&str])] = &[
    ("time", DEFINITION),
    ("c", &["tests/force_laws.rs::every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu", "tests/bad_input_table::every_row_of_the_bad_input_table_holds"]),
    ("d", &["tests/force_laws.rs::every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu", "tests/bad_input_table::every_row_of_the_bad_input_table_holds"]),
    ("s_rel0", &["tests/edge_cases::inputs_exactly_at_s_rel0"]),
    ("n", &["tests/edge_cases::exponents_far_above_one", "tests/bad_input_table::every_row_of_the_bad_input_table_holds"]),
    ("s_ref", &["tests/force_laws.rs::every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu", "tests/bad_input_table::every_row_of_the_bad_input_table_holds"]),
    ("f_ref", &["tests/edge_cases::zero_reference_force_is_c_times_s_ref"]),
    ("useHeatPort", &["tests/importer_harness::heat_flow_is_the_negative_mean_dissipated_power"]),
    ("maxSubstepSize", &["tests/edge_cases::communication_step_of_1000_s_with_the_default_substep_limits", "tests/bad_input_table::every_row_of_the_bad_input_table_holds"]),
    ("maxSubstepCount", &["tests/edge_cases::communication_step_of_1000_s_with_the_default_substep_limits", "tests/bad_input_table::every_row_of_the_bad_input_table_holds"]),
    ("accelerationEstimate", &["tests/importer_harness::supplied_derivatives_override_the_estimate_for_one_step_only", "tests/impact_accuracy.rs::substepped_coupling_meets_the_targets_with_and_without_input_derivatives"]),
    ("m_eff", &["tests/contact_dynamics.rs::a_known_mass_hitting_a_housing_rebounds_right_at_any_step_with_either_master"]),
    ("relativeTolerance", &["tests/force_laws.rs::every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu"]),
    ("forceLaw", &["tests/force_laws.rs::every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu"]),
    ("hysteresis", &["tests/force_laws.rs::every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu"]),
    ("chi", &["tests/force_laws.rs::every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu"]),
    ("e", &["tests/force_laws.rs::every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu"]),
    ("v0_min", &["tests/force_laws.rs::every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu"]),
    ("d_max", &["tests/force_laws.rs::every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu"]),
    ("recurDynDamping", &["tests/force_laws.rs::every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu"]),
    ("n_d", &["tests/force_laws.rs::every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu"]),
    ("rdf", &["tests/force_laws.rs::every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu"]),
    ("n_v", &["tests/force_laws.rs::every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu"]),
    ("preload", &["tests/force_laws.rs::every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu"]),
    ("rangeMin", &["tests/python/test_gap_force.py::test_a_body_crossing_the_range_matches_an_event_located_integration"]),
    ("rangeMax", &["tests/python/test_gap_force.py::test_a_body_crossing_the_range_matches_an_event_located_integration"]),
    ("d_x", &["tests/friction.rs::the_gap_forces_tangential_dampers_follow_recurdyns_formula_in_range_only"]),
    ("d_y", &["tests/friction.rs::the_gap_forces_tangential_dampers_follow_recurdyns_formula_in_range_only"]),
    ("n_x", &["tests/friction.rs::the_gap_forces_tangential_dampers_follow_recurdyns_formula_in_range_only"]),
    ("n_y", &["tests/friction.rs::the_gap_forces_tangential_dampers_follow_recurdyns_formula_in_range_only"]),
    ("preload_x", &["tests/friction.rs::the_gap_forces_tangential_dampers_follow_recurdyns_formula_in_range_only"]),
    ("preload_y", &["tests/friction.rs::the_gap_forces_tangential_dampers_follow_recurdyns_formula_in_range_only"]),
    ("tableFile", &["tests/python/test_gap_force.py::test_the_force_is_the_tables_cubic_continued_by_its_end_slopes"]),
    ("frictionLaw", &["tests/friction.rs::the_friction_opposes_the_slip_in_every_direction_with_the_curves_magnitude"]),
    ("mu_s", &["tests/friction.rs::the_friction_takes_mu_times_the_normal_impulse_in_every_regime"]),
    ("mu_d", &["tests/friction.rs::the_friction_takes_mu_times_the_normal_impulse_in_every_regime"]),
    ("v_s", &["tests/friction.rs::the_friction_takes_mu_times_the_normal_impulse_in_every_regime"]),
    ("v_d", &["tests/friction.rs::the_friction_takes_mu_times_the_normal_impulse_in_every_regime"]),
    ("f_t_max", &["tests/friction.rs::the_friction_bound_caps_the_force_where_it_would_exceed_it"]),
    ("maxStictionDeformation", &["tests/friction.rs::a_sticking_contact_creeps_at_most_the_stiction_deformation_and_then_holds"]),
    ("frictionInterpolation", &["tests/friction.rs::the_friction_takes_mu_times_the_normal_impulse_in_every_regime"]),
    ("heldForce", &["tests/short_steps.rs::steps_of_a_hundredth_of_a_contact_are_the_integral_along_the_masters_motion_bit_for_bit", "tests/held_force_warning.rs::a_master_reading_both_forces_is_told_once_and_truly_to_name_the_one_it_holds", "tests/inputs_not_set_again.rs::defaults_on_an_input_file_give_the_prescribed_rows_once_found"]),
    ("flange_a.s", DEFINITION),
    ("flange_a.v", DEFINITION),
    ("flange_b.s", DEFINITION),
    ("flange_b.v", DEFINITION),
    ("v_tx", &["tests/friction.rs::the_friction_opposes_the_slip_in_every_direction_with_the_curves_magnitude"]),
    ("v_ty", &["tests/friction.rs::the_friction_opposes_the_slip_in_every_direction_with_the_curves_magnitude"]),
    ("f", &["tests/edge_cases::grazing_and_hair_thin_contacts", "tests/force_laws.rs::every_law_gives_the_reference_impact_through_model_exchange_with_located_events"]),
    ("s_rel", DEFINITION),
    ("v_rel", DEFINITION),
    ("contact", &["tests/model_exchange.rs::outputs_are_functions_of_the_inputs_and_contact_changes_only_at_events", "tests/python/test_gap_force.py::test_model_exchange_raises_events_at_both_ends_of_the_range"]),
    ("lossPower", &["tests/edge_cases::grazing_and_hair_thin_contacts", "tests/friction.rs::the_friction_takes_mu_times_the_normal_impulse_in_every_regime"]),
    ("heatPort.Q_flow", &["tests/importer_harness::heat_flow_is_the_negative_mean_dissipated_power"]),
    ("f_mean", &["tests/short_steps.rs::steps_of_a_hundredth_of_a_contact_are_the_integral_along_the_masters_motion_bit_for_bit", "tests/contact_dynamics.rs::a_known_mass_hitting_a_housing_rebounds_right_at_any_step_with_either_master", "tests/descriptions.rs::the_first_probe_holds_its_share_of_the_impulse_along_the_motion", "tests/late_mean.rs::a_body_met_in_the_first_step_without_a_mass_stays_within_the_bound", "tests/safety_sweep.rs::every_random_system_stays_bounded_under_every_master"]),
    ("f_next", &["tests/contact_dynamics.rs::a_known_mass_hitting_a_housing_rebounds_right_at_any_step_with_either_master", "tests/fmi3_layer.rs::early_return_stops_at_the_touch_down_and_event_mode_takes_the_switch"]),
    ("m_eff_estimate", &["tests/descriptions.rs::m_eff_estimate_is_zero_until_an_answer_tells_a_mass"]),
    ("E_loss", &["tests/descriptions.rs::e_loss_never_decreases", "tests/contact_dynamics.rs::the_port_energy_is_the_held_forces_work_and_e_loss_ends_equal_to_it", "tests/model_exchange.rs::the_state_is_the_importers_and_directional_derivatives_match_finite_differences"]),
    ("der(E_loss)", &["tests/model_exchange.rs::the_state_is_the_importers_and_directional_derivatives_match_finite_differences"]),
    ("f_c", &["tests/python/test_fmi_sim.py::test_co_simulation_outputs_obey_the_law_at_every_row"]),
    ("f_d", &["tests/python/test_fmi_sim.py::test_co_simulation_outputs_obey_the_law_at_every_row"]),
    ("f_tx", &["tests/friction.rs::the_friction_opposes_the_slip_in_every_direction_with_the_curves_magnitude", "tests/friction.rs::a_sticking_contact_creeps_at_most_the_stiction_deformation_and_then_holds"]),
    ("f_ty", &["tests/friction.rs::the_friction_opposes_the_slip_in_every_direction_with_the_curves_magnitude", "tests/friction.rs::a_sticking_contact_creeps_at_most_the_stiction_deformation_and_then_holds"]),
    ("f_tx_mean", &["tests/friction.rs::the_friction_takes_mu_times_the_normal_impulse_in_every_regime"]),
    ("f_ty_mean", &["tests/friction.rs::the_friction_takes_mu_times_the_normal_impulse_in_every_regime"]),
    ("E_port", &["tests/contact_dynamics.rs::the_port_energy_is_the_held_forces_work_and_e_loss_ends_equal_to_it"]),
    ("xi_x", &["tests/friction.rs::a_sticking_contact_creeps_at_most_the_stiction_deformation_and_then_holds", "tests/friction.rs::as_model_exchange_the_stick_slip_oscillator_slips_with_the_located_reference"]),
    ("xi_y", &["tests/friction.rs::as_model_exchange_the_stick_slip_oscillator_slips_with_the_located_reference"]),
    ("der(xi_x)", &["tests/friction.rs::the_stiction_states_have_the_directional_derivatives_of_their_differences"]),
    ("der(xi_y)", &["tests/friction.rs::the_stiction_states_have_the_directional_derivatives_of_their_differences"]),
    ("eventIndicator.contact", &["tests/fmi3_layer.rs::model_exchange_evaluates_states_indicators_and_events", "tests/python/test_gap_force.py::test_model_exchange_raises_events_at_both_ends_of_the_range"]),
    ("eventIndicator.kink", &["tests/fmi3_layer.rs::model_exchange_evaluates_states_indicators_and_events"]),
    ("eventIndicator.stickSlip", &["tests/friction.rs::as_model_exchange_the_stick_slip_oscillator_slips_with_the_located_reference"]),
    ("eventIndicator.stictionCircle", &["tests/friction.rs::as_model_exchange_the_stick_slip_oscillator_slips_with_the_located_reference"]),
];

#[test]
fn every_variables_rule_names_a_test_that_exists() {
    let mut failures = Vec::new();
    for variable in VARIABLES {
        match RULES.iter().find(|(name, _)| *name == variable.name) {
            None => failures.push(format!(
                "{}: not in RULES (name the test of its description's rule, or DEFINITION)",
                variable.name
            )),
            Some((_, tests)) => {
                for test in *tests {
                    if let Err(why) = test_exists(test) {
                        failures.push(format!("{}: {why}", variable.name));
                    }
                }
            }
        }
    }
    for (name, _) in RULES {
        if !VARIABLES.iter().any(|v| v.name == *name) {
            failures.push(format!("{name}: in RULES, not in the variable table"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Whether `path::function` names a Rust `fn` or Python `def` in that file, or in a file of that
/// directory (a test target split into modules).
fn test_exists(test: &str) -> Result<(), String> {
    let (path, function) = test
        .rsplit_once("::")
        .ok_or_else(|| format!("{test}: not path::function"))?;
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let files: Vec<std::path::PathBuf> = if full.is_dir() {
        std::fs::read_dir(&full)
            .map_err(|e| format!("{path}: {e}"))?
            .map(|e| e.expect("a directory entry").path())
            .collect()
    } else {
        vec![full]
    };
    let defined = files.iter().any(|file| {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        [format!("fn {function}("), format!("def {function}(")]
            .iter()
            .any(|d| text.contains(d.as_str()))
    });
    if defined {
        Ok(())
    } else {
        Err(format!("{path} defines no {function}"))
    }
}

/// A lone body of `mass` on the stop (c, damping ratio 0.1), `lead` free steps and `fraction` of a
/// step from it at 1 m/s, stepped at `ratio` contact durations under a Gauss–Seidel master.
fn lone_run(
    fmu: &Arc<Fmu>,
    mass: f64,
    c: f64,
    ratio: f64,
    fraction: f64,
    held_none: bool,
) -> Vec<Sample> {
    let t_c = PI * (mass / c).sqrt();
    let h = ratio * t_c;
    let lead = 3.0;
    let speed = 1.0;
    let derivative = move |_: f64, y: State, held: f64| [y[1], -held / mass, 0.0, 0.0];
    let plant = Plant {
        initial: [speed * (lead + fraction) * h, -speed, 0.0, 0.0],
        derivative: &derivative,
    };
    let gap = Gap {
        c,
        d: 0.2 * (c * mass).sqrt(),
        m_eff: 0.0,
        s_rel0: 0.0,
    };
    let parameters: &[(&str, f64)] = if held_none {
        &[("heldForce", 4.0)]
    } else {
        &[]
    };
    let steps = (lead as usize) + (4.0 / ratio).ceil() as usize + 6;
    let (samples, _) = cosimulate_plant_with(
        fmu,
        gap,
        parameters,
        &plant,
        Master::GaussSeidel,
        h,
        steps,
        1,
    );
    samples.expect("the run")
}

#[test]
fn m_eff_estimate_is_zero_until_an_answer_tells_a_mass() {
    let fmu = Fmu::load_default();
    let mut random = Random(0x0de5_c001);
    for _ in 0..8 {
        let mass = random.log_uniform(0.1, 10.0);
        let c = random.log_uniform(1e3, 1e7);
        let ratio = random.log_uniform(0.2, 20.0);
        let fraction = 0.1 + 0.8 * random.unit();
        let run = lone_run(&fmu, mass, c, ratio, fraction, false);
        let context = format!("mass {mass}, c {c}, {ratio} T_c, fraction {fraction}");
        // The touch-down is in step 4 (from t_3): no force was held before it, so no answer.
        for sample in &run[..=4] {
            assert_eq!(sample.m_eff_estimate, 0.0, "{context}: {sample:?}");
        }
        // The probe held over step 4 is answered at t_4's next step start: a lone body's answer
        // tells its mass to rounding.
        let told = run[5].m_eff_estimate;
        assert!(
            (told / mass - 1.0).abs() < 1e-9,
            "{context}: m_eff_estimate {told} after the probe's answer"
        );
    }
}

#[test]
fn the_first_probe_holds_its_share_of_the_impulse_along_the_motion() {
    let fmu = Fmu::load_default();
    let mut random = Random(0x0de5_c002);
    for _ in 0..8 {
        let mass = random.log_uniform(0.1, 10.0);
        let c = random.log_uniform(1e3, 1e7);
        let ratio = random.log_uniform(0.2, 20.0);
        let fraction = 0.1 + 0.8 * random.unit();
        let probed = lone_run(&fmu, mass, c, ratio, fraction, false);
        let along = lone_run(&fmu, mass, c, ratio, fraction, true);
        // Up to the touch-down both runs move alike; over the step it falls in, Auto holds the
        // probe, None the whole impulse along the same motion.
        let (probe, whole) = (probed[3].held, along[3].held);
        assert!(whole < 0.0, "the contact pushes over the touch-down step");
        assert!(
            (probe / whole / PROBE_SHARE - 1.0).abs() < 1e-9,
            "mass {mass}, c {c}, {ratio} T_c: probe {probe} against {whole} along the motion"
        );
    }
}

#[test]
fn e_loss_never_decreases() {
    let fmu = Fmu::load_default();
    let mut random = Random(0x0de5_c003);
    for _ in 0..8 {
        let mass = random.log_uniform(0.1, 10.0);
        let c = random.log_uniform(1e3, 1e7);
        let ratio = random.log_uniform(0.05, 30.0);
        let fraction = 0.1 + 0.8 * random.unit();
        for held_none in [false, true] {
            let run = lone_run(&fmu, mass, c, ratio, fraction, held_none);
            for pair in run.windows(2) {
                assert!(
                    pair[1].e_loss >= pair[0].e_loss,
                    "mass {mass}, c {c}, {ratio} T_c: E_loss fell from {} to {}",
                    pair[0].e_loss,
                    pair[1].e_loss
                );
            }
            assert!(run.last().unwrap().e_loss > 0.0, "the contact dissipated");
        }
    }
}

/// A parameter's description states the rule its values are held to (the one a refusal names), in
/// the parenthesis tools show: "(>= 0)", "(> 0)", "(0 to 1)", "(> 0 and <= 1)".
#[test]
fn every_parameters_description_states_its_rule() {
    let mut failures = Vec::new();
    for v in VARIABLES
        .iter()
        .filter(|v| v.causality == Causality::Parameter && v.declared_type.is_none())
    {
        let stated = match v.rule {
            Rule::AtLeast(bound) => Some(format!("(>= {bound})")),
            Rule::Positive => Some("(> 0".to_string()),
            Rule::Within(lo, hi) => Some(format!("({lo} to {hi})")),
            Rule::Range(lo, hi) if v.name != "accelerationEstimate" => {
                Some(format!("({lo} to {hi})"))
            }
            Rule::PositiveAtMost(hi) => Some(format!("(> 0 and <= {hi})")),
            _ => None,
        };
        if let Some(stated) = stated {
            if !v.description.contains(&stated) {
                failures.push(format!("{}: no {stated} in {:?}", v.name, v.description));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
