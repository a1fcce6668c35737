//! A [`Document`] as markdown (GitHub-flavoured tables), for READMEs and
//! issues: the same facts and tables as the page, each chart an SVG file
//! beside it (`<stem>-<chart>.svg`), linked as an image.

use std::fmt::Write;

use super::{Block, Document, Table};

/// The markdown text, and the charts to write beside it as (file name, SVG).
pub fn page(doc: &Document, stem: &str) -> (String, Vec<(String, String)>) {
    let mut out = String::new();
    let mut charts = Vec::new();
    let _ = writeln!(out, "# {}\n\n{}\n", inline(&doc.title), inline(&doc.lead));
    for (label, value) in &doc.facts {
        let _ = writeln!(out, "- **{}**: {}", inline(label), inline(value));
    }
    if !doc.facts.is_empty() {
        out.push('\n');
    }
    for s in &doc.sections {
        let _ = writeln!(out, "## {}\n", inline(&s.title));
        for b in &s.blocks {
            block(&mut out, &mut charts, b, stem);
        }
    }
    (out, charts)
}

fn block(out: &mut String, charts: &mut Vec<(String, String)>, b: &Block, stem: &str) {
    match b {
        Block::Paragraph(text) => {
            let _ = writeln!(out, "{}\n", inline(text));
        }
        Block::Figure { id, svg, caption } => {
            let name = format!("{stem}-{id}.svg");
            let _ = writeln!(
                out,
                "![{}]({name})\n\n*{}*\n",
                inline(caption),
                inline(caption)
            );
            charts.push((name, svg.clone()));
        }
        Block::Table(t) => table(out, t),
        Block::Code { caption, text } => {
            let _ = writeln!(
                out,
                "{}:\n\n```\n{}\n```\n",
                inline(caption),
                text.trim_end()
            );
        }
        Block::Details { summary, blocks } => {
            let _ = writeln!(out, "**{}**\n", inline(summary));
            for b in blocks {
                block(out, charts, b, stem);
            }
        }
    }
}

fn table(out: &mut String, t: &Table) {
    if !t.caption.is_empty() {
        let _ = writeln!(out, "**{}**\n", inline(&t.caption));
    }
    let cells = |row: &[String]| row.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ");
    let _ = writeln!(out, "| {} |", cells(&t.header));
    let rule: Vec<&str> = (0..t.header.len())
        .map(|j| {
            if t.numeric.get(j).copied().unwrap_or(false) {
                "---:"
            } else {
                "---"
            }
        })
        .collect();
    let _ = writeln!(out, "| {} |", rule.join(" | "));
    for row in &t.rows {
        let _ = writeln!(out, "| {} |", cells(row));
    }
    out.push('\n');
}

/// Text in running markdown: characters that would start markup are
/// escaped, so an agent named `*x*` or `a|b` prints as itself.
fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '|' | '#'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A table cell: as inline text, on one line.
fn cell(text: &str) -> String {
    inline(&text.replace('\n', " "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Section;

    #[test]
    fn tables_align_numbers_and_charts_become_files() {
        let mut t = Table::new("", &["agent", "elo"], &[false, true]);
        t.row(vec!["a|b".into(), "+1.0".into()]);
        let doc = Document {
            title: "T".into(),
            lead: "L".into(),
            facts: vec![],
            sections: vec![Section {
                id: "s".into(),
                title: "S".into(),
                blocks: vec![
                    Block::Table(t),
                    Block::Figure {
                        id: "ladder".into(),
                        svg: "<svg/>".into(),
                        caption: "c".into(),
                    },
                ],
            }],
        };
        let (text, charts) = page(&doc, "report");
        assert!(text.contains("| agent | elo |\n| --- | ---: |\n| a\\|b | +1.0 |"));
        assert!(text.contains("![c](report-ladder.svg)"));
        assert_eq!(charts, vec![("report-ladder.svg".into(), "<svg/>".into())]);
    }
}
