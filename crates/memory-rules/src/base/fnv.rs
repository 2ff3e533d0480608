//! FNV-1a, 64 bits: the one hash of what is saved or named on disk (rule
//! versions, token-cache keys, memory-index signatures, session file
//! names), stable across processes, versions and platforms.

/// An FNV-1a hash being fed.
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Fnv1a {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    /// With `bytes` fed in.
    pub fn update(mut self, bytes: &[u8]) -> Fnv1a {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}

/// The FNV-1a hash of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    Fnv1a::default().update(bytes).finish()
}

/// `h` as 16 lower-case hex digits, as `format!("{h:016x}")` writes it,
/// without the formatting machinery (a hook writes one per rule it gives,
/// three times over).
pub fn hex16(h: u64) -> String {
    let mut out = String::with_capacity(16);
    push_hex16(&mut out, h);
    out
}

/// [`hex16`] appended to `out`.
pub fn push_hex16(out: &mut String, h: u64) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for i in (0..16).rev() {
        out.push(char::from(DIGITS[((h >> (i * 4)) & 0xf) as usize]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex16_writes_what_format_writes() {
        for h in [
            0,
            1,
            0xf,
            0xabc,
            0x0123_4567_89ab_cdef,
            u64::MAX,
            fnv1a(b"x"),
        ] {
            assert_eq!(hex16(h), format!("{h:016x}"));
        }
    }

    #[test]
    fn fnv1a_gives_the_published_values_and_feeds_in_parts() {
        // The FNV reference values for "" and "a".
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(
            Fnv1a::default().update(b"ab").update(b"c").finish(),
            fnv1a(b"abc")
        );
    }
}
