//! rusty-sdk: the Operator SDK for Rust.
//!
//! Data flows one way: argv -> validated settings -> changes staged in an in-memory tree ->
//! a plan -> an all-or-nothing commit (or a printed dry run).
use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

// The library exists for the binary and the integration tests: its modules are private,
// and the few items the tests read (names, pinned versions, the dashboards' metrics) are
// the only ones exported.
mod cli;
mod commands;
mod digest;
mod error;
mod kustomize_output;
pub mod model;
mod project;
mod prompt;
mod rbac;
mod rust_layout;
mod scaffold;
mod session;
mod templates;
mod ui;
pub mod versions;
mod webhook;
mod yaml;

pub use commands::edit::grafana::dashboards::selected_metrics;

use cli::{Cli, Command};
use error::{Error, Result};
use session::Session;

/// Run the CLI with `args` (including the program name) and return the exit code.
pub fn run<I: IntoIterator<Item = OsString>>(args: I) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() && e.render().to_string().len() > 1000 => {
            // clap quotes a bad value whole (`--license <100 KB>`): cut it like ours.
            let text = e.render().to_string();
            let _ = write!(std::io::stderr(), "{}", ui::bounded(text.trim_end()));
            let _ = writeln!(std::io::stderr());
            return ExitCode::FAILURE;
        }
        Err(e) => {
            return match e.print() {
                Ok(()) => ExitCode::from(u8::from(e.use_stderr())),
                // `--help | head` that stopped reading: no message, only the failure.
                Err(io) if io.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::FAILURE,
                Err(io) => {
                    let _ = writeln!(std::io::stderr(), "error: {}", Error::Output(io.kind()));
                    ExitCode::FAILURE
                }
            };
        }
    };
    let session = match Session::new(&cli.global) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: {e}");
            return ExitCode::from(e.exit_code());
        }
    };
    let result =
        dispatch(&session, cli.command).and_then(|()| match session.shell.stdout_error() {
            // Once the files are written the command has done what it was asked; what it
            // printed about them got lost, which is no reason to report a failure (a CI
            // job would retry a command that succeeded). Before that, nothing was written.
            Some(_) if session.committed() => Ok(()),
            Some(kind) => Err(Error::Output(kind)),
            None => Ok(()),
        });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that went away (`| head`) wants no message, only the failure.
        Err(Error::Output(std::io::ErrorKind::BrokenPipe)) => ExitCode::FAILURE,
        Err(e) => {
            session.shell.error(&one_line(&e));
            ExitCode::from(e.exit_code())
        }
    }
}

/// The message of `e` on one line: a line break inside a value it quotes (a path from a
/// flag, text from a file) is shown escaped. Only the list of conflicts has lines.
fn one_line(e: &Error) -> String {
    let text = e.to_string();
    if matches!(e, Error::Conflicts(_)) {
        return text;
    }
    text.chars()
        .map(|c| match c {
            '\n' => "\\n".to_string(),
            '\r' => "\\r".to_string(),
            c if c.is_control() && c != '\t' => c.escape_default().to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// `clap_complete`'s bash script names the states of a binary with a `-` in its name two
/// ways (`rusty__sdk__subcmd__create` where it walks the words, `rusty__subcmd__sdk__...`
/// in its `case`), so no subcommand's flags ever complete (clap issue 6421). One spelling
/// for both makes every subcommand complete.
fn fix_bash_subcommand_names(script: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(script)
        .replace("rusty__subcmd__sdk", "rusty__sdk")
        .into_bytes()
}

/// Write `bytes` to stdout at once; a closed or full stdout is an error, not a panic.
fn print_all(bytes: &[u8]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| Error::Output(e.kind()))
}

fn dispatch(session: &Session, command: Command) -> Result<()> {
    match command {
        Command::Init(args) => commands::init::run(session, &args),
        Command::Create(cli::CreateCommand::Api(args)) => commands::create_api::run(session, &args),
        Command::Create(cli::CreateCommand::Webhook(args)) => {
            commands::create_webhook::run(session, &args)
        }
        Command::Generate(cli::GenerateCommand::Rbac(args)) => {
            commands::generate_rbac::run(session, &args)
        }
        Command::Generate(cli::GenerateCommand::Bundle(args)) => {
            commands::generate_bundle::run(session, &args)
        }
        Command::Edit(args) => commands::edit::run(session, &args),
        Command::Bundle(cli::BundleCommand::Validate(args)) => {
            commands::bundle_validate::run(session, &args)
        }
        Command::Alpha(cli::AlphaCommand::Generate(args)) => {
            commands::alpha::generate::run(session, &args)
        }
        Command::Alpha(cli::AlphaCommand::Update(args)) => {
            commands::alpha::update::run(session, &args)
        }
        Command::Version => print_all(versions::line().as_bytes()),
        Command::Completion { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "rusty-sdk", &mut script);
            if shell == clap_complete::Shell::Bash {
                script = fix_bash_subcommand_names(&script);
            }
            print_all(&script)
        }
    }
}
