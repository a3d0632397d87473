//! Accuracy of the demo co-simulation (`examples/msl_elastogap/`, masters in
//! `tests/support/cosim.rs` and, for the FMI 3.0 FMU with early return, `tests/support/cosim3.rs`)
//! against a solution of the same MSL example computed here without the FMU: the MSL ElastoGap
//! law of `tests/support/gap_law.rs`, classical RK4 with small steps, and every switch of the
//! force law (contact start/end, damper clamp on/off) located exactly so that RK4 keeps its
//! fourth order. The solution checks itself by step halving, mass1 against its closed form, and
//! (when `../shared` is there) against the MSL reference result.

mod support;

use support::cosim::{self, Coupling, DemoOptions, TimeSeries, COMPARISON_SIGNALS, TUBE};
use support::cosim3::{self, Fmi3Options};
use support::fmi3::Fmu3;
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

/// A contact switch of the high-accuracy solution: time, gap (1 or 2), whether the contact starts,
/// and the gap's |v_rel| there.
type ExactSwitch = (f64, usize, bool, f64);

/// The contact's starts and ends in the high-accuracy solution, located by bisection to 1e-15 s.
fn exact_contact_switches() -> Vec<ExactSwitch> {
    let mut y: State = [2.0, 0.0, 2.0, 0.0];
    let mut t = 0.0;
    let mut found = Vec::new();
    let open = |y: &State| {
        let g = switches(y);
        [g[0] > 0.0, g[1] > 0.0]
    };
    while cosim::STOP_TIME - t > 1e-13 {
        let before = open(&y);
        let (next, taken) = step_to_switch(&y, 1e-4f64.min(cosim::STOP_TIME - t));
        let after = open(&next);
        for gap in 0..2 {
            if before[gap] != after[gap] {
                // step_to_switch stops just past the switch, within 1e-15 s of it.
                found.push((t + taken, gap + 1, !after[gap], next[3].abs()));
            }
        }
        y = next;
        t += taken;
    }
    found
}

/// Where the MSL reference's elastoGap1.s_rel or elastoGap2.s_rel crosses s_rel0 (linear between
/// its rows, which lie 5 ms apart or closer): time, gap, contact starts.
fn msl_contact_switches(msl: &TimeSeries) -> Vec<(f64, usize, bool)> {
    let s2 = msl.column("elastoGap2.s_rel").expect("elastoGap2.s_rel");
    // elastoGap1.s_rel = x2 + 2 m = 4 m - elastoGap2.s_rel.
    let s_rel = |gap: usize, i: usize| if gap == 1 { 4.0 - s2[i] } else { s2[i] };
    let mut found = Vec::new();
    for i in 1..msl.time.len() {
        for gap in 1..=2 {
            let (a, b) = (s_rel(gap, i - 1) - GAP_S_REL0, s_rel(gap, i) - GAP_S_REL0);
            if (a > 0.0) != (b > 0.0) && msl.time[i] > msl.time[i - 1] {
                let t = msl.time[i - 1] + (msl.time[i] - msl.time[i - 1]) * a / (a - b);
                found.push((t, gap, b <= 0.0));
            }
        }
    }
    found
}

/// The demo's FMI 3.0 run: early return, event mode, 10 ms grid, `m_eff` = 1 kg (mass2 against a
/// wall, as `packaging/demo.sh` runs it).
fn fmi3_demo_options(m_eff: f64) -> Fmi3Options {
    let mut options = Fmi3Options::default();
    options.demo.m_eff = m_eff;
    options
}

/// The early returns with the repeats merged: after a contact's end the master's mass2 may sit a
/// rounding inside the contact still (its motion is not the FMU's extrapolation), and the next
/// step returns at the same switch again, within 1e-9 s. Returns the merged list and the repeats.
fn merged_early_returns(run: &cosim3::Fmi3Run) -> (Vec<cosim3::EarlyReturn>, usize) {
    let mut merged: Vec<cosim3::EarlyReturn> = Vec::new();
    let mut repeats = 0;
    for e in &run.early_returns {
        if let Some(last) = merged.last() {
            if last.gap == e.gap && last.entering() == e.entering() && e.time - last.time < 1e-9 {
                repeats += 1;
                continue;
            }
        }
        merged.push(*e);
    }
    (merged, repeats)
}

#[test]
fn fmi3_demo_with_early_return_stays_in_the_msl_tube_and_returns_at_the_contact_switches() {
    let fmu3 = Fmu3::load_default();
    let run = cosim3::run_demo3(&fmu3, &fmi3_demo_options(1.0)).unwrap_or_else(|e| panic!("{e}"));
    fmi3_run_in_the_tube_with_early_returns_at_the_switches(&run);
}

/// The same with `m_eff` = 0, the FMU's default: the mass learned from the first contact.
#[test]
fn fmi3_demo_with_early_return_and_the_mass_learned_stays_in_the_msl_tube() {
    let fmu3 = Fmu3::load_default();
    let run = cosim3::run_demo3(&fmu3, &fmi3_demo_options(0.0)).unwrap_or_else(|e| panic!("{e}"));
    fmi3_run_in_the_tube_with_early_returns_at_the_switches(&run);
}

