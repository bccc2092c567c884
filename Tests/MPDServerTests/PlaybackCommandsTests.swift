import MPDProtocol
import Testing
@testable import MPDServer

/// "Controlling playback": `next`, `pause`, `play`, `playid`, `previous`, `seek`, `seekid`, `seekcur`, `stop`, in
/// memory. There is no player here (the differential script `playback` plays through MPD's null output), so the
/// tests check the answers and where the queue's current song and the player's state go, not the clock. Expected
/// texts are MPD 0.24's (`src/command/PlayerCommands.cxx`, `src/PlaylistError.hxx`, `src/protocol/ArgParser.cxx`).
@Suite struct PlaybackCommandsTests {
    /// Three URLs: ids 1, 2, 3 at positions 0, 1, 2.
    static func client() async -> TestSession {
        let c = await TestSession(server: TestSession.server())
        for i in 0..<3 { await c.send("add http://host/\(i).mp3") }
        return c
    }

    /// The player's state and the current song, as `status` shows them (they follow each other there).
    static func player(_ c: TestSession) async -> String {
        let status = await c.send("status")
        let lines = status.split(separator: "\n", omittingEmptySubsequences: false)
        let fields = lines.filter { line in ["state:", "song:", "songid:"].contains { line.hasPrefix($0) } }
        return fields.joined(separator: "\n")
    }

    @Test func playPauseStop() async {
        let c = await Self.client()
        #expect(await Self.player(c) == "state: stop")
        #expect(await c.send("play 1") == "OK\n")
        #expect(await Self.player(c) == "state: play\nsong: 1\nsongid: 2")
        #expect(await c.send("pause 1") == "OK\n")
        #expect(await Self.player(c) == "state: pause\nsong: 1\nsongid: 2")
        #expect(await c.send("pause 0") == "OK\n")
        #expect(await Self.player(c) == "state: play\nsong: 1\nsongid: 2")
        // `pause` alone toggles.
        #expect(await c.send("pause") == "OK\n")
        #expect(await Self.player(c) == "state: pause\nsong: 1\nsongid: 2")
        #expect(await c.send("pause") == "OK\n")
        #expect(await Self.player(c) == "state: play\nsong: 1\nsongid: 2")
        // Stopped, the queue keeps its current song.
        #expect(await c.send("stop") == "OK\n")
        #expect(await Self.player(c) == "state: stop\nsong: 1\nsongid: 2")
        // `play` alone (or -1) resumes at the current song.
        #expect(await c.send("play") == "OK\n")
        #expect(await Self.player(c) == "state: play\nsong: 1\nsongid: 2")
        #expect(await c.send("play -1") == "OK\n")
        #expect(await Self.player(c) == "state: play\nsong: 1\nsongid: 2")
    }

    @Test func playidNextPreviousSeek() async {
        let c = await Self.client()
        #expect(await c.send("playid 3") == "OK\n")
        #expect(await Self.player(c) == "state: play\nsong: 2\nsongid: 3")
        #expect(await c.send("previous") == "OK\n")
        #expect(await Self.player(c) == "state: play\nsong: 1\nsongid: 2")
        #expect(await c.send("next") == "OK\n")
        #expect(await Self.player(c) == "state: play\nsong: 2\nsongid: 3")
        #expect(await c.send("seek 0 1.5") == "OK\n")
        #expect(await Self.player(c) == "state: play\nsong: 0\nsongid: 1")
        #expect(await c.send("seekid 2 0.25") == "OK\n")
        #expect(await Self.player(c) == "state: play\nsong: 1\nsongid: 2")
        // Absolute only: a relative `seekcur` needs the elapsed time of a player, which these tests do not run.
        #expect(await c.send("seekcur 0") == "OK\n")
        #expect(await Self.player(c) == "state: play\nsong: 1\nsongid: 2")
    }

    /// `play`/`playid` of an empty queue do nothing; the others need something playing.
    @Test func stoppedOrEmpty() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("play") == "OK\n")
        #expect(await c.send("playid") == "OK\n")
        #expect(await Self.player(c) == "state: stop")
        #expect(await c.send("next") == "ACK [55@0] {next} Not playing\n")
        #expect(await c.send("previous") == "ACK [55@0] {previous} Not playing\n")
        #expect(await c.send("seekcur 1") == "ACK [55@0] {seekcur} Not playing\n")
        #expect(await c.send("pause") == "OK\n")
        #expect(await c.send("pause 1") == "OK\n")
        #expect(await c.send("stop") == "OK\n")
        #expect(await Self.player(c) == "state: stop")
    }

    @Test func errorsAsMPD() async {
        let c = await Self.client()
        #expect(await c.send("play 3") == "ACK [2@0] {play} Bad song index\n")
        #expect(await c.send("play -2") == "ACK [2@0] {play} Bad song index\n")
        #expect(await c.send("play x") == "ACK [2@0] {play} Integer expected: x\n")
        #expect(await c.send("play 1 2") == "ACK [2@0] {play} too many arguments for \"play\"\n")
        #expect(await c.send("playid 99") == "ACK [50@0] {playid} No such song\n")
        #expect(await c.send("playid -2") == "ACK [50@0] {playid} No such song\n")
        #expect(await c.send("seek 5 1") == "ACK [2@0] {seek} Bad song index\n")
        #expect(await c.send("seek 0 -1") == "ACK [2@0] {seek} Negative value not allowed: -1\n")
        #expect(await c.send("seek 0 x") == "ACK [2@0] {seek} Float expected: x\n")
        #expect(await c.send("seek x 1") == "ACK [2@0] {seek} Integer expected: x\n")
        #expect(await c.send("seek 0") == "ACK [2@0] {seek} wrong number of arguments for \"seek\"\n")
        #expect(await c.send("seekid 99 1") == "ACK [50@0] {seekid} No such song\n")
        #expect(await c.send("pause 2") == "ACK [2@0] {pause} Boolean (0/1) expected: 2\n")
        #expect(await c.send("seekcur x") == "ACK [2@0] {seekcur} Float expected: x\n")
        #expect(await c.send("next 1") == "ACK [2@0] {next} wrong number of arguments for \"next\"\n")
        #expect(await Self.player(c) == "state: stop")
    }

    /// Every playback command needs `player`.
    @Test func permissions() async {
        let reader = await TestSession(server: TestSession.server { $0.defaultPermissions = [.read, .add] })
        for line in ["play", "playid 1", "pause", "stop", "next", "previous", "seek 0 1", "seekid 1 1", "seekcur 1"] {
            let name = line.prefix { $0 != " " }
            #expect(await reader.send(line) == "ACK [4@0] {\(name)} you don't have permission for \"\(name)\"\n")
        }
    }
}
