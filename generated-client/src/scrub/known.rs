//! Finding the client's known secrets in a view, each character written as it is or as any
//! escape, mixed as they come (`a\u0026b%2Fc`: one character JSON-escaped, one
//! percent-encoded, the rest plain), in every spelling of the secret a reader takes for it
//! ([`spellings`](super::spellings): normalization forms, hexadecimal, base64; and each folded,
//! for the folded view: [`folded`]).
//!
//! No single decoding of a text can tell whether `%0a` in it is a percent-encoded line feed or
//! three characters of a secret, so both readings are followed: a match is a path through the
//! text where each step reads either one byte as it is or one escape as what it stands for.
//! Paths are threads of an anchored automaton of the secrets, one started at every byte; a
//! thread dies at the first byte no secret continues with, and threads in the same automaton
//! state at the same place are merged (the earliest start kept; a search of the few threads a
//! place usually has, a map beyond), so the live threads are at most the automaton's states.
//! Each byte of the view is read once; the work per byte is bounded by the secrets' length,
//! not by the text.
//!
//! **Short secrets.** A secret shorter than [`SHORT_SECRET`] bytes (a token secret `e` from a
//! hostile service, an app's header value `1`) is removed only where it stands alone: where
//! the bytes of the view around it are not letters or digits. Removing every `e` would blank
//! every text; where such a secret is *named* (`oauth_token_secret=e`) the scan removes it by
//! structure wherever it is. A secret of digits followed by a number's exponent, after any
//! zeros (`584224e0`, `0.584224e6`, `5842240e-1`), stands alone too: it is a number, which
//! a reader may take for the secret's value (the client does: `ResponseMeta::api_version`).

use std::collections::VecDeque;
use std::collections::hash_map::{Entry, HashMap};

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::nfa::contiguous::NFA;
use aho_corasick::{Anchored, StartKind};

use super::Limits;
use super::folded;
use super::prefilter::Prefilter;
use super::scan::Finding;
use super::spellings::fold;
use super::views::{LONGEST_ESCAPE, Unit, escape_at};
use crate::secret::SHORT_SECRET;

/// How many bytes [`SecretSet::find_plain`] reads between two looks at its [`Limits`].
const CHECK_EVERY: usize = super::CHECK_EVERY;

/// A partial match: the automaton's state, where in the original text it started, how many
/// bytes of a spelling it read, and whether the view's byte before its start is not a letter or
/// a digit (see the module docs on short secrets).
#[derive(Clone, Copy, Debug)]
struct Thread {
    state: StateID,
    start: usize,
    depth: usize,
    alone_before: bool,
    /// Whether every byte read so far is an ASCII digit.
    digits: bool,
}

/// Whether a byte is part of a word, for the rule of short secrets: an ASCII letter or digit,
/// or a byte of a character beyond ASCII.
fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || !byte.is_ascii()
}

/// Whether a short secret just read stands alone on its right: the byte after it (`after(0)`,
/// then `after(1)`, …; `None` past what can be seen) is no letter or digit, or (`digits`: the
/// secret is all digits) the number goes on only with zeros and an exponent. The one rule of
/// both ways of finding a secret (see the module docs on short secrets).
fn alone_after(after: impl Fn(usize) -> Option<u8>, digits: bool) -> bool {
    !after(0).is_some_and(is_word_byte) || (digits && exponent_follows(after, 0))
}

/// Whether the bytes from `at` on (`byte_at`) are a number's zeros and exponent: `0`s, then
/// `e` or `E`, a sign or not, and a digit. Looked for within the window, as far as the longest
/// escape reaches.
fn exponent_follows(byte_at: impl Fn(usize) -> Option<u8>, mut at: usize) -> bool {
    while byte_at(at) == Some(b'0') {
        at += 1;
    }
    if !matches!(byte_at(at), Some(b'e' | b'E')) {
        return false;
    }
    at += 1;
    if matches!(byte_at(at), Some(b'+' | b'-')) {
        at += 1;
    }
    byte_at(at).is_some_and(|byte| byte.is_ascii_digit())
}

