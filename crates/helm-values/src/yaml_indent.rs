//! go-yaml (libyaml) does not check indentation inside flow collections and quoted
//! scalars: `key: [` ... `]` may close at any column, a multi-line quoted string may
//! continue at the key's column, and real charts rely on it. yaml-rust2 refuses such lines
//! ("invalid indentation"). Leading spaces on those lines are not content (YAML folds them
//! away), so [`indent_flow_lines`] gives each such line enough of them and the text parses
//! to what go-yaml reads. It is only tried on text yaml-rust2 has refused.

/// The text with every continuation line of a flow collection or quoted scalar indented at
/// least to the column where that node started; `None` when no line needed it.
pub fn indent_flow_lines(text: &str) -> Option<String> {
    let mut scanner = Scanner::default();
    let mut out = String::with_capacity(text.len() + 64);
    let mut changed = false;
    for line in text.split_inclusive('\n') {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let blank = line.trim().is_empty();
        match scanner.open_column {
            Some(column) if !blank && indent < column => {
                out.extend(std::iter::repeat_n(' ', column - indent));
                changed = true;
            }
            _ => {}
        }
        scanner.scan_line(line);
        out.push_str(line);
    }
    changed.then_some(out)
}

#[derive(Default)]
struct Scanner {
    /// Flow collections open (`[`, `{`) across lines.
    depth: usize,
    /// Inside a quoted scalar that continues on the next line.
    quote: Option<u8>,
    /// Column continuation lines must reach, while a node is open.
    open_column: Option<usize>,
    /// Lines of a block scalar (`|`, `>`) are skipped while indented past this.
    block_scalar_parent: Option<usize>,
}

impl Scanner {
    fn scan_line(&mut self, line: &str) {
        let bytes = line.as_bytes();
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(parent) = self.block_scalar_parent {
            if line.trim().is_empty() || indent > parent {
                return;
            }
            self.block_scalar_parent = None;
        }
        let mut i = 0;
        // Where a scalar or a collection may start (not inside a plain scalar).
        let mut at_start = true;
        while i < bytes.len() {
            let c = bytes[i];
            if let Some(q) = self.quote {
                if c == b'\\' && q == b'"' {
                    i += 2;
                    continue;
                }
                if c == q {
                    if q == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    self.quote = None;
                    at_start = false;
                    if self.depth == 0 {
                        self.open_column = None;
                    }
                }
                i += 1;
                continue;
            }
            match c {
                b'#' if i == 0 || bytes[i - 1] == b' ' || bytes[i - 1] == b'\t' => return,
                b'"' | b'\'' if at_start => {
                    self.quote = Some(c);
                    if self.depth == 0 {
                        self.open_column = Some(i);
                    }
                }
                b'[' | b'{' if at_start || self.depth > 0 => {
                    if self.depth == 0 {
                        self.open_column = Some(i);
                    }
                    self.depth += 1;
                    at_start = true;
                }
                b']' | b'}' if self.depth > 0 => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        self.open_column = None;
                    }
                    at_start = false;
                }
                b',' if self.depth > 0 => at_start = true,
                b' ' | b'\t' | b'\r' | b'\n' => {}
                b'-' | b'?' | b':' if at_start_indicator(bytes, i) => at_start = true,
                b'&' | b'!' if at_start => {
                    // An anchor or a tag: the node itself comes after it.
                    while i < bytes.len() && bytes[i] != b' ' {
                        i += 1;
                    }
                    continue;
                }
                b'|' | b'>' if at_start && self.depth == 0 && is_block_header(&line[i + 1..]) => {
                    self.block_scalar_parent = Some(indent);
                    return;
                }
                _ => at_start = false,
            }
            i += 1;
        }
    }
}

/// `-`, `?` or `:` followed by a space or the end of the line is an indicator, after which
/// a node may start.
fn at_start_indicator(bytes: &[u8], i: usize) -> bool {
    matches!(bytes.get(i + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
}

/// What may follow `|` or `>` on a block scalar's header line: chomping and indentation
/// indicators, then spaces and a comment.
fn is_block_header(rest: &str) -> bool {
    let rest = rest.trim_start_matches(['+', '-', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    let rest = rest.trim_start_matches([' ', '\t']);
    rest.is_empty() || rest.starts_with('#') || rest == "\n" || rest == "\r\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuation_lines_of_flow_and_quoted_nodes_reach_their_column() {
        assert_eq!(
            indent_flow_lines("a:\n  b: [\n    x,\n    y\n]\n").unwrap(),
            "a:\n  b: [\n     x,\n     y\n     ]\n"
        );
        assert_eq!(
            indent_flow_lines("a:\n  b: \"x\n  y\"\n").unwrap(),
            "a:\n  b: \"x\n     y\"\n"
        );
        assert_eq!(
            indent_flow_lines("a:\n  - [\n  x\n  ]\n").unwrap(),
            "a:\n  - [\n    x\n    ]\n"
        );
    }

    #[test]
    fn block_scalars_comments_and_plain_brackets_are_left_alone() {
        for text in [
            "a: |\n  [not flow\nb: 1\n",
            "a: x[y\nb: 1\n",
            "# [comment\nb: 1\n",
            "a: 'it''s [fine'\nb: 1\n",
            "a: [x, y]\nb: {c: 1}\n",
            "a: it's\nb: [\n    1\n   ]\n",
        ] {
            assert_eq!(indent_flow_lines(text), None, "{text:?}");
        }
    }
}
