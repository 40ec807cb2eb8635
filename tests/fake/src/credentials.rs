//! The demo application's credentials and the demo users' logins.

/// The demo application's credentials and the demo users' logins, as printed by the
/// `fake-marketplace` binary.
///
/// `Debug` shows neither the consumer secret nor the password.
#[derive(Clone, PartialEq, Eq)]
pub struct DemoCredentials {
    /// The demo application's consumer key (developer API key).
    pub consumer_key: String,
    /// Its consumer secret.
    pub consumer_secret: String,
    /// The password of every demo user.
    pub password: String,
    /// The logins of the demo users, in the order of [`World::users`](crate::World::users).
    pub logins: Vec<String>,
}

impl std::fmt::Debug for DemoCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemoCredentials")
            .field("consumer_key", &self.consumer_key)
            .field("consumer_secret", &"[redacted]")
            .field("password", &"[redacted]")
            .field("logins", &self.logins)
            .finish()
    }
}
