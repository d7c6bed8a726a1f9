//! A control-mode client's output, split into the answers of its commands.

use std::io::BufRead;
use std::sync::mpsc;

/// One command's block: its output, or its error.
pub(super) struct Block {
    /// `%begin`'s flags: 1 for a command read from this client's stdin.
    pub from_stdin: bool,
    pub failed: bool,
    pub body: String,
}

/// Splits the client's output into blocks; notifications (`%output`,
/// `%sessions-changed`, …) come only between blocks and are skipped. A
/// block ends at `%end` or `%error` with the same time, number and flags
/// as its `%begin`, so an output line that starts with `%` (a pane id) is
/// never read as the end.
pub(super) fn read_blocks(mut reader: impl BufRead, tx: &mpsc::Sender<Block>) {
    let mut open: Option<(String, String)> = None; // (the %begin's tail, body)
    let mut raw = Vec::new();
    loop {
        raw.clear();
        match reader.read_until(b'\n', &mut raw) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&raw);
        let line = line.strip_suffix('\n').unwrap_or(&line);
        match &mut open {
            None => {
                if let Some(tail) = line.strip_prefix("%begin ") {
                    open = Some((tail.to_owned(), String::new()));
                }
            }
            Some((tail, body)) => {
                let failed = match line.split_once(' ') {
                    Some(("%end", rest)) if rest == tail => false,
                    Some(("%error", rest)) if rest == tail => true,
                    _ => {
                        body.push_str(line);
                        body.push('\n');
                        continue;
                    }
                };
                let from_stdin = tail.rsplit(' ').next().is_some_and(|flags| flags == "1");
                let body = std::mem::take(body);
                open = None;
                if tx
                    .send(Block {
                        from_stdin,
                        failed,
                        body,
                    })
                    .is_err()
                {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(output: &str) -> Vec<(bool, bool, String)> {
        let (tx, rx) = mpsc::channel();
        read_blocks(output.as_bytes(), &tx);
        drop(tx);
        rx.iter()
            .map(|b| (b.from_stdin, b.failed, b.body))
            .collect()
    }

    #[test]
    fn each_block_is_one_answer_and_notifications_between_them_are_skipped() {
        let output = "%begin 1 264 0\n%end 1 264 0\n%window-add @1\n%sessions-changed\n\
                      %begin 1 270 1\n%3 4242 0\n%end 1 264 0\n%4 4243 1\n%end 1 270 1\n\
                      %output %1 x\n%begin 1 271 1\ncan't find session: =gone\n%error 1 271 1\n\
                      %begin 1 272 1\n%end 1 272 1\n%exit\n";
        assert_eq!(
            blocks(output),
            vec![
                (false, false, String::new()),
                (true, false, "%3 4242 0\n%end 1 264 0\n%4 4243 1\n".into()),
                (true, true, "can't find session: =gone\n".into()),
                (true, false, String::new()),
            ]
        );
    }

    #[test]
    fn a_block_cut_off_by_the_client_leaving_is_no_answer() {
        assert!(blocks("%begin 1 5 1\npartial\n").is_empty());
    }
}
