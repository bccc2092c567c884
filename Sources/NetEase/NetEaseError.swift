/// Why a NetEase request failed, in the terms a user can act on. `description` is written to follow
/// `NetEase: ` in an ACK (`ACK [52@0] {search} NetEase: rate limited …`) and in the log, so it is one line, names
/// the code NetEase sent, and says what helps.
public enum NetEaseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No response within the configured timeout (seconds).
    case timeout(seconds: Double)
    /// Connection refused or reset, DNS or TLS failure.
    case network(String)
    /// HTTP or API code 405/406 ("操作频繁"): NetEase throttles bursts; waiting helps, retrying at once does not.
    case rateLimited(code: Int)
    /// Code 301: the endpoint needs a logged-in account (or the login expired).
    case loginRequired
    /// Code -460 ("Cheating", "网络太拥挤"): NetEase refuses the client's IP or region.
    case cheating(message: String?)
    /// Code -462: NetEase wants a risk verification (captcha) that a server cannot show.
    case riskCheck(message: String?)
    /// Any other code that is not success, with NetEase's message when it sent one.
    case api(code: Int, message: String?)
    /// An HTTP error status without a JSON body.
    case http(status: Int)
    /// The body is not the JSON expected (not JSON at all, or a shape the endpoint's type cannot read).
    case malformedResponse(String)

    public var description: String {
        switch self {
        case .timeout(let seconds):
            "no answer within \(Self.format(seconds)) s (timeout)"
        case .network(let message):
            "network error: \(message)"
        case .rateLimited(let code):
            "rate limited (\(code)), try again in a minute"
        case .loginRequired:
            "login required (301), run `nosignal login`"
        case .cheating(let message):
            "request refused as coming from a risky network (-460\(Self.quoted(message))), set real_ip to a mainland address"
        case .riskCheck(let message):
            "risk check required (-462\(Self.quoted(message))), log in with the QR code instead"
        case .api(let code, let message):
            if let message, !message.isEmpty { "\(message) (code \(code))" } else { "request failed with code \(code)" }
        case .http(let status):
            "HTTP status \(status)"
        case .malformedResponse(let detail):
            "malformed response: \(detail)"
        }
    }

    private static func quoted(_ message: String?) -> String {
        guard let message, !message.isEmpty else { return "" }
        return ": \(message)"
    }

    private static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)
    }

    /// The error an `HTTPError` (a transfer that failed) becomes.
    public init(_ error: HTTPError, timeout: Double) {
        switch error.kind {
        case .timeout: self = .timeout(seconds: timeout)
        default: self = .network(error.message)
        }
    }
}
