"""Every error the generator raises on purpose, in one hierarchy.

    StorefrontError          base: the CLI prints its message on one line, exits non-zero
    ├── ConfigError          bad flag, environment variable or xstore.json; missing requiredEnv
    ├── ApiError             the API answered something a client cannot use
    │   ├── ApiStatusError   a 4xx/5xx answer (after retries for 5xx); carries endpoint, status
    │   │   └── RateLimited  429: carries retry_after seconds; the crawler decides to wait
    │   ├── ApiUnreachable   connection errors or timeouts after the last retry
    │   │   ├── ApiDeadlineExceeded  no complete answer within the request deadline
    │   │   └── ApiHostUnknown  the API's host name does not resolve (never retried)
    │   └── ApiPayloadError  a 2xx answer whose body is not what the spec promises
    │       └── ApiAnswerTooLarge  a body past the client's size limit (read no further)
    ├── WriteError           the output cannot be written
    │   ├── UnsafePath       a path that would escape the output folder
    │   └── PathCollision    two pages at one path
    ├── TemplateError        a theme template failed to render (names the template and line)
    └── CrawlStopped         the crawl reached --max-requests or --deadline: the answers so far
                             are kept and the next build continues (exit status 75)

Each message says what happened, where (endpoint, path, template), and what to do.
"""

from __future__ import annotations


class StorefrontError(Exception):
    """Base of every deliberate error; its message is one line for the terminal."""

    exit_code = 1


class ConfigError(StorefrontError):
    exit_code = 2


class CrawlStopped(StorefrontError):
    """Stopped on purpose before the crawl was done; not a failure of the store or the API."""

    exit_code = 75  # EX_TEMPFAIL: try again later, and it goes on from here


#: Longest endpoint a message shows: a cursor chosen by the API can be of any length.
_MAX_SHOWN_ENDPOINT = 160


class ApiError(StorefrontError):
    def __init__(self, message: str, *, endpoint: str) -> None:
        super().__init__(f"{shown_endpoint(endpoint)}: {message}")
        self.endpoint = endpoint
        #: The message without the endpoint.
        self.detail = message


def shown_endpoint(endpoint: str) -> str:
    """The endpoint as a one-line message shows it: its start when it is very long."""
    if len(endpoint) <= _MAX_SHOWN_ENDPOINT:
        return endpoint
    return f"{endpoint[: _MAX_SHOWN_ENDPOINT - 1]}…"


class ApiStatusError(ApiError):
    def __init__(self, message: str, *, endpoint: str, status: int) -> None:
        super().__init__(f"HTTP {status}: {message}", endpoint=endpoint)
        self.status = status


class RateLimited(ApiStatusError):
    def __init__(self, *, endpoint: str, retry_after: float) -> None:
        super().__init__(
            f"rate limited, retry after {retry_after:g} s", endpoint=endpoint, status=429
        )
        self.retry_after = retry_after


class ApiUnreachable(ApiError):
    pass


class ApiDeadlineExceeded(ApiUnreachable):
    """No complete answer within the deadline of one request, however steadily bytes came."""


class ApiHostUnknown(ApiUnreachable):
    """The API's host name does not resolve: a typo in the url, not an outage to wait out."""


class ApiPayloadError(ApiError):
    pass


class ApiAnswerTooLarge(ApiPayloadError):
    """An answer larger than a build agrees to hold: refused while it streams, not after."""


class WriteError(StorefrontError):
    pass


class UnsafePath(WriteError):
    pass


class PathCollision(WriteError):
    pass


class TemplateError(StorefrontError):
    pass


class WorkerLost(StorefrontError):
    """A render worker ended in the middle of its pages (killed from outside, say)."""
