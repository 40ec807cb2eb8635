//! Whether a text, read as it is, may hold a spelling of a known secret: the question the
//! scrubber asks of every text before it reads one in full ([`super::Scrubber::find`]), so
//! the one a clean text (every header, nearly every body) costs.
//!
//! One pass over the text, each byte [`fold`]ed as spellings are compared, the last four kept
//! in a word; the word is looked up in a bitmap of the spellings' first four bytes, and a
//! spelling is compared whole only where the bitmap says one may start there. Building it
//! is a bitmap and a sorted list (an automaton of one signature's spellings costs tens of
//! thousands of instructions, each text's search then several per byte). Spellings shorter
//! than four bytes (a short secret) are compared at every place. The test is exact for what
//! it answers: a text holding a spelling always answers yes (`tests`: against a plain search).

use super::folded::dropped_ascii;
use super::spellings::fold;

/// [`fold`] as a table, for the byte loop.
static FOLDED: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        // `byte < 256`: the cast keeps every bit.
        #[allow(clippy::cast_possible_truncation)]
        let folded = fold(byte as u8);
        table[byte] = folded;
        byte += 1;
    }
    table
};

/// The bitmap's bits: 2 KiB, copied whole where two prefilters are read in one pass. With the
/// most secrets a client remembers (`registry.rs`: about 1,500 spellings) a tenth of the bits
/// are set; with one session's few dozen, one in 400.
const BITS_LOG2: u32 = 14;

/// Bit `hash(w)` set for the first four bytes `w` of each spelling of four or more.
type Bitmap = [u64; (1 << BITS_LOG2) / 64];

/// A set of folded spellings, asked whether a text holds one (see the module docs).
pub(super) struct Prefilter {
    /// The first four bytes of its spellings, and of those of the prefilter it was made
    /// [`Prefilter::beside`].
    bitmap: Box<Bitmap>,
    /// The spellings of four bytes or more, by their first four (sorted).
    long: Vec<(u32, Vec<u8>)>,
    /// The spellings shorter than four bytes.
    short: Vec<Vec<u8>>,
    /// See [`Prefilter::closed`].
    closed: bool,
}

impl Prefilter {
    /// The prefilter of `spellings`, each already folded.
    pub(super) fn new(spellings: Vec<Vec<u8>>) -> Prefilter {
        Prefilter::over(spellings, Box::new([0; (1 << BITS_LOG2) / 64]))
    }

    /// The prefilter of `spellings`, its bits set in `bitmap` (which may hold others).
    fn over(spellings: Vec<Vec<u8>>, mut bitmap: Box<Bitmap>) -> Prefilter {
        let mut long = Vec::with_capacity(spellings.len());
        let mut short = Vec::new();
        for spelling in spellings {
            match *spelling.as_slice() {
                [] => {}
                [a, b, c, d, ..] => long.push((u32::from_le_bytes([a, b, c, d]), spelling)),
                _ => short.push(spelling),
            }
        }
        long.sort_unstable();
        long.dedup();
        // Whether the kept bytes of each spelling holding a dropped byte are a spelling.
        let closed = long
            .iter()
            .map(|(_, spelling)| spelling)
            .chain(&short)
            // Without a branch a byte (every answer's signature is read so).
            .filter(|spelling| {
                spelling
                    .iter()
                    .fold(false, |any, &byte| any | DROPS[usize::from(byte)])
            })
            .all(|spelling| {
                let len = kept_bytes(spelling).count();
                let mut first = [0u8; 4];
                for (slot, byte) in first.iter_mut().zip(kept_bytes(spelling)) {
                    *slot = byte;
                }
                let same = |other: &[u8]| {
                    other.len() == len && other.iter().copied().eq(kept_bytes(spelling))
                };
                match len {
                    0 => false,
                    1..4 => short.iter().any(|other| same(other)),
                    _ => {
                        let first = u32::from_le_bytes(first);
                        let from = long.partition_point(|(held, _)| *held < first);
                        long[from..]
                            .iter()
                            .take_while(|(held, _)| *held == first)
                            .any(|(_, other)| same(other))
                    }
                }
            });
        for (first, _) in &long {
            let bit = hash(*first);
            bitmap[bit / 64] |= 1 << (bit % 64);
        }
        Prefilter {
            bitmap,
            long,
            short,
            closed,
        }
    }

    /// The prefilter of `spellings`, read in one pass with `other`: [`Prefilter::holds`] with
    /// `other` answers for both sets. Costs a copy of `other`'s bitmap, whatever its size.
    pub(super) fn beside(spellings: Vec<Vec<u8>>, other: &Prefilter) -> Prefilter {
        Prefilter::over(spellings, other.bitmap.clone())
    }

