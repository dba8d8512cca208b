//! `--emulate-latency` / `--emulate-bandwidth` (issue 58) where they cannot
//! act: one process, a kernel without a courier, impossible values. Each is
//! one clear line and exit 1, never a run that silently emulated nothing.
//! (The runs that do emulate are in tests/mpi_emulated_link.rs.)

mod common;
use common::assert_clear_error;

#[test]
fn an_emulated_link_needs_an_optimistic_run_of_several_processes() {
    let phold = ["run", "phold", "--lps", "256", "--end", "2", "--quiet"];
    #[rustfmt::skip]
    let cases: &[(&[&str], &str)] = &[
        (&["--sync", "optimistic", "--threads", "2", "--emulate-latency", "5"], "--emulate-latency: link emulation holds back messages between MPI processes, and this run has one process"),
        (&["--sync", "optimistic", "--emulate-bandwidth", "10"], "--emulate-bandwidth: link emulation holds back messages between MPI processes"),
        (&["--sync", "conservative", "--threads", "2", "--emulate-latency", "5"], "the conservative mode has none: use --sync optimistic"),
        (&["--emulate-latency", "5"], "the sequential mode has none"),
        (&["--sync", "optimistic", "--emulate-latency", "-1"], "--emulate-latency: a latency must be between 0 and 1,000,000 microseconds, got -1"),
        (&["--sync", "optimistic", "--emulate-latency", "inf"], "got inf"),
        (&["--sync", "optimistic", "--emulate-bandwidth", "0"], "--emulate-bandwidth: a bandwidth must be a finite number of GB/s, at least 0.000001 (1 kB/s), got 0"),
    ];
    for (extra, want) in cases {
        assert_clear_error(&[&phold[..], extra].concat(), want);
    }
}
