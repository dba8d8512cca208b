//! The `timewarp` command: the shipped models under every synchronisation mode.

fn main() -> std::process::ExitCode {
    timewarp_cli::App::new("timewarp").shipped().main()
}
