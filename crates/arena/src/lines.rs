//! Reading the lines of a results file (`games.jsonl`, `annotations.jsonl`)
//! with a bound on what is held: a line is read into a buffer only up to
//! a cap, and a longer one is skipped through without being kept. A file
//! that is one line of a gigabyte (damaged, or made to hurt) then costs
//! the cap, not the gigabyte.

use std::io::{self, BufRead};

/// The longest line of a results file held whole: far above any game's
/// record (a 2,000-ply game with its times and searches is under 1 MiB).
pub const MAX_RECORD_BYTES: usize = 8 << 20;

/// What [`read_capped_line`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CappedLine {
    /// The end of the input: no more lines.
    End,
    /// A line, now in the buffer. `bytes` is how many were read
    /// (line break included, so offsets add up); `whole` says whether the
    /// line ended with its line break (the last line of a file being
    /// written may not).
    Line {
        /// Bytes read, line break included.
        bytes: u64,
        /// Whether it ended with a line break.
        whole: bool,
    },
    /// A line longer than the cap: skipped to its end, and the buffer
    /// holds only its first `cap` bytes.
    TooLong {
        /// Bytes read, line break included.
        bytes: u64,
        /// Whether it ended with a line break.
        whole: bool,
    },
}

/// The reader's next buffered bytes (empty at the end of the input), a
/// read interrupted by a signal retried.
fn next_chunk(input: &mut impl BufRead) -> io::Result<&[u8]> {
    loop {
        match input.fill_buf() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
            Ok(_) => break,
        }
    }
    // The bytes are buffered now: this returns them without reading. (The
    // slice cannot be returned from inside the loop: the borrow checker
    // would hold `input` borrowed across the retries.)
    input.fill_buf()
}

/// Reads the next line of `input` into `line` (cleared first), holding at
/// most `cap` bytes of it; the line break is kept in the buffer when
/// there is one.
///
/// # Errors
/// Only when reading fails.
pub fn read_capped_line(
    input: &mut impl BufRead,
    line: &mut Vec<u8>,
    cap: usize,
) -> io::Result<CappedLine> {
    read_line_capped(input, line, cap, true)
}

/// [`read_capped_line`] for a reader that stops at the first line too
/// long: that line is not read past the cap (it could be the rest of a
/// huge file), and the input is left there. `TooLong`'s `bytes` are those
/// read, its `whole` false.
///
/// # Errors
/// Only when reading fails.
pub fn read_line_or_stop(
    input: &mut impl BufRead,
    line: &mut Vec<u8>,
    cap: usize,
) -> io::Result<CappedLine> {
    read_line_capped(input, line, cap, false)
}

/// [`read_capped_line`], and with `skip_long` false [`read_line_or_stop`].
fn read_line_capped(
    input: &mut impl BufRead,
    line: &mut Vec<u8>,
    cap: usize,
    skip_long: bool,
) -> io::Result<CappedLine> {
    line.clear();
    let mut bytes = 0u64;
    let mut too_long = false;
    loop {
        let chunk = next_chunk(input)?;
        if chunk.is_empty() {
            return Ok(match (bytes, too_long) {
                (0, _) => CappedLine::End,
                (_, true) => CappedLine::TooLong {
                    bytes,
                    whole: false,
                },
                (_, false) => CappedLine::Line {
                    bytes,
                    whole: false,
                },
            });
        }
        let (take, ends) = match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (chunk.len(), false),
        };
        let room = cap.saturating_sub(line.len());
        if take > room + usize::from(ends) {
            too_long = true;
            if !skip_long {
                line.extend_from_slice(&chunk[..room]);
                input.consume(room);
                return Ok(CappedLine::TooLong {
                    bytes: bytes + room as u64,
                    whole: false,
                });
            }
        }
        if !too_long {
            line.extend_from_slice(&chunk[..take]);
        } else if line.len() < cap {
            line.extend_from_slice(&chunk[..room.min(take)]);
        }
        input.consume(take);
        bytes += take as u64;
        if ends {
            return Ok(if too_long {
                CappedLine::TooLong { bytes, whole: true }
            } else {
                CappedLine::Line { bytes, whole: true }
            });
        }
    }
}

