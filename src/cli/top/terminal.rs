//! The terminal `top` borrows: raw mode, the alternate screen, no cursor;
//! and the one function that gives it back, run by [`Guard`]'s drop (a
//! return, `q`, a signal seen by the loop) and by the panic hook.

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::{cursor, execute, terminal};
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;
use ratatui::{Frame, Terminal};
use std::io::Stdout;

/// Holds the terminal in `top`'s modes until dropped.
pub(super) struct Guard {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

pub(super) fn io(e: std::io::Error) -> miette::Report {
    miette::miette!(
        code = "the_loop::top::terminal",
        "the terminal failed: {}",
        crate::fsutil::IoKind(e.kind())
    )
}

/// Raw mode, the alternate screen and no cursor.
fn take() -> std::io::Result<()> {
    terminal::enable_raw_mode()?;
    execute!(
        std::io::stdout(),
        terminal::EnterAlternateScreen,
        cursor::Hide
    )
}

/// The terminal as it was: cooked mode (echo, line editing), the normal
/// screen, the cursor. Safe to run twice.
pub(super) fn give_back() {
    let _ = terminal::disable_raw_mode();
    let _ = execute!(
        std::io::stdout(),
        terminal::LeaveAlternateScreen,
        cursor::Show
    );
}

impl Guard {
    pub(super) fn enter() -> miette::Result<Guard> {
        use std::io::IsTerminal;
        if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
            miette::bail!(
                code = "the_loop::top::no_terminal",
                help =
                    "`the-loop sessions list` and `the-loop plan` print the same facts for a pipe",
                "`the-loop top` needs a terminal"
            );
        }
        // A panic gives the terminal back before its message is printed.
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            give_back();
            previous(info);
        }));
        take().map_err(io)?;
        let terminal = Terminal::new(CrosstermBackend::new(std::io::stdout())).map_err(|e| {
            give_back();
            io(e)
        })?;
        Ok(Guard { terminal })
    }

    pub(super) fn draw(&mut self, f: impl FnOnce(&mut Frame)) -> miette::Result<()> {
        self.terminal.draw(f).map(|_| ()).map_err(io)
    }

    /// Gives the terminal back while `f` runs (an attach), then takes it again.
    pub(super) fn suspended<T>(&mut self, f: impl FnOnce() -> T) -> miette::Result<T> {
        give_back();
        let out = f();
        take().map_err(io)?;
        // A new terminal's empty buffers redraw every cell on a cleared
        // screen. Not `Terminal::clear`: it asks the terminal where its
        // cursor is, a question some terminals never answer.
        execute!(std::io::stdout(), terminal::Clear(terminal::ClearType::All)).map_err(io)?;
        self.terminal = Terminal::new(CrosstermBackend::new(std::io::stdout())).map_err(io)?;
        Ok(out)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        give_back();
    }
}

/// Ends the process (of SIGHUP) once the terminal has hung up (its window closed, its
/// tmux pane killed). The key loop cannot see it: crossterm's reader spins
/// on a hung-up terminal's end of file inside `event::poll`, and a shell
/// that does not pass its SIGHUP on (dash) sends no signal. A hung-up
/// terminal answers no terminal ioctl, so `isatty` turns false.
pub(super) fn end_on_hangup() -> miette::Result<()> {
    use std::io::IsTerminal;
    std::thread::Builder::new()
        .name("top-hangup".into())
        .spawn(|| {
            while std::io::stdin().is_terminal() {
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            give_back();
            // Dies of the hangup, as a program with no SIGHUP handler would.
            let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGHUP);
        })
        .map(|_| ())
        .map_err(|e| miette::miette!("cannot start the hangup watch: {e}"))
}

/// The screen before the first plan has answered.
pub(super) fn waiting(frame: &mut Frame) {
    let area = frame.area();
    frame.render_widget(
        Paragraph::new("the-loop top: observing the fleet… (q quits)"),
        Rect { height: 1, ..area },
    );
}
