"""Schemathesis auth hook for tests/tests/openapi_judges.rs: signs every generated request with
OAuth 1.0a (HMAC-SHA1) by oauthlib, as the demo application acting for a session of the fake
marketplace. The consumer and token credentials come from the environment the test sets."""

import os
from urllib.parse import urlencode

import schemathesis
from oauthlib.oauth1 import SIGNATURE_HMAC_SHA1, Client


@schemathesis.auth()
class OAuth1:
    def get(self, case, ctx):
        return Client(
            os.environ["MARKETPLACE_CONSUMER_KEY"],
            client_secret=os.environ["MARKETPLACE_CONSUMER_SECRET"],
            resource_owner_key=os.environ["MARKETPLACE_TOKEN"],
            resource_owner_secret=os.environ["MARKETPLACE_TOKEN_SECRET"],
            signature_method=SIGNATURE_HMAC_SHA1,
        )

    def set(self, case, client, ctx):
        # The URL as requests will send it: the same query pairs, so the same signature base.
        url = os.environ["MARKETPLACE_BASE_URL"] + case.formatted_path
        if case.query:
            url += "?" + urlencode(case.query, doseq=True)
        _, headers, _ = client.sign(url, http_method=case.method.upper())
        case.headers = dict(case.headers or {})
        case.headers["Authorization"] = headers["Authorization"]