    /// Whether `text` holds one of the spellings, its bytes folded, or (`other`: the prefilter
    /// this one was made [`Prefilter::beside`]) one of `other`'s.
    pub(super) fn holds(&self, text: &[u8], other: Option<&Prefilter>) -> bool {
        let sets = || std::iter::once(self).chain(other);
        if sets().any(|set| {
            set.short
                .iter()
                .any(|spelling| starts_anywhere(text, spelling))
        }) {
            return true;
        }
        if sets().all(|set| set.long.is_empty()) {
            return false;
        }
        let mut from = 0;
        while let Some((start, first)) = next_candidate(&self.bitmap, text, from) {
            if sets().any(|set| set.long_at(first, &text[start..])) {
                return true;
            }
            from = start + 1;
        }
        false
    }

    /// [`Prefilter::holds`] of the text `text` is once the bytes folding drops
    /// ([`dropped_ascii`]: ASCII white space, `+`, `-`, `:`) are left out, read in place: the
    /// folded view of ASCII text (`folded.rs`) without making it. `None` when a set has a
    /// spelling shorter than four bytes, which only the view itself can be searched for.
    ///
    /// When both sets are [`Prefilter::closed`], it also answers [`Prefilter::holds`] of the
    /// text as it is: whatever spelling the text holds, the text without the dropped bytes
    /// holds that spelling's kept bytes, another spelling.
    pub(super) fn holds_kept(&self, text: &[u8], other: Option<&Prefilter>) -> Option<bool> {
        let sets = || std::iter::once(self).chain(other);
        if sets().any(|set| !set.short.is_empty()) {
            return None;
        }
        if sets().all(|set| set.long.is_empty()) {
            return Some(false);
        }
        let mut from = 0;
        while let Some((start, first)) = next_kept_candidate(&self.bitmap, text, from) {
            let kept = || kept_bytes(&text[start..]);
            if sets().any(|set| set.long_at_with(first, |spelling| starts_with(kept(), spelling))) {
                return Some(true);
            }
            from = start + 1;
        }
        Some(false)
    }

    /// Whether every spelling holding a byte folding drops has its kept bytes (the spelling
    /// without those) among the spellings too: then a text holding any spelling holds one
    /// without the dropped bytes, and [`Prefilter::holds_kept`] answers for the text as it is
    /// as well. The spellings of an ASCII secret (`folded::spellings`: its folded form beside
    /// each) are so, but for one made of dropped bytes only; those of a secret beyond ASCII
    /// holding a space may not be (its folded form is decomposed), and are then read twice.
    pub(super) fn closed(&self) -> bool {
        self.closed
    }

    /// Whether a spelling starting with the four bytes `first` starts `text`.
    fn long_at(&self, first: u32, text: &[u8]) -> bool {
        self.long_at_with(first, |spelling| starts_folded(text, spelling))
    }

    /// Whether `starts` says a spelling starting with the four bytes `first` starts the text.
    fn long_at_with(&self, first: u32, starts: impl Fn(&[u8]) -> bool) -> bool {
        let from = self.long.partition_point(|(held, _)| *held < first);
        self.long[from..]
            .iter()
            .take_while(|(held, _)| *held == first)
            .any(|(_, spelling)| starts(spelling))
    }
}

/// [`fold`] of each byte folding keeps, [`DROPPED`] for those it drops ([`dropped_ascii`]):
/// one lookup a byte in [`next_kept_candidate`].
static KEPT: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut byte = 0;
    while byte < 256 {
        // `byte < 256`: the cast keeps every bit.
        #[allow(clippy::cast_possible_truncation)]
        let byte_u8 = byte as u8;
        table[byte] = if dropped_ascii(byte_u8) {
            DROPPED
        } else {
            fold(byte_u8) as u16
        };
        byte += 1;
    }
    table
};

/// [`dropped_ascii`] as a table.
static DROPS: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        // `byte < 256`: the cast keeps every bit.
        #[allow(clippy::cast_possible_truncation)]
        let dropped = dropped_ascii(byte as u8);
        table[byte] = dropped;
        byte += 1;
    }
    table
};

/// A dropped byte in [`KEPT`]: no byte's value.
const DROPPED: u16 = 0x100;

