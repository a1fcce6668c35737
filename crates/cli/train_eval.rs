//! `mancala train-eval`: a value network for `minimax:eval=net:PATH`,
//! trained on the exact labels of `analyze labels` (the work is in
//! `mancala_analysis::eval_training` and `mancala_evalnet`).

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use mancala_analysis::eval_training::{train_eval, EvalTrainingOptions, TrainingData};
use mancala_analysis::labels::PHASE_SEEDS;
use mancala_evalnet::{TrainOptions, ValueNet};

use crate::analyze::cli_error;
use crate::bad_input;

/// Arguments of `mancala train-eval`.
#[derive(Args, Debug)]
pub struct TrainEvalArgs {
    /// A folder written by `mancala analyze labels` (repeat it: shards, or
    /// runs of other agents; all of the same rules).
    #[arg(long = "labels", value_name = "DIR", required = true)]
    labels: Vec<PathBuf>,
    /// A file of positions never to train on, one a line in the toolkit's
    /// notation (`analyze exact-positions --held-out` writes the positions
    /// of a yardstick's games); repeat it.
    #[arg(long = "exclude", value_name = "FILE")]
    exclude: Vec<PathBuf>,
    /// Widths of the hidden layers, as in 64,32.
    #[arg(long, default_value = "64,32", value_parser = parse_widths)]
    hidden: Widths,
    /// One-hot buckets a pit (counts from 0 to BUCKETS-1; the last bucket
    /// holds larger counts too).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=64))]
    buckets: u32,
    /// Passes over the examples.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    epochs: u32,
    /// Examples a step.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    batch: u32,
    /// Adam's step size (falls linearly to a tenth by the last epoch).
    #[arg(long = "lr", default_value_t = 1e-3)]
    learning_rate: f32,
    /// Games whose id is a multiple of this are kept for validation (0: none).
    #[arg(long, default_value_t = 20)]
    validation_every: u64,
    /// Seed of the first weights and of the order of examples.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The network to write (safetensors); its training log is written
    /// beside it, with `.csv` for the extension.
    #[arg(long, short)]
    out: PathBuf,
}

/// Hidden layer widths from the command line.
#[derive(Clone, Debug)]
struct Widths(Vec<usize>);

fn parse_widths(text: &str) -> std::result::Result<Widths, String> {
    let widths: std::result::Result<Vec<usize>, _> =
        text.split(',').map(|w| w.trim().parse::<usize>()).collect();
    match widths {
        Ok(w)
            if !w.is_empty()
                && w.iter()
                    .all(|&n| (1..=mancala_evalnet::MAX_WIDTH).contains(&n)) =>
        {
            Ok(Widths(w))
        }
        _ => Err(format!(
            "'{text}': widths from 1 to {} separated by commas, as in 64,32",
            mancala_evalnet::MAX_WIDTH
        )),
    }
}

/// `mancala train-eval`.
pub fn run(args: &TrainEvalArgs) -> Result<()> {
    check_args(args)?;
    let options = training_options(args)?;
    let (net, data, log) = train_logged(&options)?;
    let summary = data_summary(&data);
    eprintln!("{summary}");
    let labels: Vec<String> = args
        .labels
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let net = net
        .with_metadata("trained_on", &labels.join(" "))
        .with_metadata("data", &summary)
        .with_metadata("command", &std::env::args().collect::<Vec<_>>().join(" "));
    let log_path = save(&net, &log, &args.out)?;
    println!(
        "{} ({}, {} multiply-adds an evaluation) -> {}; log {}",
        net,
        net.hidden()
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join("x"),
        net.cost(),
        args.out.display(),
        log_path.display()
    );
    Ok(())
}

/// The user's errors found before any work: a step size out of range, or a
/// `--labels` folder that `analyze labels` did not write.
fn check_args(args: &TrainEvalArgs) -> Result<()> {
    if !(args.learning_rate.is_finite() && args.learning_rate > 0.0 && args.learning_rate <= 1.0) {
        return Err(bad_input(format!(
            "--lr {}: a step size above 0 and at most 1",
            args.learning_rate
        )));
    }
    for dir in &args.labels {
        if !dir
            .join(mancala_analysis::labels::LABELS_IDENTITY)
            .is_file()
        {
            return Err(bad_input(format!(
                "--labels {}: no labels.json there: not a folder of `mancala analyze labels`",
                dir.display()
            )));
        }
    }
    Ok(())
}

/// The training's options from the arguments, with the positions of the
/// `--exclude` files read.
fn training_options(args: &TrainEvalArgs) -> Result<EvalTrainingOptions> {
    let mut exclude = HashSet::new();
    for path in &args.exclude {
        mancala_analysis::labels::read_position_list(path, &mut exclude)
            .map_err(|e| bad_input(format!("--exclude: {e}")))?;
    }
    Ok(EvalTrainingOptions {
        labels: args.labels.clone(),
        exclude,
        buckets: args.buckets as usize,
        validation_every: args.validation_every,
        train: TrainOptions {
            hidden: args.hidden.0.clone(),
            epochs: args.epochs,
            batch: args.batch as usize,
            learning_rate: args.learning_rate,
            seed: args.seed,
            ..TrainOptions::default()
        },
    })
}

/// Trains, reporting each epoch on stderr; returns the network, the data
/// it saw and the training log (CSV).
fn train_logged(options: &EvalTrainingOptions) -> Result<(ValueNet, TrainingData, String)> {
    let mut log = String::from("epoch,train_rmse,validation_rmse,validation_mae,seconds\n");
    let t0 = std::time::Instant::now();
    let (net, data) = train_eval(options, &mut |r| {
        let seconds = t0.elapsed().as_secs_f64();
        eprintln!(
            "epoch {:>3}: train {:.3} seeds, validation {:.3} (mean absolute {:.3}), {seconds:.1} s",
            r.epoch, r.train_rmse, r.validation_rmse, r.validation_mae
        );
        let _ = writeln!(
            log,
            "{},{},{},{},{seconds:.2}",
            r.epoch, r.train_rmse, r.validation_rmse, r.validation_mae
        );
    })
    .map_err(cli_error)?;
    Ok((net, data, log))
}

/// One line on the examples: games, positions, the split, what was left
/// out, and the examples by seeds in the pits (also kept in the network's
/// metadata).
fn data_summary(data: &TrainingData) -> String {
    let phases: Vec<String> = data
        .by_phase
        .iter()
        .enumerate()
        .map(|(k, n)| {
            format!(
                "{}-{}: {n}",
                k as u32 * PHASE_SEEDS,
                (k as u32 + 1) * PHASE_SEEDS - 1
            )
        })
        .collect();
    format!(
        "{} games, {} positions ({} unsettled); {} examples for training, {} for validation; \
         {} left out as listed, {} repeats; examples by seeds in the pits: {}",
        data.games,
        data.positions,
        data.unsettled,
        data.train.len(),
        data.validation.len(),
        data.excluded,
        data.repeated,
        phases.join(", ")
    )
}

/// Writes the network to `out` and the log beside it (`.csv`); returns
/// the log's path.
fn save(net: &ValueNet, log: &str, out: &Path) -> Result<PathBuf> {
    // Written whole, then renamed: a stop leaves the old file or the new.
    let partial = out.with_extension("safetensors.partial");
    net.save(&partial).map_err(bad_input)?;
    std::fs::rename(&partial, out).with_context(|| format!("writing {}", out.display()))?;
    let log_path = out.with_extension("csv");
    std::fs::write(&log_path, log).with_context(|| format!("writing {}", log_path.display()))?;
    Ok(log_path)
}
