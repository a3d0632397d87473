//! Tangential friction (`frictionLaw`, laws 1–6) through the packaged FMU, against references
//! computed here: the friction coefficient written out again from MSC Adams' and RecurDyn's
//! definitions, and an impact integrated by RK4 at 1 µs with the lift-off located that carries the
//! friction's impulse `∫ min(mu*|F_n|, f_t_max) dt` along. A 1 kg body arrives at 1 m/s normal to a
//! fixed housing while sliding at a held slip velocity `v_t = (v_tx, v_ty)` in the contact's
//! tangential plane; the master couples it with `m_eff` = 1 kg. The friction must take `|v_t|`
//! times that impulse in energy (into `E_loss`, the heat port and `lossPower`), and
//! `(f_tx_mean, f_ty_mean)` must carry the impulse along the slip.
//!
//! `cargo test --release --test friction -- --nocapture` prints the errors.

mod support;

use fmi_sys::fmi2;
use support::impact::{MASS, SPEED};
use support::laws::{adams_step, integrate_to_lift_off, Contact, LawCase};
use support::stick_slip::{assert_onsets_match, onset_errors, ready, Order, OSCILLATOR};
use support::{Fmu, Instance, Status, VarType};

const C: f64 = 1e4;
const D: f64 = 20.0;
const MU_S: f64 = 0.5;
const MU_D: f64 = 0.3;
const V_S: f64 = 0.01;
const V_D: f64 = 0.1;

/// frictionLaw and frictionInterpolation as the FMU numbers them.
#[derive(Clone, Copy, Debug)]
enum Law {
    Adams,
    RecurDynStep,
    RecurDynLinear,
}

