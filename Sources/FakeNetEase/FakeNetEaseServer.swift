import Foundation
import NetEase

/// A fake NetEase Cloud Music server for the tests and `make demo`: HTTP/1.1 on 127.0.0.1 speaking the real wire
/// protocol (weapi decrypted with a test RSA private key, eapi with the fixed key and its digest checked, plain
/// `/api/`), answering in the real response shapes for a deterministic demo account, serving the audio and cover
/// URLs its answers contain, and injecting the failures NetEase is known for.
///
/// Every request is recorded with its decrypted parameters, cookies and headers, so a test asserts on what a
/// client actually sent, not only on what it made of the answers.
public final class FakeNetEaseServer: @unchecked Sendable {
    public struct Options: Sendable {
        /// 0 picks a free port.
        public var port: UInt16 = 0
        /// The private half of the key pair whose public half the client gets as `weapi_public_key`.
        public var privateKey: RSAPrivateKey
        /// Where generated audio and covers live (shared across servers when the same).
        public var dataDirectory: String = NSTemporaryDirectory() + "fake-netease"
        /// Seconds a `song_url_v1` URL stays valid; older URLs answer HTTP 403, as NetEase's CDN does.
        public var urlLifetime: TimeInterval = 1200
        /// How QR codes advance: only when told (`setQRState`), or by time since the key was made.
        public var qrMode: QRMode = .manual
        /// Seconds after which an unconfirmed QR key answers 800.
        public var qrLifetime: TimeInterval = 300
        /// Public endpoints need at least a guest cookie (`MUSIC_A`), as NetEase increasingly does.
        public var guestCookieRequired = true
        /// weapi requests of a logged-in session must carry `csrf_token` equal to the session's `__csrf`.
        public var checkCSRF = true
        /// `playlist_detail.tracks` limits: the owner's own playlists, others' playlists, no login.
        public var ownPlaylistTrackLimit = 1000
        public var otherPlaylistTrackLimit = 20
        public var anonymousPlaylistTrackLimit = 6
        /// More ids than this in one `song_detail` answer 400 (NCM #833).
        public var songDetailLimit = 1000
        /// `login_refresh` answers 400 for QR-issued cookies, as NetEase does (NCM #1421).
        public var refreshRejectsQRCookies = true

        public init(privateKey: RSAPrivateKey) { self.privateKey = privateKey }
    }

    public enum QRMode: Sendable {
        case manual
        /// 801 until `scanAfter` seconds, 802 until `confirmAfter`, then 803.
        case automatic(scanAfter: TimeInterval, confirmAfter: TimeInterval)
    }

    public enum QRState: Int, Sendable {
        case expired = 800, waiting = 801, scanned = 802, confirmed = 803
    }

    /// What an injected fault does to the next matching requests.
    public enum Fault: Sendable, Equatable {
        /// Holds the connection without answering (until the server stops or two minutes pass).
        case timeout
        /// That HTTP status with `{"code":status,…}` (405/406: the rate limit).
        case status(Int)
        /// HTTP 200 with that body code: -460 (cheating), 301 (login needed), 405, -447, …
        case code(Int)
        /// HTTP 200 with a truncated JSON body.
        case malformedJSON
        /// The normal answer, that many seconds late.
        case delay(TimeInterval)
        /// The connection closes without an answer.
        case disconnect
        /// The normal head, then only that many body bytes before the connection closes (for audio downloads).
        case dropBody(after: Int)
    }

    public enum Scheme: String, Sendable {
        case weapi, eapi, api, other
    }

    /// One request as the server saw it, after decryption.
    public struct LoggedRequest: Sendable {
        public var method: String
        /// The path as sent (`/weapi/v3/song/detail`).
        public var path: String
        public var scheme: Scheme
        /// The `/api/...` path the request is for (the eapi digest's path; weapi and eapi rewritten).
        public var apiPath: String
        /// Decrypted parameters as JSON text.
        public var paramsText: String
        /// The Cookie header (and, for eapi, the `header` object's values it lacks).
        public var cookies: [String: String]
        /// Names lower-cased.
        public var headers: [String: String]
        public var query: [String: String]
        /// The answer: HTTP status and body `code` (nil for non-JSON answers and faults that send none).
        public var status: Int
        public var code: Int?

