//! `mancala report DIR`: one page that shows what a results folder holds
//! (the work is in `mancala-report`).

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::{Args, ValueEnum};
use mancala_report::{ReportError, ReportFormat};

use crate::bad_input;

/// Arguments of `mancala report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A results folder: a tournament's (also a merged one), a training
    /// run's, or a first-move analysis's.
    dir: PathBuf,
    /// Where to write the report (default: DIR/report.html, or
    /// DIR/report.md with --format md).
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// `html`: one self-contained page; `md`: markdown tables, with the
    /// charts as SVG files beside it (named after it: report-*.svg).
    #[arg(long, value_enum, default_value = "html")]
    format: FormatArg,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

/// `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    /// One HTML file with inline CSS and SVG.
    Html,
    /// Markdown, with one SVG file per chart beside it.
    Md,
}

impl From<FormatArg> for ReportFormat {
    fn from(f: FormatArg) -> ReportFormat {
        match f {
            FormatArg::Html => ReportFormat::Html,
            FormatArg::Md => ReportFormat::Md,
        }
    }
}

/// A report's error as the binary reports it: a folder that cannot be
/// reported is the user's input (exit code 2).
fn cli_error(e: ReportError) -> anyhow::Error {
    match e {
        ReportError::BadFolder(_) => bad_input(e),
        other => other.into(),
    }
}

/// Writes `DIR/report.html` for a finished run: what `mancala tournament`
/// and `mancala train` call at their end. Returns the report's path.
pub fn write_default_report(dir: &Path) -> Result<PathBuf> {
    mancala_report::write_default_report(dir).map_err(cli_error)
}

/// `mancala report`.
pub fn run(args: &ReportArgs) -> Result<()> {
    let format = ReportFormat::from(args.format);
    let out = match (&args.out, format) {
        (Some(out), _) => out.clone(),
        (None, ReportFormat::Html) => args.dir.join("report.html"),
        (None, ReportFormat::Md) => args.dir.join("report.md"),
    };
    let written = mancala_report::write_report(&args.dir, &out, format).map_err(cli_error)?;
    if !args.quiet {
        let size = fs::metadata(&out).map_or(0, |m| m.len());
        println!("report: {} ({} KiB)", out.display(), size.div_ceil(1024));
        if written.len() > 1 {
            println!("charts: {} SVG files beside it", written.len() - 1);
        }
    }
    Ok(())
}
