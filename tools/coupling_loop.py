"""The spectral radius of the coupling's correction loop against the error of the mass it acts
through, for a master that holds f_mean (Gauss-Seidel) and one that holds f_next (Jacobi): the table
of docs/coupling.md.

With p the position offset and q = h*dv the velocity offset (both in metres), a shift w of the held
force moves them by p' = p + q - w/2, q' = q - w; a law w = k_p*p + k_q*q acting through a mass g times
the real one acts with g*w. A master that holds f_next holds the force planned one step earlier from
the state then predicted.

    .venv/bin/python tools/coupling_loop.py            # the markdown table
    .venv/bin/python tools/coupling_loop.py --check docs/coupling.md
"""

import argparse
import sys

import numpy as np

A = np.array([[1.0, 1.0], [0.0, 1.0]])
B = np.array([[0.5], [1.0]])
LAWS = {
    "three-step law (1.5, 1.75)": (1.5, 1.75),
    "dead-beat law (1, 1.5)": (1.0, 1.5),
}
# The law the coupling uses once an answer has confirmed the mass (the three-step law; dead-beat
# after a wait), and how far off a confirmed mass can be: 0.5 % where the external acceleration is
# steady (a lone body: the answer is exact and adopted from there), 10 % otherwise.
IN_USE = [("Gauss–Seidel", "three-step law (1.5, 1.75)"), ("Jacobi", "three-step law (1.5, 1.75)")]
STEADY = (0.995, 1.005)
CONFIRMED = (0.9, 1.1)
RATIOS = [0.5, 0.7, 0.9, 1.0, 1.1, 1.3, 1.5, 2.0]


def radius_holding_f_mean(g, gains):
    k = np.array([gains])
    return max(abs(np.linalg.eigvals(A - g * B @ k)))


def radius_holding_f_next(g, gains):
    k = np.array([gains])
    loop = np.zeros((3, 3))
    loop[:2, :2] = A
    loop[:2, 2:] = -g * B
    loop[2:, :2] = k @ A
    loop[2:, 2:] = -k @ B
    return max(abs(np.linalg.eigvals(loop)))


def table():
    head = "| g = m_used/m_true | " + " | ".join(f"{g:g}" for g in RATIOS) + " |"
    rows = [head, "| --- |" + " --- |" * len(RATIOS)]
    for master, radius in [("Gauss–Seidel", radius_holding_f_mean), ("Jacobi", radius_holding_f_next)]:
        for name, gains in LAWS.items():
            cells = " | ".join(f"{radius(g, gains):.2f}" for g in RATIOS)
            rows.append(f"| {master}, {name} | {cells} |")
    return "\n".join(rows)


def worst_over_range(radius, gains, low, high, count=201):
    ratios = np.linspace(low, high, count)
    return max(radius(g, gains) for g in ratios)


def summary():
    radii = {"Gauss–Seidel": radius_holding_f_mean, "Jacobi": radius_holding_f_next}
    lines = []
    for low, high in (STEADY, CONFIRMED):
        parts = [
            f"{master}, {name}: {worst_over_range(radii[master], LAWS[name], low, high):.2f}"
            for master, name in IN_USE
        ]
        lines.append(f"largest radius over g in [{low}, {high}] of the law in use: " + "; ".join(parts))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", metavar="MARKDOWN", help="fail unless this file holds the table as printed")
    args = parser.parse_args()
    text = table()
    summary_line = summary()
    if args.check:
        with open(args.check, encoding="utf-8") as handle:
            document = handle.read()
        missing = [line for line in text.splitlines() + summary_line.splitlines() if line not in document]
        if missing:
            print("not in " + args.check + ":\n" + "\n".join(missing), file=sys.stderr)
            return 1
        print(f"{args.check}: the loop table and the bound of the laws in use are as computed")
        return 0
    print(text)
    print()
    print(summary_line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
