//! Accuracy of the demo co-simulation (`examples/msl_elastogap.rs`, master in
//! `tests/support/cosim.rs`) against a solution of the same MSL example computed here without the
//! FMU: the MSL ElastoGap law written out again, classical RK4 with small steps, and every switch of
//! the force law (contact start/end, damper clamp on/off) located exactly so that RK4 keeps its
//! fourth order. The solution checks itself by step halving, mass1 against its closed form, and
//! (when `../shared` is there) against the MSL reference result.

mod support;

use support::cosim::{self, Coupling, DemoOptions, TimeSeries, COMPARISON_SIGNALS, TUBE};
use support::Fmu;

use support::msl_reference::*;

#[test]
fn high_accuracy_solution_converges_and_matches_closed_form_and_msl() {
    let times = output_times(0.001);
    let (coarse, _) = solve(2e-4, &times);
    let (fine, located) = solve(1e-4, &times);
    let halving = max_abs_diff(&coarse, &fine);
    println!("high-accuracy solution: {located} switches located; step halving 2e-4 -> 1e-4 changes the signals by {:.2e}", max4(halving));
    assert!(
        located >= 10,
        "expected contact switches, located {located}"
    );
    assert!(max4(halving) < 1e-9, "not converged: {halving:?}");

    let mut worst = 0.0f64;
    for (t, y) in times.iter().zip(&fine) {
        let (x, v) = mass1_exact(*t);
        worst = worst.max((y[0] - x).abs()).max((y[1] - v).abs());
    }
    println!("mass1 against its closed form: {worst:.2e}");
    assert!(
        worst < 1e-9,
        "mass1 differs from its closed form by {worst:e}"
    );

    let Some(reference) = shared_reference_csv() else {
        return;
    };
    let msl = TimeSeries::read_csv(&reference).expect("read the MSL reference");
    let columns: Vec<&[f64]> = COMPARISON_SIGNALS
        .iter()
        .map(|n| {
            msl.column(n)
                .unwrap_or_else(|| panic!("reference lacks {n}"))
        })
        .collect();
    // Compare at the reference's own rows (no interpolation of the reference).
    let (ours, _) = solve(1e-4, &msl.time);
    let mut dev = [0.0f64; 4];
    for (i, y) in ours.iter().enumerate() {
        for (j, v) in comparison(y).iter().enumerate() {
            dev[j] = dev[j].max((v - columns[j][i]).abs());
        }
    }
    for (name, d) in COMPARISON_SIGNALS.iter().zip(dev) {
        println!("high-accuracy solution vs MSL reference: {name:<20} {d:.2e}");
    }
    assert!(
        max4(dev) < 0.1 * TUBE,
        "the high-accuracy solution is not the MSL model: {dev:?}"
    );
}

/// Max deviation of the co-simulation at `step` from the high-accuracy solution.
fn cosim_deviation(fmu: &std::sync::Arc<Fmu>, step: f64, coupling: Coupling) -> [(f64, f64); 4] {
    cosim_deviation_with(fmu, step, coupling, 0.0)
}

fn cosim_deviation_with(
    fmu: &std::sync::Arc<Fmu>,
    step: f64,
    coupling: Coupling,
    m_eff: f64,
) -> [(f64, f64); 4] {
    let options = DemoOptions {
        step,
        coupling,
        m_eff,
        ..DemoOptions::default()
    };
    let run = cosim::run_demo(fmu, &options).unwrap_or_else(|e| panic!("{e}"));
    let times: Vec<f64> = run.rows.iter().map(|r| r.time).collect();
    let (exact, _) = solve(1e-4, &times);
    let lookup: std::collections::HashMap<u64, [f64; 4]> = times
        .iter()
        .zip(&exact)
        .map(|(t, y)| (t.to_bits(), comparison(y)))
        .collect();
    cosim::max_deviation(&run, |t| lookup[&t.to_bits()])
}

fn report(label: &str, dev: &[(f64, f64); 4]) {
    for (name, (d, at)) in COMPARISON_SIGNALS.iter().zip(dev) {
        println!("{label}: {name:<20} max |deviation| {d:.3e} at t = {at:.3} s");
    }
}

