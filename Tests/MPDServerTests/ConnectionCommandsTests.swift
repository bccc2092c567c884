import MPDProtocol
import Testing
@testable import MPDServer

/// "Connection settings": `close`, `kill`, `password`, `ping`, `binarylimit`, `tagtypes`, `protocol`, in memory.
/// Expected texts are MPD 0.24's (`src/command/ClientCommands.cxx`; the differential scripts `connection` and
/// `protocol_0_24`, the latter recorded against MPD 0.24.9).
@Suite struct ConnectionCommandsTests {
    @Test func pingTakesNoArguments() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("ping") == "OK\n")
        #expect(await c.send("ping extra") == "ACK [2@0] {ping} wrong number of arguments for \"ping\"\n")
    }

    /// `close` answers nothing, whatever its arguments (MPD's −1/−1: they are not checked).
    @Test func closeAnswersNothingAndCloses() async {
        for line in ["close", "close now please"] {
            let c = await TestSession(server: TestSession.server())
            let result = await c.sendRaw(Array(line.utf8))
            #expect(result.text == "")
            #expect(result.disposition == .close)
        }
    }

    @Test func killNeedsAdminAndStopsTheServer() async {
        let server = TestSession.server { settings in
            settings.passwords = ["secret": .all]
            settings.defaultPermissions = [.read, .add, .control, .player]
        }
        let c = await TestSession(server: server)
        #expect(await c.send("kill") == "ACK [4@0] {kill} you don't have permission for \"kill\"\n")
        #expect(await c.send("password secret") == "OK\n")
        let result = await c.sendRaw(Array("kill now".utf8))
        #expect(result.text == "")
        #expect(result.disposition == .shutdown)
    }

    @Test func permissionsWithPassword() async {
        let server = TestSession.server { settings in
            settings.passwords = ["pw": [.read]]
            settings.defaultPermissions = []
        }
        let c = await TestSession(server: server)
        #expect(await c.send("status") == "ACK [4@0] {status} you don't have permission for \"status\"\n")
        #expect(await c.send("password nope") == "ACK [3@0] {password} incorrect password\n")
        #expect(await c.send("password") == "ACK [2@0] {password} wrong number of arguments for \"password\"\n")
        #expect(await c.send("password pw") == "OK\n")
        #expect(await c.send("status").hasSuffix("OK\n"))
        #expect(await c.send("repeat 1") == "ACK [4@0] {repeat} you don't have permission for \"repeat\"\n")
        let commands = await c.send("commands")
        #expect(commands.contains("command: status\n") && !commands.contains("command: repeat\n"))
        #expect(await c.send("notcommands").contains("command: repeat\n"))
    }

    /// At least 64; at most `max_output_buffer_size` less 4 KiB (8 MiB by default).
    @Test func binarylimitBounds() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("binarylimit 63") == "ACK [2@0] {binarylimit} Value too small\n")
        #expect(await c.send("binarylimit 64") == "OK\n")
        #expect(await c.send("binarylimit 8192") == "OK\n")
        #expect(await c.send("binarylimit 9000000") == "ACK [2@0] {binarylimit} Number too large: 9000000\n")
        #expect(await c.send("binarylimit -1") == "ACK [2@0] {binarylimit} Number too large: -1\n")
        #expect(await c.send("binarylimit x") == "ACK [2@0] {binarylimit} Integer expected: x\n")
        #expect(await c.send("binarylimit") ==
                "ACK [2@0] {binarylimit} wrong number of arguments for \"binarylimit\"\n")
    }

    @Test func tagtypesPerClient() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("tagtypes clear") == "OK\n")
        #expect(await c.send("tagtypes") == "OK\n")
        #expect(await c.send("tagtypes enable artist ALBUM") == "OK\n")
        #expect(await c.send("tagtypes") == "tagtype: Artist\ntagtype: Album\nOK\n")
        #expect(await c.send("tagtypes disable Album") == "OK\n")
        #expect(await c.send("tagtypes") == "tagtype: Artist\nOK\n")
        #expect(await c.send("tagtypes enable bogus") == "ACK [2@0] {tagtypes} Unknown tag type\n")
        #expect(await c.send("tagtypes enable") == "ACK [2@0] {tagtypes} Not enough arguments\n")
        #expect(await c.send("tagtypes frob") == "ACK [2@0] {tagtypes} Unknown sub command\n")
        #expect(await c.send("tagtypes clear x") == "ACK [2@0] {tagtypes} Too many arguments\n")
        #expect(await c.send("tagtypes all") == "OK\n")
        #expect(!(await c.send("tagtypes")).contains("tagtype: Comment"))
    }

    /// 0.24: `available` lists the server's tags whatever the client's mask; `reset` replaces the mask.
    @Test func tagtypesAvailableAndReset() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("tagtypes reset Artist Title") == "OK\n")
        #expect(await c.send("tagtypes") == "tagtype: Artist\ntagtype: Title\nOK\n")
        #expect(await c.send("tagtypes reset") == "ACK [2@0] {tagtypes} Not enough arguments\n")
        // MPD empties the mask before it reads the names: a failed reset leaves no tag enabled.
        #expect(await c.send("tagtypes") == "OK\n")
        #expect(await c.send("tagtypes reset Artist Nope") == "ACK [2@0] {tagtypes} Unknown tag type\n")
        #expect(await c.send("tagtypes") == "OK\n")
        #expect(await c.send("tagtypes available") == Self.allTagTypes)
        #expect(await c.send("tagtypes all") == "OK\n")
        #expect(await c.send("tagtypes") == Self.allTagTypes)
    }

    /// 0.24's feature negotiation: nothing is enabled until the client asks.
    @Test func protocolFeatures() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("protocol") == "OK\n")
        #expect(await c.send("protocol available") == "feature: hide_playlists_in_root\nOK\n")
        #expect(await c.send("protocol enable hide_playlists_in_root") == "OK\n")
        #expect(await c.send("protocol") == "feature: hide_playlists_in_root\nOK\n")
        #expect(await c.send("protocol disable hide_playlists_in_root") == "OK\n")
        #expect(await c.send("protocol") == "OK\n")
        #expect(await c.send("protocol all") == "OK\n")
        #expect(await c.send("protocol") == "feature: hide_playlists_in_root\nOK\n")
        #expect(await c.send("protocol clear") == "OK\n")
        #expect(await c.send("protocol") == "OK\n")
        #expect(await c.send("protocol enable") == "ACK [2@0] {protocol} Not enough arguments\n")
        // MPD 0.24.0 to 0.24.4's text, typo included (0.24.5 spells it "protocol").
        #expect(await c.send("protocol enable nope") == "ACK [2@0] {protocol} Unknown protcol feature\n")
        #expect(await c.send("protocol all x") == "ACK [2@0] {protocol} Too many arguments\n")
        #expect(await c.send("protocol available x") == "ACK [2@0] {protocol} Too many arguments\n")
        #expect(await c.send("protocol frob") == "ACK [2@0] {protocol} Unknown sub command\n")
    }

    /// MPD 0.24's tags less `Comment`, which `metadata_to_use` leaves out by default (recorded in
    /// `protocol_0_24.mpd-0.24.txt`).
    static let allTagTypes = """
        tagtype: Artist
        tagtype: ArtistSort
        tagtype: Album
        tagtype: AlbumSort
        tagtype: AlbumArtist
        tagtype: AlbumArtistSort
        tagtype: Title
        tagtype: TitleSort
        tagtype: Track
        tagtype: Name
        tagtype: Genre
        tagtype: Mood
        tagtype: Date
        tagtype: OriginalDate
        tagtype: Composer
        tagtype: ComposerSort
        tagtype: Performer
        tagtype: Conductor
        tagtype: Work
        tagtype: Movement
        tagtype: MovementNumber
        tagtype: ShowMovement
        tagtype: Ensemble
        tagtype: Location
        tagtype: Grouping
        tagtype: Disc
        tagtype: Label
        tagtype: MUSICBRAINZ_ARTISTID
        tagtype: MUSICBRAINZ_ALBUMID
        tagtype: MUSICBRAINZ_ALBUMARTISTID
        tagtype: MUSICBRAINZ_TRACKID
        tagtype: MUSICBRAINZ_RELEASETRACKID
        tagtype: MUSICBRAINZ_WORKID
        tagtype: MUSICBRAINZ_RELEASEGROUPID
        OK

        """
}
