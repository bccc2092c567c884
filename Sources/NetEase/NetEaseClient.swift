import Foundation
import Logging
import Synchronization

/// How a request is encrypted. The endpoint path is always written `/api/…`; the scheme decides
/// the URL it really goes to.
public enum RequestCrypto: String, Sendable, Equatable, CaseIterable {
    /// The web client's scheme: `<api_url>/weapi/…`, AES twice plus RSA. The default for almost everything.
    case weapi
    /// The apps' scheme: `<eapi_url>/eapi/…`, AES-ECB with an MD5 digest over the `/api/` path.
    case eapi
    /// The old Linux client's: `<api_url>/api/linux/forward`. Deprecated upstream, kept for fallbacks.
    case linuxapi
}

/// The blocking NetEase request layer: one `request(path:params:crypto:)` that builds exactly what NetEase's
/// own clients send for the chosen scheme (URL, headers, cookies, encryption), sends it through libcurl, keeps
/// the cookies it gets back, and turns the answer into JSON or a `NetEaseError`. It blocks the calling thread
/// for at most the configured timeout, so call it from a worker thread, never from an event loop.
public final class NetEaseClient: Sendable {
    public struct Configuration: Sendable {
        /// weapi and linuxapi host (`api_url`); a proxy or the fake server in tests.
        public var apiURL: String
        /// eapi host (`eapi_url`).
        public var eapiURL: String
        /// The RSA key weapi encrypts its AES key with (`weapi_public_key`: a test server's own pair).
        public var publicKey: RSAPublicKey
        /// Sent as `X-Real-IP` and `X-Forwarded-For` (`real_ip`): outside mainland China NetEase answers -460
        /// without a mainland address. Keep it stable per account.
        public var realIP: String?
        /// Seconds a whole request may take (`timeout`).
        public var timeout: Double
        /// The eapi client identity (`header.deviceId`). Stable per installation, so NetEase sees one device.
        public var deviceID: String
        /// The eapi client NetEase is told it talks to (`os`, `appver`, `osver`, `channel`).
        public var eapiIdentity: [String: String]

        public init(apiURL: String = Configuration.defaultAPIURL, eapiURL: String = Configuration.defaultEAPIURL,
                    publicKey: RSAPublicKey = .netease, realIP: String? = nil, timeout: Double = 15,
                    deviceID: String = Configuration.randomDeviceID(),
                    eapiIdentity: [String: String] = Configuration.pcIdentity) {
            self.apiURL = apiURL
            self.eapiURL = eapiURL
            self.publicKey = publicKey
            self.realIP = realIP
            self.timeout = timeout
            self.deviceID = deviceID
            self.eapiIdentity = eapiIdentity
        }

        public static let defaultAPIURL = "https://music.163.com"
        public static let defaultEAPIURL = "https://interface.music.163.com"

        /// ENH's default desktop client (`osMap.pc`).
        public static let pcIdentity: [String: String] = [
            "os": "pc", "appver": "3.1.17.204416", "osver": "Microsoft-Windows-10-Professional-build-19045-64bit",
            "channel": "netease",
        ]

        /// 52 upper-case hex characters, the form of ENH's `generateDeviceId()`.
        public static func randomDeviceID() -> String {
            (0..<52).map { _ in String("0123456789ABCDEF".randomElement()!) }.joined()
        }
    }

    /// A desktop browser, as NetEase's web player is one (ENH).
    static let weapiUserAgent = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0"
    static let linuxapiUserAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/60.0.3112.90 Safari/537.36"
    static let eapiPCUserAgent = "Mozilla/5.0 (Windows NT 10.0; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/91.0.4472.164 NeteaseMusicDesktop/3.1.29.205117"
    static let eapiMacUserAgent = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
    static let eapiMobileUserAgent = "NeteaseMusic 9.0.90/5038 (iPhone; iOS 16.2; zh_CN)"
    /// The host the linuxapi payload names; NetEase forwards to it internally, whatever host received the call.
    static let linuxapiForwardHost = "https://music.163.com"
    /// Client identity cookies that must never ride on weapi: NetEase drops scrobbles that carry them (ENH
    /// e9bad5d).
    static let weapiForbiddenCookies: Set<String> = ["os", "appver", "osver", "channel"]

    public let configuration: Configuration
    public let cookies: CookieJar
    private let http: HTTPClient
    private let loginSuppressed = Mutex(false)
    private let logger: Logger?

    public init(configuration: Configuration = Configuration(), cookies: CookieJar, logger: Logger? = nil) {
        self.configuration = configuration
        self.cookies = cookies
        self.logger = logger
        http = HTTPClient(configuration: HTTPConfiguration(
            connectTimeout: min(10, configuration.timeout), requestTimeout: configuration.timeout, maxRedirects: 3))
    }

