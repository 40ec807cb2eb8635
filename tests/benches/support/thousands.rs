//! Large counts written the way the tables show them.

/// `value` with a comma between groups of three digits: `1,211,443`.
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut shown = String::new();
    for (position, digit) in digits.chars().enumerate() {
        if position > 0 && (digits.len() - position) % 3 == 0 {
            shown.push(',');
        }
        shown.push(digit);
    }
    shown
}
