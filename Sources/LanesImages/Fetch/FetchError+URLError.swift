import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension FetchError {
    /// The fetch error for a failed `URLSessionTask` fetching `url` (an `http(s)` URL: a URL "not supported" then
    /// means the server's answer was not HTTP; redirects are checked before URLSession follows them).
    static func from(sessionError error: any Error, url: String) -> FetchError {
        guard let urlError = error as? URLError else {
            return .connection(url: url, reason: String(describing: error))
        }
        switch urlError.code {
        case .timedOut: return .timedOut(url: url)
        case .cancelled: return .cancelled
        case .unsupportedURL: return .notHTTP(url: url)
        case .httpTooManyRedirects: return .redirectLoop(url: url)
        default: return .connection(url: url, reason: reason(for: urlError.code))
        }
    }

    /// A short human reason for a URL loading error code.
    static func reason(for code: URLError.Code) -> String {
        switch code {
        case .cannotConnectToHost: "could not connect to the host (connection refused or unreachable)"
        case .networkConnectionLost: "the connection was lost or reset before the response ended"
        case .cannotFindHost: "the host name could not be found"
        case .dnsLookupFailed: "the DNS lookup failed"
        case .notConnectedToInternet: "the network is unreachable"
        case .secureConnectionFailed: "the secure (TLS) connection could not be established"
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot:
            "the server's certificate is not trusted"
        case .badServerResponse, .cannotParseResponse: "the server sent a malformed response"
        case .zeroByteResource: "the server closed the connection without responding"
        case .httpTooManyRedirects: "too many redirects"
        case .redirectToNonExistentLocation: "a redirect pointed nowhere"
        case .badURL: "the URL is malformed"
        case .unsupportedURL: "the URL is not supported"
        case .dataLengthExceedsMaximum: "the response is larger than the session allows"
        default: "URL loading error \(code.rawValue)"
        }
    }
}
