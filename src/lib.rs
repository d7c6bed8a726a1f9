//! the-loop: a Terraform-style reconciler for agent sessions hosted in tmux.
//!
//! Data flows through the modules in this order:
//! [`desired`] (config and env file) and [`observed`] (tmux and `/proc`)
//! feed [`plan`], which is rendered or handed to [`apply`], which respawns,
//! verifies and reports. [`registry`] holds the records that tie a tmux
//! session to a work item and its conversation.

pub mod activity;
pub mod announce;
pub mod apply;
pub mod bounded_read;
pub mod build_info;
pub mod cli;
pub mod clock;
pub mod console;
pub mod desired;
pub mod events;
pub mod fsutil;
pub mod harness;
pub mod host_kind;
pub mod hosts;
pub mod lifecycle;
pub mod lockfile;
pub mod observed;
pub mod ops;
pub mod parallel;
pub mod plan;
pub mod preflight;
pub mod proc_env;
pub mod process_env;
pub mod registry;
pub mod runner;
pub mod schemas;
pub mod secret;
pub mod services;
pub mod style;
pub mod tmux;
pub mod typed_text;
pub mod views;
pub mod watch;
pub mod web_terminal;
