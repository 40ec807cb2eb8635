//! The clock requests are signed with: the local clock, corrected by the service's when a
//! refused signature and its `Date` header show the local one is off, but only by what a sane
//! service could mean, and never to a time no `oauth_timestamp` can carry.
//!
//! The service's `Date` is untrusted: a year of 9999 or 1970 must not make the client sign
//! timestamps far in the future, zero or negative. So a correction is adopted only within
//! [`MAX_OFFSET`] of the local clock, and every `oauth_timestamp` signed passes
//! [`oauth_timestamp`] (a positive number of seconds, RFC 5849 section 3.3).

use std::sync::atomic::{AtomicI64, Ordering};

use jiff::{SignedDuration, Timestamp};

/// A local clock more than this far from the service's is corrected.
pub(crate) const TOLERANCE: SignedDuration = SignedDuration::from_secs(60);

/// The largest correction adopted: a day, beyond any time-zone mistake of a local clock
/// (±14 h). A service clock further from the local one is a broken or hostile service, or a
/// local clock to set; it is not believed.
pub(crate) const MAX_OFFSET: SignedDuration = SignedDuration::from_hours(24);

/// The local clock and the correction learned from the service.
#[derive(Debug, Default)]
pub(crate) struct Clock {
    /// Seconds to add to the local clock, within ±[`MAX_OFFSET`]: the service's clock minus
    /// the uncorrected local clock, set (never accumulated) whenever a refused signature
    /// shows the clock an attempt signed with was off.
    offset_seconds: AtomicI64,
}

/// What a refusal's `Date` teaches the clock (see [`Clock::correct`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Correction {
    /// The service's clock is adopted: the offset, in seconds, from now on.
    Adopted(i64),
    /// The service's clock lies more than [`MAX_OFFSET`] from the local clock: not adopted,
    /// the clock is as it was.
    Implausible,
}

impl Clock {
    /// The local clock, corrected.
    pub(crate) fn now(&self) -> Timestamp {
        let offset = SignedDuration::from_secs(self.offset_seconds.load(Ordering::Relaxed));
        let local = Timestamp::now();
        local.checked_add(offset).unwrap_or(local)
    }

    /// Adopts `service_now` as the service's clock when it lies within [`MAX_OFFSET`] of the
    /// uncorrected local clock. The offset is measured against the uncorrected clock and set,
    /// not added: calls signed before a correction and refused after it each find the same
    /// offset.
    pub(crate) fn correct(&self, service_now: Timestamp) -> Correction {
        let offset = service_now.duration_since(Timestamp::now());
        if offset.abs() > MAX_OFFSET {
            return Correction::Implausible;
        }
        let seconds = offset.as_secs();
        self.offset_seconds.store(seconds, Ordering::Relaxed);
        Correction::Adopted(seconds)
    }
}

/// Whether `service_now` (a refusal's `Date`) differs by more than [`TOLERANCE`] from
/// `signed_at`, the clock the refused attempt was signed with.
pub(crate) fn skewed(service_now: Timestamp, signed_at: Timestamp) -> bool {
    service_now.duration_since(signed_at).abs() > TOLERANCE
}

/// `at` as an `oauth_timestamp`: seconds since 1970, which RFC 5849 requires to be a positive
/// integer; `None` for a time at or before 1970-01-01T00:00:00Z. Every timestamp the client
/// signs comes from here.
pub(crate) fn oauth_timestamp(at: Timestamp) -> Option<i64> {
    Some(at.as_second()).filter(|seconds| *seconds > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_positive_seconds_are_timestamps() {
        assert_eq!(oauth_timestamp(Timestamp::UNIX_EPOCH), None);
        assert_eq!(oauth_timestamp(Timestamp::MIN), None);
        assert_eq!(oauth_timestamp(Timestamp::from_second(-1).unwrap()), None);
        // Within the first second, the whole seconds are still zero.
        assert_eq!(
            oauth_timestamp(Timestamp::from_millisecond(999).unwrap()),
            None
        );
        assert_eq!(oauth_timestamp(Timestamp::from_second(1).unwrap()), Some(1));
        assert_eq!(
            oauth_timestamp(Timestamp::MAX),
            Some(Timestamp::MAX.as_second())
        );
    }

    #[test]
    fn a_correction_beyond_a_day_is_not_adopted_and_changes_nothing() {
        let clock = Clock::default();
        let hours = |h: i64| {
            Timestamp::now()
                .checked_add(SignedDuration::from_hours(h))
                .unwrap()
        };
        assert!(
            matches!(clock.correct(hours(3)), Correction::Adopted(s) if (s - 3 * 3600).abs() <= 2)
        );
        for far in [
            hours(25),
            hours(-25),
            Timestamp::MAX,
            Timestamp::MIN,
            Timestamp::UNIX_EPOCH,
        ] {
            assert_eq!(clock.correct(far), Correction::Implausible, "{far}");
            let corrected = clock.now().duration_since(Timestamp::now());
            assert!(
                (corrected.as_secs() - 3 * 3600).abs() <= 2,
                "{far}: {corrected:?}"
            );
        }
        assert!(matches!(clock.correct(hours(-23)), Correction::Adopted(_)));
    }
}
