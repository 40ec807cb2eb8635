//! Which of many quotes a text contains, in one pass over the text: an Aho-Corasick automaton of
//! all the quotes, run once over the text. Searching the text once per quote costs the text's
//! length per quote, and a spec's `narrowed:` keys are as many as its fields.
//!
//! Only whether each quote occurs is asked, not where or how often, so no match is listed
//! (overlapping matches alone can be quadratic in number, which is why this is not the
//! `aho-corasick` crate: it lists matches and does not expose its failure links): the run
//! marks each state it reaches, and the marks flow once down the failure links, from the
//! deepest states to the root. A quote occurs exactly when its state is marked: the state
//! reached after a prefix of the text is the longest suffix of that prefix in the automaton,
//! and every shorter suffix in it is on its failure chain. Construction and run are linear in
//! the quotes' and the text's bytes.
//!
//! The states are numbered breadth first and their transitions kept in one array, sorted by
//! byte within a state: the run's lookups then stay in a few contiguous arrays instead of a
//! map or an allocation per state, which matters once the automaton outgrows the cache.

use std::collections::VecDeque;

const ROOT: u32 = 0;

/// The trie of the quotes, as it is built: a list of transitions per state.
struct Trie {
    /// Per state, its transitions sorted by byte.
    children: Vec<Vec<(u8, u32)>>,
}

impl Trie {
    /// Adds `quote`; its state.
    fn insert(&mut self, quote: &[u8]) -> u32 {
        let mut state = ROOT;
        for &byte in quote {
            let children = &self.children[state as usize];
            state = match children.binary_search_by_key(&byte, |&(b, _)| b) {
                Ok(at) => children[at].1,
                Err(at) => {
                    // `contained` keeps the states under `u32::MAX`.
                    let child = self.children.len() as u32;
                    self.children[state as usize].insert(at, (byte, child));
                    self.children.push(Vec::new());
                    child
                }
            };
        }
        state
    }
}

/// The automaton: the trie's states renumbered breadth first (a state after its failure
/// state), with their failure links.
struct Automaton {
    /// The transitions of state `s` are `edges[first_edge[s]..first_edge[s + 1]]`.
    first_edge: Vec<u32>,
    edges: Vec<(u8, u32)>,
    /// The longest proper suffix of each state's prefix that is a state too.
    fail: Vec<u32>,
}

impl Automaton {
    /// The automaton of `trie`, and the new number of each of its states.
    fn new(trie: Trie) -> (Self, Vec<u32>) {
        let count = trie.children.len();
        let mut renumbered = vec![ROOT; count];
        let mut order = Vec::with_capacity(count);
        let mut queue = VecDeque::from([ROOT]);
        while let Some(state) = queue.pop_front() {
            renumbered[state as usize] = order.len() as u32;
            order.push(state);
            queue.extend(
                trie.children[state as usize]
                    .iter()
                    .map(|&(_, child)| child),
            );
        }
        let mut automaton = Automaton {
            first_edge: Vec::with_capacity(count + 1),
            edges: Vec::with_capacity(count.saturating_sub(1)),
            fail: vec![ROOT; count],
        };
        for &old in &order {
            automaton.first_edge.push(automaton.edges.len() as u32);
            let children = &trie.children[old as usize];
            automaton.edges.extend(
                children
                    .iter()
                    .map(|&(byte, child)| (byte, renumbered[child as usize])),
            );
        }
        automaton.first_edge.push(automaton.edges.len() as u32);
        // Breadth first, so a state's failure state (shallower) is linked before it.
        for state in 0..count as u32 {
            for at in automaton.edge_range(state) {
                let (byte, child) = automaton.edges[at];
                automaton.fail[child as usize] = if state == ROOT {
                    ROOT
                } else {
                    automaton.step(automaton.fail[state as usize], byte)
                };
            }
        }
        (automaton, renumbered)
    }

    fn edge_range(&self, state: u32) -> std::ops::Range<usize> {
        self.first_edge[state as usize] as usize..self.first_edge[state as usize + 1] as usize
    }

    /// The state after `byte` from `state`: its transition, else its failure state's, down to
    /// the root.
    fn step(&self, mut state: u32, byte: u8) -> u32 {
        loop {
            let edges = &self.edges[self.edge_range(state)];
            if let Ok(at) = edges.binary_search_by_key(&byte, |&(b, _)| b) {
                return edges[at].1;
            }
            if state == ROOT {
                return ROOT;
            }
            state = self.fail[state as usize];
        }
    }

    /// Which states occur in `text` (as a suffix of some prefix of it).
    fn occurring(&self, text: &[u8]) -> Vec<bool> {
        let mut reached = vec![false; self.fail.len()];
        let mut state = ROOT;
        for &byte in text {
            state = self.step(state, byte);
            reached[state as usize] = true;
        }
        // Deepest first: a state reached makes its failure state's prefix occur too.
        for state in (1..self.fail.len()).rev() {
            if reached[state] {
                reached[self.fail[state] as usize] = true;
            }
        }
        reached
    }
}

/// For each of `quotes`, whether `text` contains it (an empty quote: `false`).
pub(super) fn contained(text: &str, quotes: &[&str]) -> Vec<bool> {
    // A state per byte of the quotes at most, numbered in `u32` (a spec is megabytes).
    if quotes.iter().map(|q| q.len()).sum::<usize>() >= u32::MAX as usize {
        return quotes
            .iter()
            .map(|q| !q.is_empty() && text.contains(q))
            .collect();
    }
    let mut trie = Trie {
        children: vec![Vec::new()],
    };
    let states: Vec<u32> = quotes
        .iter()
        .map(|quote| trie.insert(quote.as_bytes()))
        .collect();
    let (automaton, renumbered) = Automaton::new(trie);
    let occurring = automaton.occurring(text.as_bytes());
    quotes
        .iter()
        .zip(states)
        .map(|(quote, state)| !quote.is_empty() && occurring[renumbered[state as usize] as usize])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn finds_overlapping_nested_and_repeated_quotes() {
        let quotes = ["he", "she", "his", "hers", "s", "x", "", "hershe", "ushers"];
        let found = contained("ushers", &quotes);
        let expected: Vec<bool> = quotes
            .iter()
            .map(|q| !q.is_empty() && "ushers".contains(q))
            .collect();
        assert_eq!(found, expected);
        assert_eq!(contained("", &["a"]), [false]);
        assert_eq!(
            contained("é ü", &["é", "ü", "é ü", "e"]),
            [true, true, true, false]
        );
    }

    proptest! {
        #[test]
        fn agrees_with_a_search_per_quote(
            text in "[abc ]{0,60}",
            quotes in prop::collection::vec("[abc ]{0,6}", 0..20),
        ) {
            let quotes: Vec<&str> = quotes.iter().map(String::as_str).collect();
            let expected: Vec<bool> =
                quotes.iter().map(|q| !q.is_empty() && text.contains(q)).collect();
            prop_assert_eq!(contained(&text, &quotes), expected);
        }
    }
}
