"""Verifies OAuth 1.0 HMAC-SHA1 signatures with oauthlib (an implementation independent of the
client's), for tests/tests/signing_oracles.rs.

Usage: python oauthlib_verify.py REQUESTS.json

REQUESTS.json is a list of {"method", "uri", "authorization", "body" (a form-encoded string or
null), "consumer_secret", "token_secret"}. Prints a JSON list with one
{"valid": bool, "base_string": str} per request: whether oauthlib's verify_hmac_sha1 accepts the
signature in the Authorization header, and the base string oauthlib signed.
"""

import json
import sys
from urllib.parse import urlparse

from oauthlib.common import Request
from oauthlib.oauth1.rfc5849 import signature


def verify(entry):
    headers = {"Authorization": entry["authorization"]}
    body = entry["body"]
    if body is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    request = Request(entry["uri"], http_method=entry["method"], body=body, headers=headers)
    # The parameters as oauthlib's endpoints gather them (RFC 5849 section 3.4.1.3.1): the
    # query, the Authorization header without its realm, the form body; the signature apart.
    params = signature.collect_parameters(
        uri_query=urlparse(entry["uri"]).query,
        body=body,
        headers=headers,
        exclude_oauth_signature=False,
        with_realm=False,
    )
    signatures = [value for name, value in params if name == "oauth_signature"]
    if len(signatures) != 1:
        raise ValueError(f"expected one oauth_signature, found {len(signatures)}")
    request.signature = signatures[0]
    request.params = [(name, value) for name, value in params if name != "oauth_signature"]
    valid = signature.verify_hmac_sha1(
        request, entry["consumer_secret"], entry["token_secret"]
    )
    base_string = signature.signature_base_string(
        request.http_method,
        signature.base_string_uri(request.uri),
        signature.normalize_parameters(request.params),
    )
    return {"valid": bool(valid), "base_string": base_string}


def main():
    with open(sys.argv[1], encoding="utf-8") as requests:
        entries = json.load(requests)
    json.dump([verify(entry) for entry in entries], sys.stdout)


if __name__ == "__main__":
    main()
