import Foundation
import MPDTesting
import Testing

/// Unit tests of the harness itself (no servers): script parsing, normalisation, rendering and
/// the deliberate-difference rules.
@Suite("Differential harness")
struct HarnessTests {
    private func parse(_ text: String) throws -> DifferentialScript {
        try DifferentialScript(name: "t", text: text)
    }

    @Test("Plain lines read, `>` only sends, `<` reads, @N picks the connection")
    func stepKinds() throws {
        let script = try parse("""
            # comment
            status
            > idle
            @2 setvol 5
            <
            @12 < 
            """)
        #expect(script.steps.map(\.connection) == [1, 1, 2, 1, 12])
        #expect(script.steps[0].action == .send(Array("status\n".utf8), read: true))
        #expect(script.steps[1].action == .send(Array("idle\n".utf8), read: false))
        #expect(script.steps[2].source == "setvol 5")
        #expect(script.steps[3].action == .read)
        #expect(script.steps.map(\.number) == [1, 2, 3, 4, 5])
        #expect(script.steps.map(\.line) == [2, 3, 4, 5, 6])
    }

    @Test("Command lists are not read until command_list_end, per connection")
    func commandLists() throws {
        let script = try parse("""
            command_list_ok_begin
            ping
            "raw\\n"
            @2 ping
            command_list_begin
            command_list_end
            ping
            """)
        let reads = script.steps.map { step -> Bool in
            if case .send(_, let read) = step.action { return read }
            return true
        }
        #expect(reads == [false, false, false, true, false, true, true])
    }

