import Foundation
import Library
import Logging
import MPDProtocol
import PlayerCore
import PlayerRuntime
import ServerPorts
import Testing
@testable import MPDServer

/// `sticker`, `stickernames`, `stickertypes`, `stickernamestypes` over a real SQLite file (`QueryServer`). Expected
/// texts are MPD 0.24's (`src/command/StickerCommands.cxx`; the differential scripts `stickers_song` and
/// `stickers_0_24`, the latter recorded against MPD 0.24.9).
@Suite struct StickerCommandsTests {
    /// A store that vouches for `remote://` songs: they take stickers without being in the database.
    struct VouchingStickers: StickerStore {
        let local: StickerDatabase

        func vouchesFor(type: String, uri: String) -> Bool { type == "song" && uri.hasPrefix("remote://") }
        func stickerValue(type: String, uri: String, name: String) async throws -> String? {
            try await local.stickerValue(type: type, uri: uri, name: name)
        }
        func setSticker(type: String, uri: String, name: String, value: String) async throws {
            try await local.setSticker(type: type, uri: uri, name: name, value: value)
        }
        func adjustSticker(type: String, uri: String, name: String, by value: String, subtracting: Bool) async throws {
            try await local.adjustSticker(type: type, uri: uri, name: name, by: value, subtracting: subtracting)
        }
        func deleteSticker(type: String, uri: String, name: String?) async throws -> Bool {
            try await local.deleteSticker(type: type, uri: uri, name: name)
        }
        func stickers(type: String, uri: String) async throws -> [(name: String, value: String)] {
            try await local.stickers(type: type, uri: uri)
        }
        func findStickers(type: String, base: String, name: String, comparison: StickerComparison?,
                          sort: StickerSort?, descending: Bool,
                          window: RangeArgument?) async throws -> [(uri: String, value: String)] {
            try await local.findStickers(type: type, base: base, name: name, comparison: comparison, sort: sort,
                                         descending: descending, window: window)
        }
        func stickerNames() async throws -> [String] { try await local.stickerNames() }
        func stickerNamesTypes(type: String?) async throws -> [(name: String, type: String)] {
            try await local.stickerNamesTypes(type: type)
        }
    }

