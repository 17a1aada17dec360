fn main() -> std::process::ExitCode {
    rusty_sdk::run(std::env::args_os())
}
