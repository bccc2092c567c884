import MPDProtocol
@testable import MPDServer
import PlayerCore
import PlayerRuntime
import Testing

@Suite struct SessionTests {
    @Test func greetingNamesTheProtocolVersion() async {
        let c = await TestSession(server: TestSession.server())
        #expect(String(decoding: c.session.greeting, as: UTF8.self) == "OK MPD 0.24.0\n")
    }

    @Test func pingAndUnknownCommand() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("ping") == "OK\n")
        #expect(await c.send("foo") == "ACK [5@0] {} unknown command \"foo\"\n")
        #expect(await c.send("getfingerprint a") == "ACK [5@0] {} unknown command \"getfingerprint\"\n")
    }

    @Test func malformedLinesCloseWithoutAnswer() async {
        let c = await TestSession(server: TestSession.server())
        for line in ["", "PING", " ping", "1ping"] {
            let result = await c.sendRaw(Array(line.utf8))
            #expect(result.text.isEmpty)
            #expect(result.disposition == .close)
        }
    }

    @Test func invalidWordCharacterAnswersThenCloses() async {
        let c = await TestSession(server: TestSession.server())
        let result = await c.sendRaw(Array("pi-ng".utf8))
        #expect(result.text == "ACK [5@0] {} Invalid word character\n")
        #expect(result.disposition == .close)
    }

    /// The table's three arity texts and the tokenizer's errors (each command's own argument errors are in its
    /// section's tests).
    @Test func argumentErrorsUseMPDTexts() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("repeat") == "ACK [2@0] {repeat} wrong number of arguments for \"repeat\"\n")
        #expect(await c.send("playlistinfo 1 2") ==
                "ACK [2@0] {playlistinfo} too many arguments for \"playlistinfo\"\n")
        #expect(await c.send("prio 1") == "ACK [2@0] {prio} too few arguments for \"prio\"\n")
        #expect(await c.send("status \"x") == "ACK [5@0] {} Missing closing '\"'\n")
    }

    @Test func commandListOKModeAndFailureIndex() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("command_list_ok_begin") == "")
        #expect(await c.send("ping") == "")
        await c.send("replay_gain_status")
        await c.send("random 5")
        await c.send("ping")
        #expect(await c.send("command_list_end") == """
            list_OK
            replay_gain_mode: off
            list_OK
            ACK [2@2] {random} Boolean (0/1) expected: 5

            """)
        await c.send("command_list_begin")
        await c.send("ping")
        await c.send("ping")
        #expect(await c.send("command_list_end") == "OK\n")
    }

    /// A long list runs in parts so that the event loop it shares with other clients is not held: a part ends at a
    /// multiple of `yieldCommandCount` commands once `yieldNanoseconds` have passed, the input waits meanwhile, and
    /// the whole list is answered in order.
    @Test func longCommandListYieldsBetweenParts() async {
        let c = await TestSession(server: TestSession.server())
        let count = 40_000
        #expect(await c.send("command_list_ok_begin") == "")
        for index in 0..<count {
            #expect(c.session.handle(line: Array((index == 12_345 ? "setvol 7" : "ping").utf8)).bytes.isEmpty)
        }
        var output = c.session.handle(line: Array("command_list_end".utf8))
        var text = String(decoding: output.bytes, as: UTF8.self)
        var parts = 1
        while output.yielded {
            #expect(c.session.isSuspended && c.session.isYielding)
            #expect(output.bytes.count % (Session.yieldCommandCount * "list_OK\n".utf8.count) == 0)
            output = c.session.proceed()
            text += String(decoding: output.bytes, as: UTF8.self)
            parts += 1
        }
        #expect(!c.session.isSuspended)
        #expect(parts > 1 && parts <= (count + Session.yieldCommandCount - 1) / Session.yieldCommandCount)
        #expect(text == String(repeating: "list_OK\n", count: count) + "OK\n")
        #expect(c.server.store.state.partitions[0].volume == 7)
        // An error part way ends the list there, in whatever part it falls.
        await c.send("command_list_begin")
        for index in 0..<1000 { _ = c.session.handle(line: Array((index == 700 ? "random 5" : "ping").utf8)) }
        #expect(await c.send("command_list_end") == "ACK [2@700] {random} Boolean (0/1) expected: 5\n")
    }

    @Test func nulByteEndsTheLine() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.sendRaw(Array("ping\u{0} garbage".utf8)).text == "OK\n")
    }
}
