import FakeNetEase
import Foundation
import TestTools
import NetEase
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The test key pair (made once with /usr/bin/openssl): the client encrypts weapi with the public half, the fake
/// decrypts with the private half, as the test configuration's `weapi_public_key` will arrange.
enum TestKeys {
    static let pair: (publicKey: RSAPublicKey, privateKey: RSAPrivateKey) = {
        let pem = try! CommandLineTool.rsaKeyPair()
        return (try! RSAPublicKey(pem: pem.publicPEM), try! RSAPrivateKey(pem: pem.privatePEM))
    }()
}

/// An HTTP answer as raw bytes, read off a plain socket (deliberately not through Sources/NetEase's client).
struct Answer {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }

    var code: Int? { (json["code"] as? NSNumber)?.intValue }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// `name=value` of every Set-Cookie.
    var setCookies: [String: String] {
        var cookies: [String: String] = [:]
        for (name, value) in headers where name.lowercased() == "set-cookie" {
            let pair = value.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            cookies[String(pair[0])] = pair.count > 1 ? String(pair[1]) : ""
        }
        return cookies
    }
}

struct TimedOut: Error {}

/// A running fake server plus a raw HTTP client that builds real weapi/eapi requests with NetEaseCrypto.
final class Harness: @unchecked Sendable {
    let server: FakeNetEaseServer
    var port: UInt16 { server.port }

    init(configure: (inout FakeNetEaseServer.Options) -> Void = { _ in }) throws {
        var options = FakeNetEaseServer.Options(privateKey: TestKeys.pair.privateKey)
        configure(&options)
        server = try FakeNetEaseServer(options: options)
        try server.start()
    }

    deinit { server.stop() }

    static let demoCookies = ["MUSIC_U": FakeNetEaseServer.demoSession.musicU,
                              "__csrf": FakeNetEaseServer.demoSession.csrf]

    /// One request on a fresh connection (`Connection: close`); throws `TimedOut` after `timeout` seconds.
    func send(_ method: String, _ target: String, body: [UInt8] = [], headers: [(String, String)] = [],
              timeout: Double = 10) throws -> Answer {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw FakeError("connect failed") }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let request = Array(head.utf8) + body
        _ = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw TimedOut() }
            if count <= 0 { break }
            received += chunk[0..<count]
        }
        guard let end = received.firstRange(of: Array("\r\n\r\n".utf8)) else { throw FakeError("no HTTP head") }
        let lines = String(decoding: received[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        let parsed = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Answer(status: status, headers: parsed, body: Array(received[end.upperBound...]))
    }

    static func cookieHeader(_ cookies: [String: String]) -> [(String, String)] {
        cookies.isEmpty ? [] : [("Cookie", cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            .joined(separator: "; "))]
    }

    static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// A weapi request as NetEase's web client sends it: `csrf_token` from the `__csrf` cookie, minimal cookies.
    func weapi(_ apiPath: String, _ params: [String: Any] = [:], cookies: [String: String] = [:],
               publicKey: RSAPublicKey = TestKeys.pair.publicKey, timeout: Double = 10) throws -> Answer {
        var params = params
        if params["csrf_token"] == nil { params["csrf_token"] = cookies["__csrf"] ?? "" }
        let (encrypted, encSecKey) = NetEaseCrypto.weapi(Self.json(params), publicKey: publicKey)
        let body = FormCoding.encode([("params", encrypted), ("encSecKey", encSecKey)])
        return try send("POST", "/weapi/" + apiPath.dropFirst("/api/".count), body: Array(body.utf8),
                        headers: [("Content-Type", "application/x-www-form-urlencoded"),
                                  ("Referer", "https://music.163.com")] + Self.cookieHeader(cookies),
                        timeout: timeout)
    }

    /// An eapi request: the digest covers the `/api/...` path; the cookies go in the Cookie header and `header`.
    func eapi(_ apiPath: String, _ params: [String: Any] = [:], cookies: [String: String] = [:],
              digestPath: String? = nil) throws -> Answer {
        var params = params
        var header: [String: Any] = ["os": "pc", "appver": "3.1.17.204416", "requestId": "1700000000000_0001"]
        for (key, value) in cookies { header[key] = value }
        params["header"] = header
        let text = Self.json(params)
        let encrypted = NetEaseCrypto.eapi(path: digestPath ?? apiPath, text: text)
        return try send("POST", "/eapi/" + apiPath.dropFirst("/api/".count),
                        body: Array(FormCoding.encode([("params", encrypted)]).utf8),
                        headers: [("Content-Type", "application/x-www-form-urlencoded")]
                            + Self.cookieHeader(cookies.merging(["os": "pc", "appver": "3.1.17.204416"]) { a, _ in a }))
    }

    /// A plain `/api/...` form request.
    func api(_ apiPath: String, _ form: [(String, String)], cookies: [String: String] = [:]) throws -> Answer {
        try send("POST", apiPath, body: Array(FormCoding.encode(form).utf8),
                 headers: [("Content-Type", "application/x-www-form-urlencoded")] + Self.cookieHeader(cookies))
    }

    /// A guest cookie from `register_anonimous`, the way the clients build the user name.
    func guestCookies() throws -> [String: String] {
        let answer = try weapi("/api/register/anonimous",
                               ["username": NetEaseCrypto.anonymousUsername(deviceID: "0123456789ABCDEF")])
        let token = try #require(answer.setCookies["MUSIC_A"])
        return ["MUSIC_A": token]
    }

    func get(_ url: String, headers: [(String, String)] = []) throws -> Answer {
        let prefix = "http://127.0.0.1:\(port)"
        precondition(url.hasPrefix(prefix), "not this server: \(url)")
        return try send("GET", String(url.dropFirst(prefix.count)), headers: headers)
    }
}

struct FakeError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Dictionary where Key == String, Value == Any {
    func object(_ key: String) -> [String: Any]? { self[key] as? [String: Any] }
    func array(_ key: String) -> [[String: Any]] { self[key] as? [[String: Any]] ?? [] }
    func int(_ key: String) -> Int? { (self[key] as? NSNumber)?.intValue }
    func string(_ key: String) -> String? { self[key] as? String }
}