/// The threads waiting at one place of the view.
#[derive(Default)]
struct Slot {
    threads: Vec<Thread>,
    /// Where each state's thread is, once the slot holds more than [`Slot::SCANNED`]: merging
    /// stays a lookup however many threads a hostile text makes.
    index: HashMap<usize, usize>,
}

impl Slot {
    /// Up to this many threads, a slot is searched rather than indexed (the usual case: one
    /// or two).
    const SCANNED: usize = 8;

    /// Adds `thread`, merged with one already in the same state (the earlier start kept, so
    /// the span found covers both readings; the same state has read the same bytes).
    fn add(&mut self, thread: Thread) {
        let merge = |held: &mut Thread| {
            if thread.start < held.start {
                *held = thread;
            }
        };
        if self.threads.len() <= Self::SCANNED {
            match self
                .threads
                .iter_mut()
                .find(|held| held.state == thread.state)
            {
                Some(held) => merge(held),
                None => {
                    self.threads.push(thread);
                    if self.threads.len() > Self::SCANNED {
                        self.index = (self.threads.iter().enumerate())
                            .map(|(at, held)| (held.state.as_usize(), at))
                            .collect();
                    }
                }
            }
            return;
        }
        let at = self.threads.len();
        match self.index.entry(thread.state.as_usize()) {
            Entry::Occupied(held) => merge(&mut self.threads[*held.get()]),
            Entry::Vacant(slot) => {
                slot.insert(at);
                self.threads.push(thread);
            }
        }
    }

    /// The slot emptied, its storage kept for another place.
    fn clear(&mut self) {
        self.threads.clear();
        self.index.clear();
    }
}

/// The automaton of every spelling of a set of known secrets ([`folded::spellings`]): a DFA
/// while the spellings are short (a table lookup per byte), a contiguous NFA beyond (its size
/// is linear in the spellings', a DFA's is that times the alphabet, too much for a secret an
/// app made long).
///
/// With it, the [`Prefilter`] of the same spellings, which answers whether a text read as it
/// is holds one (the question every clean text is asked) faster than the automaton.
pub(crate) struct SecretSet {
    automaton: Automata,
    prefilter: Prefilter,
}

/// The automaton of a [`SecretSet`], of either kind.
enum Automata {
    Dfa(DFA),
    Nfa(NFA),
}

/// The most bytes of spellings a lasting [`SecretSet`] keeps as a DFA.
const DFA_BYTES: usize = 4096;

/// Whether a [`SecretSet`] serves many texts (a DFA is worth its build) or a few (one call's
/// signature: a contiguous NFA builds faster).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lasting {
    Yes,
    No,
}

