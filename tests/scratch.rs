mod support;
use std::f64::consts::PI;
use std::sync::Arc;
use support::{ok, Fmu, Instance, VarType};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Order {
    GapFirst,
    BodyFirst,
    Jacobi,
}

struct Rec {
    t: f64,
    x: f64,
    v: f64,
    held: f64,
    e_loss: f64,
    e_port: f64,
    m: f64,
}

fn run(
    fmu: &Arc<Fmu>,
    c: f64,
    d: f64,
    m_eff: f64,
    mass: f64,
    x0: f64,
    v0: f64,
    ext: &dyn Fn(f64, f64, f64) -> f64,
    order: Order,
    h: f64,
    steps: usize,
) -> Vec<Rec> {
    let mut inst = Instance::new(fmu, "scratch");
    ok(inst.setup_experiment(None, 0.0, None));
    ok(inst.enter_initialization_mode());
    let [cv, dv, mv, sb, vb, fm, fnx, el, me] = [
        "c",
        "d",
        "m_eff",
        "flange_b.s",
        "flange_b.v",
        "f_mean",
        "f_next",
        "E_loss",
        "m_eff_estimate",
    ]
    .map(|n| inst.vr(n, VarType::Real));
    let has_port = fmu
        .model_description
        .variables
        .iter()
        .any(|v| v.name == "E_port");
    let ep = if has_port {
        inst.vr("E_port", VarType::Real)
    } else {
        el
    };
    if std::env::var("LOGS").is_ok() {
        inst.set_debug_logging(true, &["logCoupling"]);
    }
    ok(inst.set_real(&[cv, dv, mv], &[c, d, m_eff]));
    let (mut x, mut v) = (x0, v0);
    ok(inst.set_real(&[sb, vb], &[x, v]));
    ok(inst.exit_initialization_mode());
    let mut out = vec![];
    let mut last_mean = 0.0;
    let mut held_next = if order == Order::Jacobi {
        let (s, vals) = inst.get_real(&[fnx]);
        ok(s);
        vals[0]
    } else {
        0.0
    };
    let sub = 200;
    let integrate = |x: &mut f64, v: &mut f64, t: f64, held: f64| {
        let dt = h / sub as f64;
        let acc = |t: f64, x: f64, v: f64| (ext(t, x, v) - held) / mass;
        for i in 0..sub {
            let ti = t + i as f64 * dt;
            let (k1x, k1v) = (*v, acc(ti, *x, *v));
            let (k2x, k2v) = (
                *v + 0.5 * dt * k1v,
                acc(ti + 0.5 * dt, *x + 0.5 * dt * k1x, *v + 0.5 * dt * k1v),
            );
            let (k3x, k3v) = (
                *v + 0.5 * dt * k2v,
                acc(ti + 0.5 * dt, *x + 0.5 * dt * k2x, *v + 0.5 * dt * k2v),
            );
            let (k4x, k4v) = (*v + dt * k3v, acc(ti + dt, *x + dt * k3x, *v + dt * k3v));
            *x += dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
            *v += dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
        }
    };
    for k in 0..steps {
        let t = k as f64 * h;
        let held;
        match order {
            Order::GapFirst => {
                ok(inst.set_real(&[sb, vb], &[x, v]));
                ok(inst.do_step(t, h, true));
                held = inst.get_real(&[fm]).1[0];
                out.push(Rec {
                    t,
                    x,
                    v,
                    held,
                    e_loss: 0.0,
                    e_port: 0.0,
                    m: 0.0,
                });
                integrate(&mut x, &mut v, t, held);
            }
            Order::BodyFirst => {
                held = last_mean;
                out.push(Rec {
                    t,
                    x,
                    v,
                    held,
                    e_loss: 0.0,
                    e_port: 0.0,
                    m: 0.0,
                });
                integrate(&mut x, &mut v, t, held);
                ok(inst.set_real(&[sb, vb], &[x, v]));
                ok(inst.do_step(t, h, true));
                last_mean = inst.get_real(&[fm]).1[0];
            }
            Order::Jacobi => {
                held = held_next;
                out.push(Rec {
                    t,
                    x,
                    v,
                    held,
                    e_loss: 0.0,
                    e_port: 0.0,
                    m: 0.0,
                });
                ok(inst.set_real(&[sb, vb], &[x, v]));
                ok(inst.do_step(t, h, true));
                integrate(&mut x, &mut v, t, held);
                held_next = inst.get_real(&[fnx]).1[0];
            }
        }
        let o = inst.get_real(&[el, ep, me]).1;
        let r = out.last_mut().unwrap();
        r.e_loss = o[0];
        r.e_port = o[1];
        r.m = o[2];
    }
    out.push(Rec {
        t: steps as f64 * h,
        x,
        v,
        held: 0.0,
        e_loss: 0.0,
        e_port: 0.0,
        m: 0.0,
    });
    for r in inst.logs() {
        if r.status != support::Status::Ok || std::env::var("LOGS").is_ok() {
            println!("LOG {:?} {:?}", r.status, r.message);
        }
    }
    out
}

