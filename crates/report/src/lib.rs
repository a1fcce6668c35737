//! Reports of results folders: one page that shows what a folder holds,
//! as `mancala report DIR` writes it, and the SVG charts ([`svg`]) that the
//! reports and first-move analyses draw.
//!
//! The folder is read, never written to except for the report itself: a
//! tournament (`summary.json`, `tournament.json`, `games.csv`; a merged
//! sharded tournament is one too), a training run (`log.csv`, or any CSV
//! with the training log's header, and `checkpoint/state.json`), or a
//! first-move analysis (`first_move.json`, and `fair*.json` saved from
//! `mancala analyze fair --json`). Each reader builds a [`Document`]: facts,
//! then sections of paragraphs, tables and SVG figures. The HTML writer
//! makes one self-contained page of it (inline CSS and SVG, no script, no
//! external request); the markdown writer makes the same tables as
//! markdown with the charts as SVG files beside it.
//!
//! Output is deterministic: the same folder gives the same bytes (nothing
//! is taken from the clock or from absolute paths), so reports can be kept
//! under version control and compared.
//!
//! ```no_run
//! use std::path::Path;
//! use mancala_report::{write_report, ReportFormat};
//!
//! let dir = Path::new("results/first-move");
//! let written = write_report(dir, &dir.join("report.md"), ReportFormat::Md).unwrap();
//! assert!(written[0].ends_with("report.md"));
//! ```

use std::fs;
use std::path::{Path, PathBuf};

use thiserror::Error;

pub use first_move::first_move_charts;

mod analysis;
mod first_move;
mod games;
mod html;
mod md;
mod read;
pub mod svg;
mod tournament;
mod training;

/// Why a report could not be made.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The folder is missing, holds nothing that can be reported, or holds
    /// damaged files: the message says which.
    #[error("{0}")]
    BadFolder(String),
    /// A file of the report cannot be written.
    #[error("cannot {action} {}", path.display())]
    Write {
        /// What was being done ("write", "create").
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
}

/// The results of this crate.
pub type Result<T> = std::result::Result<T, ReportError>;

/// A [`ReportError::BadFolder`] saying `e`.
pub(crate) fn bad_input(e: impl std::fmt::Display) -> ReportError {
    ReportError::BadFolder(e.to_string())
}

/// The output format of a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    /// One HTML file with inline CSS and SVG.
    Html,
    /// Markdown, with one SVG file per chart beside it.
    Md,
}

/// A report, before it is written in any format.
#[derive(Clone, Debug, Default)]
pub struct Document {
    /// The page's title.
    pub title: String,
    /// One sentence under the title: what the folder holds.
    pub lead: String,
    /// Key facts, as label and value (game, agents, games, seed...).
    pub facts: Vec<(String, String)>,
    /// The sections, in reading order.
    pub sections: Vec<Section>,
}

/// One section of a report, with a heading.
#[derive(Clone, Debug)]
pub struct Section {
    /// A page-unique id (letters, digits and `-`), for links and file names.
    pub id: String,
    /// The heading.
    pub title: String,
    /// The content.
    pub blocks: Vec<Block>,
}

/// A piece of a section.
#[derive(Clone, Debug)]
pub enum Block {
    /// A paragraph of plain text.
    Paragraph(String),
    /// A chart: an SVG made by [`svg`], with a caption. `id` is
    /// page-unique (letters, digits and `-`): it names the chart's file
    /// in the markdown format and its ids in the page.
    Figure {
        /// A page-unique id.
        id: String,
        /// The standalone SVG.
        svg: String,
        /// What it shows, in a sentence.
        caption: String,
    },
    /// A table.
    Table(Table),
    /// Preformatted text (a config, a command), with a caption.
    Code {
        /// What it is.
        caption: String,
        /// The text.
        text: String,
    },
    /// Blocks shown folded in the page (long tables), under a summary line.
    Details {
        /// The line shown while folded.
        summary: String,
        /// The content.
        blocks: Vec<Block>,
    },
}

/// A table of text cells.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// A caption (may be empty).
    pub caption: String,
    /// Column headings.
    pub header: Vec<String>,
    /// Which columns hold numbers (right-aligned).
    pub numeric: Vec<bool>,
    /// The rows; each as long as `header`.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with `header`, the columns marked numeric by `numeric`.
    pub fn new(caption: &str, header: &[&str], numeric: &[bool]) -> Table {
        Table {
            caption: caption.to_string(),
            header: header.iter().map(|h| h.to_string()).collect(),
            numeric: numeric.to_vec(),
            rows: Vec::new(),
        }
    }

    /// Adds a row.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }
}

/// What a folder holds that a report can show.
enum Found {
    // Boxed: a summary is large beside the others, and there are at most three.
    Tournament(Box<tournament::TournamentFolder>),
    Training(training::TrainingFolder),
    Analysis(analysis::AnalysisFolder),
}