        public var params: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(paramsText.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// One entry of a `scrobble` (`/api/feedback/weblog`) `logs` list, as the server understood it.
    public struct Scrobble: Sendable, Equatable {
        /// `play`, `startplay`, …
        public var action: String
        /// The song (`json.id`).
        public var id: Int
        /// The playlist or album it played from, as sent (`""` for none).
        public var sourceID: String
        /// Seconds played (`json.time`).
        public var time: Double
        /// `list`, `album`, …; nil when not sent.
        public var source: String?
        /// When the server received it.
        public var when: Date
    }

    /// An audio URL `song_url` handed out: which file it serves, and whether it still does.
    struct IssuedURL {
        var issued: Date
        var media: Int
        var flac: Bool
        /// Serves the trial clip (`MediaFiles.clip`) instead of the whole song.
        var clip: Bool
        var song: Int
        /// `expireURLs()` ended it before its time.
        var expired = false
    }

    /// A logged-in session's cookies, for tests and demos that import cookies instead of logging in.
    public struct SessionCookies: Sendable {
        public var musicU: String
        public var csrf: String
    }

    /// The demo account's ready-made session (cookie import).
    public static let demoSession = SessionCookies(
        musicU: "FAKE_MUSIC_U_00demo0000000000000000000000000000000000000000000000000000000000000000",
        csrf: "0123456789abcdef0123456789abcdef")

    public let options: Options
    public let catalog: DemoCatalog
    public let media: MediaFiles
    public var port: UInt16 { listener?.port ?? 0 }
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private var listener: HTTPListener?
    let lock = NSLock()
    var log: [LoggedRequest] = []
    var faults: [(prefix: String, fault: Fault, remaining: Int)] = []
    var qrKeys: [String: (created: Date, state: QRState?)] = [:]
    var qrOrder: [String] = []
    /// MUSIC_U → (csrf, issued by QR login).
    var sessions: [String: (csrf: String, viaQR: Bool)] = [:]
    var guests: [String: Int] = [:]
    /// The audio URLs `song_url` handed out, by the digest in their path.
    var issuedURLs: [String: IssuedURL] = [:]
    var liked: [Int]
    /// The playlists as edited by `playlist_create`/`_delete`/`_tracks` (the catalog's at start).
    var playlists: [Int: DemoCatalog.Playlist]
    var ownPlaylists: [Int]
    /// Personal FM walks the catalog three songs per call, so its answers are deterministic.
    var fmCursor = 0
    /// The ids each personal FM answer served, oldest first.
    var fmBatches: [[Int]] = []
    /// Songs `fm_trash` threw out of the personal FM, in order; FM never serves them again.
    var trashed: [Int] = []
    var scrobbleLog: [Scrobble] = []
    let pictures: Set<Int64>

    public init(options: Options) throws {
        self.options = options
        catalog = .demo
        liked = catalog.likedSongIDs
        playlists = catalog.playlists
        ownPlaylists = catalog.ownPlaylistIDs
        pictures = catalog.pictureIDs
        media = try MediaFiles.prepare(in: options.dataDirectory)
        sessions[Self.demoSession.musicU] = (Self.demoSession.csrf, false)
    }

    /// Starts listening; returns once the port is bound.
    public func start() throws {
        listener = try HTTPListener(port: options.port) { [self] request in handle(request) }
    }

    public func stop() {
        listener?.stop()
        listener = nil
    }

    deinit { listener?.stop() }

    // MARK: Test controls

    /// Every request so far, oldest first.
    public var requests: [LoggedRequest] { lock.withLock { log } }

    /// The requests for one `/api/...` path (any scheme).
    public func requests(for apiPath: String) -> [LoggedRequest] {
        requests.filter { $0.apiPath == apiPath }
    }

    public func clearLog() { lock.withLock { log.removeAll() } }

    /// Makes the next `count` requests whose path (as sent, or its `/api/...` form) starts with `pathPrefix` fail.
    public func inject(_ fault: Fault, for pathPrefix: String, count: Int = 1) {
        lock.withLock { faults.append((pathPrefix, fault, count)) }
    }

    public func clearFaults() { lock.withLock { faults.removeAll() } }

    /// QR keys in the order they were made.
    public var qrCodeKeys: [String] { lock.withLock { qrOrder } }

    /// Moves a QR key to a state (the phone scanning it, confirming, or the code expiring).
    public func setQRState(_ state: QRState, for key: String) {
        lock.withLock {
            if let entry = qrKeys[key] { qrKeys[key] = (entry.created, state) }
        }
    }

    /// The liked songs as they are now (`like` changes them).
    public var likedSongIDs: [Int] { lock.withLock { liked } }

    /// A playlist as it is now: edits applied, the liked-songs one following `like`.
    public func playlist(_ id: Int) -> DemoCatalog.Playlist? {
        lock.withLock {
            guard var playlist = playlists[id] else { return nil }
            if playlist.specialType == 5 { playlist.trackIDs = liked }
            return playlist
        }
    }

    /// The account's own playlists now (the liked-songs one first, then created ones, then the rest).
    public var ownPlaylistIDs: [Int] { lock.withLock { ownPlaylists } }

    /// A playlist's song ids now (nil for an unknown or deleted playlist).
    public func playlistTrackIDs(_ id: Int) -> [Int]? { playlist(id)?.trackIDs }

    /// Every scrobble entry received, oldest first.
    public var scrobbles: [Scrobble] { lock.withLock { scrobbleLog } }

    /// The songs `fm_trash` threw out, oldest first.
    public var trashedSongIDs: [Int] { lock.withLock { trashed } }

    /// The ids of each personal FM answer, oldest first.
    public var fmServedBatches: [[Int]] { lock.withLock { fmBatches } }

    /// Every id personal FM served, in order.
    public var fmServedSongIDs: [Int] { fmServedBatches.flatMap { $0 } }

    /// Makes every audio URL issued so far answer 403, as the CDN does once a URL has expired, without
    /// waiting for `urlLifetime`. URLs issued afterwards play.
    public func expireURLs() {
        lock.withLock {
            for key in issuedURLs.keys { issuedURLs[key]?.expired = true }
        }
    }

    // MARK: Dispatch

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        if request.path.hasPrefix("/__fake/") { return control(request) }
        if request.method == "GET" || request.method == "HEAD" {
            var modifier: Fault?
            let response = Self.modify(staticFile(request, &modifier), modifier)
            record(LoggedRequest(method: request.method, path: request.path, scheme: .other, apiPath: request.path,
                                 paramsText: "{}", cookies: Self.cookies(request.header("cookie")),
                                 headers: request.headers, query: request.query, status: response.status, code: nil))
            return response
        }
        var entry = LoggedRequest(method: request.method, path: request.path, scheme: .other, apiPath: request.path,
                                  paramsText: "{}", cookies: Self.cookies(request.header("cookie")),
                                  headers: request.headers, query: request.query, status: 200, code: nil)
        var modifier: Fault?
        let response = Self.modify(api(request, &entry, &modifier), modifier)
        entry.status = response.hold || response.disconnect ? 0 : response.status
        if entry.code == nil, !response.hold,
           let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] {
            entry.code = Self.intValue(object["code"])
        }
        record(entry)
        return response
    }

