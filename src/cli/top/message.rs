//! What the refresher and the actions' threads send the screen.

use crate::ops::top::TopModel;

/// What the refresher and the actions' threads tell the screen.
pub(super) enum Message {
    Model(Box<TopModel>),
    RefreshFailed(String),
    /// A line of an action's progress.
    Progress(String),
    /// The action ended; its last lines.
    Done(Vec<String>),
}
