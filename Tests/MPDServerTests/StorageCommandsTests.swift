import Library
import Logging
import MPDProtocol
import PlayerCore
import PlayerRuntime
import Testing
@testable import MPDServer

/// "Mounts and neighbors": `listmounts`, `mount`, `unmount`, `listneighbors`, as Debian's MPD answers them with no
/// storage mounted and no neighbor plugin (`src/command/StorageCommands.cxx`, `NeighborCommands.cxx`; the
/// differential script `edge_paths`): the music directory is the only mount and nothing can be mounted.
@Suite struct StorageCommandsTests {
    /// A database with the music directory `/music`.
    static func server(_ s: QueryServer) -> ServerContext {
        var settings = ServerSettings()
        settings.musicDirectory = "/music"
        return ServerContext(settings: settings, store: s.server.store, queries: LibraryQueries(s.database),
                             logger: Logger(label: "test"))
    }

    /// The root mount has an empty path; its storage, a local path, is shown to local clients only.
    @Test func listmounts() async throws {
        let s = try QueryServer()
        let server = Self.server(s)
        let remote = await TestSession(server: server)
        #expect(await remote.send("listmounts") == "mount: \nOK\n")
        let local = await TestSession(server: server, isLocal: true)
        #expect(await local.send("listmounts") == "mount: \nstorage: /music\nOK\n")
        #expect(await remote.send("listmounts 1") ==
                "ACK [2@0] {listmounts} wrong number of arguments for \"listmounts\"\n")
    }

    /// The mount point is checked first; then no URI names a storage NoSignal can mount.
    @Test func mountAndUnmountAsMPDWithoutStoragePlugins() async throws {
        let s = try QueryServer()
        let c = await TestSession(server: Self.server(s))
        #expect(await c.send("mount foo bar") == "ACK [2@0] {mount} Unrecognized storage URI\n")
        #expect(await c.send("mount \"\" bar") == "ACK [2@0] {mount} Bad mount point\n")
        #expect(await c.send("mount a/b bar") == "ACK [2@0] {mount} Bad mount point\n")
        #expect(await c.send("unmount foo") == "ACK [2@0] {unmount} Not a mount point\n")
        #expect(await c.send("unmount \"\"") == "ACK [2@0] {unmount} Bad mount point\n")
        #expect(await c.send("mount a") == "ACK [2@0] {mount} wrong number of arguments for \"mount\"\n")
        #expect(await c.send("unmount") == "ACK [2@0] {unmount} wrong number of arguments for \"unmount\"\n")
        #expect(await c.send("listmounts") == "mount: \nOK\n")
    }

    @Test func withoutADatabase() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("listmounts") == "ACK [50@0] {listmounts} No database\n")
        #expect(await c.send("mount foo bar") == "ACK [50@0] {mount} No database\n")
        #expect(await c.send("unmount foo") == "ACK [50@0] {unmount} No database\n")
    }

    /// Answered, though the server's table (`CommandTable.standard(for:)`) never lists it in `commands`.
    @Test func listneighborsWithoutANeighborPlugin() async {
        let c = await TestSession(server: TestSession.server())
        #expect(await c.send("listneighbors") == "ACK [5@0] {listneighbors} No neighbor plugin configured\n")
        #expect(await c.send("listneighbors x") ==
                "ACK [2@0] {listneighbors} wrong number of arguments for \"listneighbors\"\n")
        let listed = await TestSession(server: ServerContext(
            settings: ServerSettings(), store: c.server.store, table: .standard(for: ServerSettings()),
            logger: Logger(label: "test")))
        #expect(!(await listed.send("commands")).contains("command: listneighbors\n"))
        #expect(await listed.send("listneighbors") == "ACK [5@0] {listneighbors} No neighbor plugin configured\n")
    }

    /// Listing needs `read`; mounting and unmounting `admin`.
    @Test func permissions() async {
        let reader = await TestSession(server: TestSession.server { $0.defaultPermissions = [.read] })
        #expect(await reader.send("listneighbors") == "ACK [5@0] {listneighbors} No neighbor plugin configured\n")
        #expect(await reader.send("mount foo bar") == "ACK [4@0] {mount} you don't have permission for \"mount\"\n")
        #expect(await reader.send("unmount foo") == "ACK [4@0] {unmount} you don't have permission for \"unmount\"\n")
    }
}
