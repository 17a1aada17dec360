//! rusty-sdk: the Operator SDK for Rust.
//!
//! Data flows one way: argv -> validated settings -> changes staged in an in-memory tree ->
//! a plan -> an all-or-nothing commit (or a printed dry run).
use std::ffi::OsString;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

pub mod cli;
pub mod commands;
pub mod error;
pub mod model;
pub mod project;
pub mod prompt;
pub mod rbac;
pub mod scaffold;
pub mod session;
pub mod templates;
pub mod ui;
pub mod yaml;

use cli::{Cli, Command};
use error::Result;
use session::Session;

/// Run the CLI with `args` (including the program name) and return the exit code.
pub fn run<I: IntoIterator<Item = OsString>>(args: I) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    let session = match Session::new(&cli.global) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(e.exit_code());
        }
    };
    match dispatch(&session, cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            session.shell.error(&e.to_string());
            ExitCode::from(e.exit_code())
        }
    }
}

fn dispatch(session: &Session, command: Command) -> Result<()> {
    match command {
        Command::Init(args) => commands::init::run(session, &args),
        Command::Create(cli::CreateCommand::Api(args)) => commands::create_api::run(session, &args),
        Command::Generate(cli::GenerateCommand::Rbac(args)) => {
            commands::generate_rbac::run(session, &args)
        }
        Command::Version => {
            println!("rusty-sdk {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Command::Completion { shell } => {
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "rusty-sdk",
                &mut std::io::stdout(),
            );
            Ok(())
        }
    }
}
