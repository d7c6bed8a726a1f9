fn main() -> std::process::ExitCode {
    the_loop::cli::run()
}
