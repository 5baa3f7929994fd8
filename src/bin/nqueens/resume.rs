//! How to resume a stopped count: this command line again, quoted so that
//! a shell reads it back as it was given.

/// The end of every line of a stopped count that kept nothing.
pub const NOTHING_SAVED: &str =
    "; nothing was saved (add --checkpoint FILE to make a run resumable)";

/// How to resume: this command line again (under MPI, in the same
/// `mpirun` command).
pub fn resume_line(mpi: bool) -> String {
    let how = if mpi {
        "resume with the same mpirun command"
    } else {
        "resume with"
    };
    format!("{how}:\n  {}", resume_command())
}

/// The command line that resumes this run, quoted for a POSIX shell, for
/// the interruption message. Arguments are taken as the system gives them:
/// a path need not be UTF-8.
pub fn resume_command() -> String {
    std::env::args_os()
        .map(|arg| shell_word(&arg))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One argument as a shell reads it back: quoted where needed, and bytes
/// that are not UTF-8 written as `$'\xNN'` (bash, zsh and ksh read that).
fn shell_word(arg: &std::ffi::OsStr) -> String {
    if let Some(text) = arg.to_str() {
        // Quoting fails only on a NUL byte, which no argument can hold.
        return shlex::try_quote(text).map_or_else(|_| text.to_string(), |word| word.into_owned());
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let mut word = String::from("$'");
        for &byte in arg.as_bytes() {
            match byte {
                b'\\' | b'\'' => {
                    word.push('\\');
                    word.push(char::from(byte));
                }
                0x20..=0x7e => word.push(char::from(byte)),
                _ => word.push_str(&format!("\\x{byte:02x}")),
            }
        }
        word.push('\'');
        word
    }
    #[cfg(not(unix))]
    {
        arg.to_string_lossy().into_owned()
    }
}
