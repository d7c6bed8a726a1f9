//! `standing stop`: the close path, as `sessions stop` takes it.

use super::{key, not_registered};
use crate::ops::sessions::close::{stop_session, Named, Stopped, TmuxChoice};
use crate::ops::Context;

#[derive(Debug)]
pub struct StopOptions {
    pub name: String,
    pub tmux: TmuxChoice,
}

pub fn stop(ctx: &Context, options: &StopOptions) -> miette::Result<Stopped> {
    let key = key(&options.name)?;
    let named = Named::Standing(options.name.clone());
    stop_session(ctx, &key, named, options.tmux, || {
        not_registered(&options.name)
    })
}
