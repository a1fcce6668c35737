//! Solving small Kalah boards from the start, with and without the endgame
//! database (`cargo bench -p mancala-solver`). The full-size goals
//! (Kalah(6,4), Kalah(6,5)) are measured with `mancala solve --bench`.
// criterion's macros define undocumented public functions.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use mancala_core::{Game, GameSpec, KalahRules};
use mancala_solver::{Solver, SolverOptions};

fn kalah(spec: &str) -> KalahRules {
    match spec.parse::<GameSpec>() {
        Ok(GameSpec::Kalah(rules)) => rules,
        other => panic!("{spec}: {other:?}"),
    }
}

fn solve(c: &mut Criterion) {
    let mut group = c.benchmark_group("solve");
    group.sample_size(10);
    for spec in [
        "kalah:pits=4,seeds=3",
        "kalah:pits=4,seeds=3,empty_capture=true",
    ] {
        let rules = kalah(spec);
        for (name, options) in [
            (
                "no_db",
                SolverOptions {
                    table_mib: 64,
                    endgame_seeds: 0,
                    endgame_dir: None,
                },
            ),
            (
                "db",
                SolverOptions {
                    table_mib: 64,
                    endgame_seeds: 0,
                    endgame_dir: None,
                }
                .with_endgame_positions(1 << 20, rules.pits()),
            ),
        ] {
            let solver = Solver::new(rules, &options).expect("memory");
            group.bench_function(format!("{spec}/{name}"), |b| {
                b.iter(|| {
                    solver.clear_table();
                    solver.solve(&rules.start(), 1).expect("solves").value
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, solve);
criterion_main!(benches);
