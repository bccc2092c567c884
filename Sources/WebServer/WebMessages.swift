import Foundation

/// An HTTP request as the router sees it: the path percent-decoded (`nil` when its encoding is broken), the query
/// as decoded pairs.
public struct WebRequest: Sendable {
    public var method: String
    /// The raw target's path, before decoding.
    public var rawPath: String
    public var query: [String: String]
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        rawPath = parts.first.map(String.init) ?? "/"
        query = parts.count > 1 ? Self.form(String(parts[1])) : [:]
        if method == "POST", Self.header("content-type", in: headers)?.hasPrefix("application/x-www-form-urlencoded") == true {
            query.merge(Self.form(String(decoding: body, as: UTF8.self))) { _, body in body }
        }
        self.headers = headers
        self.body = body
    }

    /// The decoded path; nil when it holds a NUL or a broken `%` escape (never served).
    public var path: String? { Self.percentDecoded(rawPath, plusIsSpace: false) }

    public func header(_ name: String) -> String? { Self.header(name, in: headers) }

    static func header(_ name: String, in headers: [(name: String, value: String)]) -> String? {
        headers.first { $0.name.lowercased() == name }?.value
    }

    /// `a=1&b=x%20y` → pairs; a pair whose encoding is broken is dropped.
    static func form(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = percentDecoded(String(parts[0]), plusIsSpace: true) else { continue }
            let value = parts.count > 1 ? percentDecoded(String(parts[1]), plusIsSpace: true) : ""
            if let value { result[key] = value }
        }
        return result
    }

    /// Percent-decoding that refuses what could smuggle a path: a broken escape, a NUL, invalid UTF-8.
    static func percentDecoded(_ text: String, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace: bytes.append(UInt8(ascii: " "))
            default: bytes.append(byte)
            }
        }
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// What the router answers: a whole body, or a stream of server-sent events that lasts until the client goes.
public struct WebResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Server-sent events, each already framed (`event: …\ndata: …\n\n`); the response ends when it finishes.
    public var events: AsyncStream<[UInt8]>?

    public init(status: Int, contentType: String, body: [UInt8], headers: [(name: String, value: String)] = []) {
        self.status = status
        self.headers = [("Content-Type", contentType)] + headers
        self.body = body
    }

    public static func text(_ status: Int, _ text: String, type: String = "text/plain; charset=utf-8") -> WebResponse {
        WebResponse(status: status, contentType: type, body: Array(text.utf8))
    }

    /// A JSON document from plain values (dictionaries, arrays, strings, numbers, booleans, `NSNull`).
    public static func json(_ value: Any, status: Int = 200) -> WebResponse {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("null".utf8)
        return WebResponse(status: status, contentType: "application/json; charset=utf-8", body: Array(data))
    }

    /// `{"error": message, "code": ack}` with the HTTP status for it.
    public static func error(_ status: Int, _ message: String, code: Int? = nil) -> WebResponse {
        var object: [String: Any] = ["error": message]
        if let code { object["code"] = code }
        return json(object, status: status)
    }

    public static func redirect(to location: String) -> WebResponse {
        WebResponse(status: 303, contentType: "text/plain; charset=utf-8", body: [], headers: [("Location", location)])
    }

    static let reasons: [Int: String] = [
        200: "OK", 303: "See Other", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 413: "Payload Too Large", 500: "Internal Server Error", 502: "Bad Gateway",
    ]
}
