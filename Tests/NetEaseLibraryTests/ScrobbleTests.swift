import FakeNetEase
import Foundation
import NetEase
@testable import NetEaseLibrary
import Synchronization
import Testing

/// Scrobbling: what counts as heard, and that the weblog reaches NetEase with the seconds (retried after a failure).
@Suite struct ScrobbleTests {
    typealias Observation = PlayTracker.Observation

    static func playing(_ id: Int, _ uri: String, _ elapsed: Double, duration: Double = 6) -> Observation {
        Observation(itemID: id, uri: uri, duration: duration, elapsed: elapsed, playing: true)
    }

    @Test func secondsHeardAddUpWithoutPausesAndSeeks() {
        var tracker = PlayTracker()
        #expect(tracker.observe(Self.playing(1, "a", 0.4), interval: 1) == nil)
        for elapsed in [1.4, 2.4] { _ = tracker.observe(Self.playing(1, "a", elapsed), interval: 1) }
        // Paused for a while: elapsed stands still and nothing is added.
        _ = tracker.observe(Observation(itemID: 1, uri: "a", duration: 6, elapsed: 2.4, playing: false), interval: 1)
        // A seek from 2.4 to 5.4 is not listening.
        _ = tracker.observe(Self.playing(1, "a", 5.4), interval: 1)
        let finished = tracker.observe(Self.playing(2, "b", 0.2), interval: 1)
        #expect(finished?.uri == "a")
        #expect(abs((finished?.played ?? 0) - 2.4) < 0.001)
        #expect(finished?.qualifies == false) // 2.4 s of a 6 s song
        #expect(tracker.current?.played == 0.2)
    }

    @Test func halfTheSongOrFourMinutesCounts() {
        let play = { (played: Double, duration: Double?) in
            PlayTracker.Play(itemID: 1, uri: "a", duration: duration, played: played)
        }
        #expect(play(3, 6).qualifies)
        #expect(!play(2.9, 6).qualifies)
        #expect(play(240, 900).qualifies) // four minutes of a long mix
        #expect(!play(200, nil).qualifies)
        #expect(play(240, nil).qualifies)
    }

    @Test func aHeardSongIsReportedWithItsSecondsAndAFailedReportIsRetried() async throws {
        let fixture = try Fixture()
        let feed = Mutex<[Observation]>([])
        let scrobbler = NetEaseScrobbler(service: fixture.service, interval: 1, retryPause: .zero) {
            feed.withLock { $0.isEmpty ? Observation() : $0.removeFirst() }
        }
        let song = fixture.uri(5_000_011)
        feed.withLock {
            $0 = [0.5, 1.5, 2.5, 3.5, 4.5].map { Self.playing(7, song, $0) } + [Self.playing(8, fixture.uri(5_000_021), 0.5)]
        }
        fixture.server.inject(.status(500), for: "/api/feedback/weblog")
        for _ in 0..<6 { scrobbler.tick() }
        // The first attempt failed: the report waits.
        #expect(await waitUntil { fixture.server.requests(for: "/api/feedback/weblog").count == 1 })
        #expect(await waitUntil { scrobbler.pendingReports.count == 1 })
        scrobbler.tick()
        #expect(await waitUntil { fixture.server.requests(for: "/api/feedback/weblog").count == 2 })
        #expect(await waitUntil { scrobbler.pendingReports.isEmpty })
        let logs = try #require(fixture.server.requests(for: "/api/feedback/weblog").last?.params["logs"] as? String)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(logs.utf8)) as? [[String: Any]])
        let json = try #require(entries.first?["json"] as? [String: Any])
        #expect(entries.first?["action"] as? String == "play")
        #expect((json["id"] as? NSNumber)?.int64Value == 5_000_011)
        #expect((json["time"] as? NSNumber)?.intValue == 5)
        #expect(json["type"] as? String == "song")
    }

    /// Reports still waiting survive a restart: they are kept in a private file, sent by the next scrobbler, and
    /// the file goes once nothing waits.
    @Test func waitingReportsAreKeptAcrossARestart() async throws {
        let fixture = try Fixture()
        let file = fixture.root + "/data/" + NetEaseScrobbler.fileName
        let feed = Mutex<[Observation]>([])
        let song = fixture.uri(5_000_011)
        feed.withLock { $0 = [0.5, 1.5, 2.5, 3.5, 4.5].map { Self.playing(7, song, $0) } + [Observation()] }
        fixture.server.inject(.status(500), for: "/api/feedback/weblog")
        let first = NetEaseScrobbler(service: fixture.service, interval: 1, retryPause: .seconds(3600), file: file) {
            feed.withLock { $0.isEmpty ? Observation() : $0.removeFirst() }
        }
        for _ in 0..<6 { first.tick() }
        #expect(await waitUntil { fixture.server.requests(for: "/api/feedback/weblog").count == 1 })
        #expect(first.pendingReports == [.init(songID: 5_000_011, seconds: 5)])
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600)

        // The next run (NetEase answers again) sends it with its first look, and the file goes.
        let second = NetEaseScrobbler(service: fixture.service, interval: 1, retryPause: .zero, file: file) {
            Observation()
        }
        #expect(second.pendingReports == [.init(songID: 5_000_011, seconds: 5)])
        second.tick()
        #expect(await waitUntil { second.pendingReports.isEmpty })
        #expect(fixture.server.requests(for: "/api/feedback/weblog").count == 2)
        #expect(fixture.server.scrobbles.last.map { [$0.id, Int($0.time)] } == [5_000_011, 5])
        #expect(await waitUntil { !FileManager.default.fileExists(atPath: file) })
    }

    func waitUntil(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
