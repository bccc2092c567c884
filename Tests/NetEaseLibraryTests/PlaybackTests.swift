import ALSAOutput
import FFmpegDecoder
import FakeNetEase
import Foundation
import Logging
import NetEase
@testable import NetEaseLibrary
import NoSignalConfig
import PlayerCore
import PlayerRuntime
import TestTools
import Testing

/// NetEase songs through the real player: URL lookup at play time, libcurl streams from the fake's CDN, FFmpeg,
/// and an ALSA output recording through alsa-lib's `file` plugin. What the output wrote must equal what the
/// `ffmpeg` command line decodes from the files the fake serves, sample for sample, across the song borders and
/// across broken and expired streams.
@Suite(.serialized) struct NetEasePlaybackTests {
    /// The player as the server builds it, with NetEase in front of FFmpeg; outputs 16-bit (MP3 decodes to float,
    /// converted as `ffmpeg -f s16le` converts).
    final class Player: @unchecked Sendable {
        let fixture: Fixture
        let store: PlayerStore
        let audio: AudioPlayer
        let recording: String

        let decoders: NetEaseDecoderFactory

        init(_ fixture: Fixture) {
            self.fixture = fixture
            recording = fixture.root + "/out.raw"
            store = PlayerStore(state: PlayerState(maximumQueueLength: 64, volume: 100), logger: Fixture.quiet)
            let radio = NetEaseRadio(service: fixture.service, store: store)
            decoders = NetEaseDecoderFactory(inner: FFmpegDecoderFactory(), service: fixture.service, radio: radio)
            audio = AudioPlayer(store: store,
                                decoders: decoders,
                                converters: FFmpegPCMConverterFactory(), locate: { $0.uri }, logger: Fixture.quiet)
            let config = "pcm.out { type file; slave.pcm { type null }; file \"\(recording)\"; format \"raw\" }"
            audio.addOutput(OutputDescription(id: 0, name: "recorder", plugin: "alsa",
                                              format: AudioFormatMask("*:16:*")!, softwareMixer: true, paced: false),
                            enabled: true, makeSink: { ALSASink(device: "out", configText: config) })
        }

        deinit { audio.shutdown() }

        func play(_ ids: [Int]) throws {
            try play(ids.map(fixture.uri))
        }

        func play(_ uris: [String]) throws {
            try store.send(.add(uris.map { Song(uri: $0) }))
            try store.send(.play(position: 0))
        }

        func wait(timeout: Double = 30, _ condition: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline && !condition() { usleep(10_000) }
            return condition()
        }

        var partition: PartitionState { store.partition(PlayerState.defaultPartition)! }

        func waitUntilStopped(timeout: Double = 30) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline && partition.player.state != .stop { usleep(10_000) }
            usleep(300_000) // the output closes its file
            return partition.player.state == .stop
        }

