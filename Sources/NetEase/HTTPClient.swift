import CCurl
import CCurlShim

/// Synchronous HTTP requests over libcurl, one easy handle per request on the calling thread. Blocking: call it
/// from a worker thread or a detached task, never from an event loop. Every request ends within the configured
/// timeouts, with a response or an `HTTPError`.
public struct HTTPClient: Sendable {
    public var configuration: HTTPConfiguration

    public init(configuration: HTTPConfiguration = HTTPConfiguration()) {
        self.configuration = configuration
    }

    /// libcurl's version string, e.g. `libcurl/7.88.1 OpenSSL/3.0.…`.
    public static var version: String { String(cString: curl_version()) }

    public func perform(_ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let easy = try CurlEasy(url: request.url, configuration: configuration)
        var headers = configuration.headers + request.headers
        switch request.method {
        case .get:
            easy.set(CURLOPT_HTTPGET, 1)
        case .head:
            easy.set(CURLOPT_NOBODY, 1)
        case .post:
            let body = request.body ?? []
            easy.set(CURLOPT_POST, 1)
            nosignal_curl_setopt_offset(easy.handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            // COPYPOSTFIELDS: libcurl keeps its own copy, the array may go.
            body.withUnsafeBufferPointer { bytes in
                let empty: StaticString = ""
                let pointer = bytes.baseAddress.map { UnsafeMutableRawPointer(mutating: $0) }
                    ?? UnsafeMutableRawPointer(mutating: empty.utf8Start)
                _ = nosignal_curl_setopt_pointer(easy.handle, CURLOPT_COPYPOSTFIELDS, pointer)
            }
            // libcurl would otherwise wait up to a second for `100 Continue` before sending a larger body.
            if !headers.contains(where: { $0.name.lowercased() == "expect" }) { headers.append(HTTPHeader("Expect", "")) }
        }
        easy.setHeaders(headers)
        // Any encoding libcurl can decode (API responses compress well).
        easy.set(CURLOPT_ACCEPT_ENCODING, "")
        if let timeout = request.timeout ?? configuration.requestTimeout {
            easy.set(CURLOPT_TIMEOUT_MS, max(1, Int(timeout * 1000)))
        }
        easy.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)

        let collector = ResponseCollector(followsRedirects: configuration.maxRedirects > 0)
        let code = withExtendedLifetime(collector) { () -> CURLcode in
            let context = Unmanaged.passUnretained(collector).toOpaque()
            easy.setCallbacks(context: context, body: { data, size, count, context in
                let collector = Unmanaged<ResponseCollector>.fromOpaque(context!).takeUnretainedValue()
                let length = size * count
                if let data { collector.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length)) }
                return length
            }, header: { data, size, count, context in
                let collector = Unmanaged<ResponseCollector>.fromOpaque(context!).takeUnretainedValue()
                let length = size * count
                if let head = collector.parser.feed(UnsafeRawBufferPointer(start: data, count: length)) {
                    collector.head = head
                    collector.body = [] // a body before it belonged to an interim response
                }
                return length
            })
            return curl_easy_perform(easy.handle)
        }
        guard code == CURLE_OK else { throw easy.error(for: code) }
        var status = 0
        nosignal_curl_getinfo_long(easy.handle, CURLINFO_RESPONSE_CODE, &status)
        let head = collector.head
        return HTTPResponse(status: head?.status ?? status, headers: head?.headers ?? [], body: collector.body,
                            url: easy.effectiveURL)
    }
}

/// What the callbacks of one request gather (used on the requesting thread only).
private final class ResponseCollector {
    var parser: ResponseHeadParser
    var head: ResponseHead?
    var body: [UInt8] = []

    init(followsRedirects: Bool) {
        parser = ResponseHeadParser(followsRedirects: followsRedirects)
    }
}