/// Reads `dir` and builds its report.
///
/// # Errors
/// Bad input (exit 2) for a folder that is missing, holds nothing
/// recognisable, or holds damaged files; the message says which.
pub fn build(dir: &Path) -> Result<Document> {
    if !dir.is_dir() {
        return Err(bad_input(format!(
            "{} is not a folder: give a results folder (a tournament's, a training run's or a \
             first-move analysis's)",
            dir.display()
        )));
    }
    let mut found = Vec::new();
    if let Some(t) = tournament::detect(dir)? {
        found.push(Found::Tournament(Box::new(t)));
    }
    if let Some(t) = training::detect(dir)? {
        found.push(Found::Training(t));
    }
    if let Some(a) = analysis::detect(dir)? {
        found.push(Found::Analysis(a));
    }
    let folder = folder_name(dir);
    let mut docs: Vec<Document> = found
        .into_iter()
        .map(|f| match f {
            Found::Tournament(t) => tournament::document(&t, &folder),
            Found::Training(t) => training::document(&t, &folder),
            Found::Analysis(a) => analysis::document(&a, &folder),
        })
        .collect();
    match docs.len() {
        0 => Err(bad_input(format!(
            "{} holds nothing to report: expected a tournament (summary.json), a training run \
             (log.csv) or a first-move analysis (first_move.json)",
            dir.display()
        ))),
        1 => Ok(docs.remove(0)),
        _ => Ok(combine(docs, &folder)),
    }
}

/// One page for a folder that holds several kinds of results.
fn combine(docs: Vec<Document>, folder: &str) -> Document {
    let mut page = Document {
        title: format!("Results in {folder}"),
        lead: docs
            .iter()
            .map(|d| d.lead.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        ..Document::default()
    };
    for d in docs {
        page.facts.extend(d.facts);
        page.sections.extend(d.sections);
    }
    page
}

/// The folder's own name, for titles: never its absolute path, so that a
/// report reads the same wherever the folder is.
fn folder_name(dir: &Path) -> String {
    let named = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| !n.is_empty())
    };
    named(dir)
        .or_else(|| dir.canonicalize().ok().and_then(|p| named(&p)))
        .unwrap_or_else(|| "results".to_string())
}

/// The report of `dir` as one self-contained HTML page (inline CSS and
/// SVG), without writing it: what `mancala serve` shows of a folder.
///
/// # Errors
/// As [`build`].
pub fn html_page(dir: &Path) -> Result<String> {
    Ok(html::page(&build(dir)?, &folder_name(dir)))
}

/// A colour theme a report can be shown in, whatever the reader's system
/// prefers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    /// The light palette.
    Light,
    /// The dark palette.
    Dark,
}

/// The media query that picks the dark palette of a report (its page
/// style and every chart's).
const DARK_QUERY: &str = "@media (prefers-color-scheme: dark)";

/// `page` (a report from [`html_page`]) always in `theme`: its dark palette
/// applied always, or never, instead of when the system prefers it. A
/// framed report cannot be told the theme its page chose otherwise (a
/// frame's own preference is the system's).
pub fn with_theme(page: &str, theme: Theme) -> String {
    page.replace(
        DARK_QUERY,
        match theme {
            Theme::Dark => "@media all",
            Theme::Light => "@media not all",
        },
    )
}

/// Writes the report of `dir` in `format` to `out`; returns the files written.
///
/// # Errors
/// Bad input for a folder that cannot be reported; an I/O error when a
/// file cannot be written.
pub fn write_report(dir: &Path, out: &Path, format: ReportFormat) -> Result<Vec<PathBuf>> {
    let doc = build(dir)?;
    let mut written = Vec::new();
    let body = match format {
        ReportFormat::Html => html::page(&doc, &folder_name(dir)),
        ReportFormat::Md => {
            let stem = out
                .file_stem()
                .map_or("report".to_string(), |s| s.to_string_lossy().into_owned());
            let (text, charts) = md::page(&doc, &stem);
            let folder = out.parent().unwrap_or(Path::new(""));
            for (name, svg) in charts {
                let path = folder.join(name);
                write_file(&path, &svg)?;
                written.push(path);
            }
            text
        }
    };
    write_file(out, &body)?;
    written.insert(0, out.to_path_buf());
    Ok(written)
}

/// Writes a file whole, through a temporary file and a rename, so that a
/// reader (a browser reloading the page) never sees half of it.
fn write_file(path: &Path, body: &str) -> Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(|source| ReportError::Write {
            action: "create",
            path: parent.to_path_buf(),
            source,
        })?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    fs::write(&tmp, body).map_err(|source| ReportError::Write {
        action: "write",
        path: tmp.clone(),
        source,
    })?;
    fs::rename(&tmp, path).map_err(|source| ReportError::Write {
        action: "write",
        path: path.to_path_buf(),
        source,
    })
}

/// Writes `DIR/report.html` for a finished run: what `mancala tournament`
/// and `mancala train` call at their end. Returns the report's path.
///
/// # Errors
/// As [`write_report`].
pub fn write_default_report(dir: &Path) -> Result<PathBuf> {
    let out = dir.join("report.html");
    write_report(dir, &out, ReportFormat::Html)?;
    Ok(out)
}

#[cfg(test)]
mod theme_tests {
    use super::*;

    #[test]
    fn a_theme_replaces_every_dark_query_of_the_page_and_its_charts() {
        // The page's own style and a chart's, as the report writes them.
        let page = format!(
            "<style>{}</style><svg>{}</svg>",
            html::PAGE_STYLE,
            svg::STYLE
        );
        assert_eq!(
            page.matches(DARK_QUERY).count(),
            2,
            "the styles no longer say {DARK_QUERY}"
        );
        let dark = with_theme(&page, Theme::Dark);
        let light = with_theme(&page, Theme::Light);
        assert!(!dark.contains("prefers-color-scheme") && !light.contains("prefers-color-scheme"));
        assert_eq!(
            dark.matches("@media all").count(),
            page.matches(DARK_QUERY).count()
        );
        assert_eq!(
            light.matches("@media not all").count(),
            page.matches(DARK_QUERY).count()
        );
    }
}
