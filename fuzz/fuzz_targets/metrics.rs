#![no_main]
// The metrics server's request handling (watch --metrics-listen): a head
// never past its cap, the same however it is cut, and every response
// well formed, closing, and never quoting the request.
libfuzzer_sys::fuzz_target!(|data: &[u8]| the_loop_fuzz::metrics(data));
