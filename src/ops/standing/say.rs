//! `standing say`: a delivery into a standing session.

use super::key;
use crate::lifecycle::deliver::DeliveryReport;
use crate::ops::sessions::deliver::{into, Message};
use crate::ops::Context;

#[derive(Debug)]
pub struct SayOptions {
    pub name: String,
    pub message: Message,
}

pub fn say(ctx: &Context, options: &SayOptions) -> miette::Result<DeliveryReport> {
    into(ctx, key(&options.name)?, &options.message, None)
}