    /// The log keeps the newest entries only, so a long `make demo` session does not grow without bound.
    static let logLimit = 10_000

    private func record(_ entry: LoggedRequest) {
        lock.withLock {
            log.append(entry)
            if log.count > Self.logLimit { log.removeFirst(log.count - Self.logLimit) }
        }
    }

    /// Takes one use of the first fault matching the path, if any.
    func takeFault(_ paths: String...) -> Fault? { takeFault(paths) }

    /// Takes one use of the first fault matching any of `paths` (one request's names), if any.
    func takeFault(_ paths: [String]) -> Fault? {
        lock.withLock {
            guard let index = faults.firstIndex(where: { fault in paths.contains { $0.hasPrefix(fault.prefix) } })
            else { return nil }
            let fault = faults[index].fault
            faults[index].remaining -= 1
            if faults[index].remaining <= 0 { faults.remove(at: index) }
            return fault
        }
    }

    /// The faults that change how the normal answer is sent rather than replacing it.
    static func modify(_ response: HTTPResponse, _ fault: Fault?) -> HTTPResponse {
        var response = response
        switch fault {
        case .delay(let seconds)?: response.delay = seconds
        case .disconnect?: response.disconnect = true
        case .dropBody(let count)?: response.dropAfter = count
        default: break
        }
        return response
    }

