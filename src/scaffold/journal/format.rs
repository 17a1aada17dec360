//! The journal on disk: a header line, one line per directory and file (tab-separated), the
//! old bytes of each file rewritten in place right after its line (their count is on the
//! line, so they may hold anything), then `end`. `committed` is appended at the commit point.
use super::{Entry, Journal, Replace, Undo};

pub(super) const HEADER: &str = "rusty-sdk commit journal 3";
/// Journals of earlier versions. 2: no files rewritten in place. 1: written whole through a
/// temporary, no `end` line.
const HEADER_2: &str = "rusty-sdk commit journal 2";
const HEADER_1: &str = "rusty-sdk commit journal 1";
const END: &str = "end";
pub(super) const COMMITTED: &str = "committed";

pub(super) enum Parsed {
    Whole(Journal),
    /// Cut short while being written (by a power loss): nothing else was written.
    Incomplete,
    Unreadable,
}

impl Journal {
    pub(super) fn render(&self) -> Vec<u8> {
        let mut out = format!("{HEADER}\n").into_bytes();
        for d in &self.dirs {
            out.extend_from_slice(format!("dir\t{d}\n").as_bytes());
        }
        for e in &self.entries {
            let line = match &e.undo {
                Undo::Remove => format!("new\t{}\n", e.target),
                Undo::Restore(old) => format!("edit\t{}\t{}\n", e.target, old.len()),
                Undo::Rename(r) => format!("replace\t{}\t{}\t{}\n", e.target, r.temp, r.backup),
            };
            out.extend_from_slice(line.as_bytes());
            if let Undo::Restore(old) = &e.undo {
                out.extend_from_slice(old);
                out.push(b'\n');
            }
        }
        out.extend_from_slice(format!("{END}\n").as_bytes());
        out
    }

    pub(super) fn parse(bytes: &[u8]) -> Parsed {
        let mut reader = Reader(bytes);
        let needs_end = match reader.line() {
            Some(h) if h == HEADER.as_bytes() || h == HEADER_2.as_bytes() => true,
            Some(h) if h == HEADER_1.as_bytes() => false,
            // The header itself was being written.
            None if HEADER.as_bytes().starts_with(reader.0) => return Parsed::Incomplete,
            Some(_) | None => return Parsed::Unreadable,
        };
        let mut journal = Journal::default();
        let mut ended = false;
        while let Some(line) = reader.line() {
            let Ok(line) = std::str::from_utf8(line) else {
                return Parsed::Unreadable;
            };
            let fields: Vec<&str> = line.split('\t').collect();
            let undo = match fields.as_slice() {
                [END] if needs_end && !ended => {
                    ended = true;
                    continue;
                }
                [COMMITTED] if ended || !needs_end => {
                    journal.committed = true;
                    continue;
                }
                _ if ended || journal.committed => return Parsed::Unreadable,
                ["dir", d] => {
                    journal.dirs.push((*d).to_string());
                    continue;
                }
                // Earlier versions also named a temporary for a new file.
                ["new", _] | ["new", _, _] => Undo::Remove,
                ["edit", _, len] => {
                    let Ok(len) = len.parse::<usize>() else {
                        return Parsed::Unreadable;
                    };
                    match reader.bytes(len) {
                        Some(Ok(old)) => Undo::Restore(old.to_vec()),
                        Some(Err(())) => return Parsed::Unreadable,
                        None => return Parsed::Incomplete,
                    }
                }
                ["replace", _, temp, backup] => Undo::Rename(Replace {
                    temp: (*temp).to_string(),
                    backup: (*backup).to_string(),
                }),
                _ => return Parsed::Unreadable,
            };
            journal.entries.push(Entry {
                target: fields[1].to_string(),
                undo,
            });
        }
        if needs_end && !ended {
            return Parsed::Incomplete;
        }
        // A last line without its line break was being written when the power went. Only
        // `committed` is ever appended; cut short, the commit point was not reached.
        if !reader.0.is_empty() && !COMMITTED.as_bytes().starts_with(reader.0) {
            return Parsed::Unreadable;
        }
        Parsed::Whole(journal)
    }
}