    /// Whether requests leave the login (`MUSIC_U`) out and go as the guest (`MUSIC_A`): NetEase refused the
    /// login as expired, but the cookie stays stored for a later check (a 301 can be a passing fault).
    public var isLoginSuppressed: Bool {
        get { loginSuppressed.withLock { $0 } }
        set { loginSuppressed.withLock { $0 = newValue } }
    }

    // MARK: Requests

    /// Sends `params` to the `/api/…` `path` with `crypto` and returns the response's JSON when its `code` is one
    /// of `accepting` (a body without `code` counts as success when the HTTP status does). `cookies` overrides
    /// the client identity for this one request (eapi's `header` object: `song_url_v1` claims to be Android).
    public func request(path: String, params: [String: JSONValue] = [:], crypto: RequestCrypto = .weapi,
                        cookies overrides: [String: String] = [:], accepting: Set<Int> = [200])
        throws(NetEaseError) -> JSONValue
    {
        try perform(path: path, params: params, crypto: crypto, overrides: overrides, accepting: accepting).json
    }

    /// A typed endpoint: its request, then its response decoded as `E.Response`.
    public func send<E: NetEaseEndpoint>(_ endpoint: E) throws(NetEaseError) -> E.Response {
        let result = try perform(path: endpoint.path, params: endpoint.parameters, crypto: endpoint.crypto,
                                 overrides: endpoint.cookieOverrides, accepting: endpoint.acceptedCodes)
        return try Self.decode(E.Response.self, from: result.body, path: endpoint.path)
    }

