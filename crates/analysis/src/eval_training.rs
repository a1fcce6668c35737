//! A value network for alpha-beta trained on exact labels: the folders of
//! `analyze labels` become training examples ([`mancala_evalnet::Example`])
//! and [`mancala_evalnet::train()`] fits a network to them.
//!
//! Every settled position is an example, and so is every position one
//! settled move leads to (its value is the move's, seen from whoever moves
//! there): the labels hold a value for each move, which more than doubles
//! the examples at no cost. Each position is used once, positions listed
//! to be left out (a yardstick's games) never, and the games whose id is a
//! multiple of `validation_every` are kept for validation, so that no
//! game gives positions to both.

use std::collections::HashSet;
use std::path::PathBuf;

use mancala_core::{Game, GameSpec, Move};
use mancala_evalnet::{EpochReport, Example, Inputs, TrainOptions, ValueNet};

use crate::labels::{labels_rules, read_label_folders, seeds_in_pits, LabelledGame, PHASE_SEEDS};
use crate::{bad_input, AnalysisError, Result};

/// How to train.
#[derive(Clone, Debug)]
pub struct EvalTrainingOptions {
    /// Folders written by `analyze labels` (the same rules in each).
    pub labels: Vec<PathBuf>,
    /// Positions, in the toolkit's notation, never trained on.
    pub exclude: HashSet<String>,
    /// One-hot buckets a pit.
    pub buckets: usize,
    /// Games whose id is a multiple of this are kept for validation (0:
    /// none).
    pub validation_every: u64,
    /// The network and the optimiser.
    pub train: TrainOptions,
}

/// The examples of a set of label folders, and what was left out.
#[derive(Clone, Debug, Default)]
pub struct TrainingData {
    /// Examples trained on.
    pub train: Vec<Example>,
    /// Examples of the validation games.
    pub validation: Vec<Example>,
    /// Games read.
    pub games: u64,
    /// Labelled positions read (each game's, not their children).
    pub positions: u64,
    /// Of those, positions whose value was not settled.
    pub unsettled: u64,
    /// Positions (children included) left out as listed.
    pub excluded: u64,
    /// Positions (children included) seen before and not used again.
    pub repeated: u64,
    /// Examples by phase: entry `k` counts those with `PHASE_SEEDS * k` to
    /// `PHASE_SEEDS * (k + 1) - 1` seeds in the pits.
    pub by_phase: Vec<u64>,
}

/// The game of the label folders of `options` (the first folder's; the
/// others must be of the same).
///
/// # Errors
/// [`AnalysisError::BadInput`] for no folder; the folder's read errors.
pub fn labels_game(options: &EvalTrainingOptions) -> Result<GameSpec> {
    let first = options
        .labels
        .first()
        .ok_or_else(|| bad_input("no labels folder given"))?;
    labels_rules(first)
}

/// Reads the examples of `options.labels` (labels of `rules`) for
/// `inputs`.
///
/// # Errors
/// [`AnalysisError::BadInput`] for folders of other rules or positions that
/// do not fit them; the folders' read errors.
pub fn training_data<G: Game>(
    rules: &G,
    options: &EvalTrainingOptions,
    inputs: &Inputs,
) -> Result<TrainingData> {
    if options.labels.is_empty() {
        return Err(bad_input("no labels folder given"));
    }
    inputs.check(rules).map_err(|e| bad_input(e.to_string()))?;
    let mut data = TrainingData::default();
    let mut seen: HashSet<u64> = HashSet::new();
    read_label_folders(rules, &options.labels, &mut |game: &LabelledGame| {
        add_game(rules, inputs, options, game, &mut seen, &mut data)
    })?;
    Ok(data)
}

/// Adds the examples of one game.
fn add_game<G: Game>(
    rules: &G,
    inputs: &Inputs,
    options: &EvalTrainingOptions,
    game: &LabelledGame,
    seen: &mut HashSet<u64>,
    data: &mut TrainingData,
) -> std::result::Result<(), String> {
    data.games += 1;
    let validation =
        options.validation_every > 0 && game.id.is_multiple_of(options.validation_every);
    for p in &game.positions {
        data.positions += 1;
        let state = rules
            .parse_position(&p.position)
            .map_err(|e| format!("game {}: position `{}`: {e}", game.id, p.position))?;
        let Some(mover) = rules.to_move(&state) else {
            continue;
        };
        match p.value {
            Some(v) => add_example(rules, inputs, options, &state, v, validation, seen, data),
            None => data.unsettled += 1,
        }
        for (text, value) in &p.moves {
            let Some(v) = value else { continue };
            let mv: Move = text
                .parse()
                .map_err(|e| format!("game {}: move `{text}`: {e}", game.id))?;
            let mut child = state.clone();
            rules
                .try_play(&mut child, mv)
                .map_err(|e| format!("game {}: {}: {e}", game.id, p.position))?;
            // The move's value is for this position's mover; the child's
            // example is for whoever moves there.
            match rules.to_move(&child) {
                Some(next) if next == mover => {
                    add_example(rules, inputs, options, &child, *v, validation, seen, data)
                }
                Some(_) => add_example(rules, inputs, options, &child, -v, validation, seen, data),
                None => {}
            }
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn add_example<G: Game>(
    rules: &G,
    inputs: &Inputs,
    options: &EvalTrainingOptions,
    state: &G::State,
    margin: i32,
    validation: bool,
    seen: &mut HashSet<u64>,
    data: &mut TrainingData,
) {
    if !seen.insert(rules.key(state)) {
        data.repeated += 1;
        return;
    }
    if !options.exclude.is_empty() && options.exclude.contains(&rules.setup(state).to_string()) {
        data.excluded += 1;
        return;
    }
    let phase = (seeds_in_pits(rules, state) / PHASE_SEEDS) as usize;
    if data.by_phase.len() <= phase {
        data.by_phase.resize(phase + 1, 0);
    }
    data.by_phase[phase] += 1;
    let example = Example::new(inputs, rules, state, margin as f32);
    if validation {
        data.validation.push(example);
    } else {
        data.train.push(example);
    }
}

/// Trains a network on the labels of `options`, reporting each epoch.
///
/// # Errors
/// As [`training_data`]; [`AnalysisError::BadInput`] for no examples or
/// widths out of bounds.
pub fn train_eval(
    options: &EvalTrainingOptions,
    report: &mut dyn FnMut(EpochReport),
) -> Result<(ValueNet, TrainingData)> {
    let spec = labels_game(options)?;
    mancala_core::with_game!(spec, rules => train_on(&rules, options, report))
}

/// [`train_eval`] on labels of `rules`.
fn train_on<G: Game>(
    rules: &G,
    options: &EvalTrainingOptions,
    report: &mut dyn FnMut(EpochReport),
) -> Result<(ValueNet, TrainingData)> {
    let inputs = Inputs::for_game(rules, options.buckets);
    let data = training_data(rules, options, &inputs)?;
    if data.train.is_empty() {
        return Err(bad_input(format!(
            "no settled position to train on in {} games ({} positions, {} unsettled, {} left \
             out)",
            data.games, data.positions, data.unsettled, data.excluded
        )));
    }
    let net = mancala_evalnet::train(
        inputs,
        &data.train,
        &data.validation,
        rules.total_seeds() as f32,
        &options.train,
        report,
    )
    .map_err(|e: mancala_evalnet::EvalNetError| AnalysisError::BadInput(e.to_string()))?;
    Ok((net, data))
}