/// [`next_candidate`] over the bytes of `text` folding keeps ([`KEPT`]): where the first of
/// the four bytes is in `text`, and those bytes.
#[inline(never)]
fn next_kept_candidate(bitmap: &Bitmap, text: &[u8], from: usize) -> Option<(usize, u32)> {
    let text = text.get(from..)?;
    // The first three kept bytes, then one word a kept byte, as in `next_candidate`.
    let mut word = 0u32;
    let mut read = 0;
    let mut at = 0;
    while read < 3 {
        let folded = KEPT[usize::from(*text.get(at)?)];
        at += 1;
        if folded != DROPPED {
            word = (word >> 8) | (u32::from(folded) << 24);
            read += 1;
        }
    }
    // The place of a byte read found from what is left to read: no index kept in the loop,
    // which then keeps its values in registers.
    let mut rest = text[at..].iter();
    while let Some(&byte) = rest.next() {
        let folded = KEPT[usize::from(byte)];
        if folded == DROPPED {
            continue;
        }
        word = (word >> 8) | (u32::from(folded) << 24);
        let bit = hash(word);
        if bitmap[bit / 64] & (1 << (bit % 64)) != 0 {
            // Rare: where the word's first byte is, three kept bytes back (apart, so that
            // the loop keeps no count of its own).
            return Some((
                from + three_kept_back(text, text.len() - rest.len() - 1),
                word,
            ));
        }
    }
    None
}

/// Where in `text` the third kept byte before `end` is (the first of the four ending at
/// `end`), or 0.
#[cold]
#[inline(never)]
fn three_kept_back(text: &[u8], end: usize) -> usize {
    let kept = |byte: &u8| !dropped_ascii(*byte);
    text[..end]
        .iter()
        .rposition(kept)
        .and_then(|second| text[..second].iter().rposition(kept))
        .and_then(|third| text[..third].iter().rposition(kept))
        .unwrap_or_default()
}

/// The bytes of `text` folding keeps.
fn kept_bytes(text: &[u8]) -> impl Iterator<Item = u8> + '_ {
    text.iter().copied().filter(|&byte| !dropped_ascii(byte))
}

/// Whether `bytes`, folded, start with `spelling`.
fn starts_with(mut bytes: impl Iterator<Item = u8>, spelling: &[u8]) -> bool {
    spelling.iter().all(|&wanted| {
        bytes
            .next()
            .is_some_and(|byte| FOLDED[usize::from(byte)] == wanted)
    })
}

/// The first place from `from` on where four bytes of `text`, folded, have their bit set in
/// `bitmap`, and those bytes. Apart from the rest, so that the loop keeps its few values in
/// registers: every byte of every clean text goes through it.
#[inline(never)]
fn next_candidate(bitmap: &Bitmap, text: &[u8], from: usize) -> Option<(usize, u32)> {
    let text = text.get(from..)?;
    let (head, rest) = text.split_first_chunk::<3>()?;
    // The last four bytes read, the earliest lowest: as `u32::from_le_bytes` reads them.
    let mut word = head.iter().fold(0u32, |word, &byte| {
        (word >> 8) | (u32::from(FOLDED[usize::from(byte)]) << 24)
    });
    for (start, &byte) in rest.iter().enumerate() {
        word = (word >> 8) | (u32::from(FOLDED[usize::from(byte)]) << 24);
        let bit = hash(word);
        if bitmap[bit / 64] & (1 << (bit % 64)) != 0 {
            return Some((from + start, word));
        }
    }
    None
}

/// Where in the bitmap the four bytes `word` go (below `1 << BITS_LOG2`).
fn hash(word: u32) -> usize {
    // Fibonacci hashing: the high bits of the product mix every byte of the word.
    (word.wrapping_mul(0x9E37_79B1) >> (32 - BITS_LOG2)) as usize
}

/// Whether `text`, folded, starts with `spelling`.
fn starts_folded(text: &[u8], spelling: &[u8]) -> bool {
    text.len() >= spelling.len() && starts_with(text.iter().copied(), spelling)
}

