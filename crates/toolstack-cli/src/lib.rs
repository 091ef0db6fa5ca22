//! # toolstack-cli
//!
//! The `toolstack` command: each layer of toolstack answers from the same
//! code the library runs, for people (default) and scripts (`--json`).
//!
//! | command | question it answers |
//! |---|---|
//! | `search` | would the search find my tool for this request? |
//! | `eval-search` | how good is the search on labelled requests? |
//! | `render` | what does the model actually see? |
//! | `plan` | why did these calls run one by one? |
//! | `policy check` / `policy list` | why was this tool denied? who sees what? |
//! | `demo` | one scripted turn, end to end |

pub mod commands;
pub mod demo;
pub mod error;
pub mod io;
