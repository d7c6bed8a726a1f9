#![no_main]
// Work-item refs, standing names, tmux targets and registry records: no
// panic, no input text in any error, and every round trip stable.
libfuzzer_sys::fuzz_target!(|data: &[u8]| the_loop_fuzz::registry(data));
