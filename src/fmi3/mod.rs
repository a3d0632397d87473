//! The FMI 3.0 C ABI (co-simulation and Model Exchange).