        var recorded: [UInt8] { (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: recording)))) ?? [] }

        /// What `ffmpeg -f s16le` decodes from the file the fake serves for the song at `quality`.
        func reference(_ id: Int) throws -> [UInt8] {
            let song = fixture.demo.songs[id]!
            let flac = song.lossless && ["lossless", "hires"].contains(fixture.settings.quality)
            return [UInt8](try CommandLineTool.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-i",
                                                    fixture.server.media.audio(song.media, flac: flac),
                                                    "-f", "s16le", "-"]))
        }
    }

    /// Where two PCM byte arrays first differ, in 16-bit stereo frames.
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> String {
        let count = min(a.count, b.count)
        var i = 0
        while i < count && a[i] == b[i] { i += 1 }
        if i == count && a.count == b.count { return "identical" }
        return "lengths \(a.count / 4) and \(b.count / 4) frames, first difference at frame \(i / 4)"
    }

    @Test func aQueueOfNetEaseSongsPlaysGaplesslyAcrossAnExpiredAndADroppedStream() throws {
        // FLAC for the lossless album (5000031), MP3 for the others: one queue, two codecs, one output format.
        let fixture = try Fixture(quality: "lossless")
        let player = Player(fixture)
        let ids = [5_000_011, 5_000_031, 5_000_021]
        // The first song's connection drops after 60000 bytes; resuming it at the same URL answers 403 (the URL
        // expired meanwhile), so the player looks the URL up again and continues from the same byte.
        fixture.server.inject(.dropBody(after: 60_000), for: FakeNetEaseServer.audioAlias(5_000_011))
        fixture.server.inject(.status(403), for: FakeNetEaseServer.audioAlias(5_000_011))
        // The second one's connection drops in the middle; its URL still works, so the transfer resumes there.
        fixture.server.inject(.dropBody(after: 100_000), for: FakeNetEaseServer.audioAlias(5_000_031))
        try player.play(ids)
        #expect(player.waitUntilStopped())
        let expected = try ids.flatMap { try player.reference($0) }
        #expect(player.recorded == expected, "\(Self.difference(player.recorded, expected))")
        #expect(player.partition.player.error == nil)
        // Four URL lookups: one per song and the renewal.
        let lookups = fixture.server.requests.filter { $0.apiPath == "/api/song/enhance/player/url/v1" }
        #expect(lookups.count == 4)
        // Every fault fired: two GETs of song 1's first URL, one of its second; two of song 2 (a range request).
        let audio = fixture.server.requests.filter { $0.path.contains("/jdymusic/obj/") }
        #expect(audio.filter { $0.path.hasSuffix("/5000011.mp3") }.count == 3)
        #expect(audio.filter { $0.path.hasSuffix("/5000031.flac") }.count == 2)
    }

    @Test func anUnavailableSongIsSkippedWithAnErrorAndTheNextOnePlays() throws {
        let fixture = try Fixture()
        let player = Player(fixture)
        // Again at the end: the start of 5000011 cleared the first skip's error (MPD's `PlayOrder` → `ClearError`);
        // the last one's stays after the stop.
        try player.play([5_000_045, 5_000_011, 5_000_045])
        #expect(player.waitUntilStopped())
        #expect(player.recorded == (try player.reference(5_000_011)))
        let error = try #require(player.partition.player.error)
        #expect(error.contains("netease://song/5000045"))
        #expect(error.contains("NetEase has no stream of song 5000045"))
        // Every fallback was asked before giving up: the levels below exhigh, weapi, the legacy URL.
        let paths = fixture.server.requests.filter { $0.apiPath.hasPrefix("/api/song/enhance/player/url") }
        #expect(paths.contains { $0.apiPath == "/api/song/enhance/player/url" })
        #expect(paths.contains { $0.scheme == .weapi && $0.apiPath == "/api/song/enhance/player/url/v1" })
    }

    /// A song NetEase grants only as a trial clip plays the clip (its own length), by default.
    @Test func aTrialSongPlaysItsClip() throws {
        let fixture = try Fixture()
        let player = Player(fixture)
        try player.play([DemoCatalog.trialSongID])
        #expect(player.waitUntilStopped())
        let song = fixture.demo.songs[DemoCatalog.trialSongID]!
        let clip = [UInt8](try CommandLineTool.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-i",
                                                    fixture.server.media.clip(song.media), "-f", "s16le", "-"]))
        #expect(player.recorded == clip)
        #expect(abs(Double(clip.count) / 4 / 44100 - Double(DemoCatalog.trialSeconds)) < 0.1)
    }

    /// NetEase's `gain` (-6.5 dB for this song, which has no ReplayGain tags) is the track gain.
    @Test func netEaseGainIsTheTrackReplayGain() throws {
        let fixture = try Fixture()
        let player = Player(fixture)
        try player.store.send(.setReplayGainMode(.track))
        try player.play([DemoCatalog.gainSongID])
        #expect(player.waitUntilStopped())
        let reference = try player.reference(DemoCatalog.gainSongID)
        #expect(player.recorded.count == reference.count)
        func rms(_ bytes: [UInt8]) -> Double {
            let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))).squareRoot()
        }
        let ratio = rms(player.recorded) / rms(reference)
        #expect(abs(ratio - pow(10, -6.5 / 20)) < 0.01, "ratio \(ratio)")
    }

    /// A guest gets only a trial of the fee-1 song 5000013: `trial_tracks "skip"` treats it as unplayable.
    @Test func aTrialClipIsSkippedWhenSoConfigured() throws {
        let fixture = try Fixture(loggedIn: false, trialTracks: .skip)
        let player = Player(fixture)
        try player.play([5_000_013, 5_000_011, 5_000_013])
        #expect(player.waitUntilStopped())
        #expect(player.recorded == (try player.reference(5_000_011)))
        let error = try #require(player.partition.player.error)
        #expect(error.contains("trial clip of song 5000013"), "\(error)")
    }

    @Test func aTrialClipPlaysByDefault() throws {
        let fixture = try Fixture(loggedIn: false)
        let player = Player(fixture)
        try player.play([5_000_013])
        #expect(player.waitUntilStopped())
        #expect(player.recorded == (try player.reference(5_000_013)))
        #expect(player.partition.player.error == nil)
    }

    /// Personal FM as a queue entry: batches of three appear before it as playback nears it, and the songs play
    /// one after the other without a gap (the batch is in the queue before the border).
    @Test func personalFMFillsTheQueueBeforeItselfAndPlaysGaplessly() throws {
        let fixture = try Fixture()
        let player = Player(fixture)
        try player.play(["netease://fm"])
        // Three batches: nine songs before the entry.
        #expect(player.wait { player.partition.queue.count >= 10 })
        try player.store.send(.stop)
        let queue = player.partition.queue.items.map(\.song.uri)
        #expect(queue.last == "netease://fm")
        #expect(queue.dropLast().allSatisfy { $0.hasPrefix("netease://song/") })
        #expect(fixture.server.requests.filter { $0.apiPath == "/api/v1/radio/get" }.count >= 3)
        // What was heard is the first songs, in queue order, sample for sample.
        usleep(300_000)
        let recorded = player.recorded
        let ids = queue.dropLast().compactMap { NetEaseURI.songID($0) }.map(Int.init)
        var expected: [UInt8] = []
        for id in ids {
            let next = try player.reference(id)
            if expected.count + next.count > recorded.count { break }
            expected += next
        }
        #expect(expected.count >= (try player.reference(ids[0])).count + (try player.reference(ids[1])).count)
        #expect(Array(recorded.prefix(expected.count)) == expected,
                "\(Self.difference(Array(recorded.prefix(expected.count)), expected))")
    }

    /// A seek in a NetEase song (a range request on the CDN) starts at the sample of that time, also when the
    /// transfers around it break: a dropped connection and an expired URL, wherever they fall.
    @Test func aSeekStartsAtTheSampleOfThatTimeAcrossBrokenTransfers() throws {
        let fixture = try Fixture(quality: "lossless")
        let player = Player(fixture)
        let id = 5_000_031  // FLAC: a seek lands on the exact sample
        fixture.server.inject(.dropBody(after: 30_000), for: FakeNetEaseServer.audioAlias(id))
        fixture.server.inject(.status(403), for: FakeNetEaseServer.audioAlias(id))
        try player.store.send(.add([Song(uri: fixture.uri(id))]))
        try player.store.send(.seek(position: 0, seconds: 2.0))
        #expect(player.waitUntilStopped())
        let expected = Array(try player.reference(id)[(2 * 44100 * 4)...])
        #expect(player.recorded == expected, "\(Self.difference(player.recorded, expected))")
        #expect(player.partition.player.error == nil)
        // The seek asked the CDN for a later byte range.
        let ranges = fixture.server.requests.filter { $0.path.hasSuffix("/\(id).flac") }.compactMap { $0.headers["range"] }
        #expect(ranges.contains { !$0.hasPrefix("bytes=0-") }, "\(ranges)")
    }

    /// Stopped, the song `play` would start is looked up as soon as it is added (or made current), so `play`
    /// itself asks NetEase nothing; local songs and songs already looked up are not asked again.
    @Test func theSongPlayWouldStartIsLookedUpAheadWhileStopped() throws {
        let fixture = try Fixture()
        let player = Player(fixture)
        player.decoders.lookUpAhead(in: player.store)
        let lookups = { fixture.server.requests.filter { $0.apiPath == "/api/song/enhance/player/url/v1" } }
        try player.store.send(.add([5_000_011, 5_000_021].map { Song(uri: fixture.uri($0)) }))
        #expect(player.wait { lookups().count == 1 })
        #expect(lookups().first?.paramsText.contains("5000011") == true)
        // The current song changes while stopped (`previous`/`next` move it, as does a `play` that ended).
        try player.store.send(.play(position: 1))
        #expect(player.waitUntilStopped())
        try player.store.send(.add([Song(uri: fixture.uri(5_000_012))]))
        usleep(300_000)
        // Song 2 stays current and its URL is fresh: nothing more is asked.
        #expect(lookups().count == 2)
        try player.store.send(.play(position: 0))
        #expect(player.waitUntilStopped())
        // Only the song added last was new (looked up while the one before it played).
        #expect(lookups().count == 3)
        // (The output's file holds the last play: it is written anew when the output opens.)
        #expect(player.recorded == (try player.reference(5_000_011)) + (try player.reference(5_000_021))
            + (try player.reference(5_000_012)))
    }

    /// Playing a song again reuses its URL while it is fresh (no lookup); a URL NetEase revoked meanwhile is looked
    /// up again, and the song still plays.
    @Test func aSongPlayedAgainReusesItsURLUnlessItWasRevoked() throws {
        let fixture = try Fixture()
        let player = Player(fixture)
        try player.play([5_000_011])
        #expect(player.waitUntilStopped())
        try player.store.send(.play(position: 0))
        #expect(player.waitUntilStopped())
        let lookups = { fixture.server.requests.filter { $0.apiPath == "/api/song/enhance/player/url/v1" }.count }
        #expect(lookups() == 1)
        fixture.server.inject(.status(403), for: "/20")
        try player.store.send(.play(position: 0))
        #expect(player.waitUntilStopped())
        #expect(lookups() == 2)
        let once = try player.reference(5_000_011)
        #expect(player.recorded.count >= once.count)
        #expect(Array(player.recorded.suffix(once.count)) == once)
        #expect(player.partition.player.error == nil)
    }
}
