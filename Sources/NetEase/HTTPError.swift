/// A transfer that failed before a complete response arrived (an HTTP error status is a response, not this).
public struct HTTPError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// Connect timeout, stall (low-speed limit) or the request's total time.
        case timeout
        /// Refused, reset, closed early, DNS or TLS failure: worth retrying later.
        case connection
        case invalidURL
        case tooManyRedirects
        case other
    }

    public var kind: Kind
    public var url: String
    /// libcurl's explanation.
    public var message: String

    public init(_ kind: Kind, url: String, _ message: String) {
        self.kind = kind
        self.url = url
        self.message = message
    }

    public var description: String { "\(url): \(message)" }
}
