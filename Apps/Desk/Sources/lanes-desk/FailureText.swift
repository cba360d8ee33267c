import Lanes
import LanesAppSupport
import LanesImages

/// What a photo cell says when its image cannot be shown: the pipeline's own one-line description of the error
/// (`FetchError`, `ImageError`), without the URL or path the cell's caption already shows, sanitised with
/// `TerminalText` (a file name can carry control characters into a message).
///
/// ```swift
/// FailureText.reason(ImageError.truncated)                                     // "image data is truncated"
/// FailureText.reason(FetchError.file(path: "/a.png", reason: "permission denied"))   // "permission denied"
/// ```
enum FailureText {
    static func reason(_ error: any Error) -> String {
        let text: String
        switch error {
        case let error as FetchError:
            switch error {
            case .file(_, let reason): text = reason
            case .fileNotFound: text = "no such file"
            case .emptyBody: text = "the file is empty (0 bytes)"
            case .httpStatus(_, let url), .tooLarge(let url, _), .timedOut(let url), .deadlineExceeded(let url, _),
                .tooSlow(let url, _), .shortBody(let url, _, _), .notHTTP(let url), .redirectLoop(let url),
                .redirectRefused(let url, _), .connection(let url, _), .encodedBodyFailed(let url, _):
                text = dropping(url + ": ", from: error.description)
            case .unsupportedScheme, .cancelled: text = error.description
            }
        case let error as ImageError: text = error.description
        case let error as LanesError: text = "\(error)"
        case is CancellationError: text = "cancelled"
        default: text = String(describing: error)
        }
        return TerminalText.sanitized(text)
    }

    private static func dropping(_ prefix: String, from text: String) -> String {
        text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
    }
}
