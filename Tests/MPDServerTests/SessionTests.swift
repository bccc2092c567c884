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
        // No neighbor plugin: answered as Debian's MPD does (the storage commands: differential script edge_paths).
        #expect(await c.send("listneighbors") == "ACK [5@0] {listneighbors} No neighbor plugin configured\n")
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

    @Test func argumentErrorsUseMPDTexts() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("random 2") == "ACK [2@0] {random} Boolean (0/1) expected: 2\n")
        #expect(await c.send("repeat") == "ACK [2@0] {repeat} wrong number of arguments for \"repeat\"\n")
        #expect(await c.send("setvol 101") == "ACK [2@0] {setvol} Number too large: 101\n")
        #expect(await c.send("single 2") == "ACK [2@0] {single} Unrecognized single mode, expected 0, 1, or oneshot\n")
        #expect(await c.send("status \"x") == "ACK [5@0] {} Missing closing '\"'\n")
    }

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

    /// A long list runs in parts so that the event loop it shares with other clients is not held: each part is at
    /// most `yieldCommandCount` commands, the input waits meanwhile, and the whole list is answered in order.
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
            #expect(output.bytes.count <= Session.yieldCommandCount * "list_OK\n".utf8.count)
            output = c.session.proceed()
            text += String(decoding: output.bytes, as: UTF8.self)
            parts += 1
        }
        #expect(!c.session.isSuspended)
        #expect(parts == (count + Session.yieldCommandCount - 1) / Session.yieldCommandCount)
        #expect(text == String(repeating: "list_OK\n", count: count) + "OK\n")
        #expect(c.server.store.state.partitions[0].volume == 7)
        // An error part way ends the list there, in whatever part it falls.
        await c.send("command_list_begin")
        for index in 0..<1000 { _ = c.session.handle(line: Array((index == 700 ? "random 5" : "ping").utf8)) }
        #expect(await c.send("command_list_end") == "ACK [2@700] {random} Boolean (0/1) expected: 5\n")
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

    @Test func nulByteEndsTheLine() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.sendRaw(Array("ping\u{0} garbage".utf8)).text == "OK\n")
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

    @Test func permissionsWithPassword() async {
        let server = TestSession.server { settings in
            settings.passwords = ["pw": [.read]]
            settings.defaultPermissions = []
        }
        let c = await TestSession(server: server)
        #expect(await c.send("status") == "ACK [4@0] {status} you don't have permission for \"status\"\n")
        #expect(await c.send("password nope") == "ACK [3@0] {password} incorrect password\n")
        #expect(await c.send("password pw") == "OK\n")
        #expect(await c.send("status").hasSuffix("OK\n"))
        #expect(await c.send("repeat 1") == "ACK [4@0] {repeat} you don't have permission for \"repeat\"\n")
        let commands = await c.send("commands")
        #expect(commands.contains("command: status\n") && !commands.contains("command: repeat\n"))
        #expect(await c.send("notcommands").contains("command: repeat\n"))
    }

    @Test func tagtypesPerClient() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("tagtypes clear") == "OK\n")
        #expect(await c.send("tagtypes") == "OK\n")
        #expect(await c.send("tagtypes enable artist ALBUM") == "OK\n")
        #expect(await c.send("tagtypes") == "tagtype: Artist\ntagtype: Album\nOK\n")
        #expect(await c.send("tagtypes enable bogus") == "ACK [2@0] {tagtypes} Unknown tag type\n")
        #expect(await c.send("tagtypes enable") == "ACK [2@0] {tagtypes} Not enough arguments\n")
        #expect(await c.send("tagtypes frob") == "ACK [2@0] {tagtypes} Unknown sub command\n")
        #expect(await c.send("tagtypes all") == "OK\n")
        #expect(!(await c.send("tagtypes")).contains("tagtype: Comment"))
    }

    @Test func configOnlyForLocalClients() async {
        let server = TestSession.server {
            $0.musicDirectory = "/music"
            $0.playlistDirectory = "/playlists"
        }
        let remote = await TestSession(server: server)
        #expect(await remote.send("config") == "ACK [4@0] {config} Command only permitted to local clients\n")
        let local = await TestSession(server: server, isLocal: true)
        #expect(await local.send("config") == "music_directory: /music\nplaylist_directory: /playlists\npcre: 1\nOK\n")
        #expect(await local.send("urlhandlers").hasPrefix("handler: file://\n"))
    }

    @Test func messagesBetweenClients() async {
        let server = TestSession.server()
        let a = await TestSession(server: server)
        let b = await TestSession(server: server)
        #expect(await a.send("subscribe chat") == "OK\n")
        #expect(await a.send("subscribe chat") == "ACK [56@0] {subscribe} already subscribed to this channel\n")
        #expect(await a.send("subscribe \"bad name\"") == "ACK [2@0] {subscribe} invalid channel name\n")
        #expect(await b.send("channels") == "channel: chat\nOK\n")
        #expect(await b.send("sendmessage other hi") == "ACK [50@0] {sendmessage} nobody is subscribed to this channel\n")
        #expect(await b.send("sendmessage chat hi") == "OK\n")
        #expect(await a.send("readmessages") == "channel: chat\nmessage: hi\nOK\n")
        #expect(await a.send("readmessages") == "OK\n")
        #expect(await a.send("unsubscribe chat") == "OK\n")
        #expect(await a.send("unsubscribe chat") == "ACK [50@0] {unsubscribe} not subscribed to this channel\n")
    }

    @Test func binarylimitBounds() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("binarylimit 63") == "ACK [2@0] {binarylimit} Value too small\n")
        #expect(await c.send("binarylimit 64") == "OK\n")
        #expect(await c.send("binarylimit x") == "ACK [2@0] {binarylimit} Integer expected: x\n")
    }

    @Test func commandsListsExactlyTheTable() async {
        let c = await TestSession(server: TestSession.server())
        let listed = await c.send("commands").split(separator: "\n").filter { $0.hasPrefix("command: ") }
            .map { String($0.dropFirst(9)) }
        #expect(listed == CommandTable.standard.commands.map(\.name))
        #expect(listed == listed.sorted())
    }
}