    @Test("Raw bytes: escapes, repetition, no implicit newline")
    func rawBytes() throws {
        let script = try parse(#"""
            "a\tb\r\n\0\\\"\xff"
            "x"*3 "\n"
            > "pi"
            """#)
        #expect(script.steps[0].action == .send([0x61, 0x09, 0x62, 0x0D, 0x0A, 0x00, 0x5C, 0x22, 0xFF], read: true))
        #expect(script.steps[1].action == .send(Array("xxx\n".utf8), read: true))
        #expect(script.steps[2].action == .send(Array("pi".utf8), read: false))
    }

    @Test("Directives and ! steps")
    func directives() throws {
        let script = try parse("""
            %config password "pw@read"
            %config-mpd zeroconf_enabled "no"
            %config-nosignal cache_directory "/tmp"
            %substitute extra nosignal "handler: (.*)" => "h: $1" reason: because
            !sleep 10
            !silence 20
            !closed
            @3 !connect
            !disconnect
            %ignore reason: why not
            decoders
            """)
        #expect(script.config == ["password \"pw@read\""])
        #expect(script.configLines(for: .mpd) == ["password \"pw@read\"", "zeroconf_enabled \"no\""])
        #expect(script.configLines(for: .nosignal) == ["password \"pw@read\"", "cache_directory \"/tmp\""])
        #expect(script.substitutions.first?.pattern == "handler: (.*)")
        #expect(script.substitutions.first?.replacement == "h: $1")
        #expect(script.substitutions.first?.side == .nosignal)
        #expect(script.steps.map(\.action) == [.sleep(milliseconds: 10), .silence(milliseconds: 20), .expectClose,
                                               .connect, .disconnect, .send(Array("decoders\n".utf8), read: true)])
        #expect(script.steps[5].ignoreReason == "why not")
        #expect(script.steps[4].ignoreReason == nil)
    }

    @Test("Deliberate differences need a reason; bad lines name their line", arguments: [
        ("%ignore\nping", 1),
        ("%ignore reason:\nping", 1),
        ("ping\n%substitute a nosignal \"x\" => delete", 2),
        ("%substitute a sometimes \"x\" => delete reason: r", 1),
        ("ping\n\"unterminated", 2),
        ("\"\\q\"", 1),
        ("!nonsense", 1),
        ("@0 ping", 1),
        ("ping\n%ignore reason: nothing follows", 2),
        ("%bogus", 1),
    ])
    func parseErrors(text: String, line: Int) {
        #expect(throws: DifferentialScript.ParseError.self) { try parse(text) }
        do {
            _ = try parse(text)
        } catch let error as DifferentialScript.ParseError {
            #expect(error.line == line)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("Only volatile values are normalised; ids are renumbered by first appearance")
    func normalisation() {
        var normalizer = TranscriptNormalizer()
        let lines = ["OK MPD 0.23.5", "uptime: 12", "playtime: 3", "db_update: 1700000000", "elapsed: 1.234",
                     "time: 1:200", "songid: 17", "nextsongid: 4", "Id: 17", "updating_db: 9", "updating_db: 9",
                     "volume: 50", "duration: 1.000", "Title: uptime: 5", "mixrampdb: 0"]
        #expect(lines.map { normalizer.normalize(line: $0) } == [
            "OK MPD <version>", "uptime: <uptime>", "playtime: <playtime>", "db_update: <db_update>",
            "elapsed: <elapsed>", "time: <time>", "songid: <id 1>", "nextsongid: <id 2>", "Id: <id 1>",
            "updating_db: <job 1>", "updating_db: <job 1>", "volume: 50", "duration: 1.000",
            "Title: uptime: 5", "mixrampdb: 0",
        ])
    }

    @Test("%library names the generated library; !wait-update is a step; unknown libraries are errors")
    func libraryDirectives() throws {
        let script = try parse("""
            %library
            update
            !wait-update
            """)
        #expect(script.library == "standard")
        #expect(script.steps.map(\.action) == [.send(Array("update\n".utf8), read: true), .waitUpdate])
        #expect(try parse("%library standard\nping").library == "standard")
        #expect(try parse("ping").library == nil)
        #expect(throws: DifferentialScript.ParseError.self) { try parse("%library nonsense\nping") }
        #expect(try parse("ping").libraryIsPrivate == false)
        let mutable = try parse("%library standard private\n!sh rm \"a b.mp3\" && touch -d 2020-01-01 .")
        #expect(mutable.library == "standard" && mutable.libraryIsPrivate)
        #expect(mutable.steps.map(\.action) == [.shell("rm \"a b.mp3\" && touch -d 2020-01-01 .")])
        #expect(try parse("%library private\nping").library == "standard")
        #expect(throws: DifferentialScript.ParseError.self) { try parse("!sh") }
    }

    @Test("!sh runs only in a private music directory")
    func shellNeedsPrivateLibrary() {
        #expect(DifferentialRunner.runShell("true", in: nil).contains("private"))
        #expect(DifferentialRunner.runShell("true", in: "/") == "<sh ok>")
        #expect(DifferentialRunner.runShell("exit 3", in: "/").hasPrefix("<sh failed with status 3"))
    }

    @Test("A stored playlist's Last-Modified is normalised, a file's or a folder playlist's is not")
    func playlistTimes() {
        var normalizer = TranscriptNormalizer()
        let lines = ["playlist: mix", "Last-Modified: 2026-11-21T16:00:00Z",
                     "file: a.flac", "Last-Modified: 2020-01-02T03:04:05Z",
                     "playlist: dir/album.m3u", "Last-Modified: 2021-06-07T08:09:10Z",
                     "directory: dir", "Last-Modified: 2020-01-02T03:04:05Z"]
        #expect(lines.map { normalizer.normalize(line: $0) } == [
            "playlist: mix", "Last-Modified: <playlist mtime>",
            "file: a.flac", "Last-Modified: 2020-01-02T03:04:05Z",
            "playlist: dir/album.m3u", "Last-Modified: 2021-06-07T08:09:10Z",
            "directory: dir", "Last-Modified: 2020-01-02T03:04:05Z",
        ])
    }

    @Test("${id:N} in a request is the N-th song id the transcript has shown")
    func songIdReferences() {
        var normalizer = TranscriptNormalizer()
        for line in ["Id: 41", "songid: 7", "nextsongid: 41", "Id: 99"] { _ = normalizer.normalize(line: line) }
        #expect(normalizer.resolveSongIds(in: Array("deleteid ${id:1}\n".utf8)) == Array("deleteid 41\n".utf8))
        #expect(normalizer.resolveSongIds(in: Array("swapid ${id:2} ${id:3}\n".utf8)) == Array("swapid 7 99\n".utf8))
        #expect(normalizer.resolveSongIds(in: Array("ping\n".utf8)) == Array("ping\n".utf8))
        #expect(normalizer.resolveSongIds(in: Array("deleteid ${id:4}\n".utf8)) == nil)
        #expect(normalizer.resolveSongIds(in: Array("find \"${x}\"\n".utf8)) == Array("find \"${x}\"\n".utf8))
    }

    @Test("The test library generator exists and is executable")
    func generatorExists() {
        #expect(FileManager.default.isExecutableFile(atPath: TestLibrary.generatorPath), "\(TestLibrary.generatorPath)")
    }

    @Test("Rendering keeps UTF-8 and escapes everything else")
    func rendering() {
        #expect(Transcript.render(Array("ünï".utf8)) == "ünï")
        #expect(Transcript.render([0x61, 0xFF, 0x09, 0x0D, 0x00, 0xC3, 0x28, 0x7F]) == "a\\xff\\t\\r\\x00\\xc3(\\x7f")
        #expect(Transcript.render([0xE2, 0x82]) == "\\xe2\\x82")
    }

    @Test("Substitutions apply to their side from their step on; %ignore hides one step")
    func deliberateDifferences() throws {
        let script = try parse("""
            urlhandlers
            %substitute nhandler nosignal "handler: netease://" => delete reason: NetEase
            urlhandlers
            %ignore reason: FFmpeg
            decoders
            """)
        func transcript(_ kind: ServerKind, _ responses: [[String]]) -> Transcript {
            Transcript(server: kind, entries: zip(script.steps, responses).map { Transcript.Entry(step: $0, lines: $1) })
        }
        let mpd = transcript(.mpd, [["handler: http://", "OK"], ["handler: http://", "OK"], ["plugin: mad", "OK"]])
        let same = transcript(.nosignal, [["handler: http://", "OK"], ["handler: http://", "handler: netease://", "OK"], ["plugin: ffmpeg", "OK"]])
        #expect(DifferentialRunner.compare(script, reference: mpd, candidate: same).identical)

        let early = transcript(.nosignal, [["handler: http://", "handler: netease://", "OK"], ["handler: http://", "OK"], ["plugin: mad", "OK"]])
        let comparison = DifferentialRunner.compare(script, reference: mpd, candidate: early)
        #expect(!comparison.identical)
        #expect(comparison.differingSteps.map { $0.0.step.number } == [1])
        let report = comparison.report()
        #expect(report.contains("+ handler: netease://"))
        #expect(report.contains("#1 @1 urlhandlers"))
        // The ignored step was answered alike, and the substitution never applied: both are noted.
        #expect(comparison.notes.count == 2)
    }

    @Test("A declarations file's differences apply to every script, under %oracle-below only against an older oracle")
    func sharedDeclarations() throws {
        let path = NSTemporaryDirectory() + "nosignal-decl-\(UUID().uuidString).mpddecl"
        try """
            # comment
            %substitute always nosignal "x: .*" => delete reason: always
            %oracle-below 0.24
            %substitute old nosignal "Added: .*" => delete reason: 0.24 only
            """.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var script = try parse("status")
        script.substitutions += try DifferentialScript.declarations(path: path)
        #expect(script.substitutions.map(\.name) == ["always", "old"])
        #expect(script.substitutions[0].oracleBelow == nil)
        #expect(script.substitutions[1].oracleBelow == DifferentialScript.ProtocolVersion(major: 0, minor: 24))
        // The greeting is recorded in the answer of the step that opened the connection.
        func transcript(_ kind: ServerKind, _ version: String, _ lines: [String]) -> Transcript {
            Transcript(server: kind, entries: [Transcript.Entry(step: script.steps[0], lines: ["OK MPD " + version] + lines)])
        }
        let ours = transcript(.nosignal, "0.24.0", ["x: 1", "Added: 2026-11-26T18:14:31Z", "OK"])
        #expect(DifferentialRunner.compare(script, reference: transcript(.mpd, "0.23.5", ["OK"]), candidate: ours).identical)
        #expect(!DifferentialRunner.compare(script, reference: transcript(.mpd, "0.24.0", ["OK"]), candidate: ours).identical)
        // A shared declaration that a script does not need is not noted as stale.
        #expect(DifferentialRunner.compare(script, reference: transcript(.mpd, "0.23.5", ["OK"]),
                                           candidate: transcript(.nosignal, "0.24.0", ["OK"])).notes.isEmpty)
        let bad = NSTemporaryDirectory() + "nosignal-decl-\(UUID().uuidString).mpddecl"
        try "%ignore reason: no\nping\n".write(toFile: bad, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: bad) }
        #expect(throws: DifferentialScript.ParseError.self) { try DifferentialScript.declarations(path: bad) }
    }

    @Test("%oracle-below in a script: the %ignore and %substitute under it hold only against an older oracle")
    func oracleBelowInScripts() throws {
        let script = try parse("""
            %oracle-below 0.24
            %ignore reason: 0.24 command
            protocol
            %substitute new nosignal "tagtype: Mood" => delete reason: 0.24 tag
            %oracle-below any
            %ignore reason: timing
            play
            tagtypes
            """)
        #expect(script.steps.map { $0.ignoreOracleBelow } == [DifferentialScript.ProtocolVersion(major: 0, minor: 24), nil, nil])
        func transcript(_ kind: ServerKind, _ version: String, _ answers: [[String]]) -> Transcript {
            var answers = answers
            answers[0].insert("OK MPD " + version, at: 0)
            return Transcript(server: kind, entries: zip(script.steps, answers).map { Transcript.Entry(step: $0, lines: $1) })
        }
        let ours = transcript(.nosignal, "0.24.0", [["feature: x", "OK"], ["OK"], ["tagtype: Mood", "OK"]])
        let old = transcript(.mpd, "0.23.5", [["ACK [5@0] {} unknown command \"protocol\""], ["ACK x"], ["OK"]])
        #expect(DifferentialRunner.compare(script, reference: old, candidate: ours).identical)
        let new = transcript(.mpd, "0.24.0", [["feature: x", "OK"], ["ACK x"], ["tagtype: Mood", "OK"]])
        #expect(DifferentialRunner.compare(script, reference: new, candidate: ours).identical)
        let wrong = transcript(.mpd, "0.24.0", [["feature: y", "OK"], ["OK"], ["tagtype: Mood", "OK"]])
        #expect(DifferentialRunner.compare(script, reference: wrong, candidate: ours).differingSteps.map { $0.0.step.number } == [1])
        #expect(throws: DifferentialScript.ParseError.self) { try parse("%oracle-below soon") }
    }

    @Test("A recording reads back against its script, and not against a changed one")
    func recordingsReadBack() throws {
        let script = try parse("status\n> idle\n<")
        let transcript = Transcript(server: .mpd, entries: zip(script.steps, [["OK MPD 0.24.0", "state: stop", "OK"], [], ["changed: player", "OK"]]).map {
            Transcript.Entry(step: $0, lines: $1)
        })
        let recorded = try #require(Transcript.recorded(transcript.text, script: script, server: .mpd))
        #expect(recorded.entries.map(\.lines) == transcript.entries.map(\.lines))
        #expect(recorded.oracleVersion == DifferentialScript.ProtocolVersion(major: 0, minor: 24))
        #expect(Transcript.recorded(transcript.text, script: try parse("status\n> idle\n<\nping"), server: .mpd) == nil)
        #expect(Transcript.recorded(transcript.text, script: try parse("stats\n> idle\n<"), server: .mpd) == nil)
        let ours = Transcript(server: .nosignal, entries: zip(script.steps, [["OK MPD 0.24.0", "state: play", "OK"], [], ["changed: player", "OK"]]).map {
            Transcript.Entry(step: $0, lines: $1)
        })
        #expect(DifferentialRunner.compare(script, reference: recorded, candidate: ours).differingSteps.map { $0.0.step.number } == [1])
    }
}

#if canImport(Glibc)
import Foundation
import Glibc

private struct ListenError: Error {}

/// RawClient against a one-shot fake server that writes canned bytes.
@Suite("RawClient")
struct RawClientTests {
    /// Listens on a free loopback port, accepts one client, writes `bytes`, then closes or holds
    /// the connection open for a while.
    private func serve(_ bytes: [UInt8], thenClose: Bool) throws -> UInt16 {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                guard bind(listener, $0, length) == 0, listen(listener, 1) == 0, getsockname(listener, $0, &length) == 0 else {
                    throw ListenError()
                }
            }
        }
        let port = UInt16(bigEndian: address.sin_port)
        Thread {
            let client = accept(listener, nil, nil)
            bytes.withUnsafeBytes { _ = send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if !thenClose { usleep(500_000) }
            close(client)
            close(listener)
        }.start()
        return port
    }

    @Test("A response ends at OK, list_OK lines stay inside, binary chunks are read by length")
    func binaryChunk() throws {
        let port = try serve(Array("size: 5\nbinary: 5\nab\ncd\nOK\nlist_OK\nOK\n".utf8), thenClose: false)
        let client = try RawClient(port: port)
        let first = client.readResponse(timeout: 2)
        #expect(first.end == .ok)
        #expect(first.lines.map { String(decoding: $0, as: UTF8.self) }.first == "size: 5")
        #expect(first.lines.count == 4)
        #expect(first.lines.last == Array("OK".utf8))
        let second = client.readResponse(timeout: 2)
        #expect(second.lines == [Array("list_OK".utf8), Array("OK".utf8)])
        #expect(!client.isClosed)
    }

    @Test("ACK ends a response; EOF and silence are reported, not thrown")
    func ackCloseTimeout() throws {
        let port = try serve(Array("ACK [5@0] {} unknown command \"x\"\npartial".utf8), thenClose: true)
        let client = try RawClient(port: port)
        // Generous timeouts: a read returns as soon as its end comes, and a loaded machine delays the server thread.
        #expect(client.readResponse(timeout: 10).end == .ack)
        let rest = client.readResponse(timeout: 10)
        #expect(rest.end == .closed)
        #expect(rest.lines == [Array("partial".utf8)])
        #expect(client.isClosed)

        let quiet = try serve([], thenClose: false)
        let idle = try RawClient(port: quiet)
        #expect(idle.readResponse(timeout: 0.1).end == .timeout)
    }
}
#endif
