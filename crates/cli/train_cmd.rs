//! `mancala train CONFIG`: AlphaZero-style training (the `neural` feature).

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mancala_core::{with_game, GameSpec};
use mancala_neural::targets::ExactTarget;
use mancala_neural::{cuda_available, Device, NeuralError, TrainConfig, TrainEvent, Trainer};

use crate::{bad_input, Interrupted};

/// Where the network runs.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum DeviceChoice {
    /// The CPU.
    Cpu,
    /// The first CUDA GPU (an error if there is none).
    Cuda,
    /// A GPU if there is one, else the CPU.
    Auto,
}

/// Arguments of `mancala train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The training config, e.g. configs/train-kalah.toml.
    config: PathBuf,
    /// Continue the run checkpointed in the output folder.
    #[arg(long)]
    resume: bool,
    /// Where the network runs.
    #[arg(long, value_enum, default_value = "auto")]
    device: DeviceChoice,
    /// Output folder (default: the config's `output`, else `results/<name>`).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Run at most this many generations in all (overrides the config).
    #[arg(long)]
    generations: Option<u32>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    /// Do not write report.html at the end (`mancala report DIR` writes it later).
    #[arg(long)]
    no_report: bool,
    /// Measure instead: play this many self-play games with the config's
    /// network size, simulations and workers (a fresh network, or the
    /// checkpoint's with --resume), and print evaluations and positions per
    /// second. Writes nothing.
    #[arg(long, value_name = "GAMES", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    bench: Option<u32>,
}

/// Arguments of `mancala export-net`.
#[derive(Args, Debug)]
pub struct ExportNetArgs {
    /// The libtorch model, e.g. results/train-kalah/best.ot.
    model: PathBuf,
    /// The safetensors file to write.
    #[arg(long, short)]
    out: PathBuf,
}

/// `mancala export-net MODEL --out FILE`: the model for the plain-Rust
/// forward pass. Prints the largest difference between libtorch's outputs
/// and the written network's on the start position, as a check.
pub fn export_net(args: &ExportNetArgs) -> Result<()> {
    let net = mancala_neural::PolicyValueNet::load(&args.model, Device::Cpu)?;
    let plain = net.to_plain()?;
    let spec: GameSpec = net.info().game.parse()?;
    let obs = with_game!(&spec, game => {
        let mut obs = vec![0.0; mancala_core::Game::observation_len(game)];
        mancala_core::Game::observe(game, &mancala_core::Game::start(game), &mut obs);
        obs
    });
    let (logits, value) = net.infer(&obs, 1)?;
    let mut plain_logits = vec![0.0; logits.len()];
    let plain_value = plain.forward(&obs, &mut plain_logits);
    let difference = logits
        .iter()
        .zip(&plain_logits)
        .map(|(a, b)| (a - b).abs())
        .fold((value[0] - plain_value).abs(), f32::max);
    plain.save(&args.out)?;
    println!(
        "wrote {} ({spec}; largest difference from libtorch at the start: {difference:.1e})",
        args.out.display()
    );
    Ok(())
}

/// `mancala train --bench GAMES`: self-play throughput, nothing written.
#[allow(clippy::too_many_arguments)]
fn bench<G: mancala_solver::Solvable>(
    game: &G,
    spec: &str,
    config: &TrainConfig,
    dir: &std::path::Path,
    device: Device,
    args: &TrainArgs,
    games: u32,
    bar: &ProgressBar,
) -> Result<()> {
    // Without --resume, a fresh network: a folder that is never created
    // (the bench writes nothing), so a run already in `dir` is no obstacle.
    let fresh = std::env::temp_dir().join(format!("mancala-train-bench-{}", std::process::id()));
    let dir = if args.resume { dir } else { fresh.as_path() };
    let trainer = Trainer::new(game, spec, config.clone(), dir, device, args.resume).map_err(
        |e| match e {
            NeuralError::Checkpoint { .. } => bad_input(e),
            other => other.into(),
        },
    )?;
    bar.set_length(u64::from(games));
    bar.set_message("bench");
    let stop = crate::stop_flag();
    let s = trainer.bench_self_play(games, stop, &|event| {
        if let TrainEvent::SelfPlayGame = event {
            bar.inc(1);
        }
    })?;
    bar.finish_and_clear();
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(anyhow::Error::new(Interrupted));
    }
    println!(
        "self-play {spec} on {device:?}: {} games, {} positions, {} evaluations in {:.2} s",
        s.games, s.positions, s.evaluations, s.seconds
    );
    println!(
        "  {:.0} evaluations/s, {:.1} positions/s, {:.1} evaluations per network call \
         (hidden {}, blocks {}, sims {}, workers {})",
        s.evaluations_per_second(),
        s.positions_per_second(),
        s.mean_batch(),
        config.hidden,
        config.blocks,
        config.sims,
        config.workers
    );
    Ok(())
}

