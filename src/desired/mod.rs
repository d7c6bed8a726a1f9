//! Desired state: the config and the env file, and the policy that turns
//! them into the environment each managed session must hold.

pub mod config;
pub mod envfile;
pub mod policy;
