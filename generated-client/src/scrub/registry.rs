//! The secrets a client has held, so that an answer echoing a secret of another call (the
//! access token secret in a request-token error, a verifier in a data answer) is cleaned too.
//!
//! A call's own secrets are always known to its scrubber; besides them, the client remembers
//! the consumer secret and the last [`REMEMBERED`] token secrets and verifiers it was given or
//! used (a session made, a token granted, a verifier exchanged), with one automaton of them all
//! built when they change and shared by every call until they change again. The bound keeps a
//! long-running client that serves many users from growing: a secret of a session more than
//! [`REMEMBERED`] sessions ago is cleaned by the calls that hold it, not by others.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use super::known::{Lasting, SecretSet};
use crate::secret::Secret;

/// How many token secrets and verifiers a client remembers besides its consumer secret.
pub(crate) const REMEMBERED: usize = 64;

#[derive(Default)]
pub(crate) struct SecretRegistry {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    consumer: Option<Secret>,
    values: VecDeque<Secret>,
    /// The automaton of every value, built on first use after a change.
    automaton: Option<Arc<Option<SecretSet>>>,
}

impl fmt::Debug for SecretRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.lock();
        write!(f, "SecretRegistry({} values)", state.values.len() + 1)
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

    /// A registry of `secrets` alone (no consumer secret), for [`crate::redact`].
    pub(crate) fn of(secrets: &[&Secret]) -> Self {
        let registry = SecretRegistry::default();
        for secret in secrets {
            registry.remember(secret.expose());
        }
        registry
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Remembers `value` (a token secret or a verifier), forgetting the oldest beyond the bound.
    pub(crate) fn remember(&self, value: &str) {
        if value.is_empty() {
            return;
        }
        let mut state = self.lock();
        let known = state.consumer.as_ref().is_some_and(|c| c.expose() == value)
            || state.values.iter().any(|held| held.expose() == value);
        if known {
            return;
        }
        state.values.push_back(Secret::new(value));
        if state.values.len() > REMEMBERED {
            state.values.pop_front();
        }
        state.automaton = None;
    }

    /// The automaton of every remembered secret (`None` inside: none; `Err` when it cannot be
    /// built), and which of `values` it covers (a scrubber then need not look for them again).
    pub(crate) fn automaton_covering(
        &self,
        values: &[&str; 4],
    ) -> (Result<Arc<Option<SecretSet>>, ()>, [bool; 4]) {
        let mut state = self.lock();
        let covered = values.map(|value| {
            !value.is_empty()
                && (state.consumer.as_ref().is_some_and(|c| c.expose() == value)
                    || state.values.iter().any(|held| held.expose() == value))
        });
        (Self::automaton_of(&mut state), covered)
    }

    fn automaton_of(state: &mut State) -> Result<Arc<Option<SecretSet>>, ()> {
        if let Some(automaton) = &state.automaton {
            return Ok(Arc::clone(automaton));
        }
        let secrets: Vec<&str> = state
            .consumer
            .iter()
            .chain(&state.values)
            .map(Secret::expose)
            .collect();
        // Built once and used by every call until the secrets change: the fastest kind.
        let automaton = Arc::new(SecretSet::build(secrets, Lasting::Yes)?);
        state.automaton = Some(Arc::clone(&automaton));
        Ok(automaton)
    }
}