/// Trains a new run's network on the exact labels of `config.warm_start`
/// before its first generation, and says what it learnt.
fn warm_start<G: mancala_core::Game>(
    game: &G,
    config: &TrainConfig,
    trainer: &mut Trainer<'_, G>,
) -> Result<()> {
    let mut exclude = std::collections::HashSet::new();
    for path in &config.warm_start_exclude {
        mancala_analysis::labels::read_position_list(path, &mut exclude)
            .map_err(|e| bad_input(format!("key `warm_start_exclude`: {e}")))?;
    }
    let mut samples = Vec::new();
    let mut left_out = 0;
    let read = mancala_analysis::labels::solved_positions(game, &config.warm_start, &mut |p| {
        if !exclude.is_empty() && exclude.contains(&game.setup(&p.state).to_string()) {
            left_out += 1;
            return;
        }
        let target = ExactTarget {
            margin: p.margin,
            best: Some(p.best),
        };
        samples.extend(target.sample(game, &p.state, config.value_target));
    })
    .map_err(|e| bad_input(format!("key `warm_start`: {e}")))?;
    let log = trainer.warm_start(samples).map_err(bad_input)?;
    eprintln!(
        "warm start: {} positions with every move settled (of {read} labelled, {left_out} left out), \
         {} steps in {:.0} s; loss policy {:.3} -> {:.3}, value {:.3} -> {:.3}",
        log.positions,
        log.steps,
        log.seconds,
        log.policy_loss.0,
        log.policy_loss.1,
        log.value_loss.0,
        log.value_loss.1
    );
    Ok(())
}

/// The config of `args`, checked (its rules and baselines parse), with
/// `--generations` applied, and its rules.
fn checked_config(args: &TrainArgs) -> Result<(TrainConfig, GameSpec)> {
    let mut config = TrainConfig::load(&args.config).map_err(bad_input)?;
    if let Some(g) = args.generations {
        config.generations = g;
    }
    let path = args.config.display().to_string();
    let spec: GameSpec = config
        .game
        .parse()
        .map_err(|e| bad_input(format!("{path}: key `game`: {e}")))?;
    for (i, b) in config.baselines.iter().enumerate() {
        b.parse::<mancala_agents::AgentSpec>()
            .map_err(|e| bad_input(format!("{path}: key `baselines[{i}]`: {e}")))?;
    }
    Ok((config, spec))
}

/// The device `--device` asks for; CUDA asked for and missing is refused.
fn chosen_device(choice: DeviceChoice) -> Result<Device> {
    Ok(match choice {
        DeviceChoice::Cpu => Device::Cpu,
        DeviceChoice::Auto => Device::cuda_if_available(),
        DeviceChoice::Cuda if cuda_available() => Device::Cuda(0),
        DeviceChoice::Cuda => return Err(bad_input("--device cuda: no CUDA device is available")),
    })
}

/// The self-play progress bar on stderr (hidden with `--quiet`).
fn progress_bar(quiet: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if quiet {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("gen {msg} {bar:30.cyan/blue} {pos}/{len} self-play games  {per_sec}  elapsed {elapsed}")
            .expect("valid template"),
    );
    bar
}

/// `mancala train`.
pub fn run(args: &TrainArgs) -> Result<()> {
    let (config, spec) = checked_config(args)?;
    let device = chosen_device(args.device)?;
    let dir = args.output.clone().unwrap_or_else(|| config.output_dir());
    let generations = config.generations;
    let bar = progress_bar(args.quiet);
    let stop = crate::stop_flag();
    with_game!(&spec, game => {
        if let Some(games) = args.bench {
            return bench(game, &spec.to_string(), &config, &dir, device, args, games, &bar);
        }
        let mut trainer = Trainer::new(game, &spec.to_string(), config.clone(), &dir, device, args.resume)
            .map_err(|e| match e {
                NeuralError::Checkpoint { .. } => bad_input(e),
                other => other.into(),
            })?;
        if trainer.generation() == 0 && !config.warm_start.is_empty() {
            warm_start(game, &config, &mut trainer)?;
        }
        if !args.quiet {
            eprintln!(
                "training {} on {spec} ({device:?}), generations {}..={generations} -> {}",
                config.name,
                trainer.generation() + 1,
                dir.display()
            );
        }
        trainer.run(stop, &|event| match event {
            TrainEvent::Generation { generation, games } => {
                bar.reset();
                bar.set_length(u64::from(games));
                bar.set_message(format!("{generation}/{generations}"));
            }
            TrainEvent::SelfPlayGame => bar.inc(1),
            // Shown even without a terminal: one line per generation.
            TrainEvent::Done(row) => bar.suspend(|| eprintln!(
                "generation {:>3}  {:>7.0} s  positions {:>6}  loss policy {:.3} value {:.3}  gate {:.2}{}{}  {}",
                row.generation,
                row.elapsed_s,
                row.positions,
                row.policy_loss,
                row.value_loss,
                row.gate_score,
                if row.promoted { " (new best)" } else { "" },
                match (row.exact_top1, row.exact_loss) {
                    (Some(top1), Some(loss)) => format!("  perfect-play agreement {:.1}% (loss {loss:.2})", 100.0 * top1),
                    _ => String::new(),
                },
                row.baselines
            )),
        })?;
        bar.finish_and_clear();
        // Before the stop check: a run stopped with Ctrl-C gets its page too.
        if !args.no_report {
            match crate::report::write_default_report(&dir) {
                Ok(path) => eprintln!("report: {}", path.display()),
                Err(e) => eprintln!("warning: no report written: {e:#}"),
            }
        }
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            eprintln!("stopped; the last finished generation is checkpointed: continue with --resume");
            return Err(anyhow::Error::new(Interrupted));
        }
        println!("best network: {}", dir.join("best.ot").display());
        Ok(())
    })
}