/// What is left of the journal to read.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    /// The next whole line, without its line break; `None` when what is left has none.
    fn line(&mut self) -> Option<&'a [u8]> {
        let at = self.0.iter().position(|&b| b == b'\n')?;
        let line = &self.0[..at];
        self.0 = &self.0[at + 1..];
        Some(line)
    }

    /// The next `len` bytes and the line break after them: `None` when the journal ends
    /// before that, an error when something else follows them.
    fn bytes(&mut self, len: usize) -> Option<Result<&'a [u8], ()>> {
        let after = self.0.get(len)?;
        if *after != b'\n' {
            return Some(Err(()));
        }
        let bytes = &self.0[..len];
        self.0 = &self.0[len + 1..];
        Some(Ok(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(bytes: &[u8]) -> Option<Journal> {
        match Journal::parse(bytes) {
            Parsed::Whole(j) => Some(j),
            _ => None,
        }
    }

    fn sample() -> Journal {
        Journal {
            dirs: vec!["a".into(), "a/b".into()],
            entries: vec![
                Entry {
                    target: "a/b/c".into(),
                    undo: Undo::Remove,
                },
                Entry {
                    target: "src/main.rs".into(),
                    // Old bytes that look like journal lines, and are not UTF-8.
                    undo: Undo::Restore(b"end\ncommitted\n\tedit\t9\n\xff\r\n".to_vec()),
                },
                Entry {
                    target: "empty".into(),
                    undo: Undo::Restore(Vec::new()),
                },
                Entry {
                    target: "PROJECT".into(),
                    undo: Undo::Rename(Replace {
                        temp: ".PROJECT.rusty-tmp-1".into(),
                        backup: ".PROJECT.rusty-bak-1".into(),
                    }),
                },
            ],
            committed: false,
        }
    }

    #[test]
    fn journal_round_trips() {
        let journal = sample();
        let bytes = journal.render();
        assert_eq!(whole(&bytes), Some(journal.clone()));
        let done = [bytes.as_slice(), b"committed\n"].concat();
        assert!(whole(&done).unwrap().committed);
        // The commit point cut short: not committed.
        let torn = [bytes.as_slice(), b"commi"].concat();
        assert_eq!(whole(&torn), Some(journal.clone()));
        assert!(matches!(Journal::parse(b"garbage\n"), Parsed::Unreadable));
        let trailing = [bytes.as_slice(), b"garbage\n"].concat();
        assert!(matches!(Journal::parse(&trailing), Parsed::Unreadable));
    }

    #[test]
    fn every_prefix_of_a_journal_being_written_is_incomplete() {
        let bytes = sample().render();
        for cut in 0..bytes.len() {
            assert!(
                matches!(Journal::parse(&bytes[..cut]), Parsed::Incomplete),
                "{:?}",
                String::from_utf8_lossy(&bytes[..cut])
            );
        }
    }

    #[test]
    fn old_bytes_of_the_wrong_length_are_unreadable() {
        let bytes = format!("{HEADER}\nedit\tx\t2\nabc\nend\n");
        assert!(matches!(
            Journal::parse(bytes.as_bytes()),
            Parsed::Unreadable
        ));
        let bytes = format!("{HEADER}\nedit\tx\tmany\nabc\nend\n");
        assert!(matches!(
            Journal::parse(bytes.as_bytes()),
            Parsed::Unreadable
        ));
    }

    #[test]
    fn journals_of_earlier_versions_are_read() {
        let old = format!("{HEADER_1}\nnew\ta/b/c\ta/b/.c.rusty-tmp-1\n");
        assert_eq!(
            whole(old.as_bytes()).unwrap().entries[0],
            sample().entries[0]
        );
        let done = format!("{old}{COMMITTED}\n");
        assert!(whole(done.as_bytes()).unwrap().committed);
        let two = format!(
            "{HEADER_2}\nreplace\tPROJECT\t.PROJECT.rusty-tmp-1\t.PROJECT.rusty-bak-1\nend\n"
        );
        assert_eq!(
            whole(two.as_bytes()).unwrap().entries[0],
            sample().entries[3]
        );
    }
}
