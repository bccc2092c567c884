import Foundation
import TestTools
@testable import NetEase
import Testing

/// A throwaway RSA pair made with the openssl command line, so the test server can read weapi requests.
final class TestRSAKeys: Sendable {
    static let shared = TestRSAKeys()
    let publicKey: RSAPublicKey
    let privateKey: RSAPrivateKey

    init() {
        let pem = try! CommandLineTool.rsaKeyPair()
        publicKey = try! RSAPublicKey(pem: pem.publicPEM)
        privateKey = try! RSAPrivateKey(pem: pem.privatePEM)
    }
}

/// What a request looked like after decryption on the server side.
struct DecryptedRequest: Sendable {
    var path: String
    /// The `/api/…` path the eapi digest covered (eapi only).
    var apiPath: String?
    var params: JSONValue
    var headers: [(name: String, value: String)]

    func header(_ name: String) -> String? { headers.first { $0.name == name.lowercased() }?.value }

    /// The Cookie header as a dictionary.
    var cookies: [String: String] {
        var result: [String: String] = [:]
        for pair in (header("cookie") ?? "").components(separatedBy: "; ") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            // Percent-decoding only: a cookie's `+` is a plus, not a form's space.
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            result[name] = parts.count > 1 ? String(parts[1]).removingPercentEncoding ?? String(parts[1]) : ""
        }
        return result
    }
}

/// Decrypts a request the way NetEase does.
func decrypt(_ request: TestHTTPServer.Request) throws -> DecryptedRequest {
    let form = FormEncoding.decode(String(decoding: request.body, as: UTF8.self))
    let text: String
    var apiPath: String?
    if request.path.hasPrefix("/weapi/") {
        text = try NetEaseCrypto.weapiDecrypt(params: form["params"] ?? "", encSecKey: form["encSecKey"] ?? "",
                                              privateKey: TestRSAKeys.shared.privateKey)
    } else if request.path.hasPrefix("/eapi/") {
        let decrypted = try NetEaseCrypto.eapiDecrypt(params: form["params"] ?? "")
        text = decrypted.text
        apiPath = decrypted.path
    } else {
        let bytes = try #require(NetEaseCrypto.fromHex(form["eparams"] ?? ""))
        text = String(decoding: try NetEaseCrypto.aesECBDecrypt(key: NetEaseCrypto.linuxapiKey, bytes), as: UTF8.self)
    }
    return DecryptedRequest(path: request.path, apiPath: apiPath, params: try #require(JSONValue.parse(Array(text.utf8))),
                            headers: request.headers)
}

/// A NetEase stand-in answering each request with `respond(decrypted request)`.
final class FakeAPI: @unchecked Sendable {
    struct Reply {
        var status = "200 OK"
        var headers: [(String, String)] = []
        var body: [UInt8]
        init(status: String = "200 OK", headers: [(String, String)] = [], _ body: String) {
            self.status = status
            self.headers = headers
            self.body = Array(body.utf8)
        }
        init(status: String = "200 OK", headers: [(String, String)] = [], bytes: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = bytes
        }
    }

    private let lock = NSLock()
    private var received: [DecryptedRequest] = []
    private(set) var server: TestHTTPServer!

    init(_ respond: @escaping @Sendable (DecryptedRequest) -> Reply?) throws {
        server = try TestHTTPServer { [unowned self] request, connection in
            guard let decrypted = try? decrypt(request) else {
                connection.sendHead("400 Bad Request", [("Content-Length", "0")])
                return
            }
            self.lock.withLock { self.received.append(decrypted) }
            guard let reply = respond(decrypted) else {
                connection.stall(5)
                return
            }
            connection.sendHead(reply.status, reply.headers + [("Content-Type", "application/json"),
                                                               ("Content-Length", "\(reply.body.count)")])
            connection.send(reply.body)
        }
    }

    var requests: [DecryptedRequest] { lock.withLock { received } }

    func client(jar: CookieJar? = nil, realIP: String? = nil, timeout: Double = 5) throws -> NetEaseClient {
        let base = "http://127.0.0.1:\(server.port)"
        return NetEaseClient(configuration: .init(apiURL: base, eapiURL: base, publicKey: TestRSAKeys.shared.publicKey,
                                                  realIP: realIP, timeout: timeout, deviceID: "DEVICE"),
                             cookies: try jar ?? CookieJar())
    }
}

func loggedInJar() throws -> CookieJar {
    let jar = try CookieJar()
    try jar.merge(setCookieHeaders: ["MUSIC_U=user token/+=; Max-Age=1000", "__csrf=csrf123; Max-Age=1000",
                                     "MUSIC_A=guest; Max-Age=1000", "os=pc; Max-Age=1000", "appver=2.7.1; Max-Age=1000",
                                     "NMTID=nmtid; Max-Age=1000"])
    return jar
}

