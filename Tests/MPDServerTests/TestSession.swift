import Logging
import MPDProtocol
import PlayerCore
import PlayerRuntime
@testable import MPDServer

/// An in-memory client: a `Session` driven line by line, with no sockets. Tests read like the protocol.
final class TestSession {
    let session: Session
    let server: ServerContext
    let id: Int

    init(server: ServerContext, isLocal: Bool = false) async {
        self.server = server
        id = server.clients.register(partition: PlayerState.defaultPartition) {}!
        let settings = server.settings
        session = Session(client: ClientState(id: id, isLocal: isLocal,
                                              permission: isLocal ? settings.localPermissions : settings.defaultPermissions),
                          server: server)
    }

    static func server(_ configure: (inout ServerSettings) -> Void = { _ in }, volume: Int? = 100) -> ServerContext {
        var settings = ServerSettings()
        configure(&settings)
        let store = PlayerStore(state: PlayerState(volume: volume), logger: Logger(label: "test"))
        return ServerContext(settings: settings, store: store, logger: Logger(label: "test"))
    }

    /// Sends one line and returns the text written back.
    @discardableResult
    func send(_ line: String) async -> String {
        await sendRaw(Array(line.utf8)).text
    }

    func sendRaw(_ bytes: [UInt8]) async -> (text: String, disposition: Session.Disposition) {
        let output = await session.complete(line: bytes)
        return (String(decoding: output.bytes, as: UTF8.self), output.disposition)
    }

    /// Delivers pending idle events from the registry (as the connection loop does) and returns what was written.
    func deliver(_ flags: IdleSubsystems) -> String {
        String(decoding: session.receive(flags).bytes, as: UTF8.self)
    }
}
