/// What every HTTP transfer of the server shares: identity, redirects and the limits that keep a dead server from
/// hanging a thread. The NetEase client and the streaming input each hold one.
public struct HTTPConfiguration: Sendable, Equatable {
    public var userAgent: String
    /// Seconds to establish the connection (DNS, TCP, TLS).
    public var connectTimeout: Double
    /// A transfer slower than `lowSpeedLimit` bytes/s for this many seconds has stalled and fails; 0 disables.
    /// This is the timeout for streams, which have no total time limit (a radio plays for hours).
    public var lowSpeedTime: Int
    public var lowSpeedLimit: Int
    /// Seconds for a whole `HTTPClient` request (nil: none). Streams ignore it.
    public var requestTimeout: Double?
    /// Redirects followed (0: none, the 3xx is the answer).
    public var maxRedirects: Int
    /// Sent with every request, before the request's own (NetEase's `X-Real-IP`, say).
    public var headers: [HTTPHeader]

    public init(userAgent: String = HTTPConfiguration.defaultUserAgent, connectTimeout: Double = 10,
                lowSpeedTime: Int = 30, lowSpeedLimit: Int = 1, requestTimeout: Double? = 30, maxRedirects: Int = 8,
                headers: [HTTPHeader] = []) {
        self.userAgent = userAgent
        self.connectTimeout = connectTimeout
        self.lowSpeedTime = lowSpeedTime
        self.lowSpeedLimit = lowSpeedLimit
        self.requestTimeout = requestTimeout
        self.maxRedirects = maxRedirects
        self.headers = headers
    }

    public static let defaultUserAgent = "NoSignal (libcurl)"
}
