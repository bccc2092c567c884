import MPDProtocol
import Testing
@testable import MPDServer

/// "Reflection": `commands`, `notcommands`, `config`, `urlhandlers`, `decoders`, in memory. Expected texts are
/// MPD 0.24's (`src/command/AllCommands.cxx`, `OtherCommands.cxx`; the differential scripts `reflection`, recorded
/// against MPD 0.24.9, and `permissions_commands`).
@Suite struct ReflectionCommandsTests {
    @Test func commandsListsExactlyTheTable() async {
        let c = await TestSession(server: TestSession.server())
        let listed = await c.send("commands").split(separator: "\n").filter { $0.hasPrefix("command: ") }
            .map { String($0.dropFirst(9)) }
        #expect(listed == CommandTable.standard.commands.map(\.name))
        #expect(listed == listed.sorted())
        #expect(await c.send("notcommands") == "OK\n")
    }

    /// A client without permissions may run only the commands that need none; `notcommands` lists the others a
    /// permission set lacks (whether or not they are available, as MPD's `PrintUnavailableCommands`).
    @Test func commandsAndNotcommandsFollowThePermissions() async {
        let nobody = await TestSession(server: TestSession.server { $0.defaultPermissions = [] })
        #expect(await nobody.send("commands") == """
            command: binarylimit
            command: close
            command: commands
            command: notcommands
            command: password
            command: ping
            command: protocol
            command: tagtypes
            OK

            """)
        let noAdmin = await TestSession(server: TestSession.server {
            $0.defaultPermissions = [.read, .add, .control, .player]
        })
        #expect(await noAdmin.send("notcommands") == """
            command: config
            command: delpartition
            command: disableoutput
            command: enableoutput
            command: kill
            command: mount
            command: moveoutput
            command: newpartition
            command: outputset
            command: sticker
            command: stickernames
            command: stickernamestypes
            command: stickertypes
            command: toggleoutput
            command: unmount
            OK

            """)
        #expect(await noAdmin.send("commands x") == "ACK [2@0] {commands} wrong number of arguments for \"commands\"\n")
        #expect(await noAdmin.send("notcommands x") ==
                "ACK [2@0] {notcommands} wrong number of arguments for \"notcommands\"\n")
    }

    /// Only for local (unix socket) clients, since it reveals paths; each directory only when configured.
    @Test func configOnlyForLocalClients() async {
        let server = TestSession.server {
            $0.musicDirectory = "/music"
            $0.playlistDirectory = "/playlists"
        }
        let remote = await TestSession(server: server)
        #expect(await remote.send("config") == "ACK [4@0] {config} Command only permitted to local clients\n")
        #expect(await remote.send("config extra") == "ACK [2@0] {config} wrong number of arguments for \"config\"\n")
        let local = await TestSession(server: server, isLocal: true)
        #expect(await local.send("config") == "music_directory: /music\nplaylist_directory: /playlists\npcre: 1\nOK\n")
        let bare = await TestSession(server: TestSession.server(), isLocal: true)
        #expect(await bare.send("config") == "pcre: 1\nOK\n")
        // Permission comes first: `config` needs `admin`.
        let reader = await TestSession(server: TestSession.server { $0.localPermissions = [.read] }, isLocal: true)
        #expect(await reader.send("config") == "ACK [4@0] {config} you don't have permission for \"config\"\n")
    }

    /// `file://` is offered to local clients only (they may add local files).
    @Test func urlhandlers() async {
        let server = TestSession.server { $0.urlSchemes = ["http://", "https://"] }
        let remote = await TestSession(server: server)
        #expect(await remote.send("urlhandlers") == "handler: http://\nhandler: https://\nOK\n")
        let local = await TestSession(server: server, isLocal: true)
        #expect(await local.send("urlhandlers") == "handler: file://\nhandler: http://\nhandler: https://\nOK\n")
        #expect(await remote.send("urlhandlers extra") ==
                "ACK [2@0] {urlhandlers} wrong number of arguments for \"urlhandlers\"\n")
    }

    @Test func decoders() async {
        let server = TestSession.server {
            $0.decoders = [DecoderPlugin(name: "mad", suffixes: ["mp3", "mp2"], mimeTypes: ["audio/mpeg"]),
                           DecoderPlugin(name: "flac", suffixes: ["flac"], mimeTypes: ["audio/flac", "audio/x-flac"])]
        }
        let c = await TestSession(server: server)
        #expect(await c.send("decoders") == """
            plugin: mad
            suffix: mp3
            suffix: mp2
            mime_type: audio/mpeg
            plugin: flac
            suffix: flac
            mime_type: audio/flac
            mime_type: audio/x-flac
            OK

            """)
        #expect(await c.send("decoders extra") == "ACK [2@0] {decoders} wrong number of arguments for \"decoders\"\n")
        let nobody = await TestSession(server: TestSession.server { $0.defaultPermissions = [] })
        #expect(await nobody.send("decoders") == "ACK [4@0] {decoders} you don't have permission for \"decoders\"\n")
    }
}