/// Whether `text`, folded, holds `spelling` anywhere.
fn starts_anywhere(text: &[u8], spelling: &[u8]) -> bool {
    (0..text.len()).any(|at| starts_folded(&text[at..], spelling))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The plain answer: fold the text, look for each spelling.
    fn plainly(spellings: &[Vec<u8>], text: &[u8]) -> bool {
        let folded: Vec<u8> = text.iter().copied().map(fold).collect();
        spellings.iter().filter(|s| !s.is_empty()).any(|spelling| {
            folded
                .windows(spelling.len())
                .any(|window| window == spelling.as_slice())
        })
    }

    /// `bytes` without the bytes folding drops.
    fn without_dropped(bytes: &[u8]) -> Vec<u8> {
        bytes
            .iter()
            .copied()
            .filter(|&b| !dropped_ascii(b))
            .collect()
    }

    fn folded(bytes: &[u8]) -> Vec<u8> {
        bytes.iter().copied().map(fold).collect()
    }

    /// Spellings over a small alphabet (so texts hold them often), and a text made of pieces
    /// of them and of other bytes: every answer is the plain search's.
    fn case() -> impl Strategy<Value = (Vec<Vec<u8>>, Vec<u8>)> {
        let byte = prop::sample::select(b"abAB+-_/ :\n\x00\xff".to_vec());
        let spellings = prop::collection::vec(prop::collection::vec(byte.clone(), 0..9), 0..6)
            .prop_map(|spellings| spellings.iter().map(|s| folded(s)).collect::<Vec<_>>());
        spellings.prop_flat_map(move |spellings| {
            let piece = prop_oneof![
                prop::collection::vec(byte.clone(), 0..6),
                prop::sample::select(if spellings.is_empty() {
                    vec![Vec::new()]
                } else {
                    spellings.clone()
                }),
            ];
            (
                Just(spellings),
                prop::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat()),
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

        #[test]
        fn answers_as_a_plain_search_of_the_folded_text((spellings, text) in case()) {
            let prefilter = Prefilter::new(spellings.clone());
            prop_assert_eq!(prefilter.holds(&text, None), plainly(&spellings, &text));
            // Split in two sets read in one pass, the answer is the same.
            let (first, second) = spellings.split_at(spellings.len() / 2);
            let other = Prefilter::new(second.to_vec());
            let joined = Prefilter::beside(first.to_vec(), &other);
            prop_assert_eq!(joined.holds(&text, Some(&other)), plainly(&spellings, &text));
            // Read leaving out the bytes folding drops, the answer is that of the text
            // without them.
            let kept = without_dropped(&text);
            if let Some(held) = joined.holds_kept(&text, Some(&other)) {
                prop_assert_eq!(held, plainly(&spellings, &kept));
                // Closed, it answers for the text as it is too.
                if joined.closed() && other.closed() {
                    prop_assert_eq!(held, plainly(&spellings, &text) || plainly(&spellings, &kept));
                }
            } else {
                prop_assert!(spellings.iter().any(|s| !s.is_empty() && s.len() < 4));
            }
        }

        /// The spellings with the kept bytes of each beside it, as `folded::spellings` makes
        /// them for an ASCII secret: closed, and read without the dropped bytes it answers for the text as it is
        /// and without them alike.
        #[test]
        fn closed_spellings_answer_for_the_text_as_it_is((spellings, text) in case()) {
            let mut all = spellings.clone();
            for spelling in &spellings {
                let kept = without_dropped(spelling);
                if !kept.is_empty() && !all.contains(&kept) {
                    all.push(kept);
                }
            }
            let prefilter = Prefilter::new(all.clone());
            let wholly_dropped = spellings
                .iter()
                .any(|s| !s.is_empty() && without_dropped(s).is_empty());
            prop_assert_eq!(prefilter.closed(), !wholly_dropped);
            if let (true, Some(held)) = (prefilter.closed(), prefilter.holds_kept(&text, None)) {
                prop_assert_eq!(held, plainly(&all, &text) || plainly(&all, &without_dropped(&text)));
            }
        }

        /// The spellings of an ASCII secret are closed (so its texts are read once), unless
        /// the secret is only bytes folding drops.
        #[test]
        fn an_ascii_secrets_spellings_are_closed(secret in "[ -~\\t\\n]{1,24}") {
            let prefilter = Prefilter::new(super::super::folded::spellings(&secret));
            let only_dropped = secret.bytes().all(dropped_ascii);
            prop_assert_eq!(prefilter.closed(), !only_dropped);
        }

        /// With many spellings bits collide; the answers do not change.
        #[test]
        fn many_random_spellings_answer_as_a_plain_search(
            spellings in prop::collection::vec(prop::collection::vec(any::<u8>(), 1..40), 0..400),
            text in prop::collection::vec(any::<u8>(), 0..600),
            planted in any::<prop::sample::Index>(),
            at in any::<prop::sample::Index>(),
        ) {
            let spellings: Vec<Vec<u8>> = spellings.iter().map(|s| folded(s)).collect();
            let prefilter = Prefilter::new(spellings.clone());
            prop_assert_eq!(prefilter.holds(&text, None), plainly(&spellings, &text));
            if !spellings.is_empty() {
                let mut text = text.clone();
                let place = at.index(text.len() + 1);
                text.splice(place..place, planted.get(&spellings).iter().copied());
                prop_assert!(prefilter.holds(&text, None));
            }
        }
    }
}
