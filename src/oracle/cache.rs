//! The oracle's decision cache: least-recently-used, bounded by entries and by bytes, so a long
//! run stays flat in memory.

use super::Decision;
use crate::program::ProgramHash;
use lru::LruCache;

/// Cache key: (task id, candidate hash).
pub type Key = (String, ProgramHash);

/// Bounded LRU map from (task, candidate) to its decision.
pub struct DecisionCache {
    map: LruCache<Key, (Decision, usize)>,
    bytes: usize,
    max_entries: usize,
    max_bytes: usize,
}

/// The approximate heap size of one entry.
fn size_of(key: &Key, d: &Decision) -> usize {
    let failure = d.failure.as_ref().map_or(0, |f| {
        f.input.len()
            + f.expected.len()
            + f.got.len()
            + f.stderr_tail.len()
            + f.sandbox_failure.as_ref().map_or(0, String::len)
            + 64
    });
    key.0.len() + std::mem::size_of::<Key>() + std::mem::size_of::<Decision>() + failure
}

impl DecisionCache {
    /// An empty cache of at most `max_entries` entries and `max_bytes` bytes.
    pub fn new(max_entries: usize, max_bytes: usize) -> Self {
        DecisionCache {
            map: LruCache::unbounded(),
            bytes: 0,
            max_entries: max_entries.max(1),
            max_bytes,
        }
    }

    /// The decision for `key`, marked as recently used.
    pub fn get(&mut self, key: &Key) -> Option<Decision> {
        self.map.get(key).map(|(d, _)| d.clone())
    }

    /// Stores a decision, evicting the least recently used ones to stay within both bounds.
    pub fn insert(&mut self, key: Key, decision: Decision) {
        let size = size_of(&key, &decision);
        if size > self.max_bytes {
            return;
        }
        if let Some((_, old)) = self.map.pop(&key) {
            self.bytes -= old;
        }
        while self.map.len() >= self.max_entries || self.bytes + size > self.max_bytes {
            match self.map.pop_lru() {
                Some((_, (_, s))) => self.bytes -= s,
                None => break,
            }
        }
        self.bytes += size;
        self.map.put(key, (decision, size));
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Approximate bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::{ExitClass, TestFailure};

    fn decision(output: usize) -> Decision {
        Decision {
            equivalent: output == 0,
            failure: (output > 0).then(|| TestFailure {
                test: 0,
                input: String::new(),
                expected: "e".repeat(output),
                got: String::new(),
                expected_class: ExitClass::Success,
                got_class: ExitClass::Success,
                stderr_tail: String::new(),
                sandbox_failure: None,
                left_running: None,
                call: None,
                grown: false,
            }),
            tests_run: 1,
            cached: false,
            invalid: None,
        }
    }

    fn key(i: u32) -> Key {
        ("t".into(), ProgramHash::of(&i.to_string()))
    }

    #[test]
    fn evicts_least_recently_used_by_count() {
        let mut c = DecisionCache::new(2, usize::MAX);
        c.insert(key(1), decision(0));
        c.insert(key(2), decision(0));
        assert!(c.get(&key(1)).is_some()); // 1 is now the most recent
        c.insert(key(3), decision(0));
        assert_eq!(c.len(), 2);
        assert!(c.get(&key(2)).is_none(), "2 was least recently used");
        assert!(c.get(&key(1)).is_some() && c.get(&key(3)).is_some());
    }

    #[test]
    fn stays_within_its_byte_bound() {
        let mut c = DecisionCache::new(1000, 10_000);
        for i in 0..100 {
            c.insert(key(i), decision(1000));
            assert!(c.bytes() <= 10_000, "{} bytes", c.bytes());
        }
        assert!(c.len() < 10 && c.len() > 0, "{}", c.len());
        // Replacing an entry does not count it twice.
        let before = c.bytes();
        c.insert(key(99), decision(1000));
        assert_eq!(c.bytes(), before);
        // An entry larger than the whole bound is not stored.
        c.insert(key(500), decision(20_000));
        assert!(c.get(&key(500)).is_none());
    }
}