fn fmi3_run_in_the_tube_with_early_returns_at_the_switches(run: &cosim3::Fmi3Run) {
    let times: Vec<f64> = run.run.rows.iter().map(|r| r.time).collect();
    let exact = comparison_at(&times);
    let lookup: std::collections::HashMap<u64, [f64; 4]> =
        times.iter().map(|t| t.to_bits()).zip(exact).collect();
    let deviation = cosim::max_deviation(&run.run, |t| lookup[&t.to_bits()]);
    report("FMI 3.0, early return, event mode, 10 ms", &deviation);
    for (name, (d, at)) in COMPARISON_SIGNALS.iter().zip(deviation) {
        assert!(
            d <= TUBE,
            "FMI 3.0 with early return: {name} leaves the {TUBE} tube by {d:e} at t = {at} s"
        );
    }
    if let Some(path) = shared_reference_csv() {
        let msl = TimeSeries::read_csv(&path).expect("read the MSL reference");
        let deviation = cosim::max_deviation_from_csv(&run.run, &msl).expect("compare");
        report("FMI 3.0 against the MSL reference", &deviation);
        for (name, (d, at)) in COMPARISON_SIGNALS.iter().zip(deviation) {
            assert!(
                d <= TUBE,
                "{name}: {d:e} from the MSL reference at t = {at} s"
            );
        }
        check_early_returns_against(run, &msl_contact_switches(&msl), "MSL reference");
    }

    // Every early return at a switch of the exact motion of the same gap and kind, and one at
    // every contact's start.
    let exact = exact_contact_switches();
    assert!(exact.len() >= 4, "the example has contacts: {exact:?}");
    let plain: Vec<(f64, usize, bool)> = exact.iter().map(|&(t, g, e, _)| (t, g, e)).collect();
    check_early_returns_against(run, &plain, "high-accuracy solution");
    let (merged, _) = merged_early_returns(run);
    for e in &merged {
        // At the switch the FMU stopped at, its own s_rel is s_rel0: located, not stepped over.
        assert!(
            (e.s_rel - GAP_S_REL0).abs() < 1e-9,
            "early return at {} s: s_rel = {} m, not at s_rel0",
            e.time,
            e.s_rel
        );
        // In event mode: contact before and after the switch.
        assert_eq!(e.contact_before, !e.entering(), "{e:?}");
        assert_eq!(e.contact_after, Some(e.entering()), "{e:?}");
        // Off the exact switch by no more than the tube allows in position at that speed.
        let &(t, _, _, speed) = exact
            .iter()
            .filter(|s| (s.1, s.2) == (e.gap, e.entering()))
            .min_by(|a, b| (a.0 - e.time).abs().total_cmp(&(b.0 - e.time).abs()))
            .expect("a switch of that gap and kind");
        let offset = (e.time - t).abs();
        assert!(
            offset * speed <= TUBE,
            "early return at {} s, exact switch at {t} s: {offset:e} s at {speed} m/s",
            e.time
        );
    }
}

/// The early returns against a reference's contact switches: each (repeats merged) at one of the
/// same gap and kind, within 1 ms (the 2e-3 m tube at 2 m/s, the slowest touch-down), and one at
/// each contact's start. A contact's end has one where the FMU stepped along the master's motion
/// (before the first contact told the mass): through a mass the step goes on past it.
fn check_early_returns_against(run: &cosim3::Fmi3Run, switches: &[(f64, usize, bool)], what: &str) {
    let (merged, repeats) = merged_early_returns(run);
    println!(
        "{} early returns, {repeats} of them a repeat within 1e-9 s",
        run.early_returns.len()
    );
    let nearest = |time: f64, gap: usize, entering: bool| {
        switches
            .iter()
            .filter(|s| (s.1, s.2) == (gap, entering))
            .map(|s| s.0)
            .min_by(|a, b| (a - time).abs().total_cmp(&(b - time).abs()))
    };
    for e in &merged {
        let switch = nearest(e.time, e.gap, e.entering());
        println!(
            "early return at {:.9} s (elastoGap{}, contact {}); {what}'s switch at {switch:.9?} s",
            e.time,
            e.gap,
            if e.entering() { "starts" } else { "ends" },
        );
        let switch = switch.unwrap_or_else(|| panic!("{e:?}: no such switch in the {what}"));
        assert!(
            (e.time - switch).abs() < 1e-3,
            "{e:?} against {switch} ({what})"
        );
    }
    for &(t, gap, _) in switches.iter().filter(|s| s.2) {
        assert!(
            merged
                .iter()
                .any(|e| e.gap == gap && e.entering() && (e.time - t).abs() < 1e-3),
            "no early return at elastoGap{gap}'s touch-down at {t} s ({what})"
        );
    }
}

#[test]
fn fmi3_demo_without_early_return_is_the_fmi2_run_bit_for_bit() {
    let fmu = Fmu::load_default();
    let fmu3 = Fmu3::load_default();
    let options = Fmi3Options {
        early_return: false,
        event_mode: false,
        ..Fmi3Options::default()
    };
    let run3 = cosim3::run_demo3(&fmu3, &options).unwrap_or_else(|e| panic!("{e}"));
    let run2 = cosim::run_demo(&fmu, &options.demo).unwrap_or_else(|e| panic!("{e}"));
    assert!(run3.early_returns.is_empty());
    assert_eq!(run3.run.rows.len(), run2.rows.len());
    for (a, b) in run3.run.rows.iter().zip(&run2.rows) {
        let bits = |r: &cosim::Row| {
            let c = r.comparison();
            [
                r.time,
                r.x2,
                r.v2,
                r.gap1.f,
                r.gap2.f,
                r.gap1.f_mean,
                r.gap2.f_mean,
                r.gap1.e_loss,
                c[0],
                c[1],
            ]
            .map(f64::to_bits)
        };
        assert_eq!(
            bits(a),
            bits(b),
            "t = {}: FMI 3.0 {a:?}, FMI 2.0 {b:?}",
            a.time
        );
    }
}
