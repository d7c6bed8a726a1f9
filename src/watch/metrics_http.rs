//! The pure half of `watch --metrics-listen`'s server
//! ([`crate::watch::metrics_server`]): a request head gathered from the
//! pieces a socket gives, never past [`HEAD_CAP`], and the one response to
//! it. No socket here, so `fuzz/fuzz_targets/metrics.rs` feeds it whatever
//! a hostile client could send, in whatever pieces.

use super::metrics::Metrics;

/// The most a request head (request line and headers) may be. Prometheus
/// sends a few hundred bytes.
pub const HEAD_CAP: usize = 8 * 1024;

/// A request head, read in pieces.
#[derive(Debug, Default)]
pub struct Head {
    bytes: Vec<u8>,
}

/// What one more piece made of a head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fed {
    /// No blank line yet, and room for more.
    More,
    /// The head, up to and with its first blank line; what came after it
    /// (a body, a pipelined request) is dropped unread.
    Complete(Vec<u8>),
    /// [`HEAD_CAP`] bytes and no blank line.
    TooLarge,
}

impl Head {
    /// How many more bytes the head may take.
    pub fn room(&self) -> usize {
        HEAD_CAP - self.bytes.len()
    }

    /// Adds `piece`, or as much of it as [`Head::room`] allows: a caller
    /// that reads more than that cannot make the head grow past the cap.
    pub fn feed(&mut self, piece: &[u8]) -> Fed {
        let taken = &piece[..piece.len().min(self.room())];
        self.bytes.extend_from_slice(taken);
        if let Some(end) = head_end(&self.bytes) {
            let mut head = std::mem::take(&mut self.bytes);
            head.truncate(end);
            return Fed::Complete(head);
        }
        if self.bytes.len() >= HEAD_CAP {
            return Fed::TooLarge;
        }
        Fed::More
    }
}

/// Where the head ends (after its blank line), if it has.
pub fn head_end(bytes: &[u8]) -> Option<usize> {
    let crlf = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4);
    let lf = bytes.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    crlf.into_iter().chain(lf).min()
}

/// The whole response to one head.
pub fn respond(metrics: &Metrics, head: &[u8]) -> Vec<u8> {
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let parts: Vec<&str> = line.trim_end_matches('\r').split(' ').collect();
    let [method, target, version] = parts[..] else {
        return plain(400, "Bad Request", "not an HTTP/1 request line\n");
    };
    if !version.starts_with("HTTP/1.") {
        return plain(400, "Bad Request", "only HTTP/1 is served\n");
    }
    let path = target.split('?').next().unwrap_or(target);
    if path != "/metrics" {
        return plain(404, "Not Found", "not found; metrics are at /metrics\n");
    }
    if method != "GET" && method != "HEAD" {
        let body = "only GET and HEAD are served\n";
        let mut response = status_head(
            405,
            "Method Not Allowed",
            PLAIN,
            body.len(),
            "Allow: GET, HEAD\r\n",
        );
        response.extend_from_slice(body.as_bytes());
        return response;
    }
    let Ok(text) = metrics.encode() else {
        return plain(500, "Internal Server Error", "cannot encode the metrics\n");
    };
    let content_type = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;
    let mut response = status_head(200, "OK", content_type, text.len(), "");
    if method == "GET" {
        response.extend_from_slice(text.as_bytes());
    }
    response
}

const PLAIN: &str = "text/plain; charset=utf-8";

/// A plain-text response with status `code`.
pub fn plain(code: u16, reason: &str, body: &str) -> Vec<u8> {
    let mut response = status_head(code, reason, PLAIN, body.len(), "");
    response.extend_from_slice(body.as_bytes());
    response
}

/// A response's head; `extra` is more header lines, each ending in CRLF.
fn status_head(code: u16, reason: &str, content_type: &str, length: usize, extra: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {code} {reason}\r\nContent-Type: {content_type}\r\n\
         Content-Length: {length}\r\nConnection: close\r\n{extra}\r\n"
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(head: &str) -> String {
        String::from_utf8(respond(&Metrics::new(), head.as_bytes())).unwrap()
    }

    #[test]
    fn get_and_head_of_metrics_are_served_and_the_connection_closes() {
        let get = answer("GET /metrics?x=1 HTTP/1.1\r\nHost: h\r\n\r\n");
        assert!(get.starts_with("HTTP/1.1 200 OK\r\n"), "{get}");
        assert!(get.contains("\r\nConnection: close\r\n"), "{get}");
        assert!(
            get.contains("Content-Type: text/plain; version=0.0.4"),
            "{get}"
        );
        let (head, body) = get.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("Content-Length: {}\r\n", body.len())));
        assert!(body.contains("# TYPE the_loop_plan_ok gauge"), "{body}");
        let only_head = answer("HEAD /metrics HTTP/1.0\r\n\r\n");
        assert_eq!(only_head, format!("{head}\r\n\r\n"));
    }

    #[test]
    fn anything_else_is_refused_by_status() {
        let status = |head: &str| answer(head).lines().next().unwrap().to_owned();
        assert_eq!(status("GET / HTTP/1.1\r\n\r\n"), "HTTP/1.1 404 Not Found");
        assert_eq!(
            status("POST /metrics HTTP/1.1\r\n\r\n"),
            "HTTP/1.1 405 Method Not Allowed"
        );
        assert!(answer("PUT /metrics HTTP/1.1\r\n\r\n").contains("\r\nAllow: GET, HEAD\r\n\r\n"));
        for bad in [
            "GET /metrics\r\n\r\n",
            "GET  /metrics HTTP/1.1\r\n\r\n",
            "GET /metrics HTTP/2\r\n\r\n",
            "\u{0}\r\n\r\n",
        ] {
            assert_eq!(status(bad), "HTTP/1.1 400 Bad Request", "{bad:?}");
        }
    }

    #[test]
    fn a_head_ends_at_its_first_blank_line() {
        assert_eq!(
            head_end(b"GET / HTTP/1.1\r\nA: b\r\n\r\nbody\r\n\r\n"),
            Some(24)
        );
        assert_eq!(head_end(b"GET / HTTP/1.0\n\nrest"), Some(16));
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nA: b\r\n"), None);
    }

    #[test]
    fn a_head_is_gathered_from_pieces_and_never_past_the_cap() {
        let mut head = Head::default();
        assert_eq!(head.feed(b"GET /metrics HTTP/1.1\r"), Fed::More);
        assert_eq!(head.feed(b"\n\r"), Fed::More);
        assert_eq!(
            head.feed(b"\n\r\nbody"),
            Fed::Complete(b"GET /metrics HTTP/1.1\r\n\r\n".to_vec())
        );
        let mut head = Head::default();
        assert_eq!(head.feed(&[b'a'; HEAD_CAP - 1]), Fed::More);
        assert_eq!(head.room(), 1);
        // A piece larger than the room: only the room is taken.
        assert_eq!(head.feed(&[b'a'; 4096]), Fed::TooLarge);
        assert_eq!(head.room(), 0);
    }
}
