/// Why a fetch failed. Each case names the URL (or path) and its description is a sentence a person can act on.
///
/// ```swift
/// let handle = fetcher.fetch(url, priority: .visible) { result in
///     switch result {
///     case .success(let data): decodeAndShow(data)
///     case .failure(.httpStatus(code: 404, _)): showPlaceholder()
///     case .failure(.cancelled): break          // nobody wants it any more
///     case .failure(let error): log(error.description)
///     }
/// }
/// ```
public enum FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with a status outside 200...299 (retried only for 5xx).
    case httpStatus(code: Int, url: String)
    /// The response (or the file) held no bytes.
    case emptyBody(url: String)
    /// The body is larger than ``FetchPolicy/maxBytes``; the fetch stopped before buffering it all.
    case tooLarge(url: String, limit: Int)
    /// Nothing arrived for ``FetchPolicy/timeout`` (or the attempt outlived `retry.attemptTimeout`).
    case timedOut(url: String)
    /// The fetch as a whole, retries and their waits included, outlived ``FetchPolicy/deadline``.
    case deadlineExceeded(url: String, seconds: Double)
    /// The body arrived slower than ``FetchPolicy/minimumRate`` (`bytesPerSecond`), averaged over its window.
    case tooSlow(url: String, bytesPerSecond: Int)
    /// The connection ended after `received` of the `expected` bytes the response announced.
    case shortBody(url: String, received: Int, expected: Int)
    /// A body sent with `Content-Encoding: encoding` (gzip, deflate...) ended early or did not decode. The transport
    /// decodes it and reports both the same way (libcurl's partial file and bad encoding are one URLSession error),
    /// and its bytes arrive decoded, so how many encoded ones came is not known either.
    case encodedBodyFailed(url: String, encoding: String)
    /// Whatever answered at that address does not speak HTTP.
    case notHTTP(url: String)
    /// More than ``FetchPolicy/maxRedirects`` redirects, or a redirect back to a URL already visited.
    case redirectLoop(url: String)
    /// A redirect pointed to `location`, which is not an `http(s)` URL (`file:///etc/passwd`...): not followed.
    case redirectRefused(url: String, location: String)
    /// The connection failed: refused, reset, lost, host not found, TLS failure... `reason` says which.
    case connection(url: String, reason: String)
    /// A `file://` URL names no file.
    case fileNotFound(path: String)
    /// A `file://` URL names something that cannot be read (a directory, no permission...): `reason` says why.
    case file(path: String, reason: String)
    /// The URL's scheme is not `file`, `http` or `https`.
    case unsupportedScheme(String)
    /// The fetch was cancelled.
    case cancelled

    /// Whether another attempt might succeed: connection failures, timeouts, short bodies and HTTP 5xx (never 4xx,
    /// redirect loops, a body too slow, too large or empty, or a server that does not speak HTTP).
    ///
    /// ```swift
    /// FetchError.httpStatus(code: 503, url: "https://example.com/a.png").isRetryable   // true
    /// FetchError.httpStatus(code: 404, url: "https://example.com/a.png").isRetryable   // false
    /// ```
    public var isRetryable: Bool {
        switch self {
        case .connection, .timedOut, .shortBody, .encodedBodyFailed: true
        case .httpStatus(let code, _): (500...599).contains(code)
        case .emptyBody, .tooLarge, .fileNotFound, .file, .unsupportedScheme, .cancelled, .deadlineExceeded, .tooSlow,
            .notHTTP, .redirectLoop, .redirectRefused:
            false
        }
    }

    public var description: String {
        switch self {
        case .httpStatus(let code, let url):
            "\(url): the server answered HTTP status \(code)\(Self.statusPhrase(code).map { " (\($0))" } ?? "")"
        case .emptyBody(let url):
            "\(url): the body is empty"
        case .tooLarge(let url, let limit):
            "\(url): the body is larger than the limit of \(limit) bytes"
        case .timedOut(let url):
            "\(url): timed out waiting for the server"
        case .deadlineExceeded(let url, let seconds):
            "\(url): gave up after \(Self.seconds(seconds)) (the fetch's time limit)"
        case .tooSlow(let url, let rate):
            "\(url): the server sent the body too slowly (under \(rate) bytes/s)"
        case .shortBody(let url, let received, let expected):
            "\(url): the connection closed after \(received) of the \(expected) bytes announced (\(expected - received) missing)"
        case .encodedBodyFailed(let url, let encoding):
            "\(url): the \(encoding)-encoded body ended early or could not be decoded"
        case .notHTTP(let url):
            "\(url): the server did not answer in HTTP"
        case .redirectLoop(let url):
            "\(url): too many redirects (a redirect loop)"
        case .redirectRefused(let url, let location):
            "\(url): redirected to \(location), which is not an http(s) URL (not followed)"
        case .connection(let url, let reason):
            "\(url): the connection failed: \(reason)"
        case .fileNotFound(let path):
            "no file at \(path)"
        case .file(let path, let reason):
            "cannot read \(path): \(reason)"
        case .unsupportedScheme(let scheme):
            "unsupported URL scheme '\(scheme)': only file, http and https URLs can be fetched"
        case .cancelled:
            "the fetch was cancelled"
        }
    }

    /// `12 s`, `1.5 s`.
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\((value * 10).rounded() / 10) s"
    }

    /// A few common reason phrases, so a log line says what the number means.
    private static func statusPhrase(_ code: Int) -> String? {
        switch code {
        case 400: "bad request"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "not found"
        case 408: "request timeout"
        case 410: "gone"
        case 429: "too many requests"
        case 500: "internal server error"
        case 502: "bad gateway"
        case 503: "service unavailable"
        case 504: "gateway timeout"
        default: nil
        }
    }
}
