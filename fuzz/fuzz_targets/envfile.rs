#![no_main]
// The env file parser: no panic, no input text in any error, and
// parse -> render -> parse gives back the same names and values.
libfuzzer_sys::fuzz_target!(|data: &[u8]| the_loop_fuzz::envfile(data));
