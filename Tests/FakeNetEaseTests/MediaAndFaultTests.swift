import FakeNetEase
import Foundation
import NetEase
import Testing

/// Audio and cover URLs the answers contain are served; URLs expire; injected faults fire.
@Suite struct MediaAndFaultTests {
    func songURL(_ harness: Harness, _ ids: String, level: String = "exhigh",
                 cookies: [String: String] = Harness.demoCookies) throws -> [[String: Any]] {
        let answer = try harness.eapi("/api/song/enhance/player/url/v1",
                                      ["ids": ids, "level": level, "encodeType": "flac"], cookies: cookies)
        #expect(answer.code == 200)
        return answer.json.array("data")
    }

    func ffprobe(_ url: String) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffprobe", "-v", "error", "-print_format", "json", "-show_format", "-show_streams", url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func songURLsPlayAndFFprobeReadsThem() throws {
        let harness = try Harness()
        let data = try songURL(harness, "[5000011,5000045,5000031]")
        // NetEase does not keep the request order; the fake answers in reverse.
        #expect(data.map { $0.int("id") } == [5_000_031, 5_000_045, 5_000_011])
        let mp3 = try #require(data.first { $0.int("id") == 5_000_011 })
        #expect(mp3.int("code") == 200 && mp3.string("type") == "mp3" && mp3.int("expi") == 1200)
        #expect(mp3["freeTrialInfo"] is NSNull)
        let url = try #require(mp3.string("url"))
        #expect(url.contains("/jdymusic/obj/5000011.mp3"))
        let answer = try harness.get(url)
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type") == "audio/mpeg")
        #expect(answer.body.count == mp3.int("size"))
        let probe = try ffprobe(url)
        #expect(probe.array("streams").first?.string("codec_name") == "mp3")
        let seconds = Double(probe.object("format")?.string("duration") ?? "") ?? 0
        #expect(abs(seconds * 1000 - Double(mp3.int("time") ?? 0)) < 200)

        let unavailable = try #require(data.first { $0.int("id") == 5_000_045 })
        #expect(unavailable["url"] is NSNull && unavailable.int("code") == 404)

        let flac = try #require(data.first { $0.int("id") == 5_000_031 })
        #expect(flac.string("type") == "mp3", "exhigh is MP3 even when FLAC exists")
        let lossless = try songURL(harness, "[5000031]", level: "lossless")[0]
        #expect(lossless.string("type") == "flac" && lossless.string("level") == "lossless")
        #expect(try ffprobe(try #require(lossless.string("url"))).array("streams").first?.string("codec_name") == "flac")

