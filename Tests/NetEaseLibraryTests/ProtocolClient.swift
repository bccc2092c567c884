import Library
import Logging
import MPDProtocol
@testable import MPDServer
@testable import NetEaseLibrary
import NoSignalApp
import PlayerCore
import PlayerRuntime


/// The fixture's NetEase in a server wired as the application wires it (combined database, playlists and
/// stickers over the fixture's SQLite file), and one in-memory client that speaks the protocol line by line, so
/// the tests read like `sticker set song netease://song/1 liked 1` → `OK`.
final class ProtocolClient: @unchecked Sendable {
    let fixture: Fixture
    let server: ServerContext
    let session: Session
    let stickers: CombinedStickers
    /// The change sets the store announced (the commands' `sticker` and `stored_playlist`).
    let announced = ChangeLog()
    /// The URIs `onDisliked` was told.
    let disliked = Log<String>()

    init(_ fixture: Fixture) async {
        self.fixture = fixture
        var settings = ServerSettings()
        settings.playlistDirectory = fixture.root + "/playlists"
        let store = PlayerStore(state: PlayerState(volume: 100), logger: Fixture.quiet)
        let disliked = self.disliked
        stickers = CombinedStickers(local: StickerDatabase(fixture.database), catalog: fixture.catalog,
                                    onDisliked: { disliked.append($0) })
        server = ServerContext(settings: settings, store: store, database: fixture.combined,
                               queries: LibraryQueries(fixture.database), stickers: stickers,
                               playlists: fixture.playlists, catalog: fixture.catalog, logger: Fixture.quiet)
        let announced = self.announced
        store.observe { announced.append($0) }
        let id = server.clients.register(partition: PlayerState.defaultPartition) {}!
        session = Session(client: ClientState(id: id, isLocal: true, permission: settings.localPermissions),
                          server: server)
    }

    /// Sends one line and returns the text written back.
    @discardableResult
    func send(_ line: String) async -> String {
        let output = await session.complete(line: Array(line.utf8))
        return String(decoding: output.bytes, as: UTF8.self)
    }

    /// The idle subsystems announced since the last call, by the commands and by the library.
    func takeIdle() -> Set<String> {
        let sets = announced.take() + fixture.announced.take()
        var names = Set<String>()
        for change in sets.joined() {
            for subsystem in change.idleSubsystems.names { names.insert(subsystem) }
        }
        return names
    }
}