impl Law {
    fn settings(self) -> [(&'static str, f64); 2] {
        match self {
            Law::Adams => [("frictionLaw", 2.0), ("frictionInterpolation", 1.0)],
            Law::RecurDynStep => [("frictionLaw", 3.0), ("frictionInterpolation", 1.0)],
            Law::RecurDynLinear => [("frictionLaw", 3.0), ("frictionInterpolation", 2.0)],
        }
    }

    /// mu(v) from MSC Adams' and RecurDyn's definitions.
    fn mu(self, v: f64) -> f64 {
        let speed = v.abs();
        let sign = v.signum();
        match self {
            Law::Adams if speed <= V_S => adams_step(v, -V_S, -MU_S, V_S, MU_S),
            Law::Adams if speed < V_D => sign * adams_step(speed, V_S, MU_S, V_D, MU_D),
            Law::RecurDynStep if speed <= V_S => sign * adams_step(speed, 0.0, 0.0, V_S, MU_S),
            Law::RecurDynStep if speed < V_D => sign * adams_step(speed, V_S, MU_S, V_D, MU_D),
            Law::RecurDynLinear if speed <= V_S => sign * MU_S * speed / V_S,
            Law::RecurDynLinear if speed < V_D => {
                sign * (MU_S + (MU_D - MU_S) * (speed - V_S) / (V_D - V_S))
            }
            _ => sign * MU_D,
        }
    }
}

/// The impact by RK4 at `dt` from the touch-down, the lift-off located by bisection: the normal
/// impulse's magnitude `∫|F_n| dt` and the friction's `∫ min(mu*|F_n|, f_t_max) dt`.
fn reference(contact: &Contact, mu: f64, f_t_max: f64, dt: f64) -> (f64, f64) {
    let bounded = |f: f64| {
        let f_t = mu.abs() * f.abs();
        if f_t_max > 0.0 {
            f_t.min(f_t_max)
        } else {
            f_t
        }
    };
    let rhs = |y: [f64; 4]| {
        let f = contact.normal_force(y[0].max(0.0), y[1], SPEED);
        [y[1], -f / MASS, f.abs(), bounded(f)]
    };
    let (end, _) = integrate_to_lift_off(rhs, [0.0, SPEED, 0.0, 0.0], dt);
    (end[2], end[3])
}

/// What the master saw of one impact through the FMU.
#[derive(Debug)]
struct Run {
    /// `Σ (f_tx_mean, f_ty_mean)*h`.
    tangential_impulse: [f64; 2],
    e_loss: f64,
    /// Heat that left through the heat port, `-Σ Q_flow*h`.
    heat: f64,
    /// Largest |lossPower - (f_d*v_rel + f_t.v_t)| seen at a communication point.
    power_mismatch: f64,
}

/// A Gauss–Seidel master with `m_eff` = 1 kg, communication step `h`, the body arriving at 1 m/s
/// from 2.5 steps away and sliding at `v_t` throughout; 0.3 s, long past the lift-off (the
/// contact with n = 1.5 lasts about 0.1 s).
fn cosimulate(fmu: &std::sync::Arc<Fmu>, parameters: &[(&str, f64)], v_t: [f64; 2], h: f64) -> Run {
    let mut gap = ready(fmu, fmi2::fmi2Type_fmi2CoSimulation, parameters);
    let (mut x, mut v, mut t) = (2.5 * h * SPEED, -SPEED, 0.0);
    let mut run = Run {
        tangential_impulse: [0.0; 2],
        e_loss: 0.0,
        heat: 0.0,
        power_mismatch: 0.0,
    };
    while t < 0.3 {
        let inputs = [
            ("flange_b.s", x),
            ("flange_b.v", v),
            ("v_tx", v_t[0]),
            ("v_ty", v_t[1]),
        ];
        for (name, value) in inputs {
            assert_eq!(gap.set_real_by_name(name, value), Status::Ok);
        }
        assert_eq!(gap.do_step(t, h, true), Status::Ok, "{:?}", gap.logs());
        let a = -gap.real("f_mean") / MASS;
        run.tangential_impulse[0] += gap.real("f_tx_mean") * h;
        run.tangential_impulse[1] += gap.real("f_ty_mean") * h;
        run.heat -= gap.real("heatPort.Q_flow") * h;
        let expected_power = gap.real("f_d") * gap.real("v_rel")
            + gap.real("f_tx") * v_t[0]
            + gap.real("f_ty") * v_t[1];
        run.power_mismatch = run
            .power_mismatch
            .max((gap.real("lossPower") - expected_power).abs());
        x += h * (v + 0.5 * a * h);
        v += a * h;
        t += h;
    }
    run.e_loss = gap.real("E_loss");
    run
}

fn relative_error(value: f64, exact: f64) -> f64 {
    (value / exact - 1.0).abs()
}

/// `|value - exact| / |exact|` of two vectors in the plane.
fn vector_error(value: [f64; 2], exact: [f64; 2]) -> f64 {
    (value[0] - exact[0]).hypot(value[1] - exact[1]) / exact[0].hypot(exact[1])
}

/// A slip of `speed` (m/s, signed: negative turns the direction over) in the direction `angle`.
fn slip(speed: f64, angle: f64) -> [f64; 2] {
    [speed * angle.cos(), speed * angle.sin()]
}

#[test]
fn the_friction_takes_mu_times_the_normal_impulse_in_every_regime() {
    let fmu = Fmu::load_default();
    let mut worst: f64 = 0.0;
    println!("normal law | friction | v_t | h | f_t impulse error | friction energy error");
    // Directions all round the plane, one of them along each axis.
    let angles = [0.0, 0.7, 1.9, std::f64::consts::FRAC_PI_2, 4.1, 5.5];
    for normal in [
        LawCase::ElastoGap,
        LawCase::SpringDamper,
        LawCase::AdamsImpact { d_max: 1e-3 },
    ] {
        let contact = Contact {
            law: normal,
            c: C,
            d: D,
            n: 1.5,
        };
        let base: Vec<(&str, f64)> = [("c", C), ("d", D), ("n", 1.5), ("m_eff", MASS)]
            .into_iter()
            .chain(normal.settings())
            .chain([
                ("mu_s", MU_S),
                ("mu_d", MU_D),
                ("v_s", V_S),
                ("v_d", V_D),
                ("useHeatPort", 1.0),
            ])
            .collect();
        for law in [Law::Adams, Law::RecurDynStep, Law::RecurDynLinear] {
            // At rest, below the static threshold, between the thresholds, beyond; both ways.
            for (k, speed) in [0.004, -0.007, 0.03, -0.06, 0.5, -2.0]
                .into_iter()
                .enumerate()
            {
                let v_t = slip(speed, angles[k]);
                // The curve at the slip speed, along the slip.
                let mu = law.mu(speed.abs());
                let (_, friction_impulse) = reference(&contact, mu, 0.0, 1e-6);
                let along = v_t.map(|component| friction_impulse * component / speed.abs());
                let mut parameters = base.clone();
                parameters.extend(law.settings());
                for h in [1e-3, 1e-2] {
                    let run = cosimulate(&fmu, &parameters, v_t, h);
                    let without = cosimulate(&fmu, &base, [0.0; 2], h);
                    let energy = run.e_loss - without.e_loss;
                    let impulse_error = vector_error(run.tangential_impulse, along);
                    let energy_error = relative_error(energy, friction_impulse * speed.abs());
                    println!(
                        "{normal:?} | {law:?} | {v_t:?} | {h} | {impulse_error:.1e} | {energy_error:.1e}"
                    );
                    assert!(
                        impulse_error < 1e-5 && energy_error < 1e-5,
                        "{normal:?}, {law:?}, v_t = {v_t:?}, h = {h}: {run:?}, friction impulse {friction_impulse}"
                    );
                    assert!(
                        (run.heat - run.e_loss).abs() <= 1e-12 * run.e_loss,
                        "{run:?}"
                    );
                    assert!(run.power_mismatch <= 1e-9, "{run:?}");
                    worst = worst.max(impulse_error).max(energy_error);
                }
            }
        }
    }
    println!("largest relative error: {worst:.2e}");
}

#[test]
fn the_friction_bound_caps_the_force_where_it_would_exceed_it() {
    // mu_d*|F_n| peaks near 0.3*100 N for this impact: a bound of 10 N cuts the middle of the
    // contact off.
    let fmu = Fmu::load_default();
    let contact = Contact {
        law: LawCase::ElastoGap,
        c: C,
        d: D,
        n: 1.0,
    };
    // |v_t| = 1 m/s: the bound is on the force's magnitude, not on each component.
    let v_t = [0.6, -0.8];
    let (_, unbounded) = reference(&contact, MU_D, 0.0, 1e-6);
    let (_, bounded) = reference(&contact, MU_D, 10.0, 1e-6);
    assert!(
        bounded < 0.7 * unbounded,
        "the bound must act: {bounded} against {unbounded}"
    );
    let parameters = [
        ("c", C),
        ("d", D),
        ("m_eff", MASS),
        ("frictionLaw", 2.0),
        ("mu_s", MU_S),
        ("mu_d", MU_D),
        ("v_s", V_S),
        ("v_d", V_D),
        ("f_t_max", 10.0),
    ];
    // The bound's kinks are not located: pieces across them are bisected to relativeTolerance.
    for (tolerance, limit) in [(1e-6, 1e-5), (1e-9, 1e-7)] {
        for h in [1e-3, 1e-2] {
            let mut parameters = parameters.to_vec();
            parameters.push(("relativeTolerance", tolerance));
            let run = cosimulate(&fmu, &parameters, v_t, h);
            let error = vector_error(run.tangential_impulse, v_t.map(|v| bounded * v));
            println!(
                "f_t_max = 10 N, relativeTolerance = {tolerance:e}, h = {h}: f_t impulse error {error:.1e}"
            );
            assert!(error < limit, "h = {h}: {run:?} against {bounded}");
        }
    }
}

#[test]
fn the_friction_opposes_the_slip_in_every_direction_with_the_curves_magnitude() {
    // At rest normally (v_rel = 0), 2 mm into c = 1e4 N/m, |f| = 20 N. The body at flange_b
    // feels -f_t: anti-parallel to its slip, of magnitude mu(|v_t|)*|f|, in both interfaces.
    let fmu = Fmu::load_default();
    let normal = C * 2e-3;
    for interface in [
        fmi2::fmi2Type_fmi2CoSimulation,
        fmi2::fmi2Type_fmi2ModelExchange,
    ] {
        for law in [Law::Adams, Law::RecurDynStep, Law::RecurDynLinear] {
            let parameters: Vec<(&str, f64)> = [("c", C), ("d", D)]
                .into_iter()
                .chain([("mu_s", MU_S), ("mu_d", MU_D), ("v_s", V_S), ("v_d", V_D)])
                .chain(law.settings())
                .collect();
            let mut gap = ready(&fmu, interface, &parameters);
            assert_eq!(gap.set_real_by_name("flange_b.s", -2e-3), Status::Ok);
            for speed in [1e-9, 0.003, 0.01, 0.04, 0.1, 3.0] {
                for k in 0..12 {
                    let v_t = slip(speed, 0.3 + k as f64 * std::f64::consts::PI / 6.0);
                    assert_eq!(gap.set_real_by_name("v_tx", v_t[0]), Status::Ok);
                    assert_eq!(gap.set_real_by_name("v_ty", v_t[1]), Status::Ok);
                    let on_body = [-gap.real("f_tx"), -gap.real("f_ty")];
                    let magnitude = on_body[0].hypot(on_body[1]);
                    let expected = law.mu(speed) * normal;
                    let context =
                        format!("{interface:?} {law:?} v_t = {v_t:?}: -f_t = {on_body:?}");
                    assert!(
                        relative_error(magnitude, expected) <= 1e-12,
                        "{context}: |f_t| = {magnitude} against {expected}"
                    );
                    // Anti-parallel: no component across the slip, none along it forward.
                    let across = on_body[0] * v_t[1] - on_body[1] * v_t[0];
                    let along = on_body[0] * v_t[0] + on_body[1] * v_t[1];
                    assert!(across.abs() <= 1e-12 * magnitude * speed, "{context}");
                    assert!(along < 0.0, "{context}");
                    let power = gap.real("lossPower");
                    assert!(
                        relative_error(power, expected * speed) <= 1e-12,
                        "{context}: lossPower {power} against {}",
                        expected * speed
                    );
                }
            }
        }
    }
}

/// Each directional derivative of `outputs` by each of `inputs` at `point` against a central
/// difference of `steps[k]`, within `tolerance` (relative, or absolute below 1).
fn derivatives_match_differences(
    gap: &mut Instance,
    outputs: &[u32],
    inputs: &[u32],
    point: &[f64],
    steps: &[f64],
    tolerance: f64,
    context: &str,
) {
    let read = |gap: &mut Instance, x: &[f64]| {
        assert_eq!(gap.set_real(inputs, x), Status::Ok);
        let (status, values) = gap.get_real(outputs);
        assert_eq!(status, Status::Ok);
        values
    };
    for (k, &known) in inputs.iter().enumerate() {
        let (mut up, mut down) = (point.to_vec(), point.to_vec());
        up[k] += steps[k];
        down[k] -= steps[k];
        let numeric: Vec<f64> = read(gap, &up)
            .iter()
            .zip(read(gap, &down))
            .map(|(a, b)| (a - b) / (2.0 * steps[k]))
            .collect();
        read(gap, point);
        let (status, analytic) = gap.get_directional_derivative(outputs, &[known], &[1.0]);
        assert_eq!(status, Status::Ok);
        for (a, b) in analytic.iter().zip(&numeric) {
            assert!(
                (a - b).abs() <= tolerance * a.abs().max(b.abs()).max(1.0),
                "{context} at {point:?} by vr {known}: {analytic:?} against {numeric:?}"
            );
        }
    }
}

#[test]
fn friction_outputs_have_the_directional_derivatives_of_their_differences() {
    // f_tx, f_ty and lossPower by the positions, the velocities and both slip components, in both
    // interfaces' sense (the outputs at the inputs now), on both sides of each threshold, under
    // the bound, and along an axis (where the force turns with the slip across it).
    let fmu = Fmu::load_default();
    for (law, f_t_max) in [
        (Law::Adams, 0.0),
        (Law::RecurDynStep, 0.0),
        (Law::RecurDynLinear, 30.0),
    ] {
        let mut gap = Instance::new(&fmu, "friction derivatives");
        assert_eq!(gap.setup_experiment(None, 0.0, None), Status::Ok);
        assert_eq!(gap.enter_initialization_mode(), Status::Ok);
        let parameters = [
            ("c", C),
            ("d", D),
            ("n", 1.5),
            ("mu_s", MU_S),
            ("mu_d", MU_D),
        ]
        .into_iter()
        .chain([("v_s", V_S), ("v_d", V_D), ("f_t_max", f_t_max)])
        .chain(law.settings());
        for (name, value) in parameters {
            assert_eq!(gap.set_by_name(name, value), Status::Ok, "{name}");
        }
        assert_eq!(gap.exit_initialization_mode(), Status::Ok);
        let names = ["f_tx", "f_ty", "lossPower"];
        let outputs = names.map(|name| gap.vr(name, VarType::Real));
        let inputs =
            ["flange_b.s", "flange_b.v", "v_tx", "v_ty"].map(|name| gap.vr(name, VarType::Real));
        for (s, v, tangential) in [
            (-3.1e-3, -0.7, [0.004, 0.002]),
            (-2.3e-3, 0.31, [-0.05, 0.03]),
            (-6.7e-3, 2.53, [0.3, -0.1]),
            (-1.1e-3, -0.2, [-0.008, 0.0]),
            (-4.2e-3, 0.05, [0.0, 0.06]),
        ] {
            let point = [s, v, tangential[0], tangential[1]];
            let steps = [1e-6 * f64::abs(s), 1e-7, 1e-8, 1e-8];
            let context = format!("{law:?}, f_t_max = {f_t_max}, {names:?}");
            derivatives_match_differences(
                &mut gap, &outputs, &inputs, &point, &steps, 1e-5, &context,
            );
        }
    }
}

/// RecurDyn's Gap Force tangential formula, written out again: `d*sgnpow(v, n) - preload`.
fn gap_damper(d: f64, n: f64, preload: f64, v: f64) -> f64 {
    d * v.abs().powf(n) * v.signum() - preload
}

/// The Gap Force (law 7) over `rangeMin = -2 mm < s_rel < 0` with tangential dampers along both
/// directions, one of them non-linear, and preloads.
const GAP_DAMPERS: [(&str, f64); 11] = [
    ("forceLaw", 7.0),
    ("c", C),
    ("d", 0.0),
    ("rangeMin", -2e-3),
    ("rangeMax", 0.0),
    ("d_x", 30.0),
    ("d_y", 7.0),
    ("n_x", 1.0),
    ("n_y", 1.7),
    ("preload_x", 2.0),
    ("preload_y", -0.5),
];

#[test]
fn the_gap_forces_tangential_dampers_follow_recurdyns_formula_in_range_only() {
    // Normally at rest (v_rel = 0), so that lossPower is the tangential dampers' part alone:
    // d*|v|^(n + 1) in each direction; the preloads' work is no loss.
    let fmu = Fmu::load_default();
    for interface in [
        fmi2::fmi2Type_fmi2CoSimulation,
        fmi2::fmi2Type_fmi2ModelExchange,
    ] {
        let mut gap = ready(&fmu, interface, &GAP_DAMPERS);
        for (s_rel, in_range) in [
            (-1e-3, true),
            (-1.9e-3, true),
            (1e-3, false),
            (-3e-3, false),
        ] {
            assert_eq!(gap.set_real_by_name("flange_b.s", s_rel), Status::Ok);
            for v_t in [
                [0.3, -0.2],
                [-1.5, 0.0],
                [0.0, 2.5],
                [1e-3, -4.0],
                [0.0, 0.0],
            ] {
                assert_eq!(gap.set_real_by_name("v_tx", v_t[0]), Status::Ok);
                assert_eq!(gap.set_real_by_name("v_ty", v_t[1]), Status::Ok);
                let expected = if in_range {
                    [
                        gap_damper(30.0, 1.0, 2.0, v_t[0]),
                        gap_damper(7.0, 1.7, -0.5, v_t[1]),
                    ]
                } else {
                    [0.0, 0.0]
                };
                let got = [gap.real("f_tx"), gap.real("f_ty")];
                let context = format!("interface {interface}, s_rel = {s_rel}, v_t = {v_t:?}");
                for axis in 0..2 {
                    assert!(
                        (got[axis] - expected[axis]).abs() <= 1e-12 * expected[axis].abs(),
                        "{context}: {got:?} against {expected:?}"
                    );
                }
                let loss = if in_range {
                    30.0 * v_t[0] * v_t[0] + 7.0 * v_t[1].abs().powf(2.7)
                } else {
                    0.0
                };
                let power = gap.real("lossPower");
                assert!(
                    (power - loss).abs() <= 1e-12 * loss,
                    "{context}: lossPower {power} against {loss}"
                );
            }
        }
    }
}

#[test]
fn a_gap_force_step_holds_its_tangential_force_for_the_time_in_range() {
    // Along a prescribed normal motion at constant speed (no mass: the step integrates along
    // it), the range is entered or left at a known instant: the step's mean tangential force is
    // the force times the time in range over h, and E_loss the dampers' power times that time
    // (the spring alone acts normally, which dissipates nothing).
    let fmu = Fmu::load_default();
    let v_t = [0.4, -0.9];
    let force = [
        gap_damper(30.0, 1.0, 2.0, v_t[0]),
        gap_damper(7.0, 1.7, -0.5, v_t[1]),
    ];
    let loss = 30.0 * v_t[0] * v_t[0] + 7.0 * v_t[1].abs().powf(2.7);
    let h = 2e-3;
    // Start, normal speed, time in range: entering at 1 ms, inside throughout, leaving at 0.5 ms.
    for (s0, speed, time_in_range) in [
        (1e-3, -1.0, 1e-3),
        (-1.5e-3, 0.2, h),
        (-0.5e-3, 1.0, 0.5e-3),
    ] {
        let mut gap = ready(&fmu, fmi2::fmi2Type_fmi2CoSimulation, &GAP_DAMPERS);
        let inputs = [
            ("flange_b.s", s0),
            ("flange_b.v", speed),
            ("v_tx", v_t[0]),
            ("v_ty", v_t[1]),
        ];
        for (name, value) in inputs {
            assert_eq!(gap.set_real_by_name(name, value), Status::Ok);
        }
        assert_eq!(gap.do_step(0.0, h, true), Status::Ok, "{:?}", gap.logs());
        let means = [gap.real("f_tx_mean"), gap.real("f_ty_mean")];
        let context = format!("from {s0} at {speed} m/s: means {means:?}");
        for axis in 0..2 {
            let expected = force[axis] * time_in_range / h;
            assert!(
                (means[axis] - expected).abs() <= 1e-9 * expected.abs(),
                "{context} against {expected}"
            );
        }
        let e_loss = gap.real("E_loss");
        let expected = loss * time_in_range;
        assert!(
            (e_loss - expected).abs() <= 1e-9 * expected,
            "{context}: E_loss {e_loss} against {expected}"
        );
    }
}

#[test]
fn the_gap_forces_tangential_outputs_have_the_derivatives_of_their_differences() {
    let fmu = Fmu::load_default();
    for interface in [
        fmi2::fmi2Type_fmi2CoSimulation,
        fmi2::fmi2Type_fmi2ModelExchange,
    ] {
        let mut gap = ready(&fmu, interface, &GAP_DAMPERS);
        assert_eq!(gap.set_real_by_name("flange_b.s", -1e-3), Status::Ok);
        let outputs = ["f_tx", "f_ty", "lossPower"].map(|name| gap.vr(name, VarType::Real));
        let inputs = ["v_tx", "v_ty"].map(|name| gap.vr(name, VarType::Real));
        for point in [[0.3, -0.2], [-1.5, 0.6], [0.05, 2.5]] {
            let context = format!("interface {interface}");
            derivatives_match_differences(
                &mut gap, &outputs, &inputs, &point, &[1e-7; 2], 1e-6, &context,
            );
        }
    }
}

/// Adams friction with stick–slip (`maxStictionDeformation` = `delta`) on a contact pressed 2 mm
/// into c = 1e4 N/m without damping: |f| = 20 N while the normal motion holds still.
fn sticking(delta: f64) -> Vec<(&'static str, f64)> {
    stick_slip(delta, V_S, V_D)
}

/// [`sticking`] with the thresholds `v_s`, `v_d`.
fn stick_slip(delta: f64, v_s: f64, v_d: f64) -> Vec<(&'static str, f64)> {
    vec![
        ("c", C),
        ("d", 0.0),
        ("frictionLaw", 2.0),
        ("mu_s", MU_S),
        ("mu_d", MU_D),
        ("v_s", v_s),
        ("v_d", v_d),
        ("maxStictionDeformation", delta),
    ]
}

#[test]
fn a_sticking_contact_creeps_at_most_the_stiction_deformation_and_then_holds() {
    // v_tx at a tenth of v_s for 0.15 s, then 0: the deformation grows as v*t to delta at
    // 0.1 s and stays there, so f_tx = mu_s*|f|*min(v*t, delta)/delta rises to mu_s*|f| = 10 N
    // and holds it. Inside the circle the deformation stores the port's work; on it the contact
    // slides at static friction and dissipates mu_s*|f|*v.
    let fmu = Fmu::load_default();
    let (delta, v, normal, h) = (1e-4, 0.1 * V_S, C * 2e-3, 1e-3);
    let spring = MU_S * normal / delta;
    // The closed form's deformation and its integral from 0 to t.
    let deformation = |t: f64| (v * t.min(0.15)).min(delta);
    let integral = |t: f64| {
        let reach = delta / v;
        if t <= reach {
            0.5 * v * t * t
        } else {
            0.5 * v * reach * reach + delta * (t - reach)
        }
    };
    let mut gap = ready(&fmu, fmi2::fmi2Type_fmi2CoSimulation, &sticking(delta));
    assert_eq!(gap.set_real_by_name("flange_b.s", -2e-3), Status::Ok);
    for k in 0..250 {
        let t = k as f64 * h;
        let slip = if t < 0.15 - 1e-12 { v } else { 0.0 };
        assert_eq!(gap.set_real_by_name("v_tx", slip), Status::Ok);
        assert_eq!(gap.do_step(t, h, true), Status::Ok, "{:?}", gap.logs());
        let end = t + h;
        let mean = gap.real("f_tx_mean");
        let expected_mean = spring * (integral(end.min(0.15)) - integral(t.min(0.15))) / h
            + if t >= 0.15 - 1e-12 {
                spring * delta
            } else {
                0.0
            };
        assert!(
            (mean - expected_mean).abs() <= 1e-5 * expected_mean,
            "t = {end}: f_tx_mean {mean} against {expected_mean}"
        );
        let now = gap.real("f_tx");
        let expected_now = spring * deformation(end);
        assert!(
            (now - expected_now).abs() <= 1e-9 * expected_now,
            "t = {end}: f_tx {now} against {expected_now}"
        );
        // Over the coming step, the slip held: the spring's rate while the deformation grows,
        // none once it is on the circle or the slip stopped.
        let f_tx = gap.vr("f_tx", VarType::Real);
        let (status, rate) = gap.get_real_output_derivatives(&[f_tx], &[1]);
        assert_eq!(status, Status::Ok);
        let expected_rate = if v * end < delta * (1.0 - 1e-9) && end < 0.15 - 1e-12 {
            spring * v
        } else {
            0.0
        };
        assert!(
            (rate[0] - expected_rate).abs() <= 1e-9 * spring * v,
            "t = {end}: d f_tx/dt {} against {expected_rate}",
            rate[0]
        );
        assert_eq!(gap.real("f_ty"), 0.0);
    }
    // Dissipated only while sliding on the circle, from 0.1 s to 0.15 s.
    let dissipated = MU_S * normal * v * 0.05;
    let e_loss = gap.real("E_loss");
    assert!(
        (e_loss - dissipated).abs() <= 1e-6 * dissipated,
        "E_loss {e_loss} against {dissipated}"
    );
}

#[test]
fn the_stick_slip_oscillator_slips_when_and_where_the_located_reference_does() {
    // The classic example under a Gauss–Seidel master, the gap first. The slip is the master's
    // input; once its answers tell the block's mass (within six steps), the friction is
    // integrated through it, and the onsets are those of the reference to the communication
    // step's resolution. tests/stick_slip.rs sweeps other oscillators, steps and masters.
    let fmu = Fmu::load_default();
    let duration = 6.0;
    let reference = OSCILLATOR.reference(duration);
    println!("reference slip onsets (t, pull): {reference:?}");
    assert!(reference.len() >= 4, "{reference:?}");
    for h in [1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2] {
        let run = OSCILLATOR.cosimulate(&fmu, h, duration, Order::GapFirst);
        let (timing, pull) = onset_errors(&run.onsets, &reference);
        println!(
            "h = {h}: slip onsets {:?}; worst onset error {:.2} % of the period, pull {:.3} %",
            run.onsets,
            100.0 * timing,
            100.0 * pull
        );
        assert_onsets_match(&run, &reference, &format!("h = {h}"));
    }
}

#[test]
fn the_sticking_contact_never_returns_more_than_its_tangential_port_received() {
    // Deformed by 5e-5 m under 20 N, then pressed to 200 N: the stiction spring, ten times
    // stiffer now, would return ten times what it stored when the slip reverses. The port's
    // account (the master's own sum of f_t_mean.v_t*h over the contact) never goes below zero,
    // and E_loss never above it.
    let fmu = Fmu::load_default();
    let mut gap = ready(&fmu, fmi2::fmi2Type_fmi2CoSimulation, &sticking(1e-4));
    let h = 1e-3;
    let mut received = 0.0;
    let mut stored_at_20_n = 0.0;
    let mut least_after = f64::INFINITY;
    for k in 0..200 {
        let t = k as f64 * h;
        let (depth, slip) = match t {
            t if t < 0.05 - 1e-12 => (2e-3, 1e-3),
            t if t < 0.06 - 1e-12 => (2e-3, 0.0),
            _ => (20e-3, -1e-3),
        };
        assert_eq!(gap.set_real_by_name("flange_b.s", -depth), Status::Ok);
        assert_eq!(gap.set_real_by_name("v_tx", slip), Status::Ok);
        assert_eq!(gap.do_step(t, h, true), Status::Ok, "{:?}", gap.logs());
        received += gap.real("f_tx_mean") * slip * h;
        if k == 55 {
            stored_at_20_n = received;
        }
        if k > 60 {
            least_after = least_after.min(received);
        }
        let e_loss = gap.real("E_loss");
        assert!(
            received >= -1e-15 && e_loss <= received + 1e-15,
            "t = {}: the port received {received} J, E_loss {e_loss} J",
            t + h
        );
    }
    // It stored 0.5*(0.5*20/1e-4)*(5e-5)^2 = 1.25e-4 J, gave all of it back as the slip
    // reversed (the account reached 0), and no more; then the reversed slip loaded it again.
    assert!((stored_at_20_n - 1.25e-4).abs() <= 1e-9, "{stored_at_20_n}");
    assert!(least_after.abs() <= 1e-12, "{least_after}");
    assert!(received > 1e-3, "{received}");
}

#[test]
fn as_model_exchange_the_stick_slip_oscillator_slips_with_the_located_reference() {
    let fmu = Fmu::load_default();
    let duration = 6.0;
    let reference = OSCILLATOR.reference(duration);
    let period = reference[2].0 - reference[1].0;
    let run = OSCILLATOR.model_exchange(&fmu, 2e-5, duration);
    println!("Model Exchange slip onsets {run:?}\nreference {reference:?}");
    assert_eq!(run.len(), reference.len(), "{run:?} against {reference:?}");
    for ((at, pull), (me_at, me_pull)) in reference.iter().zip(&run) {
        assert!(
            (me_at - at).abs() <= 0.01 * period && (me_pull - pull).abs() <= 0.01 * pull,
            "onset at {me_at} s, pull {me_pull} N, against {at} s, {pull} N (period {period} s)"
        );
    }
}

#[test]
fn the_stiction_states_have_the_directional_derivatives_of_their_differences() {
    // Model Exchange, sticking: inside the circle and on it (the slip pushing out), the sticking
    // force, lossPower and the deformation's rate by the slip and by the deformation itself.
    let fmu = Fmu::load_default();
    let delta = 1e-4;
    let mut gap = ready(&fmu, fmi2::fmi2Type_fmi2ModelExchange, &sticking(delta));
    let md = &fmu.model_description;
    let vr = |name: &str| md.vr(name, VarType::Real);
    let outputs = ["f_tx", "f_ty", "lossPower", "der(xi_x)", "der(xi_y)"].map(vr);
    let (slip, deformation) = ([vr("v_tx"), vr("v_ty")], [vr("xi_x"), vr("xi_y")]);
    assert_eq!(gap.set_real_by_name("flange_b.s", -2e-3), Status::Ok);
    assert_eq!(gap.new_discrete_states().0, Status::Ok);
    assert_eq!(gap.enter_continuous_time_mode(), Status::Ok);
    for (xi, v_t) in [
        ([3e-5, -2e-5], [2e-3, 1e-3]),
        ([6e-5, 8e-5], [1e-3, 4e-3]),
        ([-1e-4, 0.0], [-3e-3, 2e-3]),
    ] {
        // Through Event Mode, so that the modes are those of this point.
        assert_eq!(gap.set_continuous_states(&[0.0, xi[0], xi[1]]), Status::Ok);
        assert_eq!(gap.set_real(&slip, &v_t), Status::Ok);
        assert_eq!(gap.enter_event_mode(), Status::Ok);
        assert_eq!(gap.new_discrete_states().0, Status::Ok);
        assert_eq!(gap.enter_continuous_time_mode(), Status::Ok);
        let on_circle = xi[0].hypot(xi[1]) >= delta * (1.0 - 1e-12);
        let read = |gap: &mut Instance, v: [f64; 2], x: [f64; 2]| {
            assert_eq!(gap.set_real(&slip, &v), Status::Ok);
            assert_eq!(gap.set_continuous_states(&[0.0, x[0], x[1]]), Status::Ok);
            let (status, values) = gap.get_real(&outputs);
            assert_eq!(status, Status::Ok);
            values
        };
        for (k, known) in slip.into_iter().chain(deformation).enumerate() {
            let step = if k < 2 { 1e-7 } else { 1e-9 };
            let (mut v_up, mut v_down, mut x_up, mut x_down) = (v_t, v_t, xi, xi);
            if k < 2 {
                v_up[k] += step;
                v_down[k] -= step;
            } else {
                x_up[k - 2] += step;
                x_down[k - 2] -= step;
            }
            let numeric: Vec<f64> = read(&mut gap, v_up, x_up)
                .iter()
                .zip(read(&mut gap, v_down, x_down))
                .map(|(a, b)| (a - b) / (2.0 * step))
                .collect();
            read(&mut gap, v_t, xi);
            let (status, analytic) = gap.get_directional_derivative(&outputs, &[known], &[1.0]);
            assert_eq!(status, Status::Ok);
            // On the circle the force and its power are bounded outward by the circle: their
            // slopes by the deformation are one-sided there, and a central difference halves
            // the radial one. The deformation's rate is smooth on it.
            let compared = if on_circle && k >= 2 { 3 } else { 0 };
            for (a, b) in analytic.iter().zip(&numeric).skip(compared) {
                assert!(
                    (a - b).abs() <= 1e-5 * a.abs().max(b.abs()).max(1.0),
                    "xi = {xi:?}, v_t = {v_t:?}, by vr {known}: {analytic:?} against {numeric:?}"
                );
            }
        }
        // On the circle the slip's outward part is dropped from the rate.
        let (status, rate) = gap.get_real(&outputs[3..]);
        assert_eq!(status, Status::Ok);
        let outward = (v_t[0] * xi[0] + v_t[1] * xi[1]) / delta;
        let expected = if on_circle && outward > 0.0 {
            [
                v_t[0] - outward * xi[0] / delta,
                v_t[1] - outward * xi[1] / delta,
            ]
        } else {
            v_t
        };
        for (got, want) in rate.iter().zip(expected) {
            assert!(
                (got - want).abs() <= 1e-15,
                "xi = {xi:?}: rate {rate:?} against {expected:?}"
            );
        }
    }
}
