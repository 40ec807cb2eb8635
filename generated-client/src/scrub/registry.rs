//! The secrets a client has held, so that an answer echoing a secret of another call (the
//! access token secret in a request-token error, a verifier in a data answer, one user's
//! session cookie in another user's error, an earlier attempt's signature header in the answer
//! to a retry) is cleaned too.
//!
//! A call's own secrets are always known to its scrubber; besides them, the client remembers
//! the consumer secret, the last [`REMEMBERED`] token secrets and verifiers it was given or used
//! (a session made, a token granted, a verifier exchanged), and the last [`REMEMBERED`]
//! credentials the app handed its calls (header values and their parts, a callback's query),
//! each kind at most [`REMEMBERED_BYTES`] in all, with one automaton of them all built when
//! they change and shared by every call until they change again. The bounds keep a
//! long-running client that serves many users from growing: a secret older than that is
//! cleaned by the calls that hold it, not by others.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use super::known::{Lasting, SecretSet};
use crate::secret::Secret;

/// How many values of each kind (token secrets and verifiers; the app's credentials) a client
/// remembers besides its consumer secret.
pub(crate) const REMEMBERED: usize = 64;

/// The most bytes of values of each kind a client remembers (the newest value is kept
/// whatever its length): as many as [`REMEMBERED`] of the longest token secrets a service may
/// hand out (4 KiB each), so that the last 64 are all remembered whatever their length
/// (SECURITY.md), while an app's credentials, which have no length bound of their own, cost at
/// most this. Every remembered byte costs about ten in the automaton of their spellings: a few
/// megabytes at worst.
pub(crate) const REMEMBERED_BYTES: usize = REMEMBERED * crate::oauth::MAX_TOKEN_BYTES;

#[derive(Default)]
pub(crate) struct SecretRegistry {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    consumer: Option<Secret>,
    /// Token secrets and verifiers.
    tokens: Memory,
    /// The credentials the app handed its calls.
    app: Memory,
    /// The automaton of every value, built on first use after a change.
    automaton: Option<Arc<Option<SecretSet>>>,
}

/// The last values of one kind, oldest first.
#[derive(Default)]
struct Memory {
    values: VecDeque<Secret>,
    bytes: usize,
}

impl Memory {
    fn holds(&self, value: &str) -> bool {
        self.values.iter().any(|held| held.expose() == value)
    }

    /// Adds `value`, forgetting the oldest beyond the bounds.
    fn push(&mut self, value: &str) {
        self.values.push_back(Secret::new(value));
        self.bytes += value.len();
        while self.values.len() > REMEMBERED
            || (self.bytes > REMEMBERED_BYTES && self.values.len() > 1)
        {
            if let Some(forgotten) = self.values.pop_front() {
                self.bytes -= forgotten.expose().len();
            }
        }
    }
}

impl State {
    fn holds(&self, value: &str) -> bool {
        self.consumer.as_ref().is_some_and(|c| c.expose() == value)
            || self.tokens.holds(value)
            || self.app.holds(value)
    }
}

impl fmt::Debug for SecretRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.lock();
        write!(
            f,
            "SecretRegistry({} values)",
            usize::from(state.consumer.is_some())
                + state.tokens.values.len()
                + state.app.values.len()
        )
    }
}

impl SecretRegistry {
    pub(crate) fn new(consumer_secret: &Secret) -> Self {
        SecretRegistry {
            state: Mutex::new(State {
                consumer: Some(consumer_secret.clone()),
                ..State::default()
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Remembers `value` (a token secret or a verifier), forgetting the oldest beyond the
    /// bounds.
    pub(crate) fn remember(&self, value: &str) {
        if value.is_empty() {
            return;
        }
        let mut state = self.lock();
        if !state.holds(value) {
            state.tokens.push(value);
            state.automaton = None;
        }
    }

    /// Remembers the credentials the app handed a call (`secret::credential_values`, a
    /// callback's query), forgetting the oldest beyond the bounds.
    pub(crate) fn remember_app(&self, values: &[String]) {
        let mut state = self.lock();
        for value in values {
            if !value.is_empty() && !state.holds(value) {
                state.app.push(value);
                state.automaton = None;
            }
        }
    }

    /// The automaton of every remembered secret (`None` inside: none; `Err` when it cannot be
    /// built), and which of `values` it covers (a scrubber then need not look for them again).
    pub(crate) fn automaton_covering(
        &self,
        values: &[&str],
    ) -> (Result<Arc<Option<SecretSet>>, ()>, Vec<bool>) {
        let mut state = self.lock();
        let covered = values
            .iter()
            .map(|value| !value.is_empty() && state.holds(value))
            .collect();
        (Self::automaton_of(&mut state), covered)
    }

    fn automaton_of(state: &mut State) -> Result<Arc<Option<SecretSet>>, ()> {
        if let Some(automaton) = &state.automaton {
            return Ok(Arc::clone(automaton));
        }
        let secrets: Vec<&str> = state
            .consumer
            .iter()
            .chain(&state.tokens.values)
            .chain(&state.app.values)
            .map(Secret::expose)
            .collect();
        // Built once and used by every call until the secrets change: the fastest kind.
        let automaton = Arc::new(SecretSet::build(secrets, Lasting::Yes)?);
        state.automaton = Some(Arc::clone(&automaton));
        Ok(automaton)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_bounded_in_count_and_bytes_the_newest_kept() {
        let registry = SecretRegistry::new(&Secret::new("consumer-secret"));
        for n in 0..REMEMBERED + 10 {
            registry.remember(&format!("token-secret-{n:04}"));
            registry.remember_app(&[format!("app-credential-{n:04}")]);
        }
        {
            let state = registry.lock();
            assert_eq!(state.tokens.values.len(), REMEMBERED);
            assert_eq!(state.app.values.len(), REMEMBERED);
            assert!(
                state
                    .tokens
                    .holds(&format!("token-secret-{:04}", REMEMBERED + 9))
            );
            assert!(!state.tokens.holds("token-secret-0000"));
            // The consumer secret is never forgotten.
            assert!(state.holds("consumer-secret"));
        }
        // Long values: forgotten by bytes, the newest kept however long.
        let long = |n: usize| format!("{n}{}", "x".repeat(REMEMBERED_BYTES / 3));
        for n in 0..5 {
            registry.remember(&long(n));
        }
        registry.remember(&"y".repeat(REMEMBERED_BYTES * 2));
        let state = registry.lock();
        assert!(state.tokens.bytes <= REMEMBERED_BYTES * 2);
        assert_eq!(state.tokens.values.len(), 1);
        let held: usize = state.app.values.iter().map(|v| v.expose().len()).sum();
        assert_eq!(held, state.app.bytes);
    }

    #[test]
    fn the_automaton_covers_what_is_remembered_and_is_rebuilt_on_change() {
        let registry = SecretRegistry::new(&Secret::new("consumer-secret"));
        registry.remember_app(&["app-credential".to_owned()]);
        let (first, covered) =
            registry.automaton_covering(&["consumer-secret", "app-credential", "other", ""]);
        assert_eq!(covered, [true, true, false, false]);
        let first = first.unwrap();
        let (same, _) = registry.automaton_covering(&[]);
        assert!(Arc::ptr_eq(&first, &same.unwrap()));
        registry.remember("token-secret");
        let (rebuilt, _) = registry.automaton_covering(&[]);
        assert!(!Arc::ptr_eq(&first, &rebuilt.unwrap()));
    }
}