#[test]
fn demo_cosimulation_at_10_ms_stays_in_the_msl_tube_and_naive_coupling_does_not() {
    let fmu = Fmu::load_default();
    let best = cosim_deviation(&fmu, 0.01, Coupling::Best);
    report("best, 10 ms", &best);
    let mean = cosim_deviation(&fmu, 0.01, Coupling::MeanForce);
    report("mean, 10 ms", &mean);
    let naive = cosim_deviation(&fmu, 0.01, Coupling::Naive);
    report("naive, 10 ms", &naive);

    // With input derivatives and on the FMU's own acceleration estimate alone.
    for (coupling, deviation) in [("best", best), ("mean", mean)] {
        for (name, (d, at)) in COMPARISON_SIGNALS.iter().zip(deviation) {
            assert!(
                d <= TUBE,
                "{coupling} coupling at 10 ms: {name} leaves the {TUBE} tube by {d:e} at t = {at} s"
            );
        }
    }
    let worst_best = best.iter().map(|x| x.0).fold(0.0, f64::max);
    let worst_naive = naive.iter().map(|x| x.0).fold(0.0, f64::max);
    assert!(
        worst_naive > TUBE && worst_naive > 5.0 * worst_best,
        "naive coupling should be clearly worse: naive {worst_naive:e}, best {worst_best:e}"
    );
}

#[test]
fn substepped_couplings_converge_at_second_order_with_and_without_input_derivatives() {
    let fmu = Fmu::load_default();
    // With the mass given (mass2, 1 kg against a wall): without it, the first contact's first
    // step holds a probe (docs/coupling.md), a one-step error of second order too, but whose size
    // depends on where in the step the contact begins, which hides the order. The contact lasts
    // 0.99 s: steps of 10 ms and more integrate its dynamics, steps of at most a hundredth of it
    // are the law's integral along the master's motion (`PLAIN_STEP`); each converges on its own.
    for coupling in [Coupling::Best, Coupling::MeanForce] {
        let gap_error = |step: f64| {
            let d = cosim_deviation_with(&fmu, step, coupling, 1.0);
            d[0].0.max(d[1].0)
        };
        for steps in [[0.04, 0.02, 0.01], [0.008, 0.004, 0.002]] {
            let [e1, e2, e3] = steps.map(gap_error);
            println!(
                "{coupling} coupling, mass2 signals: {} ms {e1:.3e}, {} ms {e2:.3e}, {} ms {e3:.3e}",
                1e3 * steps[0],
                1e3 * steps[1],
                1e3 * steps[2]
            );
            let order = (e1 / e3).ln() / (steps[0] / steps[2]).ln();
            assert!(
                order > 1.8,
                "{coupling}: errors {e1:e} {e2:e} {e3:e} at {steps:?} s, observed order {order:.2}"
            );
            assert!(e2 < e1, "{coupling}: {e1:e} {e2:e}");
        }
    }
}

#[test]
fn reference_interpolation_is_exact_for_quadratics_and_does_not_cross_events() {
    // Uneven rows, an event at t = 0.3 (listed twice, with a jump), as in a Dymola result file.
    let time = vec![0.0, 0.1, 0.2, 0.3, 0.3, 0.35, 0.5, 0.6];
    let left = |t: f64| 1.0 - 2.0 * t + 3.0 * t * t;
    let right = |t: f64| 5.0 + t - 4.0 * t * t;
    let values: Vec<f64> = time
        .iter()
        .enumerate()
        .map(|(i, &t)| if i <= 3 { left(t) } else { right(t) })
        .collect();
    let series = TimeSeries {
        names: vec!["time".into(), "y".into()],
        time,
        columns: vec![values],
    };
    let y = &series.columns[0];
    for k in 0..=60 {
        let t = k as f64 * 0.01;
        let expected = if t <= 0.3 { left(t) } else { right(t) };
        let got = series.interpolate(y, t);
        assert!(
            (got - expected).abs() < 1e-12,
            "t = {t}: {got} vs {expected}"
        );
    }
}