impl SecretSet {
    /// The set of every spelling of `secrets` (empty ones left out); `None` when none is left,
    /// `Err` when it cannot be built (more states than it can number).
    pub(crate) fn build<'s>(
        secrets: impl IntoIterator<Item = &'s str>,
        lasting: Lasting,
    ) -> Result<Option<SecretSet>, ()> {
        let mut values: Vec<Vec<u8>> = secrets
            .into_iter()
            .filter(|secret| !secret.is_empty())
            .flat_map(folded::spellings)
            .collect();
        values.sort_unstable();
        values.dedup();
        if values.is_empty() {
            return Ok(None);
        }
        let bytes: usize = values.iter().map(Vec::len).sum();
        let automaton = if lasting == Lasting::Yes && bytes <= DFA_BYTES {
            DFA::builder()
                .start_kind(StartKind::Both)
                .build(&values)
                .map(Automata::Dfa)
        } else {
            NFA::new(&values).map(Automata::Nfa)
        };
        let automaton = automaton.map_err(|_| ())?;
        Ok(Some(SecretSet {
            automaton,
            prefilter: Prefilter::new(values),
        }))
    }

    /// Whether `text`, read as it is, holds a spelling of one of the secrets (short or not:
    /// it decides nothing but whether the text is read in full).
    pub(super) fn in_plain(&self, text: &[u8]) -> bool {
        self.prefilter.holds(text, None)
    }

    /// The prefilter of its spellings (see [`Prefilter::beside`]).
    pub(super) fn prefilter(&self) -> &Prefilter {
        &self.prefilter
    }

    /// Every spelling of the secrets in `text` read as it is, added to `found`, for a text in
    /// which no escape starts anywhere (`views::holds_escape`), so that each byte has one
    /// reading: one unanchored pass of the automaton, linear in the text whatever the secrets'
    /// shape (the anchored threads of [`KnownMatcher`], which follow every reading of every
    /// escape, keep one thread per start inside a periodic secret: `tttt…`). The rule of short
    /// secrets is the matcher's. `None` when `limits` stopped it.
    pub(super) fn find_plain(
        &self,
        text: &[u8],
        limits: &Limits,
        found: &mut Vec<Finding>,
    ) -> Option<()> {
        fn find(
            automaton: &impl Automaton,
            text: &[u8],
            limits: &Limits,
            found: &mut Vec<Finding>,
        ) -> Option<()> {
            let mut state = automaton.start_state(Anchored::No).unwrap_or(StateID::ZERO);
            for (at, &byte) in text.iter().enumerate() {
                if at % CHECK_EVERY == CHECK_EVERY - 1 && limits.stop_after(CHECK_EVERY) {
                    return None;
                }
                state = automaton.next_state(Anchored::No, state, fold(byte));
                if !automaton.is_match(state) {
                    continue;
                }
                let end = at + 1;
                for index in 0..automaton.match_len(state) {
                    let pattern = automaton.match_pattern(state, index);
                    // A pattern matched here was read whole within the text.
                    let Some(start) = end.checked_sub(automaton.pattern_len(pattern)) else {
                        continue;
                    };
                    let spelled = &text[start..end];
                    let alone = || {
                        !start
                            .checked_sub(1)
                            .is_some_and(|before| is_word_byte(text[before]))
                            && alone_after(
                                |i| text.get(end + i).copied().filter(|_| i < LONGEST_ESCAPE),
                                spelled.iter().all(u8::is_ascii_digit),
                            )
                    };
                    if spelled.len() >= SHORT_SECRET || alone() {
                        found.push(Finding {
                            start,
                            end,
                            quoted: false,
                        });
                    }
                }
            }
            (!limits.stop_after(text.len() % CHECK_EVERY)).then_some(())
        }
        match &self.automaton {
            Automata::Dfa(dfa) => find(dfa, text, limits, found),
            Automata::Nfa(nfa) => find(nfa, text, limits, found),
        }
    }

    /// A matcher of the set over one view.
    pub(super) fn matcher(&self) -> Matcher<'_> {
        match &self.automaton {
            Automata::Dfa(dfa) => Matcher::Dfa(KnownMatcher::new(dfa)),
            Automata::Nfa(nfa) => Matcher::Nfa(KnownMatcher::new(nfa)),
        }
    }
}

/// A [`KnownMatcher`] of either kind of set.
pub(super) enum Matcher<'a> {
    Dfa(KnownMatcher<'a, DFA>),
    Nfa(KnownMatcher<'a, NFA>),
}

impl Matcher<'_> {
    /// Reads `unit`; how many threads it moved on (the work, for [`Limits`]).
    pub(super) fn feed(&mut self, unit: Unit) -> usize {
        match self {
            Matcher::Dfa(matcher) => matcher.feed(unit),
            Matcher::Nfa(matcher) => matcher.feed(unit),
        }
    }

    pub(super) fn finish(self) -> Vec<Finding> {
        match self {
            Matcher::Dfa(matcher) => matcher.finish(),
            Matcher::Nfa(matcher) => matcher.finish(),
        }
    }
}

pub(super) struct KnownMatcher<'a, A: Automaton> {
    automaton: &'a A,
    start: StateID,
    /// The units from the current place on (the current one first), as far as the longest
    /// escape reaches.
    window: VecDeque<Unit>,
    /// The threads waiting at the current place and at each of the next ones.
    slots: VecDeque<Slot>,
    /// The byte of the view before the current place (`None` at its start).
    previous: Option<u8>,
    pub(super) found: Vec<Finding>,
}

