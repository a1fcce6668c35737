//! A [`Document`] as one self-contained HTML page: inline CSS (light and
//! dark), inline SVG charts, no script and no external request, so that it
//! opens from a file, prints, and can be attached to an issue as it is.

use std::fmt::Write;

use super::{Block, Document, Table};
use crate::svg::{self, escape};

/// The page's own style. Class names differ from the charts' (`title`,
/// `muted`, `grid`...), whose rules [`svg::style_rules`] adds once for all
/// charts. Colours are GitHub's light and dark palettes, the same as the
/// charts', so that charts sit on the page without a visible box.
pub(crate) const PAGE_STYLE: &str = "\
:root { color-scheme: light dark; }
body { margin: 0; background: #ffffff; color: #1f2328; font: 15px/1.5 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; }
.page { max-width: 1200px; margin: 0 auto; padding: 24px 20px 48px; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 0.3rem; }
h2 { font-size: 1.25rem; margin: 2.2rem 0 0.6rem; padding-bottom: 0.3rem; border-bottom: 1px solid #d0d7de; }
h3 { font-size: 1.05rem; margin: 1.4rem 0 0.4rem; }
p { margin: 0.5rem 0; max-width: 72ch; }
a { color: #0969da; }
.lead { color: #59636e; margin-bottom: 1rem; }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.2rem 1.2rem; margin: 0 0 1rem; }
dl.facts dt { color: #59636e; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
nav.toc ol { display: flex; flex-wrap: wrap; gap: 0.2rem 1.2rem; margin: 0.5rem 0 0; padding: 0; list-style: none; font-size: 0.92rem; }
figure { margin: 1rem 0 1.4rem; }
.figures { display: flex; flex-wrap: wrap; gap: 0 2.5rem; align-items: flex-start; }
.figures > figure { flex: 0 1 auto; min-width: 0; }
.figures > figure > figcaption { width: 0; min-width: 100%; }
.chart { overflow-x: auto; }
.chart svg { display: block; max-width: 100%; height: auto; }
figcaption { color: #59636e; font-size: 0.9rem; margin-top: 0.3rem; max-width: 80ch; }
.table-wrap { overflow-x: auto; margin: 0.6rem 0 1rem; }
table { border-collapse: collapse; font-size: 0.9rem; font-variant-numeric: tabular-nums; }
caption { caption-side: top; text-align: left; font-weight: 600; padding: 0.2rem 0 0.4rem; }
th, td { padding: 0.3rem 0.5rem; border-bottom: 1px solid #d0d7de; text-align: left; vertical-align: top; white-space: nowrap; }
thead th { border-bottom: 2px solid #d0d7de; }
th.num, td.num { text-align: right; }
tbody tr:nth-child(even) { background: #f6f8fa; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: 0.7rem 0.9rem; overflow-x: auto; font-size: 0.85rem; line-height: 1.45; }
code { font-family: ui-monospace, SFMono-Regular, 'SF Mono', Menlo, Consolas, monospace; }
details { margin: 0.6rem 0; }
summary { cursor: pointer; color: #0969da; }
footer { margin-top: 3rem; padding-top: 0.8rem; border-top: 1px solid #d0d7de; color: #59636e; font-size: 0.85rem; }
@media (prefers-color-scheme: dark) {
  body { background: #0d1117; color: #e6edf3; }
  a, summary { color: #4493f8; }
  .lead, dl.facts dt, figcaption, footer { color: #9198a1; }
  h2, th, td, thead th, footer { border-color: #3d444d; }
  tbody tr:nth-child(even) { background: #151b23; }
  pre { background: #151b23; border-color: #3d444d; }
}
@media (max-width: 600px) {
  .page { padding: 16px 12px 32px; }
  h1 { font-size: 1.35rem; }
  dl.facts { grid-template-columns: minmax(0, 1fr); gap: 0; }
  dl.facts dd { margin-bottom: 0.4rem; }
}
@media print {
  nav.toc, summary { display: none; }
  details > * { display: block; }
  body { background: #ffffff; color: #000000; }
}
";

/// The whole page.
pub fn page(doc: &Document, folder: &str) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n\
         <meta name=\"generator\" content=\"mancala report\">\n\
         <title>{}</title>\n<style>\n{PAGE_STYLE}{}</style>\n</head>\n<body>\n<div class=\"page\">\n",
        escape(&doc.title),
        svg::style_rules()
    );
    let _ = writeln!(
        out,
        "<header>\n<h1>{}</h1>\n<p class=\"lead\">{}</p>",
        escape(&doc.title),
        escape(&doc.lead)
    );
    if !doc.facts.is_empty() {
        out.push_str("<dl class=\"facts\">\n");
        for (label, value) in &doc.facts {
            let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", escape(label), escape(value));
        }
        out.push_str("</dl>\n");
    }
    if doc.sections.len() > 1 {
        out.push_str("<nav class=\"toc\" aria-label=\"Contents\"><ol>\n");
        for s in &doc.sections {
            let _ = writeln!(
                out,
                "<li><a href=\"#{}\">{}</a></li>",
                s.id,
                escape(&s.title)
            );
        }
        out.push_str("</ol></nav>\n");
    }
    out.push_str("</header>\n<main>\n");
    for s in &doc.sections {
        let _ = writeln!(
            out,
            "<section id=\"{id}\" aria-labelledby=\"{id}-h\">\n<h2 id=\"{id}-h\">{}</h2>",
            escape(&s.title),
            id = s.id
        );
        blocks(&mut out, &s.blocks);
        out.push_str("</section>\n");
    }
    let _ = writeln!(
        out,
        "</main>\n<footer>Made by <code>mancala report</code> from the folder {}. \
         Self-contained: charts are inline SVG, nothing is loaded from elsewhere.</footer>\n\
         </div>\n</body>\n</html>",
        escape(folder)
    );
    out
}

/// Writes `blocks`; consecutive figures share a row that wraps, so that
/// small charts (one heat map per rule set) sit side by side.
fn blocks(out: &mut String, list: &[Block]) {
    let mut i = 0;
    while i < list.len() {
        let run = list[i..]
            .iter()
            .take_while(|b| matches!(b, Block::Figure { .. }))
            .count();
        if run > 1 {
            out.push_str("<div class=\"figures\">\n");
            for b in &list[i..i + run] {
                block(out, b);
            }
            out.push_str("</div>\n");
            i += run;
        } else {
            block(out, &list[i]);
            i += 1;
        }
    }
}

fn block(out: &mut String, b: &Block) {
    match b {
        Block::Paragraph(text) => {
            let _ = writeln!(out, "<p>{}</p>", escape(text));
        }
        Block::Figure { id, svg, caption } => {
            let _ = write!(
                out,
                "<figure id=\"fig-{id}\">\n<div class=\"chart\">\n{}</div>\n<figcaption>{}</figcaption>\n</figure>\n",
                svg::inline(svg, &format!("fig-{id}")),
                escape(caption)
            );
        }
        Block::Table(t) => table(out, t),
        Block::Code { caption, text } => {
            let _ = writeln!(
                out,
                "<figure class=\"code\">\n<figcaption>{}</figcaption>\n<pre><code>{}</code></pre>\n</figure>",
                escape(caption),
                escape(text.trim_end())
            );
        }
        Block::Details {
            summary,
            blocks: inner,
        } => {
            let _ = writeln!(out, "<details>\n<summary>{}</summary>", escape(summary));
            blocks(out, inner);
            out.push_str("</details>\n");
        }
    }
}

fn table(out: &mut String, t: &Table) {
    let numeric = |j: usize| t.numeric.get(j).copied().unwrap_or(false);
    out.push_str("<div class=\"table-wrap\">\n<table>\n");
    if !t.caption.is_empty() {
        let _ = writeln!(out, "<caption>{}</caption>", escape(&t.caption));
    }
    out.push_str("<thead><tr>");
    for (j, h) in t.header.iter().enumerate() {
        let class = if numeric(j) { " class=\"num\"" } else { "" };
        let _ = write!(out, "<th scope=\"col\"{class}>{}</th>", escape(h));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in &t.rows {
        out.push_str("<tr>");
        for (j, cell) in row.iter().enumerate() {
            let class = if numeric(j) { " class=\"num\"" } else { "" };
            let _ = write!(out, "<td{class}>{}</td>", escape(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</div>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Section;

    #[test]
    fn a_page_escapes_text_and_links_its_sections() {
        let mut t = Table::new("c", &["name", "score"], &[false, true]);
        t.row(vec!["<b>".into(), "1".into()]);
        let doc = Document {
            title: "T & U".into(),
            lead: "lead".into(),
            facts: vec![("seed".into(), "1".into())],
            sections: vec![
                Section {
                    id: "a".into(),
                    title: "A".into(),
                    blocks: vec![Block::Table(t)],
                },
                Section {
                    id: "b".into(),
                    title: "B".into(),
                    blocks: vec![Block::Paragraph("x".into())],
                },
            ],
        };
        let html = page(&doc, "dir");
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("<title>T &amp; U</title>"));
        assert!(html.contains("<td>&lt;b&gt;</td><td class=\"num\">1</td>"));
        assert!(html.contains("<a href=\"#b\">B</a>"));
    }
}
