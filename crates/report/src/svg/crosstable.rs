//! A crosstable as a heat map: the row agent's score against the column
//! agent, coloured from red (0%) through white (50%) to blue (100%), with
//! the score and the number of games written in each cell.

use std::fmt::Write;

use super::{diverging, escape, num, open, text, text_width};

/// Scores of every agent against every other.
#[derive(Clone, Debug)]
pub struct Crosstable {
    /// Chart title (also the SVG `<title>`).
    pub title: String,
    /// A sentence or two for screen readers (the SVG `<desc>`).
    pub desc: String,
    /// The agents, in the order of rows and of columns.
    pub agents: Vec<String>,
    /// `cells[row][column]`: the row agent's score (0 to 1) and the games
    /// played; `None` for the diagonal and pairs that did not meet.
    pub cells: Vec<Vec<Option<(f64, u64)>>>,
    /// A note under the chart (the colour key).
    pub note: String,
}

/// `text` cut to `chars` characters, with an ellipsis when cut.
fn shorten(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(chars.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// Draws the crosstable.
pub fn crosstable(table: &Crosstable) -> String {
    let longest = table
        .agents
        .iter()
        .map(|a| text_width(a, 7.0))
        .fold(0.0, f64::max);
    let cell_w = (longest + 14.0).clamp(70.0, 120.0);
    let cell_h = 46.0;
    // Room for the row names and, left of them, the rotated axis label.
    let left = (longest + 44.0).clamp(80.0, 280.0);
    let top = 78.0;
    let n = table.agents.len().max(1);
    let width = (left + cell_w * n as f64 + 24.0)
        .max(text_width(&table.title, 8.5) + 32.0)
        .max(text_width(&table.note, 6.6) + 32.0);
    let height = top + cell_h * n as f64 + 56.0;
    let mut out = String::new();
    open(&mut out, width, height, &table.title, &table.desc);
    text(&mut out, 16.0, 28.0, "start", "title", &table.title);
    text(
        &mut out,
        left + cell_w * n as f64 / 2.0,
        top - 34.0,
        "middle",
        "muted",
        "opponent (column)",
    );
    let fits = ((cell_w - 8.0) / 7.0) as usize;
    for (j, a) in table.agents.iter().enumerate() {
        let x = left + cell_w * (j as f64 + 0.5);
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}<title>{}</title></text>",
            num(x, 1),
            num(top - 10.0, 1),
            escape(&shorten(a, fits)),
            escape(a)
        );
    }
    for (i, row_agent) in table.agents.iter().enumerate() {
        let y = top + cell_h * i as f64;
        text(
            &mut out,
            left - 10.0,
            y + cell_h / 2.0 + 4.0,
            "end",
            "",
            row_agent,
        );
        for (j, col_agent) in table.agents.iter().enumerate() {
            let x = left + cell_w * j as f64;
            let cell = table.cells.get(i).and_then(|r| r.get(j)).copied().flatten();
            let (fill, dark) = match cell {
                Some((score, _)) => {
                    let (f, d) = diverging(score - 0.5, 0.5);
                    (format!("fill=\"{f}\""), d)
                }
                None => ("class=\"empty\"".to_string(), false),
            };
            let tip = match cell {
                Some((score, games)) => format!(
                    "{row_agent} against {col_agent}: {}% over {games} games",
                    num(100.0 * score, 1)
                ),
                None if i == j => format!("{row_agent}: itself"),
                None => format!("{row_agent} and {col_agent} did not meet"),
            };
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" {fill} stroke=\"#8c959f\" stroke-width=\"0.5\"><title>{}</title></rect>",
                num(x, 1),
                num(y, 1),
                num(cell_w, 1),
                num(cell_h, 1),
                escape(&tip)
            );
            let class = match cell {
                Some(_) if dark => "cell-dark",
                Some(_) => "cell-light",
                None => "muted",
            };
            match cell {
                Some((score, games)) => {
                    text(
                        &mut out,
                        x + cell_w / 2.0,
                        y + 20.0,
                        "middle",
                        class,
                        &format!("{}%", num(100.0 * score, 1)),
                    );
                    let _ = writeln!(
                        out,
                        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"{class}\" font-size=\"10.5\">{games} games</text>",
                        num(x + cell_w / 2.0, 1),
                        num(y + 35.0, 1)
                    );
                }
                None => text(
                    &mut out,
                    x + cell_w / 2.0,
                    y + cell_h / 2.0 + 4.0,
                    "middle",
                    class,
                    "—",
                ),
            }
        }
    }
    let mid = num(top + cell_h * n as f64 / 2.0, 1);
    let _ = writeln!(
        out,
        "<text x=\"14\" y=\"{mid}\" text-anchor=\"middle\" class=\"muted\" transform=\"rotate(-90 14 {mid})\">agent (row)</text>"
    );
    text(
        &mut out,
        16.0,
        top + cell_h * n as f64 + 32.0,
        "start",
        "muted",
        &table.note,
    );
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_show_score_and_games_and_long_names_are_cut() {
        let table = Crosstable {
            title: "Crosstable".into(),
            desc: "d".into(),
            agents: vec!["a-very-long-agent-name-indeed-yes".into(), "b".into()],
            cells: vec![vec![None, Some((0.75, 8))], vec![Some((0.25, 8)), None]],
            note: "n".into(),
        };
        let svg = crosstable(&table);
        assert!(svg.contains(">75%<") && svg.contains(">25%<"));
        assert!(svg.contains(">8 games<"));
        assert!(svg.contains("…<title>a-very-long-agent-name-indeed-yes</title>"));
    }
}
