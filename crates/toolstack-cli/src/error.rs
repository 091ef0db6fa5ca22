//! [`CliError`]: every way a command fails, naming the file, line or key at
//! fault. Printed on stderr; the process exits with code 1.

use std::fmt;
use std::path::Path;

/// A command that cannot complete: a message that names what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError(pub String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CliError {}

impl CliError {
    /// An error about a file.
    pub fn file(path: &Path, message: impl fmt::Display) -> Self {
        Self(format!("{}: {message}", path.display()))
    }
}

/// Shorthand for results of commands.
pub type CliResult<T> = Result<T, CliError>;

/// Turn any displayable error into a [`CliError`].
pub fn cli<E: fmt::Display>(e: E) -> CliError {
    CliError(e.to_string())
}
