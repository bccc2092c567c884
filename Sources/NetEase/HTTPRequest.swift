/// One header line. Kept as a list rather than a dictionary: `Set-Cookie` repeats, and order can matter.
public struct HTTPHeader: Equatable, Sendable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A small request for `HTTPClient.perform`: what the NetEase API needs (form POSTs with cookies and headers) and
/// no more.
public struct HTTPRequest: Sendable, Equatable {
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case head = "HEAD"
    }

    public var method: Method
    public var url: String
    public var headers: [HTTPHeader]
    /// Sent as is with `POST` (set `Content-Type` in `headers`).
    public var body: [UInt8]?
    /// Overrides the configuration's `requestTimeout`.
    public var timeout: Double?

    public init(_ url: String, method: Method = .get, headers: [HTTPHeader] = [], body: [UInt8]? = nil,
                timeout: Double? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A complete response, whatever its status: the caller decides what a 4xx means (NetEase's 405 is a rate limit).
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// The final response's headers (after redirects), in order.
    public var headers: [HTTPHeader]
    /// Decoded (libcurl undoes gzip/deflate/br).
    public var body: [UInt8]
    /// The URL after redirects.
    public var url: String

    public init(status: Int, headers: [HTTPHeader], body: [UInt8], url: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// The first header of that name (case-insensitive).
    public func header(_ name: String) -> String? { headers(named: name).first }

    /// Every header of that name, in order (`Set-Cookie`).
    public func headers(named name: String) -> [String] {
        let wanted = name.lowercased()
        return headers.filter { $0.name.lowercased() == wanted }.map(\.value)
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}