@Suite struct NetEaseRequestTests {
    static let keys = TestRSAKeys.shared

    func client(_ jar: CookieJar, realIP: String? = "116.25.146.177") -> NetEaseClient {
        NetEaseClient(configuration: .init(apiURL: "https://api.test", eapiURL: "https://eapi.test/",
                                           publicKey: Self.keys.publicKey, realIP: realIP, deviceID: "DEVICE"),
                      cookies: jar)
    }

    func server(_ request: HTTPRequest) throws -> DecryptedRequest {
        let path = String(request.url.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" })
        let headers = request.headers.map { (name: $0.name.lowercased(), value: $0.value) }
        return try decrypt(TestHTTPServer.Request(method: "POST", path: path, headers: headers, body: request.body ?? []))
    }

    @Test func weapiRequest() throws {
        let request = client(try loggedInJar()).makeRequest(path: "/api/v3/song/detail",
                                                            params: ["c": #"[{"id":1}]"#], crypto: .weapi)
        #expect(request.url == "https://api.test/weapi/v3/song/detail")
        #expect(request.method == .post)
        let body = String(decoding: request.body ?? [], as: UTF8.self)
        #expect(body.hasPrefix("params=") && body.contains("&encSecKey="))
        #expect(!body.contains("+") && !body.contains("/"))
        let seen = try server(request)
        #expect(seen.params == ["c": #"[{"id":1}]"#, "csrf_token": "csrf123"])
        #expect(seen.header("content-type") == "application/x-www-form-urlencoded")
        #expect(seen.header("referer") == "https://music.163.com")
        #expect(seen.header("user-agent")?.hasPrefix("Mozilla/5.0") == true)
        #expect(seen.header("x-real-ip") == "116.25.146.177")
        #expect(seen.header("x-forwarded-for") == "116.25.146.177")
        // weapi carries the login, never the client identity, and no guest token next to a login.
        #expect(seen.cookies == ["MUSIC_U": "user token/+=", "__csrf": "csrf123", "NMTID": "nmtid", "__remember_me": "true"])
        #expect(seen.cookies["os"] == nil && seen.cookies["appver"] == nil)
    }

    @Test func weapiAsAGuest() throws {
        let jar = try CookieJar()
        try jar.merge(setCookieHeaders: ["MUSIC_A=guest; Max-Age=1000"])
        let seen = try server(client(jar, realIP: nil).makeRequest(path: "/api/w/nuser/account/get", params: [:], crypto: .weapi))
        #expect(seen.params == ["csrf_token": ""])
        #expect(seen.cookies == ["MUSIC_A": "guest", "__remember_me": "true"])
        #expect(seen.header("x-real-ip") == nil)
    }

    @Test func eapiRequest() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000.123)
        let request = client(try loggedInJar()).makeRequest(
            path: "/api/song/enhance/player/url/v1", params: ["ids": "[1]", "level": "exhigh"], crypto: .eapi,
            overrides: SongEndpoints.URL(ids: [1], level: "exhigh").cookieOverrides, now: now)
        #expect(request.url == "https://eapi.test/eapi/song/enhance/player/url/v1")
        let seen = try server(request)
        #expect(seen.apiPath == "/api/song/enhance/player/url/v1")
        #expect(seen.params["ids"] == "[1]")
        let header = try #require(seen.params["header"])
        #expect(header["os"] == "android")
        #expect(header["appver"] == "8.10.05")
        #expect(header["deviceId"] == "DEVICE")
        #expect(header["__csrf"] == "csrf123")
        #expect(header["MUSIC_U"] == "user token/+=")
        #expect(header["MUSIC_A"] == nil)
        #expect(header["buildver"] == "1700000000")
        #expect(header["versioncode"] == "140")
        #expect(header["requestId"]?.stringValue?.hasPrefix("1700000000123_") == true)
        // The Cookie header is exactly the header object.
        var cookies: [String: JSONValue] = [:]
        for (name, value) in seen.cookies { cookies[name] = .string(value) }
        #expect(JSONValue.object(cookies) == header)
        #expect(seen.header("cookie")?.contains("user%20token%2F%2B%3D") == true)
        #expect(seen.header("user-agent") == NetEaseClient.eapiMobileUserAgent)
        #expect(seen.header("x-real-ip") == "116.25.146.177")
    }

    @Test func eapiDefaultsToThePCClient() throws {
        let seen = try server(client(try CookieJar()).makeRequest(path: "/api/song/lyric/v1", params: ["id": "1"], crypto: .eapi))
        #expect(seen.params["header"]?["os"] == "pc")
        #expect(seen.header("user-agent") == NetEaseClient.eapiPCUserAgent)
    }

    @Test func linuxapiRequest() throws {
        let request = client(try loggedInJar()).makeRequest(path: "/api/song/lyric", params: ["id": 1], crypto: .linuxapi)
        #expect(request.url == "https://api.test/api/linux/forward")
        let seen = try server(request)
        #expect(seen.params == ["method": "POST", "url": "https://music.163.com/api/song/lyric", "params": ["id": 1]])
        #expect(seen.cookies["os"] == nil)
    }

    @Test func endpointTable() {
        func check<E: NetEaseEndpoint>(_ endpoint: E, _ path: String, _ parameters: [String: JSONValue]) {
            check(endpoint, path, .weapi, parameters)
        }
        func check<E: NetEaseEndpoint>(_ endpoint: E, _ path: String, _ crypto: RequestCrypto,
                                       _ parameters: [String: JSONValue]) {
            #expect(endpoint.path == path)
            #expect(endpoint.crypto == crypto)
            #expect(endpoint.parameters == parameters, "\(path)")
        }
        check(LoginEndpoints.QRKey(), "/api/login/qrcode/unikey", ["type": 1, "noCheckToken": true])
        check(LoginEndpoints.QRCheck(key: "k"), "/api/login/qrcode/client/login", ["key": "k", "type": 1, "noCheckToken": true])
        check(LoginEndpoints.Status(), "/api/w/nuser/account/get", [:])
        check(LoginEndpoints.Refresh(), "/api/login/token/refresh", [:])
        check(LoginEndpoints.Logout(), "/api/logout", [:])
        check(LoginEndpoints.RegisterAnonymous(deviceID: "NMUSIC"), "/api/register/anonimous",
              ["username": "Tk1VU0lDIGdtVG82R2lvNEZoRWY5MFZqZzhPenc9PQ=="])
        check(LoginEndpoints.Cellphone(phone: "13800000000", secret: .password("pw")), "/api/w/login/cellphone",
              ["phone": "13800000000", "countrycode": "86", "password": "8fe4c11451281c094a6578e6ddbf5eed",
               "remember": "true", "type": "1", "https": "true"])
        check(AccountEndpoints.Account(), "/api/nuser/account/get", [:])
        check(SearchEndpoints.CloudSearch(keywords: "周杰伦", kind: .albums), "/api/cloudsearch/pc",
              ["s": "周杰伦", "type": 10, "limit": 30, "offset": 0, "total": true])
        check(SearchEndpoints.Suggest(keywords: "a"), "/api/search/suggest/web", ["s": "a"])
        check(SongEndpoints.Detail(ids: [1, 2]), "/api/v3/song/detail", ["c": #"[{"id":1},{"id":2}]"#])
        check(SongEndpoints.URL(ids: [347230], level: "standard"), "/api/song/enhance/player/url/v1", .eapi,
              ["ids": "[347230]", "level": "standard", "encodeType": "flac"])
        check(SongEndpoints.LyricNew(id: 347230), "/api/song/lyric/v1", .eapi,
              ["id": "347230", "cp": false, "tv": 0, "lv": 0, "rv": 0, "kv": 0, "yv": 0, "ytv": 0, "yrv": 0])
        check(SongEndpoints.Lyric(id: 5), "/api/song/lyric", ["id": 5, "tv": -1, "lv": -1, "rv": -1, "kv": -1])
        check(SongEndpoints.LikeList(userID: 7), "/api/song/like/get", ["uid": 7])
        check(PlaylistEndpoints.UserPlaylists(userID: 7), "/api/user/playlist",
              ["uid": 7, "limit": 30, "offset": 0, "includeVideo": true])
        check(PlaylistEndpoints.Detail(id: 9), "/api/v6/playlist/detail", ["id": 9, "n": 100000, "s": 8])
        check(PlaylistEndpoints.Toplist(), "/api/toplist", [:])
        check(RecommendEndpoints.Songs(), "/api/v3/discovery/recommend/songs", [:])
        check(RecommendEndpoints.Resource(), "/api/v1/discovery/recommend/resource", [:])
        check(RecommendEndpoints.PersonalFM(), "/api/v1/radio/get", [:])
        check(AlbumEndpoints.Album(id: 3), "/api/v1/album/3", [:])
        check(AlbumEndpoints.Subscribed(), "/api/album/sublist", ["limit": 25, "offset": 0, "total": true])
        check(ArtistEndpoints.Artist(id: 4), "/api/v1/artist/4", [:])
        check(ArtistEndpoints.TopSongs(id: 4), "/api/artist/top/song", ["id": 4])
        check(ArtistEndpoints.Albums(id: 4), "/api/artist/albums/4", ["limit": 30, "offset": 0, "total": true])
        check(ArtistEndpoints.Subscribed(), "/api/artist/sublist", ["limit": 25, "offset": 0, "total": true])
        check(UserEndpoints.Record(userID: 7), "/api/v1/play/record", ["uid": 7, "type": 1])
        check(UserEndpoints.Cloud(), "/api/v1/cloud/get", ["limit": 30, "offset": 0])
    }
}
