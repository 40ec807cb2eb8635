//! The fake's clock: real time plus an offset that a test can set or advance, so token expiry
//! and timestamp tolerance can be exercised without waiting.

use std::sync::{Arc, Mutex, PoisonError};

use jiff::{SignedDuration, Timestamp};

/// The fake marketplace's notion of "now": the real clock plus an adjustable offset.
///
/// Clones share the offset. Everything time-dependent in the fake (OAuth timestamp tolerance,
/// nonce window, access-token lifetime, the `Date` header, the data's "now") reads this clock.
#[derive(Clone, Debug, Default)]
pub struct FakeClock {
    offset: Arc<Mutex<SignedDuration>>,
}

impl FakeClock {
    /// A clock that agrees with the real one (offset zero).
    pub fn new() -> FakeClock {
        FakeClock::default()
    }

    /// The fake's current time: real now plus the offset (real now if the sum overflows).
    pub fn now(&self) -> Timestamp {
        let real = Timestamp::now();
        real.checked_add(self.offset()).unwrap_or(real)
    }

    /// Moves the fake's clock forward by `by` (backward if negative), on top of any offset.
    pub fn advance(&self, by: SignedDuration) {
        let mut offset = self.offset.lock().unwrap_or_else(PoisonError::into_inner);
        *offset = offset.saturating_add(by);
    }

    /// Sets the offset from the real clock to exactly `offset`.
    pub fn set_offset(&self, offset: SignedDuration) {
        *self.offset.lock().unwrap_or_else(PoisonError::into_inner) = offset;
    }

    /// The current offset from the real clock.
    pub fn offset(&self) -> SignedDuration {
        *self.offset.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_add_up_and_reset() {
        let clock = FakeClock::new();
        clock.advance(SignedDuration::from_hours(6));
        clock.advance(SignedDuration::from_mins(1));
        assert_eq!(clock.offset(), SignedDuration::from_secs(6 * 3600 + 60));
        let ahead = clock.now().duration_since(Timestamp::now());
        assert!((ahead - clock.offset()).abs() < SignedDuration::from_secs(5));
        clock.set_offset(SignedDuration::ZERO);
        assert_eq!(clock.offset(), SignedDuration::ZERO);
    }
}