impl<'a, A: Automaton> KnownMatcher<'a, A> {
    pub(super) fn new(automaton: &'a A) -> Self {
        // Both kinds of set are built to start anchored searches.
        let start = automaton
            .start_state(Anchored::Yes)
            .unwrap_or(StateID::ZERO);
        KnownMatcher {
            automaton,
            start,
            window: VecDeque::with_capacity(LONGEST_ESCAPE + 1),
            slots: (0..=LONGEST_ESCAPE).map(|_| Slot::default()).collect(),
            previous: None,
            found: Vec::new(),
        }
    }

    /// Reads `unit`; how many threads it moved on.
    pub(super) fn feed(&mut self, unit: Unit) -> usize {
        self.window.push_back(unit);
        if self.window.len() > LONGEST_ESCAPE {
            self.step()
        } else {
            0
        }
    }

    pub(super) fn finish(mut self) -> Vec<Finding> {
        while !self.window.is_empty() {
            self.step();
        }
        self.found
    }

    /// Moves every thread at the current place on, by its byte and by the escape starting
    /// there, and a new thread with them; how many it moved.
    fn step(&mut self) -> usize {
        let Some(&unit) = self.window.front() else {
            return 0;
        };
        let mut here = self.slots.pop_front().unwrap_or_default();
        self.slots.push_back(Slot::default());
        here.add(Thread {
            state: self.start,
            start: unit.start,
            depth: 0,
            alone_before: !self.previous.is_some_and(is_word_byte),
            digits: true,
        });
        let window = &self.window;
        let escape = escape_at(|i| window.get(i).map(|unit| unit.byte));
        let escape_end = escape.and_then(|escape| window.get(escape.len - 1).map(|u| u.end));
        for &thread in &here.threads {
            self.advance(thread, &[unit.byte], unit.end, 1);
            if let (Some(escape), Some(end)) = (escape, escape_end) {
                self.advance(thread, escape.bytes(), end, escape.len);
            }
        }
        let moved = here.threads.len();
        // The emptied slot's storage is reused for a later place.
        here.clear();
        if let Some(last) = self.slots.back_mut() {
            *last = here;
        }
        self.window.pop_front();
        self.previous = Some(unit.byte);
        moved
    }

    /// `thread` reading `bytes`, which end at `end` in the text and `ahead` places on.
    fn advance(&mut self, thread: Thread, bytes: &[u8], end: usize, ahead: usize) {
        let mut state = thread.state;
        for &byte in bytes {
            state = self.automaton.next_state(Anchored::Yes, state, fold(byte));
            if self.automaton.is_dead(state) {
                return;
            }
        }
        let depth = thread.depth + bytes.len();
        let digits = thread.digits && bytes.iter().all(u8::is_ascii_digit);
        if self.is_spelling(state, depth) {
            // A short secret counts where it stands alone.
            let after = |i: usize| self.window.get(ahead + i).map(|unit| unit.byte);
            if depth >= SHORT_SECRET || (thread.alone_before && alone_after(after, digits)) {
                self.found.push(Finding {
                    start: thread.start,
                    end,
                    quoted: false,
                });
            }
        }
        if let Some(slot) = self.slots.get_mut(ahead - 1) {
            slot.add(Thread {
                state,
                start: thread.start,
                depth,
                alone_before: thread.alone_before,
                digits,
            });
        }
    }

    /// Whether `state`, reached from the start by `depth` bytes, ends a whole spelling: the
    /// automaton also reports at a state the spellings that end its path (copied along its
    /// failure links for unanchored searches), which start later than the thread.
    fn is_spelling(&self, state: StateID, depth: usize) -> bool {
        self.automaton.is_match(state)
            && (0..self.automaton.match_len(state)).any(|index| {
                let pattern = self.automaton.match_pattern(state, index);
                self.automaton.pattern_len(pattern) == depth
            })
    }
}
