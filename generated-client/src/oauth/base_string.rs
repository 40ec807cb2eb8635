//! The signature base string (RFC 5849 section 3.4.1), written by one function to either of two
//! destinations: a `String`, to inspect it, or the HMAC itself, as it is produced (signing then
//! never holds the base string).

use base64::prelude::{BASE64_STANDARD, Engine as _};
use hmac::{Hmac, KeyInit as _, Mac as _};
use sha1::Sha1;

use super::percent::{Pair, Sink, StackBuf, Times, cmp_pair, encode_into, is_unreserved};

/// An `oauth_*` parameter's name, with the constant text around its value in the base string
/// and in the header, so that each is written in one piece.
#[derive(Debug)]
pub(super) struct ProtocolName {
    /// `oauth_...`: unreserved characters only.
    name: &'static str,
    /// `%26name%3D`: the (encoded) separator, the name and the (encoded) `=`.
    base_string: &'static str,
    /// `", name="`: the quote that closes the value before, the separator, the name, `="`.
    pub(super) header: &'static str,
}

macro_rules! protocol_names {
    ($($constant:ident = $name:literal;)*) => {$(
        pub(super) const $constant: ProtocolName = ProtocolName {
            name: $name,
            base_string: concat!("%26", $name, "%3D"),
            header: concat!("\", ", $name, "=\""),
        };
    )*};
}

protocol_names! {
    CALLBACK = "oauth_callback";
    CONSUMER_KEY = "oauth_consumer_key";
    NONCE = "oauth_nonce";
    SIGNATURE = "oauth_signature";
    SIGNATURE_METHOD = "oauth_signature_method";
    TIMESTAMP = "oauth_timestamp";
    TOKEN = "oauth_token";
    VERIFIER = "oauth_verifier";
    VERSION = "oauth_version";
}

/// A protocol parameter to write.
#[derive(Clone, Copy, Debug)]
pub(super) struct ProtocolParam<'a> {
    pub(super) name: &'static ProtocolName,
    value: &'a [u8],
    /// The value is unreserved characters only, so it encodes to itself however many times:
    /// found once, it spares the encoder both the base string's pass and the header's.
    plain: bool,
}

impl<'a> ProtocolParam<'a> {
    pub(super) fn new(name: &'static ProtocolName, value: &'a [u8]) -> Self {
        let plain = value.iter().all(|&byte| is_unreserved(byte));
        ProtocolParam { name, value, plain }
    }

    /// Writes the value, encoded `times`.
    #[inline]
    pub(super) fn put_value<S: Sink>(&self, sink: &mut S, times: Times) {
        if self.plain {
            sink.put(self.value);
        } else {
            sink.put_encoded(self.value, times);
        }
    }

    /// The longest the value can be once encoded `times`.
    pub(super) fn max_len(&self, times: Times) -> usize {
        if self.plain {
            self.value.len()
        } else {
            times.max_len(self.value.len())
        }
    }
}

