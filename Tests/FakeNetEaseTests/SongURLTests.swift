import FakeNetEase
import Foundation
import NetEase
import Testing

/// `song_url` through `NetEaseClient`: every scheme and path, trials, loudness, unavailable songs; and what
/// happens to the audio URLs afterwards (expiry, per-song faults, dropped downloads).
@Suite struct SongURLTests {
    let harness: Harness
    let client: NetEaseClient

    init() throws {
        harness = try Harness()
        client = try harness.client()
    }

    func streams(_ ids: [Int], level: String = "exhigh", crypto: RequestCrypto = .eapi,
                 client: NetEaseClient? = nil) throws -> [Int64: SongEndpoints.URL.Stream] {
        let data = try (client ?? self.client).send(SongEndpoints.URL(ids: ids.map(Int64.init), level: level,
                                                                      crypto: crypto)).data
        return Dictionary(data.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func url(_ id: Int) throws -> String {
        try #require(try streams([id])[Int64(id)]?.url)
    }

    /// A plain libcurl GET, as the player fetches audio.
    func download(_ url: String) throws(HTTPError) -> NetEase.HTTPResponse {
        try HTTPClient().perform(NetEase.HTTPRequest(url))
    }

    @Test func everySchemeAndPathAnswers() throws {
        let ids = [5_000_011, DemoCatalog.unavailableSongID, 5_000_031]
        for crypto in [RequestCrypto.eapi, .weapi] {
            let data = try client.send(SongEndpoints.URL(ids: ids.map(Int64.init), level: "exhigh", crypto: crypto)).data
            // Not the request order: the fake answers in reverse.
            #expect(data.map(\.id) == [5_000_031, 5_000_045, 5_000_011])
            #expect(data[0].url != nil && data[0].code == 200 && data[0].bitRate == 320000 && data[0].level == "exhigh")
            #expect(data[1].url == nil && data[1].code == 404)
        }
        #expect(harness.server.requests(for: "/api/song/enhance/player/url/v1").map(\.scheme) == [.eapi, .weapi])

        // The legacy path takes `br` instead of `level`.
        for crypto in [RequestCrypto.eapi, .weapi] {
            let json = try client.request(path: "/api/song/enhance/player/url",
                                          params: ["ids": "[5000011,5000031]", "br": 999000], crypto: crypto)
            guard case .array(let data)? = json["data"] else {
                Issue.record("no data in \(json.jsonText)")
                continue
            }
            #expect(data.compactMap { $0["id"]?.intValue } == [5_000_031, 5_000_011])
            #expect(data.first?["type"]?.stringValue == "flac", "999000 gets FLAC where there is one")
            #expect(data.last?["br"]?.intValue == 320000)
            let url = try #require(data.first?["url"]?.stringValue)
            #expect(try download(url).status == 200)
        }
    }

    @Test func trialSongIsATrialForEverybody() throws {
        let guest = try harness.client(loggedIn: false)
        _ = try guest.send(LoginEndpoints.RegisterAnonymous(deviceID: "0123456789ABCDEF"))
        for viewer in [client, guest] {
            let trial = try #require(try streams([DemoCatalog.trialSongID], level: "lossless",
                                                 client: viewer)[Int64(DemoCatalog.trialSongID)])
            #expect(trial.freeTrial?.start == 0 && trial.freeTrial?.end == Double(DemoCatalog.trialSeconds))
            #expect(trial.time == 3000)
            #expect(trial.code == 200 && trial.type == "mp3" && trial.bitRate == 128000)
            let url = try #require(trial.url)
            let audio = try download(url)
            #expect(audio.status == 200 && audio.body.count == trial.size.map(Int.init))
            let seconds = try MediaAndFaultTests().duration(url)
            #expect(abs(seconds - Double(DemoCatalog.trialSeconds)) < 0.2)
        }
        // The song itself is longer than its clip, and the account may not play it in full.
        let song = try #require(try client.send(SongEndpoints.Detail(ids: [Int64(DemoCatalog.trialSongID)])).songs.first)
        #expect(song.durationMilliseconds == 9000 && song.fee == 4)
        let privilege = try client.send(SongEndpoints.Detail(ids: [Int64(DemoCatalog.trialSongID)])).privileges.first
        #expect(privilege?.playableBitRate == 0)
        // The demo account's VIP song is complete; a guest's is a trial.
        #expect(try streams([5_000_013])[5_000_013]?.freeTrial == nil)
        #expect(try streams([5_000_013], client: guest)[5_000_013]?.freeTrial != nil)
    }