fn show(label: &str, recs: &[Rec], mass: f64, n: usize) {
    println!("--- {label}");
    let mut my_port = 0.0;
    for (i, r) in recs.iter().enumerate().take(n) {
        if i > 0 {
            my_port += recs[i - 1].held * (r.x - recs[i - 1].x);
        }
        println!("{:3} t={:.4} x={:+.5} v={:+.5} KE={:.5} held={:+.3e} Eloss={:.5} Eport={:.5} (mine {:.5}) m={:.4}", i, r.t, r.x, r.v, 0.5*mass*r.v*r.v, r.held, r.e_loss, r.e_port, my_port, r.m);
    }
}

#[test]
fn scratch() {
    let fmu = Fmu::load_default();
    let free = |_: f64, _: f64, _: f64| 0.0;
    let case = std::env::var("CASE").unwrap_or_default();
    let tc = PI * (1.0f64 / 1e4).sqrt();
    let ratio: f64 = std::env::var("RATIO")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10.0);
    let m_eff: f64 = std::env::var("MEFF")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let h = ratio * tc;
    let order = match std::env::var("ORDER").as_deref() {
        Ok("body") => Order::BodyFirst,
        Ok("jacobi") => Order::Jacobi,
        _ => Order::GapFirst,
    };
    let x0: f64 = std::env::var("X0")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0 + 3.5 * h);
    if case == "driven" {
        let (mass, k_s, rest, amplitude, omega) = (1.0, 200.0, 0.01, 2.0, 2.0 * PI * 1.5);
        let external =
            move |t: f64, x: f64, _: f64| -k_s * (x - rest) + amplitude * (omega * t).sin();
        let r = run(
            &fmu, 1e6, 200.0, m_eff, mass, rest, 0.0, &external, order, 10e-3, 200,
        );
        show("driven", &r, mass, 200);
        return;
    }
    if case == "ball" {
        let g = move |_: f64, _: f64, _: f64| -9.81;
        let tc6 = PI * (1.0f64 / 1e6).sqrt();
        let r = run(&fmu, 1e6, 200.0, m_eff, 1.0, 0.05, 0.0, &g, order, ratio * tc6, 60);
        show("ball", &r, 1.0, 60);
        return;
    }
    if case == "sweep" {
        let exact_v = 0.758629_f64;
        let exact_e = 0.5 * (1.0 - exact_v * exact_v);
        for order in [Order::GapFirst, Order::BodyFirst, Order::Jacobi] {
            for m_eff in [1.0, 2.0, 0.5, 0.0] {
                for ratio in [0.1, 0.5, 1.0, 3.0, 10.0, 30.0, 100.0] {
                    let h = ratio * tc;
                    for phase in [0.0, 0.3, 3.5, 3.9] {
                        let steps = (6.0 * tc / h).ceil() as usize + 12;
                        let x0 = phase * h;
                        let r = run(
                            &fmu, 1e4, 20.0, m_eff, 1.0, x0, -1.0, &free, order, h, steps,
                        );
                        // first communication point with v > 0 after contact: lift-off index
                        let settle = (0..r.len())
                            .rev()
                            .find(|&k| (r[k].v - exact_v).abs() > 0.01 * exact_v)
                            .map_or(0, |k| k + 1);
                        let contact_step = r
                            .iter()
                            .position(|q| q.x < 0.0 || q.held != 0.0)
                            .unwrap_or(0);
                        let vmax = r.iter().map(|q| q.v.abs()).fold(0.0, f64::max);
                        let last = r.len() - 2;
                        let e_err = r[last].e_loss / exact_e - 1.0;
                        let v_err = r.last().unwrap().v / exact_v - 1.0;
                        let flag = if settle > contact_step + 4
                            || vmax > 3.0
                            || e_err.abs() > 0.01
                            || v_err.abs() > 0.005
                        {
                            "  <<<"
                        } else {
                            ""
                        };
                        println!("SUM {order:?} m_eff={m_eff} ratio={ratio} phase={phase}: v_err={v_err:+.2e} E_err={e_err:+.2e} settle@{settle} contact@{contact_step} vmax={vmax:.2}{flag}");
                    }
                }
            }
        }
        return;
    }
    let r = run(&fmu, 1e4, 20.0, m_eff, 1.0, x0, -1.0, &free, order, h, 12);
    show(
        &format!("impact h={ratio} Tc m_eff={m_eff} {order:?}"),
        &r,
        1.0,
        13,
    );
}