/// Writes `METHOD & enc(base string URI) & enc(normalized parameters)` to `sink`.
///
/// `params` are the request's own parameters (query and form, decoded), already in
/// [`cmp_pair`] order and without `oauth_signature`; `protocol` are the `oauth_*` parameters
/// in name order. The two lists are merged as they are written.
pub(super) fn write<S: Sink>(
    sink: &mut S,
    method: &str,
    url: &url::Url,
    params: &[Pair<'_>],
    protocol: &[ProtocolParam<'_>],
) {
    // 1. The method, upper-cased (and encoded, for a custom method's sake).
    if method.bytes().any(|b| b.is_ascii_lowercase()) {
        sink.put_encoded(method.to_ascii_uppercase().as_bytes(), Times::Once);
    } else {
        sink.put_encoded(method.as_bytes(), Times::Once);
    }
    sink.put(b"&");

    // 2. The base string URI, encoded: scheme://host[:port]path, no userinfo/query/fragment.
    //    `url` has already lower-cased the scheme (and the host, for http and https), and
    //    `Url::port` is `None` when the port is the scheme's default (80 / 443).
    sink.put_encoded(url.scheme().as_bytes(), Times::Once);
    sink.put(b"%3A%2F%2F");
    if let Some(host) = url.host_str() {
        if host.bytes().any(|b| b.is_ascii_uppercase()) {
            sink.put_encoded(host.to_ascii_lowercase().as_bytes(), Times::Once);
        } else {
            sink.put_encoded(host.as_bytes(), Times::Once);
        }
    }
    if let Some(port) = url.port() {
        sink.put(b"%3A");
        sink.put(Decimal::new(port.into()).as_bytes());
    }
    sink.put_encoded(url.path().as_bytes(), Times::Once);
    sink.put(b"&");

    // 3. The normalized parameters, encoded a second time as a whole ('=' -> %3D, '&' -> %26).
    let (mut p, mut q) = (0, 0);
    loop {
        let first = p + q == 0;
        let request_param = match (params.get(p), protocol.get(q)) {
            (Some(param), Some(oauth)) => {
                cmp_pair(param, &(oauth.name.name.as_bytes(), oauth.value))
                    .is_le()
                    .then_some(param)
            }
            (param, _) => param,
        };
        if let Some((name, value)) = request_param {
            p += 1;
            if !first {
                sink.put(b"%26");
            }
            sink.put_encoded(name, Times::Twice);
            sink.put(b"%3D");
            sink.put_encoded(value, Times::Twice);
        } else if let Some(oauth) = protocol.get(q) {
            q += 1;
            let text = oauth.name.base_string.as_bytes();
            sink.put(if first { &text[3..] } else { text });
            oauth.put_value(sink, Times::Twice);
        } else {
            break;
        }
    }
}

/// HMAC-SHA1 keyed with `enc(consumer_secret) & enc(token_secret)` (RFC 5849 section 3.4.2).
pub(super) fn keyed_mac(consumer_secret: &str, token_secret: &str) -> Hmac<Sha1> {
    // A key longer than a SHA-1 block is hashed first, so the heap is the rare case.
    let mut key = StackBuf::<64>::new();
    key.put_encoded(consumer_secret.as_bytes(), Times::Once);
    key.put(b"&");
    key.put_encoded(token_secret.as_bytes(), Times::Once);
    Hmac::<Sha1>::new_from_slice(key.bytes()).expect("HMAC accepts a key of any length")
}

/// The HMAC as a [`Sink`]: text is encoded into a buffer of whole SHA-1 blocks on the stack,
/// which is hashed each time it fills, so that the many short pieces of a base string cost a
/// copy each, not a call into the hash.
pub(super) struct MacSink {
    mac: Hmac<Sha1>,
    buffer: [u8; MAC_BUFFER],
    len: usize,
}

/// Four SHA-1 blocks.
const MAC_BUFFER: usize = 256;

impl MacSink {
    pub(super) fn new(mac: Hmac<Sha1>) -> Self {
        MacSink {
            mac,
            buffer: [0; MAC_BUFFER],
            len: 0,
        }
    }

    /// The signature: the HMAC of everything written, in base64 (standard alphabet, padded).
    pub(super) fn finish(mut self) -> Signature {
        self.flush();
        let digest = self.mac.finalize().into_bytes();
        let mut text = [0u8; 28];
        BASE64_STANDARD
            .encode_slice(digest, &mut text)
            .expect("the base64 of 20 bytes is 28 bytes");
        Signature(text)
    }

    fn flush(&mut self) {
        self.mac.update(&self.buffer[..self.len]);
        self.len = 0;
    }

    /// The free part of the buffer once it holds `len` more bytes (hashing what it holds
    /// first if need be); `len` must be at most [`MAC_BUFFER`].
    #[inline]
    fn room(&mut self, len: usize) -> &mut [u8] {
        if len > MAC_BUFFER - self.len {
            self.flush();
        }
        &mut self.buffer[self.len..]
    }
}

impl Sink for MacSink {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        if bytes.len() <= MAC_BUFFER {
            self.room(bytes.len())[..bytes.len()].copy_from_slice(bytes);
            self.len += bytes.len();
        } else {
            self.flush();
            self.mac.update(bytes);
        }
    }

    #[inline]
    fn put_encoded(&mut self, text: &[u8], times: Times) {
        // Room for the worst case at once; a text too long for that goes in pieces.
        let longest = times.max_len(text.len());
        if longest <= MAC_BUFFER {
            let room = self.room(longest);
            self.len += encode_into(room, text, times);
        } else {
            for piece in text.chunks(MAC_BUFFER / times.max_len(1)) {
                self.put_encoded(piece, times);
            }
        }
    }
}

/// An HMAC-SHA1 signature in base64: always 28 ASCII characters.
pub(super) struct Signature([u8; 28]);

impl Signature {
    pub(super) fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// An integer in decimal, formatted on the stack.
pub(super) struct Decimal {
    digits: [u8; 20],
    start: usize,
}

impl Decimal {
    pub(super) fn new(value: i64) -> Self {
        // "00" to "99": two digits per division.
        const PAIRS: [u8; 200] = {
            let mut pairs = [0u8; 200];
            let mut i = 0;
            while i < 100 {
                pairs[2 * i] = b'0' + (i / 10) as u8;
                pairs[2 * i + 1] = b'0' + (i % 10) as u8;
                i += 1;
            }
            pairs
        };
        let mut digits = [0u8; 20];
        let mut start = digits.len();
        let mut rest = value.unsigned_abs();
        while rest >= 100 {
            let pair = 2 * (rest % 100) as usize;
            rest /= 100;
            start -= 2;
            digits[start..start + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
        }
        if rest >= 10 {
            let pair = 2 * rest as usize;
            start -= 2;
            digits[start..start + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
        } else {
            start -= 1;
            digits[start] = b'0' + rest as u8;
        }
        if value < 0 {
            start -= 1;
            digits[start] = b'-';
        }
        Decimal { digits, start }
    }

    pub(super) fn as_bytes(&self) -> &[u8] {
        &self.digits[self.start..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_decimals() {
        for value in [
            0,
            7,
            10,
            99,
            100,
            101,
            1_768_987_686,
            -1,
            -42,
            -100,
            i64::MAX,
            i64::MIN,
        ] {
            assert_eq!(Decimal::new(value).as_bytes(), value.to_string().as_bytes());
        }
    }

    #[test]
    fn the_mac_sink_hashes_what_the_string_sink_holds() {
        let text: String = (0..1000)
            .map(|i| ['a', 'b', ' ', '/', 'é', '~'][i % 6])
            .collect();
        // Pieces of every size up to past the buffer, so that every flushing path runs,
        // written plain and through the encoder.
        for piece in [1, 3, 5, 63, 64, 127, 128, 129, 255, 256, 257, 300, 1000] {
            for times in [None, Some(Times::Once), Some(Times::Twice)] {
                let mut mac = MacSink::new(keyed_mac("c s", "t"));
                let mut text_sink = Vec::new();
                for chunk in text.as_bytes().chunks(piece) {
                    match times {
                        None => {
                            mac.put(chunk);
                            text_sink.put(chunk);
                        }
                        Some(times) => {
                            mac.put_encoded(chunk, times);
                            text_sink.put_encoded(chunk, times);
                        }
                    }
                }
                let mut expected = keyed_mac("c s", "t");
                expected.update(&text_sink);
                let expected = BASE64_STANDARD.encode(expected.finalize().into_bytes());
                let signature = mac.finish();
                assert_eq!(
                    signature.as_bytes(),
                    expected.as_bytes(),
                    "pieces of {piece}"
                );
            }
        }
    }
}
