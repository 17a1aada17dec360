//! Yes/no questions. On a terminal dialoguer asks; otherwise one line is read per answer
//! (so `printf 'y\nn\n' | rusty-sdk create api ...` works, as with operator-sdk). Anything
//! but y/yes/n/no is asked again; end of input is an error naming the flag to pass. End of
//! input never means yes.
use std::io::{BufRead, IsTerminal, Read, Write};

use crate::error::{Error, Result};
use crate::model::names::shown;

/// Where answers come from.
pub enum Answers<'a> {
    Terminal,
    Lines(&'a mut dyn BufRead),
    /// `--no-interactive`: every question is an error.
    None,
}

impl Answers<'_> {
    /// The right source for this process: the terminal if stdin is one.
    pub fn detect(interactive: bool, stdin: &mut dyn BufRead) -> Answers<'_> {
        if !interactive {
            Answers::None
        } else if std::io::stdin().is_terminal() {
            Answers::Terminal
        } else {
            Answers::Lines(stdin)
        }
    }

    /// Ask `question` (e.g. "Create Resource") and return the answer; `flag` is named when
    /// no answer can be had (e.g. "--resource").
    pub fn yes_no(&mut self, question: &str, flag: &str, out: &mut dyn Write) -> Result<bool> {
        match self {
            Answers::None => Err(no_answer(question, flag, "--no-interactive was given")),
            Answers::Terminal => dialoguer::Confirm::new()
                .with_prompt(question)
                .interact()
                .map_err(|e| no_answer(question, flag, &e.to_string())),
            Answers::Lines(input) => read_lines(*input, question, flag, out),
        }
    }
}

/// Longest answer read: an endless line (`yes | tr -d '\n'`) is cut here, not held.
const MAX_ANSWER: u64 = 1024;
/// Wrong answers before giving up, so an endless stream of them cannot loop forever.
const MAX_TRIES: usize = 10;

fn read_lines(
    input: &mut dyn BufRead,
    question: &str,
    flag: &str,
    out: &mut dyn Write,
) -> Result<bool> {
    for _ in 0..MAX_TRIES {
        let _ = writeln!(out, "{question} [y/n]");
        let mut line = String::new();
        let read = Read::take(&mut *input, MAX_ANSWER)
            .read_line(&mut line)
            .map_err(|e| no_answer(question, flag, &e.to_string()))?;
        if read == 0 {
            return Err(no_answer(question, flag, "end of input"));
        }
        if !line.ends_with('\n') && read as u64 == MAX_ANSWER {
            let why = format!("the answer is longer than {MAX_ANSWER} bytes");
            return Err(no_answer(question, flag, &why));
        }
        match line.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => return Ok(true),
            "n" | "no" => return Ok(false),
            other => {
                let _ = writeln!(out, "invalid input {}, should be [y/n]", shown(other));
            }
        }
    }
    let why = format!("{MAX_TRIES} answers that were not y or n");
    Err(no_answer(question, flag, &why))
}

fn no_answer(question: &str, flag: &str, why: &str) -> Error {
    Error::invalid(format!(
        "no answer to \"{question} [y/n]\" ({why}); pass {flag}=true or {flag}=false (nothing was written)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(input: &str) -> (Result<bool>, String) {
        let mut reader = std::io::Cursor::new(input.as_bytes().to_vec());
        let mut out = Vec::new();
        let result = Answers::Lines(&mut reader).yes_no("Create Resource", "--resource", &mut out);
        (result, String::from_utf8(out).unwrap())
    }

    #[test]
    fn yes_and_no_in_all_spellings() {
        for (input, want) in [
            ("y\n", true),
            ("YES\n", true),
            (" n \n", false),
            ("no", false),
        ] {
            assert_eq!(ask(input).0.unwrap(), want, "{input:?}");
        }
    }

    #[test]
    fn invalid_answer_is_asked_again() {
        let (result, out) = ask("maybe\ny\n");
        assert!(result.unwrap());
        assert_eq!(
            out,
            "Create Resource [y/n]\ninvalid input \"maybe\", should be [y/n]\nCreate Resource [y/n]\n"
        );
    }

    #[test]
    fn endless_or_wrong_answers_are_bounded() {
        let (result, _) = ask(&"y".repeat(10_000_000));
        let err = result.unwrap_err().to_string();
        assert!(
            err.contains("longer than 1024 bytes") && err.contains("--resource=true"),
            "{err}"
        );
        let (result, out) = ask(&format!("{}\n", "x".repeat(1000)).repeat(1000));
        let err = result.unwrap_err().to_string();
        assert!(err.contains("10 answers that were not y or n"), "{err}");
        assert_eq!(out.matches("invalid input").count(), 10);
        assert!(out.lines().all(|l| l.len() < 160), "{out}");
        assert!(
            out.contains("... (1000 characters), should be [y/n]"),
            "{out}"
        );
    }

    #[test]
    fn end_of_input_is_an_error_naming_the_flag() {
        let err = ask("").0.unwrap_err().to_string();
        assert!(
            err.contains("end of input")
                && err.contains("pass --resource=true or --resource=false"),
            "{err}"
        );
        let err = ask("what\n").0.unwrap_err().to_string();
        assert!(err.contains("end of input"), "{err}");
    }
}
