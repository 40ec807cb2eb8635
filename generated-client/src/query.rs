//! The query string of a data call, checked against the spec's rules before anything is sent.
//! Used by the generated request builders.

use std::fmt;

use jiff::civil::Date;

use crate::Error;

/// The query of one data call, in spec order, each argument checked against the spec's rules
/// as it is added (by the generated [`DataMethod::query`](crate::request::DataMethod::query)).
#[derive(Clone, Debug)]
pub struct Query {
    method: &'static str,
    pairs: Vec<(&'static str, String)>,
}

impl Query {
    pub(crate) fn new(method: &'static str) -> Self {
        Query {
            method,
            pairs: Vec::new(),
        }
    }

    /// The name/value pairs, in spec order.
    pub fn pairs(&self) -> &[(&'static str, String)] {
        &self.pairs
    }

    fn invalid(&self, name: &str, reason: String) -> Error {
        Error::InvalidArgument {
            method: self.method,
            name: name.to_owned(),
            reason,
        }
    }

    /// An object ID; `0` means "none" on this API, so it is refused.
    pub(crate) fn id(&mut self, name: &'static str, value: Option<u64>) -> Result<(), Error> {
        match value {
            Some(0) => Err(self.invalid(
                name,
                "0 is not an ID (the service uses 0 for none)".to_owned(),
            )),
            Some(id) => {
                self.pairs.push((name, id.to_string()));
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// An integer (`i64`) or a count or page number (`u64`) within the documented bounds (`max`
    /// is the documented cap).
    pub(crate) fn number<T: PartialOrd + fmt::Display>(
        &mut self,
        name: &'static str,
        value: Option<T>,
        min: Option<T>,
        max: Option<T>,
    ) -> Result<(), Error> {
        let Some(value) = value else { return Ok(()) };
        if let Some(min) = min.filter(|min| value < *min) {
            return Err(self.invalid(name, format!("{value} is below the minimum {min}")));
        }
        if let Some(max) = max.filter(|max| value > *max) {
            return Err(self.invalid(
                name,
                format!("{value} is above the documented cap {max} (the service would answer with {max})"),
            ));
        }
        self.pairs.push((name, value.to_string()));
        Ok(())
    }

    /// A day, sent as `DD-MON-YY`, which can only name years 2000 to 2099.
    pub(crate) fn date(&mut self, name: &'static str, value: Option<Date>) -> Result<(), Error> {
        let Some(date) = value else { return Ok(()) };
        if !(2000..=2099).contains(&date.year()) {
            return Err(self.invalid(
                name,
                format!("{date} cannot be written as DD-MON-YY, which covers 2000 to 2099"),
            ));
        }
        self.pairs.push((name, format_dmy(date)));
        Ok(())
    }
}

/// `2026-01-05` -> `05-JAN-26`.
pub(crate) fn format_dmy(date: Date) -> String {
    const MONTHS: [&str; 12] = [
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
    ];
    let month = MONTHS
        .get(usize::try_from(date.month() - 1).unwrap_or(0))
        .copied()
        .unwrap_or("JAN");
    format!(
        "{:02}-{month}-{:02}",
        date.day(),
        date.year().rem_euclid(100)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn checks_bounds_and_ids_before_sending() {
        let mut query = Query::new("pay/getTimesheetsForBid");
        query.id("bidId", Some(310001)).unwrap();
        query
            .number("rpp", Some(25_u64), Some(1), Some(25))
            .unwrap();
        query.number("page", None, Some(1_u64), None).unwrap();
        query.number("page", Some(u64::MAX), Some(1), None).unwrap();
        query.number("delta", Some(-3_i64), Some(-5), None).unwrap();
        assert_eq!(
            query.pairs(),
            [
                ("bidId", "310001".to_owned()),
                ("rpp", "25".to_owned()),
                ("page", "18446744073709551615".to_owned()),
                ("delta", "-3".to_owned())
            ]
        );

        let error = query
            .number("rpp", Some(26_u64), Some(1), Some(25))
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "pay/getTimesheetsForBid: invalid argument `rpp`: 26 is above the documented cap 25 (the service would answer with 25)"
        );
        assert!(query.number("page", Some(0_u64), Some(1), None).is_err());
        assert!(query.number("delta", Some(-6_i64), Some(-5), None).is_err());
        assert!(query.id("bidId", Some(0)).is_err());
    }

    #[test]
    fn writes_days_as_dd_mon_yy() {
        assert_eq!(format_dmy(date(2026, 1, 5)), "05-JAN-26");
        assert_eq!(format_dmy(date(2000, 12, 31)), "31-DEC-00");
        let mut query = Query::new("workroom/getWorkviewDetails");
        assert!(query.date("date", Some(date(1999, 12, 31))).is_err());
    }
}
