//! The seals of journal lines. The header is sealed by its own text; every
//! later line of a current journal is sealed together with the header's
//! text, so a line holds only in the journal of its plan: a line copied
//! from a journal of another N, method, split or key does not unseal and is
//! refused, instead of adding another plan's count to this one's total.

use crate::plan::Fnv1a;
use crate::run::signing::RunKey;

/// The header's format tag: lines bound to their plan.
pub(super) const MAGIC: &str = "nqueens-journal-v2";

/// The tag of journals whose lines were sealed by their own text alone
/// (before lines were bound to their plan). They are still read and resumed
/// (months of finished work may be in one), with a note.
pub(super) const MAGIC_UNBOUND: &str = "nqueens-journal-v1";

/// What domain-separates a journal's line key from the run key itself.
const LINE_KEY_CONTEXT: &[u8] = b"nqueens journal lines v2\n";

/// How the lines after a journal's header are sealed and checked.
#[derive(Clone)]
pub(super) struct LineSeal {
    /// FNV-1a state after the header's text and a newline: a line's
    /// checksum continues from it.
    bound: Option<Fnv1a>,
    /// The key lines carry MACs under: the run key itself for an unbound
    /// journal, or one derived from it and the header's text.
    key: Option<RunKey>,
}

impl LineSeal {
    /// Lines bound to the journal whose header text is `header`.
    pub(super) fn bound(header: &str, key: Option<&RunKey>) -> LineSeal {
        let mut prefix = Fnv1a::new();
        prefix.write(header.as_bytes());
        prefix.write(b"\n");
        LineSeal {
            bound: Some(prefix),
            key: key.map(|key| key.derive(&[LINE_KEY_CONTEXT, header.as_bytes()])),
        }
    }

    /// Lines sealed by their own text, as a journal of the earlier format
    /// (and every journal's header) is.
    pub(super) fn unbound(key: Option<&RunKey>) -> LineSeal {
        LineSeal {
            bound: None,
            key: key.cloned(),
        }
    }

    /// Whether lines are bound to their journal's header.
    pub(super) fn is_bound(&self) -> bool {
        self.bound.is_some()
    }

    fn checksum(&self, text: &str) -> u64 {
        let mut hash = self.bound.clone().unwrap_or_else(Fnv1a::new);
        hash.write(text.as_bytes());
        hash.finish()
    }

    /// `text` with its seal appended, and a newline: its checksum, or with
    /// a key, its MAC (` #k` and 32 hex digits).
    pub(super) fn seal(&self, text: &str) -> String {
        match &self.key {
            None => format!("{text} #{:016x}\n", self.checksum(text)),
            Some(key) => format!("{text} #k{}\n", key.mac(text.as_bytes())),
        }
    }

    /// The text of a sealed line, if its seal holds.
    pub(super) fn unseal<'a>(&self, line: &'a str) -> Option<&'a str> {
        let (text, sum) = line.rsplit_once(" #")?;
        match &self.key {
            None => {
                let sum = u64::from_str_radix(sum, 16).ok()?;
                (sum == self.checksum(text)).then_some(text)
            }
            Some(key) => key
                .verify(text.as_bytes(), sum.strip_prefix('k')?)
                .then_some(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(byte: u8) -> RunKey {
        RunKey::from_secret(&[byte; 32]).unwrap()
    }

    #[test]
    fn a_line_unseals_only_under_the_header_and_key_it_was_sealed_with() {
        let headers = [
            "nqueens-journal-v2 fingerprint=0123456789abcdef n=14 method=join split=2 tasks=1716",
            "nqueens-journal-v2 fingerprint=0123456789abcdef n=13 method=join split=2 tasks=1716",
            "nqueens-journal-v2 fingerprint=fedcba9876543210 n=14 method=join split=2 tasks=1716",
        ];
        let keys = [None, Some(key(1)), Some(key(2))];
        let text = "task 13 356 0 0 0 0 4133 812";
        for (h, header) in headers.iter().enumerate() {
            for (k, run_key) in keys.iter().enumerate() {
                let line = LineSeal::bound(header, run_key.as_ref()).seal(text);
                let line = line.trim_end_matches('\n');
                for (h2, header2) in headers.iter().enumerate() {
                    for (k2, run_key2) in keys.iter().enumerate() {
                        let seal = LineSeal::bound(header2, run_key2.as_ref());
                        let same = h == h2 && k == k2;
                        assert_eq!(
                            seal.unseal(line),
                            same.then_some(text),
                            "{h}/{k} as {h2}/{k2}"
                        );
                    }
                    // An unbound reader takes none of them.
                    let unbound = LineSeal::unbound(run_key.as_ref());
                    assert_eq!(unbound.unseal(line), None);
                }
            }
        }
    }

    #[test]
    fn an_unbound_line_holds_by_its_own_text() {
        let seal = LineSeal::unbound(None);
        let line = seal.seal("task 1 2 3 4 5 6 7");
        assert_eq!(
            line,
            format!(
                "task 1 2 3 4 5 6 7 #{:016x}\n",
                crate::plan::fnv1a(b"task 1 2 3 4 5 6 7")
            )
        );
        assert_eq!(seal.unseal(line.trim_end()), Some("task 1 2 3 4 5 6 7"));
    }
}