        let ranged = try harness.get(url, headers: [("Range", "bytes=100-199")])
        #expect(ranged.status == 206)
        #expect(ranged.body.count == 100)
        #expect(ranged.body == Array(answer.body[100..<200]))
    }

    @Test func guestsGetTrialsAndStandardOnly() throws {
        let harness = try Harness()
        let guest = try harness.guestCookies()
        let data = try songURL(harness, "[5000013,5000011]", level: "lossless", cookies: guest)
        let vipSong = try #require(data.first { $0.int("id") == 5_000_013 })
        #expect(vipSong.object("freeTrialInfo")?.int("start") == 0)
        #expect(vipSong.string("level") == "standard")
        let free = try #require(data.first { $0.int("id") == 5_000_011 })
        #expect(free.int("br") == 128000 && free["freeTrialInfo"] is NSNull)
    }

    @Test func songURLsExpireWith403() throws {
        let harness = try Harness { $0.urlLifetime = 2 }
        let url = try #require(try songURL(harness, "[5000021]")[0].string("url"))
        #expect(try harness.get(url).status == 200)
        Thread.sleep(forTimeInterval: 2.2)
        #expect(try harness.get(url).status == 403)
        // A fresh resolution plays again.
        let again = try #require(try songURL(harness, "[5000021]")[0].string("url"))
        #expect(again != url)
        #expect(try harness.get(again).status == 200)
        // A URL never handed out is unknown.
        #expect(try harness.get(url.replacingOccurrences(of: "5000021.mp3", with: "5000022.mp3")).status == 404)
    }

    @Test func coversAreServedAtTheirPicURLs() throws {
        let harness = try Harness()
        let json = try harness.weapi("/api/v3/song/detail", ["c": #"[{"id":5000052}]"#], cookies: Harness.demoCookies).json
        let picURL = try #require(json.array("songs").first?.object("al")?.string("picUrl"))
        let cover = try harness.get(picURL + "?param=300y300")
        #expect(cover.status == 200)
        #expect(cover.header("Content-Type") == "image/jpeg")
        #expect(cover.body.prefix(2) == [0xFF, 0xD8])
        let playlist = try harness.weapi("/api/user/playlist", ["uid": 10000001], cookies: Harness.demoCookies).json
        let coverImgUrl = try #require(playlist.array("playlist").first?.string("coverImgUrl"))
        #expect(try harness.get(coverImgUrl).status == 200)
        #expect(try harness.get(picURL.replacingOccurrences(of: ".jpg", with: "1.jpg")).status == 404)
    }

    @Test func injectedFaultsFireForTheirCount() throws {
        let harness = try Harness()
        let me = Harness.demoCookies
        let detail = ["c": #"[{"id":5000011}]"#]
        harness.server.inject(.code(-460), for: "/api/v3/song/detail", count: 2)
        #expect(try harness.weapi("/api/v3/song/detail", detail, cookies: me).code == -460)
        #expect(try harness.weapi("/api/v3/song/detail", detail, cookies: me).code == -460)
        #expect(try harness.weapi("/api/v3/song/detail", detail, cookies: me).code == 200)
        // The faulted requests are still logged, decrypted.
        #expect(harness.server.requests(for: "/api/v3/song/detail").map(\.code) == [-460, -460, 200])
        #expect(harness.server.requests(for: "/api/v3/song/detail")[0].params["c"] as? String == detail["c"])

        harness.server.inject(.status(405), for: "/weapi/user/playlist")
        let limited = try harness.weapi("/api/user/playlist", ["uid": 10000001], cookies: me)
        #expect(limited.status == 405)
        #expect(limited.code == 405)

        harness.server.inject(.code(301), for: "/api/song/like")
        #expect(try harness.weapi("/api/song/like/get", ["uid": 10000001], cookies: me).code == 301)

        harness.server.inject(.malformedJSON, for: "/api/toplist")
        let malformed = try harness.weapi("/api/toplist", cookies: me)
        #expect(malformed.status == 200)
        #expect((try? JSONSerialization.jsonObject(with: Data(malformed.body))) == nil)

        harness.server.inject(.timeout, for: "/api/v1/album")
        #expect(throws: TimedOut.self) { try harness.weapi("/api/v1/album/3001", cookies: me, timeout: 0.5) }
        #expect(try harness.weapi("/api/v1/album/3001", cookies: me).code == 200)
    }

    @Test func faultsOnAudioURLs() throws {
        let harness = try Harness()
        let url = try #require(try songURL(harness, "[5000011]")[0].string("url"))
        let full = try harness.get(url)
        harness.server.inject(.status(404), for: "/", count: 1)
        #expect(try harness.get(url).status == 404)
        #expect(try harness.get(url).status == 200)
        // A download that drops after 1000 bytes: the head promises the whole file.
        harness.server.inject(.dropBody(after: 1000), for: "/")
        let dropped = try harness.get(url)
        #expect(dropped.status == 200)
        #expect(dropped.header("Content-Length") == String(full.body.count))
        #expect(dropped.body.count == 1000)
        harness.server.inject(.disconnect, for: "/")
        #expect(throws: (any Error).self) { try harness.get(url) }
    }

    @Test func delayedAnswersArriveLate() throws {
        let harness = try Harness()
        harness.server.inject(.delay(0.6), for: "/api/toplist")
        let started = Date()
        let answer = try harness.weapi("/api/toplist", cookies: Harness.demoCookies)
        #expect(answer.code == 200)
        #expect(Date().timeIntervalSince(started) >= 0.6)
        #expect(throws: TimedOut.self) {
            harness.server.inject(.delay(2), for: "/api/toplist")
            _ = try harness.weapi("/api/toplist", cookies: Harness.demoCookies, timeout: 0.3)
        }
    }

    @Test func controlAPIOverHTTP() throws {
        let harness = try Harness()
        let fault = #"{"path":"/api/toplist","fault":"code","value":-460,"count":1}"#
        #expect(try harness.send("POST", "/__fake/fault", body: Array(fault.utf8)).status == 200)
        #expect(try harness.weapi("/api/toplist", cookies: Harness.demoCookies).code == -460)
        #expect(try harness.weapi("/api/toplist", cookies: Harness.demoCookies).code == 200)

        let unikey = try #require(try harness.weapi("/api/login/qrcode/unikey", ["type": 1]).json.string("unikey"))
        let scan = #"{"key":"latest","state":"confirmed"}"#
        #expect(try harness.send("POST", "/__fake/qr", body: Array(scan.utf8)).json.string("key") == unikey)
        #expect(try harness.weapi("/api/login/qrcode/client/login", ["key": unikey, "type": 1]).code == 803)

        let log = try harness.send("GET", "/__fake/log")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.body)) as? [[String: Any]])
        #expect(entries.contains { $0.string("apiPath") == "/api/login/qrcode/unikey" && $0.string("scheme") == "weapi" })
        let session = try harness.send("GET", "/__fake/session").json
        #expect(session.string("MUSIC_U") == FakeNetEaseServer.demoSession.musicU)
        #expect(try harness.send("POST", "/__fake/reset").status == 200)
        #expect(harness.server.requests.isEmpty)
    }
}
