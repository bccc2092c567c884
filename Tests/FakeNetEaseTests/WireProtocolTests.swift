import FakeNetEase
import Foundation
import NetEase
import Testing

/// The fake speaks the real wire protocol: weapi with the test key, eapi with its digest, plain api, unknown paths,
/// and records what clients sent.
@Suite struct WireProtocolTests {
    @Test func weapiIsDecryptedAndRecorded() throws {
        let harness = try Harness()
        let guest = try harness.guestCookies()
        let answer = try harness.weapi("/api/v3/song/detail", ["c": #"[{"id":5000011},{"id":5000021}]"#],
                                       cookies: guest)
        #expect(answer.status == 200)
        #expect(answer.code == 200)
        #expect(answer.json.array("songs").map { $0.int("id") } == [5_000_011, 5_000_021])
        let logged = try #require(harness.server.requests(for: "/api/v3/song/detail").last)
        #expect(logged.scheme == .weapi)
        #expect(logged.path == "/weapi/v3/song/detail")
        #expect(logged.params["c"] as? String == #"[{"id":5000011},{"id":5000021}]"#)
        #expect(logged.params["csrf_token"] as? String == "")
        #expect(logged.cookies["os"] == nil && logged.cookies["appver"] == nil)
        #expect(logged.cookies["MUSIC_A"] == guest["MUSIC_A"])
        #expect(logged.headers["referer"] == "https://music.163.com")
    }

    @Test func weapiWithAnotherKeyIsRejected() throws {
        let harness = try Harness()
        // NetEase's own public key: the fake's private key cannot read it, as a misconfigured client would find.
        let answer = try harness.weapi("/api/w/nuser/account/get", publicKey: .netease)
        #expect(answer.status == 400)
        #expect(answer.code == 400)
    }

    @Test func weapiCSRFTokenMustMatchTheSession() throws {
        let harness = try Harness()
        let good = try harness.weapi("/api/song/like/get", ["uid": 10000001], cookies: Harness.demoCookies)
        #expect(good.code == 200)
        let logged = try #require(harness.server.requests(for: "/api/song/like/get").last)
        #expect(logged.params["csrf_token"] as? String == logged.cookies["__csrf"])
        let bad = try harness.weapi("/api/song/like/get", ["uid": 10000001, "csrf_token": "wrong"],
                                    cookies: Harness.demoCookies)
        #expect(bad.code == 301)
    }

    @Test func eapiIsDecryptedWithItsDigest() throws {
        let harness = try Harness()
        let answer = try harness.eapi("/api/song/enhance/player/url/v1",
                                      ["ids": "[5000011]", "level": "exhigh", "encodeType": "flac"],
                                      cookies: Harness.demoCookies)
        #expect(answer.code == 200)
        let logged = try #require(harness.server.requests(for: "/api/song/enhance/player/url/v1").last)
        #expect(logged.scheme == .eapi)
        #expect(logged.params["level"] as? String == "exhigh")
        #expect(logged.cookies["os"] == "pc")
        #expect((logged.params["header"] as? [String: Any])?["requestId"] as? String == "1700000000000_0001")
    }

    @Test func eapiWithAWrongDigestIsRejected() throws {
        let harness = try Harness()
        // Flip one hex digit in the last block (the digest's): the padding may survive, the digest does not.
        let good = NetEaseCrypto.eapi(path: "/api/song/lyric/v1", text: #"{"id":"5000011"}"#)
        var characters = Array(good)
        let index = characters.count - 40
        characters[index] = characters[index] == "A" ? "B" : "A"
        let answer = try harness.send("POST", "/eapi/song/lyric/v1",
                                      body: Array(FormCoding.encode([("params", String(characters))]).utf8))
        #expect(answer.status == 400)
        let logged = try #require(harness.server.requests.last)
        #expect(logged.code == 400)
    }

    @Test func eapiDigestPathMustMatchTheURL() throws {
        let harness = try Harness()
        let answer = try harness.eapi("/api/song/lyric/v1", ["id": "5000011"], cookies: Harness.demoCookies,
                                      digestPath: "/api/song/lyric")
        #expect(answer.status == 400)
    }

    @Test func eapiEncryptedResponseOnER() throws {
        let harness = try Harness()
        let answer = try harness.eapi("/api/song/lyric/v1", ["id": "5000011", "e_r": true],
                                      cookies: Harness.demoCookies)
        #expect(answer.status == 200)
        #expect((try? JSONSerialization.jsonObject(with: Data(answer.body))) == nil)
        let plain = try NetEaseCrypto.eapiDecryptResponse(answer.body)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(plain)) as? [String: Any])
        #expect(json.int("code") == 200)
        #expect(json.object("yrc")?.string("lyric")?.contains("(") == true)
    }

    @Test func plainAPIAndUnknownPaths() throws {
        let harness = try Harness()
        let lyric = try harness.api("/api/song/lyric", [("id", "5000011"), ("lv", "-1"), ("tv", "-1")],
                                    cookies: Harness.demoCookies)
        #expect(lyric.code == 200)
        #expect(lyric.json.object("lrc")?.string("lyric")?.contains("晴天的约定") == true)
        #expect(harness.server.requests(for: "/api/song/lyric").last?.scheme == .api)
        let unknown = try harness.weapi("/api/no/such/thing", cookies: Harness.demoCookies)
        #expect(unknown.status == 404)
        #expect(unknown.code == 404)
        let elsewhere = try harness.send("POST", "/somewhere")
        #expect(elsewhere.status == 404)
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        let harness = try Harness()
        // Two pipelined plain requests on one connection, the second asking to close.
        let body = Array(FormCoding.encode([("id", "5000011")]).utf8)
        let cookie = "MUSIC_U=\(FakeNetEaseServer.demoSession.musicU)"
        var raw: [UInt8] = []
        for close in [false, true] {
            raw += Array(("POST /api/song/lyric HTTP/1.1\r\nHost: x\r\nCookie: \(cookie)\r\n"
                          + (close ? "Connection: close\r\n" : "") + "Content-Length: \(body.count)\r\n\r\n").utf8)
            raw += body
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = harness.port.bigEndian
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        _ = raw.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received += chunk[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count == 3)
    }
}