    @Test func songsTheStoreVouchesForNeedNoDatabaseEntry() async throws {
        let s = try QueryServer.standard()
        let server = ServerContext(settings: ServerSettings(), store: s.server.store, queries: LibraryQueries(s.database),
                                   stickers: VouchingStickers(local: StickerDatabase(s.database)),
                                   logger: Logger(label: "test"))
        let c = await TestSession(server: server, isLocal: true)
        #expect(await c.send("sticker set song remote://1 rating 3") == "OK\n")
        #expect(await c.send("sticker get song remote://1 rating") == "sticker: rating=3\nOK\n")
        #expect(await c.send("sticker set song A/1.flac rating 5") == "OK\n")
        #expect(await c.send("sticker find song \"\" rating") ==
            "file: A/1.flac\nsticker: rating=5\nfile: remote://1\nsticker: rating=3\nOK\n")
        #expect(await c.send("sticker set song other://1 rating 3") == "ACK [50@0] {sticker} No such song\n")
    }

    /// MPD 0.24's other sticker domains: tag values (checked against the songs) and filters (kept under their
    /// normalised expression).
    @Test func tagAndFilterStickers() async throws {
        let s = try QueryServer.standard()
        defer { withExtendedLifetime(s) {} }
        let c = await s.client()
        #expect(await c.send("sticker set Album One rating 5") == "OK\n")
        #expect(await c.send("sticker get album One rating") == "sticker: rating=5\nOK\n")
        #expect(await c.send("sticker set Album Nope rating 5") == "ACK [2@0] {sticker} no such Album: \"Nope\"\n")
        #expect(await c.send("sticker set Track 1 rating 5") == "ACK [2@0] {sticker} unsupported tag: \"Track\"\n")
        #expect(await c.send("sticker find Album o rating") == "Album: One\nsticker: rating=5\nOK\n")
        #expect(await c.send("sticker set filter \"(!(album != 'One'))\" rating 3") == "OK\n")
        #expect(await c.send("sticker get filter \"(Album == \\\"One\\\")\" rating") == "sticker: rating=3\nOK\n")
        #expect(await c.send("sticker find filter \"\" rating") == "filter: (Album == \"One\")\nsticker: rating=3\nOK\n")
        #expect(await c.send("sticker set filter \"(album == 'Nope')\" rating 3")
                == "ACK [2@0] {sticker} no matches found: \"(Album == \\\"Nope\\\")\"\n")
        #expect(await c.send("sticker set filter \"(album ==\" rating 3") == "ACK [5@0] {sticker} Quoted string expected\n")
        #expect(await c.send("sticker set filter \"(album == 'One')\" \"\" 3") == "ACK [2@0] {sticker} empty sticker name\n")
        let types = await c.send("stickertypes")
        #expect(types.hasPrefix("stickertype: filter\nstickertype: playlist\nstickertype: song\nstickertype: Artist\n"))
        #expect(!types.contains("stickertype: Track"))
        #expect(await c.send("stickernamestypes Album") == "name: rating\ntype: Album\nOK\n")
        #expect(await c.send("stickernamestypes album") == "ACK [2@0] {stickernamestypes} no such tag \"album\"\n")
        #expect(await c.send("stickernamestypes Track") == "ACK [2@0] {stickernamestypes} unsupported tag \"Track\"\n")
    }

    @Test func setGetListFindDelete() async throws {
        let s = try QueryServer.standard()
        let c = await s.client()
        #expect(await c.send("sticker get song A/1.flac rating") == "ACK [50@0] {sticker} no such sticker: \"rating\"\n")
        #expect(await c.send("sticker set song A/1.flac rating 5") == "OK\n")
        #expect(await c.send("sticker set song A/2.flac rating 10") == "OK\n")
        #expect(await c.send("sticker set song A/1.flac mood calm") == "OK\n")
        #expect(await c.send("sticker get song A/1.flac rating") == "sticker: rating=5\nOK\n")
        #expect(await c.send("sticker list song A/1.flac") == "sticker: mood=calm\nsticker: rating=5\nOK\n")
        #expect(await c.send("sticker find song A rating") ==
            "file: A/1.flac\nsticker: rating=5\nfile: A/2.flac\nsticker: rating=10\nOK\n")
        // `<` compares strings (as in MPD 0.23 and 0.24), `lt` integers (0.24).
        #expect(await c.send("sticker find song \"\" rating lt 6") == "file: A/1.flac\nsticker: rating=5\nOK\n")
        #expect(await c.send("sticker find song \"\" rating < 4") == "file: A/2.flac\nsticker: rating=10\nOK\n")
        #expect(await c.send("sticker find song \"\" rating sort -value_int") ==
            "file: A/2.flac\nsticker: rating=10\nfile: A/1.flac\nsticker: rating=5\nOK\n")
        #expect(await c.send("sticker inc song A/1.flac rating 2") == "OK\n")
        #expect(await c.send("sticker get song A/1.flac rating") == "sticker: rating=7\nOK\n")
        #expect(await c.send("stickernames") == "name: mood\nname: rating\nOK\n")
        #expect(await c.send("sticker delete song A/1.flac rating") == "OK\n")
        #expect(await c.send("sticker delete song A/1.flac rating") == "ACK [50@0] {sticker} no such sticker: \"rating\"\n")
        #expect(await c.send("sticker delete song A/1.flac") == "OK\n")
        #expect(await c.send("sticker list song A/1.flac") == "OK\n")
        // Every sticker of a song that has none: MPD 0.23's answer (MPD 0.24 crashes here).
        #expect(await c.send("sticker delete song A/1.flac") == "ACK [50@0] {sticker} no such sticker\n")
    }

    @Test func errorsAsMPD() async throws {
        let s = try QueryServer.standard()
        defer { withExtendedLifetime(s) {} }
        let c = await s.client()
        #expect(await c.send("sticker get song nope.flac rating") == "ACK [50@0] {sticker} No such song\n")
        #expect(await c.send("sticker get foo A/1.flac rating") == "ACK [2@0] {sticker} unknown sticker domain \"foo\"\n")
        #expect(await c.send("sticker foo song A/1.flac") == "ACK [2@0] {sticker} bad request\n")
        #expect(await c.send("sticker find song \"\" rating ~ 3") == "ACK [2@0] {sticker} bad operator \"~\"\n")
        let noStickers = await TestSession(server: TestSession.server(), isLocal: true)
        let disabled = await noStickers.send("sticker get song x y")
        #expect(disabled == "ACK [5@0] {sticker} sticker database is disabled\n")
    }

    @Test func changesAnnounceTheStickerEvent() async throws {
        let s = try QueryServer.standard()
        let c = await s.client()
        let events = s.server.store.changes()
        #expect(await c.send("sticker set song A/1.flac rating 5") == "OK\n")
        var iterator = events.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.contains(Change(.stickers)) == true)
    }

    /// Stickers on stored playlists (0.24): only on a playlist that exists.
    @Test func playlistStickers() async throws {
        let s = try QueryServer.standard()
        var settings = ServerSettings()
        settings.playlistDirectory = "/playlists"
        let server = ServerContext(settings: settings, store: s.server.store, queries: LibraryQueries(s.database),
                                   stickers: StickerDatabase(s.database), playlists: MemoryPlaylists(),
                                   logger: Logger(label: "test"))
        let c = await TestSession(server: server, isLocal: true)
        #expect(await c.send("save mix") == "OK\n")
        #expect(await c.send("sticker set playlist mix rating 5") == "OK\n")
        #expect(await c.send("sticker get playlist mix rating") == "sticker: rating=5\nOK\n")
        #expect(await c.send("sticker inc playlist mix rating 2") == "OK\n")
        #expect(await c.send("sticker dec playlist mix counter 3") == "OK\n")
        #expect(await c.send("sticker list playlist mix") == "sticker: counter=3\nsticker: rating=7\nOK\n")
        #expect(await c.send("sticker find playlist \"\" rating") == "playlist: mix\nsticker: rating=7\nOK\n")
        #expect(await c.send("sticker set playlist nomix rating 1") ==
                "ACK [2@0] {sticker} no such playlist: \"nomix\"\n")
        #expect(await c.send("stickernamestypes playlist") ==
                "name: counter\ntype: playlist\nname: rating\ntype: playlist\nOK\n")
    }

    /// The object types, then the tags that take stickers as far as the client's `tagtypes` shows them.
    @Test func stickertypes() async throws {
        let s = try QueryServer.standard()
        defer { withExtendedLifetime(s) {} }
        let c = await s.client()
        #expect(await c.send("stickertypes") == Self.stickerTypes)
        #expect(await c.send("tagtypes disable Artist Genre") == "OK\n")
        let narrowed = Self.stickerTypes.replacingOccurrences(of: "stickertype: Artist\n", with: "")
            .replacingOccurrences(of: "stickertype: Genre\n", with: "")
        #expect(await c.send("stickertypes") == narrowed)
        #expect(await c.send("stickertypes x") ==
                "ACK [2@0] {stickertypes} wrong number of arguments for \"stickertypes\"\n")
    }

    /// `stickernamestypes` lists every name with its type, sorted by name then type.
    @Test func stickernamestypes() async throws {
        let s = try QueryServer.standard()
        defer { withExtendedLifetime(s) {} }
        let c = await s.client()
        #expect(await c.send("stickernamestypes") == "OK\n")
        #expect(await c.send("sticker set song A/1.flac rating 5") == "OK\n")
        #expect(await c.send("sticker set Artist Alpha mood calm") == "OK\n")
        #expect(await c.send("sticker set Artist Alpha rating 4") == "OK\n")
        #expect(await c.send("stickernamestypes") ==
                "name: mood\ntype: Artist\nname: rating\ntype: Artist\nname: rating\ntype: song\nOK\n")
        #expect(await c.send("stickernamestypes song") == "name: rating\ntype: song\nOK\n")
        #expect(await c.send("stickernamestypes nosuch") == "ACK [2@0] {stickernamestypes} no such tag \"nosuch\"\n")
        #expect(await c.send("stickernamestypes a b") ==
                "ACK [2@0] {stickernamestypes} too many arguments for \"stickernamestypes\"\n")
    }

    /// `inc` and `dec` add to an integer value (a missing one counts as 0); `get` answers an empty value as missing.
    @Test func incDecAndEmptyValues() async throws {
        let s = try QueryServer.standard()
        defer { withExtendedLifetime(s) {} }
        let c = await s.client()
        #expect(await c.send("sticker inc song A/1.flac plays 2") == "OK\n")
        #expect(await c.send("sticker inc song A/1.flac plays 1") == "OK\n")
        #expect(await c.send("sticker get song A/1.flac plays") == "sticker: plays=3\nOK\n")
        #expect(await c.send("sticker dec song A/1.flac plays 5") == "OK\n")
        #expect(await c.send("sticker get song A/1.flac plays") == "sticker: plays=-2\nOK\n")
        #expect(await c.send("sticker set song A/1.flac empty \"\"") == "OK\n")
        #expect(await c.send("sticker get song A/1.flac empty") == "ACK [50@0] {sticker} no such sticker: \"empty\"\n")
        #expect(await c.send("sticker list song A/1.flac") == "sticker: empty=\nsticker: plays=-2\nOK\n")
        #expect(await c.send("sticker inc song A/1.flac \"\" 1") == "ACK [2@0] {sticker} empty sticker name\n")
    }

    /// The table checks `sticker`'s three arguments at least; the handler the forms of each sub-command.
    @Test func argumentsAndPermissions() async throws {
        let s = try QueryServer.standard()
        defer { withExtendedLifetime(s) {} }
        let c = await s.client()
        #expect(await c.send("sticker get song") == "ACK [2@0] {sticker} too few arguments for \"sticker\"\n")
        #expect(await c.send("sticker get song A/1.flac") == "ACK [2@0] {sticker} bad request\n")
        #expect(await c.send("sticker set song A/1.flac rating") == "ACK [2@0] {sticker} bad request\n")
        #expect(await c.send("sticker list song A/1.flac x") == "ACK [2@0] {sticker} bad request\n")
        #expect(await c.send("sticker find song \"\" rating sort bogus") ==
                "ACK [2@0] {sticker} Unknown sort tag \"bogus\"\n")
        #expect(await c.send("stickernames x") ==
                "ACK [2@0] {stickernames} wrong number of arguments for \"stickernames\"\n")
        // Every sticker command needs `admin`; the permission is checked before the database.
        let reader = await TestSession(server: TestSession.server { $0.defaultPermissions = [.read] })
        for line in ["sticker get song A/1.flac rating", "stickernames", "stickertypes", "stickernamestypes"] {
            let name = line.prefix { $0 != " " }
            #expect(await reader.send(line) == "ACK [4@0] {\(name)} you don't have permission for \"\(name)\"\n")
        }
    }

    /// Without a sticker database each command says so, and `commands` leaves them out (MPD's
    /// `command_available`); `notcommands` does not list them either, as the client may run them.
    @Test func withoutADatabase() async {
        let settings = ServerSettings()
        let server = ServerContext(settings: settings, store: PlayerStore(state: PlayerState(volume: 100),
                                                                          logger: Logger(label: "test")),
                                   table: .standard(for: settings, hasStickers: false), logger: Logger(label: "test"))
        let c = await TestSession(server: server)
        for line in ["sticker list song x", "stickernames", "stickertypes", "stickernamestypes"] {
            let name = line.prefix { $0 != " " }
            #expect(await c.send(line) == "ACK [5@0] {\(name)} sticker database is disabled\n")
        }
        let listed = await c.send("commands")
        #expect(!listed.contains("sticker"))
        #expect(listed.contains("command: status\n"))
        #expect(await c.send("notcommands") == "OK\n")
    }

    /// MPD 0.24's tags that take stickers (`src/sticker/AllowedTags.cxx`), after the object types.
    static let stickerTypes = """
        stickertype: filter
        stickertype: playlist
        stickertype: song
        stickertype: Artist
        stickertype: Album
        stickertype: AlbumArtist
        stickertype: Title
        stickertype: Genre
        stickertype: Composer
        stickertype: Performer
        stickertype: Conductor
        stickertype: Work
        stickertype: Ensemble
        stickertype: Location
        stickertype: Label
        stickertype: MUSICBRAINZ_ARTISTID
        stickertype: MUSICBRAINZ_ALBUMID
        stickertype: MUSICBRAINZ_ALBUMARTISTID
        stickertype: MUSICBRAINZ_RELEASETRACKID
        stickertype: MUSICBRAINZ_WORKID
        OK

        """
}
