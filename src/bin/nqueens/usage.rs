//! Usage errors: mistakes in what the user asked for, found after parsing
//! (exit status 2), raised by the commands and by the output they choose.

/// A mistake in what the user asked for, found after parsing: exit status 2.
#[derive(Debug)]
pub struct UsageError(String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// A usage error saying `message`.
pub fn usage(message: String) -> anyhow::Error {
    anyhow::Error::new(UsageError(message))
}