/// Counts the lines of `input` that hold anything but white space (the
/// records of a JSON-lines file), holding no line: a byte at a time
/// through the reader's buffer.
///
/// # Errors
/// Only when reading fails.
pub fn count_records(input: &mut impl BufRead) -> io::Result<u64> {
    let mut count = 0u64;
    let mut seen_content = false;
    loop {
        let chunk = next_chunk(input)?;
        if chunk.is_empty() {
            return Ok(count + u64::from(seen_content));
        }
        for &b in chunk {
            if b == b'\n' {
                count += u64::from(seen_content);
                seen_content = false;
            } else if !b.is_ascii_whitespace() {
                seen_content = true;
            }
        }
        let n = chunk.len();
        input.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Cursor, Read};

    fn lines(text: &[u8], cap: usize) -> Vec<(CappedLine, Vec<u8>)> {
        // A small buffer, so that lines cross the reader's chunks.
        let mut input = BufReader::with_capacity(4, Cursor::new(text.to_vec()));
        let mut out = Vec::new();
        let mut line = Vec::new();
        loop {
            let got = read_capped_line(&mut input, &mut line, cap).unwrap();
            if got == CappedLine::End {
                return out;
            }
            out.push((got, line.clone()));
        }
    }

    #[test]
    fn lines_are_read_whole_with_their_byte_counts() {
        let got = lines(b"{\"id\":1}\n\n{\"id\":22}\n{\"id\"", 64);
        assert_eq!(
            got,
            vec![
                (
                    CappedLine::Line {
                        bytes: 9,
                        whole: true
                    },
                    b"{\"id\":1}\n".to_vec()
                ),
                (
                    CappedLine::Line {
                        bytes: 1,
                        whole: true
                    },
                    b"\n".to_vec()
                ),
                (
                    CappedLine::Line {
                        bytes: 10,
                        whole: true
                    },
                    b"{\"id\":22}\n".to_vec()
                ),
                (
                    CappedLine::Line {
                        bytes: 5,
                        whole: false
                    },
                    b"{\"id\"".to_vec()
                ),
            ]
        );
    }

    #[test]
    fn a_line_at_the_cap_is_whole_and_a_longer_one_is_skipped_past() {
        let got = lines(b"12345\n123456\nok\n1234567", 5);
        assert_eq!(
            got[0],
            (
                CappedLine::Line {
                    bytes: 6,
                    whole: true
                },
                b"12345\n".to_vec()
            )
        );
        assert_eq!(
            got[1],
            (
                CappedLine::TooLong {
                    bytes: 7,
                    whole: true
                },
                b"12345".to_vec()
            )
        );
        assert_eq!(
            got[2],
            (
                CappedLine::Line {
                    bytes: 3,
                    whole: true
                },
                b"ok\n".to_vec()
            )
        );
        assert_eq!(
            got[3],
            (
                CappedLine::TooLong {
                    bytes: 7,
                    whole: false
                },
                b"12345".to_vec()
            )
        );
    }

    /// An endless line: only the cap is ever held.
    struct Endless(u64);

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0 == 0 {
                return Ok(0);
            }
            let n = buf.len().min(self.0 as usize);
            buf[..n].fill(b'x');
            self.0 -= n as u64;
            Ok(n)
        }
    }

    #[test]
    fn a_huge_line_costs_the_cap() {
        let mut input = BufReader::new(Endless(1 << 30));
        let mut line = Vec::new();
        let got = read_capped_line(&mut input, &mut line, 1024).unwrap();
        assert_eq!(
            got,
            CappedLine::TooLong {
                bytes: 1 << 30,
                whole: false
            }
        );
        assert!(line.capacity() < 1 << 20, "held {}", line.capacity());
    }

    #[test]
    fn records_are_the_lines_with_content() {
        for (text, n) in [
            (&b""[..], 0),
            (b"\n\n  \n", 0),
            (b"{}\n", 1),
            (b"{}", 1),
            (b"{}\n \n{}\n{", 3),
        ] {
            let mut input = BufReader::with_capacity(3, Cursor::new(text.to_vec()));
            assert_eq!(count_records(&mut input).unwrap(), n, "{text:?}");
        }
        let mut input = BufReader::new(Endless(1 << 30));
        assert_eq!(count_records(&mut input).unwrap(), 1);
    }
}