    @Test func gainAndPeakPerSong() throws {
        let data = try streams([DemoCatalog.gainSongID, 5_000_033, 5_000_011])
        #expect(data[Int64(DemoCatalog.gainSongID)]?.gain == -6.5)
        #expect(data[Int64(DemoCatalog.gainSongID)]?.peak == 0.9)
        #expect(data[5_000_033]?.gain == 2.5 && data[5_000_033]?.peak == 0.6)
        #expect(data[5_000_011]?.gain == 0 && data[5_000_011]?.peak == 1)
    }

    @Test func expiredURLsAnswer403() throws {
        let first = try url(5_000_011)
        let second = try url(5_000_021)
        #expect(try download(first).status == 200)
        harness.server.expireURLs()
        #expect(try download(first).status == 403)
        #expect(try download(second).status == 403)
        let fresh = try url(5_000_011)
        #expect(try download(fresh).status == 200)
        // Over HTTP, for scripts.
        #expect(try harness.send("POST", "/__fake/expire").status == 200)
        #expect(try download(fresh).status == 403)
    }

    @Test func faultsFollowTheSongWhateverItsURL() throws {
        let url = try url(5_000_011)
        let full = try download(url).body
        #expect(full.count > 40000)
        let alias = FakeNetEaseServer.audioAlias(5_000_011)
        #expect(alias == "/audio/5000011")
        harness.server.inject(.dropBody(after: 40000), for: alias)
        harness.server.inject(.status(403), for: alias)
        // Another song's audio does not use them up.
        #expect(try download(try self.url(5_000_012)).status == 200)

        // The first GET promises the whole file and stops after 40000 bytes: libcurl reports the transfer cut short.
        let dropped = try harness.get(url)
        #expect(dropped.status == 200 && dropped.header("Content-Length") == String(full.count))
        #expect(dropped.body == Array(full.prefix(40000)))
        // The next answers 403, as an expired URL does; then the song plays again, under a new URL too.
        #expect(try download(url).status == 403)
        #expect(try download(url).body == full)
        harness.server.inject(.dropBody(after: 40000), for: alias)
        #expect(throws: HTTPError.self) { try download(try self.url(5_000_011)) }

        // The same over the control API.
        let fault = #"{"path":"/audio/5000011","fault":"drop","value":1000}"#
        #expect(try harness.send("POST", "/__fake/fault", body: Array(fault.utf8)).status == 200)
        let status = #"{"path":"/audio/5000011","fault":"status","value":403}"#
        #expect(try harness.send("POST", "/__fake/fault", body: Array(status.utf8)).status == 200)
        #expect(try harness.get(url).body.count == 1000)
        #expect(try download(url).status == 403)
        #expect(try download(url).status == 200)
    }

    /// The drop ends the connection even when the client asked to keep it: a keep-alive client sees EOF after the
    /// promised bytes, not a stalled connection.
    @Test func droppedBodyClosesAKeepAliveConnection() throws {
        let url = try url(5_000_011)
        harness.server.inject(.dropBody(after: 5000), for: FakeNetEaseServer.audioAlias(5_000_011))
        let started = Date()
        let error = try #require(throws: HTTPError.self) { try download(url) }
        #expect(Date().timeIntervalSince(started) < 5, "\(error)")
    }
}

extension MediaAndFaultTests {
    /// Seconds of audio behind `url`, by ffprobe.
    func duration(_ url: String) throws -> Double {
        Double(try ffprobe(url).object("format")?.string("duration") ?? "") ?? 0
    }
}
