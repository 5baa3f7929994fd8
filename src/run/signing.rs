//! A run's secret key (`--key FILE`). The checksums of journal lines and
//! shard files catch damage, not an edit made on purpose: anyone can
//! recompute them. With a key, every journal line and shard file carries a
//! keyed MAC instead (BLAKE3 in keyed mode, 128 bits), which only a holder
//! of the key can make, so a coordinator refuses results that were not made
//! by workers given the run's key. Without a key nothing changes.

use std::io::Read;
use std::path::Path;

/// The key a run's results are signed with, derived from a key file.
#[derive(Clone)]
pub struct RunKey([u8; 32]);

impl std::fmt::Debug for RunKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key itself.
        f.write_str("RunKey(..)")
    }
}

/// Least secret a key file holds.
pub const MIN_KEY_BYTES: usize = 16;
/// Most a key file may hold (it is read whole).
const MAX_KEY_BYTES: u64 = 64 * 1024;

impl RunKey {
    /// The key from a file's bytes (at least [`MIN_KEY_BYTES`]: e.g. made
    /// with `head -c 32 /dev/urandom > run.key`); an error says what is
    /// wrong with the file in one line.
    pub fn from_file(path: &Path) -> Result<RunKey, String> {
        let name = path.display();
        let metadata = std::fs::metadata(path)
            .map_err(|err| format!("cannot read the key file {name}: {err}"))?;
        if !metadata.is_file() {
            return Err(format!("the key file {name} is not a regular file"));
        }
        let mut secret = Vec::new();
        std::fs::File::open(path)
            .and_then(|file| file.take(MAX_KEY_BYTES + 1).read_to_end(&mut secret))
            .map_err(|err| format!("cannot read the key file {name}: {err}"))?;
        if secret.len() as u64 > MAX_KEY_BYTES {
            return Err(format!("the key file {name} is larger than 64 KiB: a key is some random bytes (head -c 32 /dev/urandom > {name})"));
        }
        RunKey::from_secret(&secret).ok_or_else(|| {
            format!(
                "the key file {name} holds {} bytes, fewer than {MIN_KEY_BYTES}: make one with head -c 32 /dev/urandom > {name}",
                secret.len()
            )
        })
    }

    /// The key from secret bytes, if there are at least [`MIN_KEY_BYTES`].
    pub fn from_secret(secret: &[u8]) -> Option<RunKey> {
        (secret.len() >= MIN_KEY_BYTES)
            .then(|| RunKey(blake3::derive_key("nqueens run key v1", secret)))
    }

    /// A key of its own for one context (`parts` joined), made from this
    /// one: a MAC under it holds in that context alone.
    pub(crate) fn derive(&self, parts: &[&[u8]]) -> RunKey {
        let mut hasher = blake3::Hasher::new_keyed(&self.0);
        for part in parts {
            hasher.update(part);
        }
        RunKey(*hasher.finalize().as_bytes())
    }

    /// The MAC of `text`, as 32 hex digits.
    pub fn mac(&self, text: &[u8]) -> String {
        let hash = blake3::keyed_hash(&self.0, text);
        hash.as_bytes()[..16]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }

    /// Whether `mac` is the MAC of `text` under this key.
    pub fn verify(&self, text: &[u8], mac: &str) -> bool {
        let expected = self.mac(text);
        // Compared in constant time: a MAC is a secret until it matches.
        expected.len() == mac.len()
            && expected
                .bytes()
                .zip(mac.bytes())
                .fold(0u8, |diff, (a, b)| diff | (a ^ b))
                == 0
    }
}