    /// Decodes a plain JSON body as `T`, with the decoding error made readable.
    public static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8], path: String)
        throws(NetEaseError) -> T
    {
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch let DecodingError.keyNotFound(key, context) {
            throw .malformedResponse("\(path): no \(Self.codingPath(context.codingPath + [key]))")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw .malformedResponse("\(path): unexpected \(Self.codingPath(context.codingPath))")
        } catch {
            throw .malformedResponse("\(path): \(error)")
        }
    }

    private static func codingPath(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }

    /// The HTTP request `request(…)` sends, built without sending it: the tests check it byte for byte.
    public func makeRequest(path: String, params: [String: JSONValue], crypto: RequestCrypto,
                            overrides: [String: String] = [:], now: Date = Date()) -> HTTPRequest
    {
        precondition(path.hasPrefix("/api/"), "NetEase paths are written /api/…: \(path)")
        var jar = cookies.values(now: now)
        if loginSuppressed.withLock({ $0 }) { jar["MUSIC_U"] = nil }
        let url: String
        let form: [(String, String)]
        var headers: [HTTPHeader] = [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")]
        switch crypto {
        case .weapi:
            var data = params
            data["csrf_token"] = .string(jar["__csrf"] ?? "")
            let (encrypted, key) = NetEaseCrypto.weapi(JSONValue.object(data).jsonText,
                                                       publicKey: configuration.publicKey)
            url = Self.join(configuration.apiURL, "/weapi/" + path.dropFirst(5))
            form = [("params", encrypted), ("encSecKey", key)]
            headers += [HTTPHeader("User-Agent", Self.weapiUserAgent), HTTPHeader("Referer", "https://music.163.com"),
                        HTTPHeader("Cookie", Self.webCookieHeader(jar, overrides: overrides))]
        case .linuxapi:
            let payload: JSONValue = ["method": "POST", "url": .string(Self.linuxapiForwardHost + path),
                                      "params": .object(params)]
            url = Self.join(configuration.apiURL, "/api/linux/forward")
            form = [("eparams", NetEaseCrypto.linuxapi(payload.jsonText))]
            headers += [HTTPHeader("User-Agent", Self.linuxapiUserAgent),
                        HTTPHeader("Cookie", Self.webCookieHeader(jar, overrides: overrides))]
        case .eapi:
            let header = eapiHeader(jar, overrides: overrides, now: now)
            var data = params
            data["header"] = .object(header.mapValues { .string($0) })
            url = Self.join(configuration.eapiURL, "/eapi/" + path.dropFirst(5))
            form = [("params", NetEaseCrypto.eapi(path: path, text: JSONValue.object(data).jsonText))]
            let userAgent = switch header["os"] {
            case "pc": Self.eapiPCUserAgent
            case "osx": Self.eapiMacUserAgent
            default: Self.eapiMobileUserAgent
            }
            headers += [HTTPHeader("User-Agent", userAgent),
                        HTTPHeader("Cookie", header.keys.sorted().map {
                            "\(FormEncoding.uriComponent($0))=\(FormEncoding.uriComponent(header[$0]!))"
                        }.joined(separator: "; "))]
        }
        if let ip = configuration.realIP, !ip.isEmpty {
            headers += [HTTPHeader("X-Real-IP", ip), HTTPHeader("X-Forwarded-For", ip)]
        }
        return HTTPRequest(url, method: .post, headers: headers, body: Array(FormEncoding.encode(form).utf8),
                           timeout: configuration.timeout)
    }

    /// weapi's and linuxapi's Cookie header: the account's cookies as stored, the guest token only when there is
    /// no login, and never the client identity cookies (see `weapiForbiddenCookies`).
    static func webCookieHeader(_ jar: [String: String], overrides: [String: String]) -> String {
        var cookies = jar.merging(overrides) { _, override in override }
        for name in weapiForbiddenCookies { cookies[name] = nil }
        if cookies["MUSIC_U"] != nil { cookies["MUSIC_A"] = nil }
        cookies["__remember_me"] = cookies["__remember_me"] ?? "true"
        return cookies.keys.sorted().map { "\($0)=\(cookies[$0]!)" }.joined(separator: "; ")
    }

    /// eapi's `header` object, which is also its whole Cookie header.
    func eapiHeader(_ jar: [String: String], overrides: [String: String], now: Date) -> [String: String] {
        let milliseconds = Int64(now.timeIntervalSince1970 * 1000)
        var header = configuration.eapiIdentity
        header["deviceId"] = configuration.deviceID
        header["versioncode"] = "140"
        header["mobilename"] = ""
        header["buildver"] = String(milliseconds / 1000)
        header["resolution"] = "1920x1080"
        header["__csrf"] = jar["__csrf"] ?? ""
        header["requestId"] = "\(milliseconds)_" + String(format: "%04d", Int.random(in: 0...999))
        if let user = jar["MUSIC_U"] { header["MUSIC_U"] = user } else if let guest = jar["MUSIC_A"] { header["MUSIC_A"] = guest }
        header.merge(overrides) { _, override in override }
        return header
    }

    private static func join(_ base: String, _ path: String) -> String {
        base.hasSuffix("/") ? String(base.dropLast()) + path : base + path
    }

    // MARK: Responses

    struct Result {
        var json: JSONValue
        /// The plain JSON text (decrypted when the answer was an encrypted eapi body).
        var body: [UInt8]
    }

    private func perform(path: String, params: [String: JSONValue], crypto: RequestCrypto,
                         overrides: [String: String], accepting: Set<Int>) throws(NetEaseError) -> Result
    {
        let request = makeRequest(path: path, params: params, crypto: crypto, overrides: overrides)
        let started = Date()
        let response: HTTPResponse
        do {
            response = try http.perform(request)
        } catch {
            let failure = NetEaseError(error, timeout: configuration.timeout)
            logger?.info("NetEase \(path) (\(crypto.rawValue)): \(failure)")
            throw failure
        }
        let setCookies = response.headers(named: "Set-Cookie")
        if !setCookies.isEmpty {
            do { try cookies.merge(setCookieHeaders: setCookies) } catch {
                logger?.error("NetEase: cannot save the cookies: \(error)")
            }
        }
        do {
            let result = try Self.interpret(status: response.status, body: response.body, accepting: accepting)
            logger?.debug("NetEase \(path) (\(crypto.rawValue)): HTTP \(response.status) in \(String(format: "%.2f", Date().timeIntervalSince(started))) s")
            return result
        } catch {
            logger?.info("NetEase \(path) (\(crypto.rawValue)): \(error)")
            throw error
        }
    }

    /// Status and body → JSON or the error they mean. The body may be eapi ciphertext
    /// (`e_r`), which is recognised by not starting like JSON.
    static func interpret(status: Int, body: [UInt8], accepting: Set<Int>) throws(NetEaseError) -> Result {
        if status == 405 || status == 406 { throw .rateLimited(code: status) }
        var plain = body
        var json = JSONValue.parse(plain)
        if json == nil, !body.isEmpty, body.count % 16 == 0, let decrypted = try? NetEaseCrypto.eapiDecryptResponse(body) {
            plain = decrypted
            json = JSONValue.parse(decrypted)
        }
        guard let json else {
            if !(200..<300).contains(status) { throw .http(status: status) }
            let start = String(decoding: body.prefix(40), as: UTF8.self)
            throw .malformedResponse(body.isEmpty ? "empty body" : "not JSON: \(start.debugDescription)")
        }
        guard case .object = json else {
            throw .malformedResponse("not a JSON object")
        }
        guard let code = json["code"]?.intValue.map({ Int($0) }) else {
            if (200..<300).contains(status) { return Result(json: json, body: plain) }
            throw .http(status: status)
        }
        if accepting.contains(code) { return Result(json: json, body: plain) }
        let message = json["message"]?.stringValue ?? json["msg"]?.stringValue
            ?? json["data"]?["blockText"]?.stringValue ?? json["blockText"]?.stringValue
        switch code {
        case 301: throw .loginRequired
        case 405, 406: throw .rateLimited(code: code)
        case -460, 460: throw .cheating(message: message)
        case -462: throw .riskCheck(message: message)
        default: throw .api(code: code, message: message)
        }
    }
}