    /// The answer replacing the normal one, or nil for the faults `modify` applies.
    static func faultResponse(_ fault: Fault) -> HTTPResponse? {
        switch fault {
        case .delay, .disconnect, .dropBody: nil
        case .timeout: HTTPResponse(status: 0, hold: true)
        case .status(let status):
            .json(#"{"code":\#(status),"message":"\#(status == 405 || status == 406 ? "操作频繁，请稍候再试" : "error")"}"#,
                  status: status)
        case .code(let code): .json(errorBody(code))
        case .malformedJSON: .json(#"{"code":200,"data":[{"id":1,"name":"trunc"#)
        }
    }

    static func errorBody(_ code: Int) -> String {
        switch code {
        case 301: #"{"msg":"需要登录","code":301}"#
        case -460: #"{"code":-460,"message":"网络太拥挤，请稍候再试！","msg":"Cheating"}"#
        case 405, 406: #"{"code":\#(code),"message":"操作频繁，请稍候再试"}"#
        case -447: #"{"code":-447,"message":"服务器忙碌"}"#
        default: #"{"code":\#(code),"message":"error \#(code)"}"#
        }
    }

    /// `/weapi/…`, `/eapi/…` and `/api/…`: decrypt, record, fault, authenticate, route.
    private func api(_ request: HTTPRequest, _ entry: inout LoggedRequest, _ modifier: inout Fault?) -> HTTPResponse {
        let form = FormCoding.decode(String(decoding: request.body, as: UTF8.self))
        var params: [String: Any] = [:]
        var cookies = entry.cookies
        func reject(_ message: String) -> HTTPResponse {
            .json(#"{"code":400,"message":"\#(message)"}"#, status: 400)
        }
        if request.path.hasPrefix("/weapi/") {
            entry.scheme = .weapi
            entry.apiPath = "/api/" + request.path.dropFirst("/weapi/".count)
            guard let encrypted = form["params"], let encSecKey = form["encSecKey"] else {
                return reject("weapi without params/encSecKey")
            }
            guard let text = try? NetEaseCrypto.weapiDecrypt(params: encrypted, encSecKey: encSecKey,
                                                             privateKey: options.privateKey),
                  let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
            else { return reject("weapi params do not decrypt") }
            entry.paramsText = text
            params = object
        } else if request.path.hasPrefix("/eapi/") {
            entry.scheme = .eapi
            entry.apiPath = "/api/" + request.path.dropFirst("/eapi/".count)
            guard let encrypted = form["params"] else { return reject("eapi without params") }
            let decrypted: (path: String, text: String)
            do { decrypted = try NetEaseCrypto.eapiDecrypt(params: encrypted) } catch {
                return reject("eapi params rejected: \(error)")
            }
            entry.paramsText = decrypted.text
            guard decrypted.path == entry.apiPath else {
                return reject("eapi digest path \(decrypted.path) is not \(entry.apiPath)")
            }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(decrypted.text.utf8))) as? [String: Any]
            else { return reject("eapi text is not a JSON object") }
            params = object
            // The header object is the client's cookie set; the Cookie header wins where both exist.
            var header = object["header"] as? [String: Any]
            if header == nil, let text = object["header"] as? String {
                header = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
            }
            for (key, value) in header ?? [:] where cookies[key] == nil {
                if let string = Self.stringValue(value) { cookies[key] = string }
            }
            entry.cookies = cookies
        } else if request.path.hasPrefix("/api/") {
            entry.scheme = .api
            params = form
            if let data = try? JSONSerialization.data(withJSONObject: form, options: [.sortedKeys]) {
                entry.paramsText = String(decoding: data, as: UTF8.self)
            }
        } else {
            return .json(#"{"code":404,"message":"no such api"}"#, status: 404)
        }

        if let fault = takeFault(request.path, entry.apiPath) {
            if let replaced = Self.faultResponse(fault) { return replaced }
            modifier = fault
        }

        guard let endpoint = Self.route(entry.apiPath) else {
            return .json(#"{"code":404,"message":"no such api"}"#, status: 404)
        }
        let viewer = viewer(cookies)
        switch endpoint.access {
        case .open: break
        case .guest:
            if options.guestCookieRequired, case .nobody = viewer {
                return .json(#"{"code":400,"message":"需要验证","msg":"需要验证"}"#)
            }
        case .login:
            guard case .user = viewer else { return .json(Self.errorBody(301)) }
        }
        if options.checkCSRF, entry.scheme == .weapi, case .user(_, let csrf) = viewer {
            let sent = Self.stringValue(params["csrf_token"]) ?? ""
            guard sent == csrf else { return .json(#"{"msg":"csrf_token does not match __csrf","code":301}"#) }
        }
        let context = Context(server: self, params: params, cookies: cookies, viewer: viewer, scheme: entry.scheme,
                              path: entry.apiPath,
                              shapes: Shapes(catalog: catalog, base: baseURL, vip: viewer.isUser))
        let reply = endpoint.handler(context)
        let text: String
        if let data = try? JSONSerialization.data(withJSONObject: reply.json, options: [.withoutEscapingSlashes]) {
            text = String(decoding: data, as: UTF8.self)
        } else {
            text = #"{"code":500}"#
        }
        entry.code = Self.intValue(reply.json["code"])
        let headers = reply.cookies.map { ("Set-Cookie", $0) }
        if Self.boolValue(params["e_r"]) {
            return HTTPResponse(status: reply.status, headers: [("Content-Type", "application/octet-stream")] + headers,
                                body: NetEaseCrypto.eapiEncryptResponse(Array(text.utf8)))
        }
        return .json(text, status: reply.status, headers: headers)
    }

    // MARK: Viewers

    enum Viewer {
        case nobody
        case guest(id: Int)
        case user(musicU: String, csrf: String)

        var isUser: Bool { if case .user = self { true } else { false } }
    }

    private func viewer(_ cookies: [String: String]) -> Viewer {
        lock.withLock {
            if let token = cookies["MUSIC_U"], !token.isEmpty, let session = sessions[token] {
                return .user(musicU: token, csrf: session.csrf)
            }
            if let token = cookies["MUSIC_A"], let id = guests[token] { return .guest(id: id) }
            return .nobody
        }
    }

    // MARK: Helpers

    static func cookies(_ header: String?) -> [String: String] {
        var cookies: [String: String] = [:]
        for part in (header ?? "").split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = pair[0].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { continue }
            let value = pair.count > 1 ? String(pair[1]).trimmingCharacters(in: .whitespaces) : ""
            cookies[name] = value.removingPercentEncoding ?? value
        }
        return cookies
    }

    static func stringValue(_ value: Any?) -> String? {
        switch value {
        case let string as String: string
        case let number as NSNumber: number.stringValue
        default: nil
        }
    }

    /// NetEase's clients send numbers as numbers or strings (`"id":"347230"`, `code` as a string).
    static func intValue(_ value: Any?) -> Int? {
        switch value {
        case let number as NSNumber: number.intValue
        case let string as String: Int(string)
        default: nil
        }
    }

    static func boolValue(_ value: Any?) -> Bool {
        switch value {
        case let number as NSNumber: number.boolValue
        case let string as String: string == "true" || string == "1"
        default: false
        }
    }

    static func randomHex(_ count: Int) -> String {
        (0..<count).map { _ in String(format: "%x", Int.random(in: 0..<16)) }.joined()
    }
}
