import Foundation
import MPDProtocol
@testable import MPDServer
import PlayerCore
import PlayerRuntime
import Testing

/// "Querying MPD's status": `clearerror`, `currentsong`, `idle`, `status`, `stats`, in memory. Expected texts are
/// MPD 0.24's (`handle_status` in `src/command/PlayerCommands.cxx`, `src/Stats.cxx`, `handle_idle` in
/// `OtherCommands.cxx`; the differential scripts `status`, `idle` and `playback_errors`, recorded against 0.24.9).
@Suite struct StatusCommandsTests {
    @Test func statusReflectsOptions() async {
        let c = await TestSession(server: TestSession.server())
        await c.send("repeat 1")
        await c.send("single oneshot")
        await c.send("crossfade 3")
        await c.send("setvol 55")
        #expect(await c.send("status") == """
            volume: 55
            repeat: 1
            random: 0
            single: oneshot
            consume: 0
            partition: default
            playlist: 1
            playlistlength: 0
            mixrampdb: 0
            state: stop
            lastloadedplaylist: 
            xfade: 3
            OK

            """)
        #expect(await c.send("status x") == "ACK [2@0] {status} wrong number of arguments for \"status\"\n")
    }

    /// Playing, `status` adds the clock (here still at zero: no player runs) and the next song.
    @Test func statusWhilePlaying() async {
        let c = await TestSession(server: TestSession.server())
        await c.send("add http://host/0.mp3")
        await c.send("add http://host/1.mp3")
        #expect(await c.send("play 0") == "OK\n")
        #expect(await c.send("status") == """
            volume: 100
            repeat: 0
            random: 0
            single: 0
            consume: 0
            partition: default
            playlist: 3
            playlistlength: 2
            mixrampdb: 0
            state: play
            lastloadedplaylist: 
            song: 0
            songid: 1
            time: 0:0
            elapsed: 0.000
            bitrate: 0
            nextsong: 1
            nextsongid: 2
            OK

            """)
    }

    /// The player's error shows in `status` until `clearerror` (here the one MPD's player pauses with when every
    /// output is disabled).
    @Test func clearerrorClearsThePlayersError() async throws {
        let c = await TestSession(server: TestSession.server())
        await c.send("add http://host/0.mp3")
        await c.send("play")
        try c.server.store.send(.outputsUnavailable(PlaybackCommands.outputsDisabled),
                                partition: PlayerState.defaultPartition)
        let failed = await c.send("status")
        #expect(failed.contains("state: pause\n"))
        #expect(failed.hasSuffix("error: All audio outputs are disabled\nOK\n"))
        #expect(await c.send("clearerror") == "OK\n")
        #expect(!(await c.send("status")).contains("error:"))
        #expect(await c.send("clearerror x") ==
                "ACK [2@0] {clearerror} wrong number of arguments for \"clearerror\"\n")
        let reader = await TestSession(server: TestSession.server { $0.defaultPermissions = [.read] })
        #expect(await reader.send("clearerror") ==
                "ACK [4@0] {clearerror} you don't have permission for \"clearerror\"\n")
    }

    /// The song block of the current song, its tags as the client's `tagtypes` allow; nothing without one.
    @Test func currentsong() async throws {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("currentsong") == "OK\n")
        let song = Song(uri: "http://host/a.ogg", tags: [Song.Tag("Artist", "Someone"), Song.Tag("Title", "Tune")],
                        duration: 2.5)
        try c.server.store.send(.add([song]))
        await c.send("add http://host/b.mp3")
        #expect(await c.send("currentsong") == "OK\n")
        #expect(await c.send("play 0") == "OK\n")
        #expect(await c.send("currentsong") ==
                "file: http://host/a.ogg\nArtist: Someone\nTitle: Tune\nTime: 3\nduration: 2.500\nPos: 0\nId: 1\nOK\n")
        #expect(await c.send("tagtypes reset Title") == "OK\n")
        #expect(await c.send("currentsong") ==
                "file: http://host/a.ogg\nTitle: Tune\nTime: 3\nduration: 2.500\nPos: 0\nId: 1\nOK\n")
        #expect(await c.send("next") == "OK\n")
        #expect(await c.send("currentsong") == "file: http://host/b.mp3\nPos: 1\nId: 2\nOK\n")
        #expect(await c.send("currentsong 1") ==
                "ACK [2@0] {currentsong} wrong number of arguments for \"currentsong\"\n")
    }

    /// Without a database, only the uptime (whole seconds) and the play time.
    @Test func statsWithoutADatabase() async {
        let c = await TestSession(server: TestSession.server())
        let stats = await c.send("stats")
        let lines = stats.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first.map { $0.hasPrefix("uptime: ") && UInt($0.dropFirst(8)) != nil } == true)
        #expect(stats.hasSuffix("\nplaytime: 0\nOK\n"))
        #expect(await c.send("stats x") == "ACK [2@0] {stats} wrong number of arguments for \"stats\"\n")
    }

    /// `playtime:` counts what the player has played (`PlayerControl::total_play_time`, grown by each chunk sent to
    /// the outputs): a 2 s tone played through the null output gives 2, and nothing is added while paused or
    /// stopped.
    @Test func statsCountsTheTimePlayed() async throws {
        let audio = AudioServer()
        let directory = NSTemporaryDirectory() + "nosignal-playtime-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tone = directory + "/tone.wav"
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                            "sine=frequency=440:duration=2:sample_rate=44100", "-ac", "2", tone]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        #expect(ffmpeg.terminationStatus == 0)
        let c = await audio.client()
        func playtime() async -> String? {
            await c.send("stats").split(separator: "\n").first { $0.hasPrefix("playtime: ") }.map(String.init)
        }
        #expect(await playtime() == "playtime: 0")
        try audio.server.store.send(.add([Song(uri: tone), Song(uri: tone)]))
        #expect(await c.send("play 0") == "OK\n")
        // Paused at once: whatever was played before the pause stays as it is while paused.
        #expect(await c.send("pause 1") == "OK\n")
        let paused = await playtime()
        try await Task.sleep(for: .milliseconds(300))
        #expect(await playtime() == paused)
        #expect(await c.send("stop") == "OK\n")
        #expect(await c.send("play 1") == "OK\n")
        for _ in 0..<200 where await c.send("status").contains("state: play") {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(await c.send("status").contains("state: stop"))
        // The stopped song's fraction and the whole second one: 2 s rounded, whatever part of song 0 played.
        let played = await playtime()
        #expect(played == "playtime: 2" || played == "playtime: 3", "\(played ?? "none")")
        try await Task.sleep(for: .milliseconds(200))
        #expect(await playtime() == played)
    }

    @Test func idleDeliversPendingAtOnceAndNoidleAnswers() async {
        let c = await TestSession(server: TestSession.server())
        _ = c.deliver(.mixer)
        #expect(await c.send("idle") == "changed: mixer\nOK\n")
        #expect(await c.send("idle player") == "")
        #expect(c.deliver(.options) == "")
        #expect(await c.send("noidle") == "OK\n")
        #expect(await c.send("noidle") == "")
        // MPD 0.23: completing an idle forgets the unsubscribed events too.
        let old = await TestSession(server: TestSession.server { $0.protocolVersion = "0.23.5" })
        _ = old.deliver(.options)
        _ = old.deliver(.mixer)
        #expect(await old.send("idle mixer") == "changed: mixer\nOK\n")
        #expect(await old.send("idle options") == "")
        #expect(await old.send("noidle") == "OK\n")
    }

    @Test func protocol024KeepsUnsubscribedEvents() async {
        let c = await TestSession(server: TestSession.server())
        _ = c.deliver(.options)
        _ = c.deliver(.mixer)
        #expect(await c.send("idle mixer") == "changed: mixer\nOK\n")
        #expect(await c.send("idle options") == "changed: options\nOK\n")
    }

    @Test func anyOtherCommandWhileIdleCloses() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("idle") == "")
        let result = await c.sendRaw(Array("status".utf8))
        #expect(result.disposition == .close)
    }

    @Test func idleNamesAreCaseInsensitiveAndChecked() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("idle foo") == "ACK [2@0] {idle} Unrecognized idle event: foo\n")
        _ = c.deliver(.storedPlaylist)
        #expect(await c.send("idle STORED_PLAYLIST") == "changed: stored_playlist\nOK\n")
    }

    /// Events come out in MPD's order of subsystems, whatever the order they happened in.
    @Test func idleAnswersInMPDsOrder() async {
        let server = TestSession.server()
        let a = await TestSession(server: server)
        let b = await TestSession(server: server)
        #expect(await a.send("setvol 10") == "OK\n")
        #expect(await a.send("random 1") == "OK\n")
        #expect(await a.send("add http://host/0.mp3") == "OK\n")
        #expect(b.deliverBroadcast() == "")
        #expect(await b.send("idle") == "changed: playlist\nchanged: mixer\nchanged: options\nOK\n")
        let reader = await TestSession(server: TestSession.server { $0.defaultPermissions = [] })
        #expect(await reader.send("idle") == "ACK [4@0] {idle} you don't have permission for \"idle\"\n")
    }
}
