//! # toolstack-cli
//!
//! Planned (issue: the `toolstack` command): the `toolstack` binary with
//! search, eval-search, render, plan, policy, demo and serve.
