import Foundation
@testable import NetEase
import Testing

/// The client against a local server that decrypts like NetEase: what arrives, and what the answers become.
@Suite struct NetEaseEndToEndTests {
    static func sample(_ name: String) throws -> String {
        String(decoding: try NetEaseSampleTests.sample(name), as: UTF8.self)
    }

    @Test func typedRequestOverWeapi() throws {
        let body = try Self.sample("song_detail.json")
        let api = try FakeAPI { _ in .init(body) }
        let client = try api.client(jar: try loggedInJar(), realIP: "118.88.88.88")
        let response = try client.send(SongEndpoints.Detail(ids: [33894312, 115502]))
        #expect(response.songs.map(\.id) == [33894312, 115502])
        let seen = try #require(api.requests.first)
        #expect(seen.path == "/weapi/v3/song/detail")
        #expect(seen.params == ["c": #"[{"id":33894312},{"id":115502}]"#, "csrf_token": "csrf123"])
        #expect(seen.cookies["MUSIC_U"] == "user token/+=")
        #expect(seen.cookies["os"] == nil && seen.cookies["appver"] == nil && seen.cookies["MUSIC_A"] == nil)
        #expect(seen.header("x-real-ip") == "118.88.88.88")
    }

    @Test func loginCookiesAreKeptAndSentNext() throws {
        let api = try FakeAPI { request in
            if request.path == "/weapi/login/qrcode/client/login" {
                return .init(headers: [("Set-Cookie", "MUSIC_U=fresh; Max-Age=15552000; Path=/; HTTPOnly"),
                                       ("Set-Cookie", "__csrf=newcsrf; Max-Age=1296010; Path=/"),
                                       ("Set-Cookie", "MUSIC_R_T=1; Max-Age=2147483647; Path=/weapi/feedback")],
                             #"{"code":803,"message":"授权登陆成功"}"#)
            }
            return .init(#"{"code":"200","account":{"id":10000001,"anonimousUser":false},"profile":{"userId":10000001,"nickname":"demo_user"}}"#)
        }
        let file = NSTemporaryDirectory() + "nosignal-cookies-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: file) }
        let client = try api.client(jar: try CookieJar(file: file))
        let check = try client.send(LoginEndpoints.QRCheck(key: "the-key"))
        #expect(check.state == .authorized)
        #expect(api.requests[0].params == ["key": "the-key", "type": 1, "noCheckToken": true, "csrf_token": ""])
        let status = try client.send(LoginEndpoints.Status())
        #expect(status.isLoggedIn)
        #expect(api.requests[1].path == "/weapi/w/nuser/account/get")
        #expect(api.requests[1].params == ["csrf_token": "newcsrf"])
        #expect(api.requests[1].cookies["MUSIC_U"] == "fresh")
        #expect(try CookieJar(file: file).value("MUSIC_U") == "fresh")
    }

    @Test func eapiWithAnEncryptedAnswer() throws {
        let api = try FakeAPI { _ in .init(bytes: NetEaseCrypto.eapiEncryptResponse(Array(#"{"code":200,"nolyric":true}"#.utf8))) }
        let client = try api.client()
        let lyric = try client.send(SongEndpoints.LyricNew(id: 347230))
        #expect(lyric.instrumental)
        let seen = try #require(api.requests.first)
        #expect(seen.path == "/eapi/song/lyric/v1")
        #expect(seen.apiPath == "/api/song/lyric/v1")
        #expect(seen.params["id"] == "347230")
        #expect(seen.params["header"]?["deviceId"] == "DEVICE")
        #expect(seen.cookies["deviceId"] == "DEVICE")
    }

    /// libcurl asks for any encoding it can undo and undoes it, so a gzip answer reads as plain JSON.
    @Test func gzipAnswers() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(#"{"code":200,"ids":[7],"checkPoint":1}"#.utf8))
        try input.fileHandleForWriting.close()
        let compressed = Array(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        let api = try FakeAPI { _ in .init(headers: [("Content-Encoding", "gzip")], bytes: compressed) }
        #expect(try api.client().send(SongEndpoints.LikeList(userID: 1)).ids == [7])
        #expect(api.requests.first?.header("accept-encoding")?.contains("gzip") == true)
    }

    @Test func genericRequest() throws {
        let api = try FakeAPI { _ in .init(#"{"code":200,"ids":[1,2]}"#) }
        let json = try api.client().request(path: "/api/song/like/get", params: ["uid": 5], crypto: .linuxapi)
        #expect(json["ids"] == [1, 2])
        #expect(api.requests.first?.path == "/api/linux/forward")
        #expect(api.requests.first?.params["params"] == ["uid": 5])
    }

    @Test func playlistTracksFillsInWhatDetailTruncated() throws {
        let detail = try Self.sample("playlist_detail.json")
        let songs = try Self.sample("song_detail.json")
        let api = try FakeAPI { request in request.path == "/weapi/v6/playlist/detail" ? .init(detail) : .init(songs) }
        let (playlist, tracks) = try api.client().playlistTracks(id: 2000000001)
        #expect(playlist.name == "demo playlist")
        #expect(tracks.map(\.id) == [31421450, 28493605, 115502, 33894312])
        #expect(api.requests.count == 2)
        #expect(api.requests[0].params == ["id": 2000000001, "n": 100000, "s": 8, "csrf_token": ""])
        #expect(api.requests[1].params["c"] == #"[{"id":115502},{"id":33894312}]"#)
    }

    @Test func userPlaylistsArePagedUntilNoMore() throws {
        let api = try FakeAPI { request in
            let offset = request.params["offset"]?.intValue ?? 0
            let more = offset == 0
            return .init(#"{"code":200,"more":\#(more),"playlist":[{"id":\#(offset + 1),"name":"p","specialType":5,"creator":{"userId":7}}]}"#)
        }
        let playlists = try api.client().allUserPlaylists(userID: 7, pageSize: 2)
        #expect(playlists.map(\.id) == [1, 3])
        #expect(api.requests.map { $0.params["offset"] } == [0, 2])
        #expect(playlists[0].isLikedSongs(of: 7))
        #expect(!playlists[0].isLikedSongs(of: 8))
    }

    @Test func songDetailsGoInBatchesOf500() throws {
        let api = try FakeAPI { _ in .init(#"{"code":200,"songs":[],"privileges":[]}"#) }
        _ = try api.client().songDetails(ids: (1...1200).map(Int64.init))
        let counts = try api.requests.map { request -> Int in
            let text = try #require(request.params["c"]?.stringValue)
            guard case .array(let ids) = try #require(JSONValue.parse(Array(text.utf8))) else { return -1 }
            return ids.count
        }
        #expect(counts == [500, 500, 200])
    }

    @Test(arguments: [
        (FakeAPI.Reply(status: "405 Method Not Allowed", "{}"), NetEaseError.rateLimited(code: 405)),
        (FakeAPI.Reply(#"{"code":406,"message":"操作频繁，请稍候再试"}"#), .rateLimited(code: 406)),
        (FakeAPI.Reply(#"{"code":"301","msg":"需要登录"}"#), .loginRequired),
        (FakeAPI.Reply(#"{"code":-460,"message":"Cheating"}"#), .cheating(message: "Cheating")),
        (FakeAPI.Reply(#"{"code":-462,"data":{"actionCode":"x","blockText":"网络太拥挤，请稍候再试。"}}"#),
         .riskCheck(message: "网络太拥挤，请稍候再试。")),
        (FakeAPI.Reply(#"{"code":"250","message":"风险提示"}"#), .api(code: 250, message: "风险提示")),
        (FakeAPI.Reply(#"{"code":400}"#), .api(code: 400, message: nil)),
        (FakeAPI.Reply("<html>oops</html>"), .malformedResponse(#"not JSON: "<html>oops</html>""#)),
        (FakeAPI.Reply(status: "502 Bad Gateway", "<html>bad gateway</html>"), .http(status: 502)),
        (FakeAPI.Reply(#"{"code":200,"songs":"not a list"}"#), nil),
    ] as [(FakeAPI.Reply, NetEaseError?)])
    func errors(reply: FakeAPI.Reply, expected: NetEaseError?) throws {
        let api = try FakeAPI { _ in reply }
        let client = try api.client()
        do {
            _ = try client.send(SongEndpoints.LikeList(userID: 1))
            Issue.record("no error")
        } catch {
            if let expected { #expect(error == expected) } else {
                guard case .malformedResponse(let detail) = error else { Issue.record("\(error)"); return }
                #expect(detail.contains("/api/song/like/get"))
            }
        }
    }

    @Test func aSilentServerTimesOut() throws {
        let api = try FakeAPI { _ in nil }
        let started = Date()
        #expect(throws: NetEaseError.timeout(seconds: 1)) { try api.client(timeout: 1).request(path: "/api/x") }
        #expect(Date().timeIntervalSince(started) < 4)
    }

    @Test func aClosedPortIsANetworkError() throws {
        let client = NetEaseClient(configuration: .init(apiURL: "http://127.0.0.1:1", timeout: 2), cookies: try CookieJar())
        #expect {
            try client.request(path: "/api/x")
        } throws: { error in
            guard case NetEaseError.network = error else { return false }
            return true
        }
    }

    @Test func descriptionsReadWellAfterNetEase() {
        #expect(NetEaseError.rateLimited(code: 405).description == "rate limited (405), try again in a minute")
        #expect(NetEaseError.loginRequired.description == "login required (301), run `nosignal login`")
        #expect(NetEaseError.cheating(message: "Cheating").description
                == "request refused as coming from a risky network (-460: Cheating), set real_ip to a mainland address")
        #expect(NetEaseError.riskCheck(message: nil).description == "risk check required (-462), log in with the QR code instead")
        #expect(NetEaseError.api(code: 8821, message: "需要行为验证码验证").description == "需要行为验证码验证 (code 8821)")
        #expect(NetEaseError.api(code: 400, message: nil).description == "request failed with code 400")
        #expect(NetEaseError.timeout(seconds: 15).description == "no answer within 15 s (timeout)")
        #expect(NetEaseError.malformedResponse("empty body").description == "malformed response: empty body")
    }

    @Test func codesAsStringsOrNumbers() throws {
        for body in [#"{"code":200}"#, #"{"code":"200"}"#, #"{"code":200.0}"#, #"{"other":1}"#] {
            #expect(throws: Never.self) { try NetEaseClient.interpret(status: 200, body: Array(body.utf8), accepting: [200]) }
        }
        #expect(throws: NetEaseError.malformedResponse("empty body")) {
            try NetEaseClient.interpret(status: 200, body: [], accepting: [200])
        }
    }
}
