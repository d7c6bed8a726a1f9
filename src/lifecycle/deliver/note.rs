//! A delivery's id in its record, around the paste.
//!
//! The id is written into the record *before* anything reaches the harness
//! (`pendingDelivery`), as `sessions start` writes its record before it
//! spawns: a record that cannot be written (a full or read-only state root)
//! then refuses the delivery with nothing pasted, instead of pasting and
//! failing to remember the id, which let every redelivery paste the same
//! text again. Once the text is in the prompt box the id moves to
//! `pendingSubmit` (a retry only submits), and once submitted it joins
//! `recentDeliveries` (a retry is a duplicate).
//!
//! A `pendingDelivery` whose paste was never confirmed means nothing of it
//! is known to be in the harness: a retry delivers it in full. The one
//! window left is a state root that fills between the note and the marks
//! after the paste; each atomic rewrite of the record frees the previous
//! version's blocks, so only another writer taking them meanwhile opens it.

use crate::lifecycle::context::Context;
use crate::lifecycle::key::{self, Record};
use crate::runner::deliver::{paste_text, submit};

/// The delivery id, as far as the record on disk has it.
pub struct Note<'a> {
    id: Option<&'a str>,
    /// The record on disk says the text is in the prompt box.
    pasted: bool,
}

impl<'a> Note<'a> {
    /// Notes `id` in `record`, durably, before anything is pasted or
    /// spawned. The error is the refusal's reason: it names the record file
    /// and what the OS answered, and says nothing was sent.
    pub fn take(ctx: &Context, record: &mut Record, id: Option<&'a str>) -> Result<Self, String> {
        let Some(id) = id else {
            return Ok(Note { id, pasted: false });
        };
        // An earlier try pasted the text and failed to submit it: that mark
        // is already the note.
        if record.pending_submit() == Some(id) {
            return Ok(Note {
                id: Some(id),
                pasted: true,
            });
        }
        record.set_pending_delivery(Some(id));
        match key::save(&ctx.registry, record) {
            Ok(_) => Ok(Note {
                id: Some(id),
                pasted: false,
            }),
            Err(err) => Err(format!(
                "the delivery id could not be noted in the record before the paste ({err}); nothing was pasted, so a redelivery retries it once there is room"
            )),
        }
    }

    /// Pastes `text` into `target` and submits it, marking the record
    /// between the two so that a retry after a failed submit only submits.
    /// Text an earlier try pasted is not pasted again.
    pub fn paste_and_submit(
        &mut self,
        ctx: &Context,
        record: &mut Record,
        target: &str,
        text: &str,
    ) -> Result<(), String> {
        if !self.pasted {
            paste_text(&ctx.tmux, target, text).map_err(|e| e.to_string())?;
            if let Some(id) = self.id {
                record.set_pending_submit(Some(id));
                record.set_pending_delivery(None);
                match key::save(&ctx.registry, record) {
                    Ok(_) => self.pasted = true,
                    // The text is whole in the prompt box: submitting it is
                    // better than leaving it for a retry to paste again.
                    Err(err) => {
                        tracing::warn!(error = %err, "could not mark the delivery pasted in the record")
                    }
                }
            }
        }
        submit(&ctx.tmux, target).map_err(|e| e.to_string())
    }

    /// Records the id as processed once the text is in the harness. With an
    /// id, a record that cannot be written is the delivery's failure (the
    /// caller's retry must not be told the id is remembered when it is not);
    /// without one, only a warning.
    pub fn done(self, ctx: &Context, record: &mut Record) -> Result<(), String> {
        if let Some(id) = self.id {
            record.record_delivery(id);
        }
        record.set_pending_submit(None);
        record.set_pending_delivery(None);
        record.touch();
        let Err(err) = key::save(&ctx.registry, record) else {
            return Ok(());
        };
        if self.id.is_none() {
            tracing::warn!(error = %err, "could not update the registry record after the delivery");
            crate::errln!("warning: the registry record was not updated: {err}");
            return Ok(());
        }
        let retry = if self.pasted {
            "a redelivery of the same id records it without pasting the text again"
        } else {
            "a redelivery of the same id may deliver it again"
        };
        Err(format!(
            "the text reached the harness, but its delivery id could not be recorded ({err}); {retry}"
        ))
    }
}
