import FFmpegDecoder
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
    /// The registry's broadcast count at the last look, as the connection loop keeps it.
    private var broadcastsSeen = 0

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

    /// Hands the session what other clients' commands broadcast to it so far, as the connection loop does before
    /// each line (through the broadcast count), and returns what was written: a waiting `idle`'s answer, or nothing.
    func deliverBroadcast() -> String {
        deliver(server.clients.takeEvents(id, seen: &broadcastsSeen))
    }
}

/// A server with audio outputs in memory: an `AudioPlayer` whose outputs write nowhere. Tests with it only switch
/// outputs and partitions; nothing is played, so no decoder is ever asked for a song.
final class AudioServer {
    let server: ServerContext
    let audio: AudioPlayer

    /// As the differential scripts' MPD has them: `null` with a software mixer, and an ALSA output (its two
    /// attributes as MPD's ALSA plugin declares them) without a mixer.
    static let outputs = [
        OutputDescription(id: 0, name: "null", plugin: "null", softwareMixer: true),
        OutputDescription(id: 1, name: "second", plugin: "alsa", attributes: [("allowed_formats", ""), ("dop", "0")]),
    ]

    init(_ configure: (inout ServerSettings) -> Void = { _ in }) {
        var settings = ServerSettings()
        configure(&settings)
        let logger = Logger(label: "test")
        let store = PlayerStore(state: PlayerState(volume: 100), logger: logger)
        audio = AudioPlayer(store: store, decoders: FFmpegDecoderFactory(), converters: FFmpegPCMConverterFactory(),
                            locate: { $0.uri }, logger: logger)
        for output in Self.outputs { audio.addOutput(output, enabled: true) { SilentSink() } }
        server = ServerContext(settings: settings, store: store, audio: audio, logger: logger)
    }

    /// The engines' threads end with the test.
    deinit { audio.shutdown() }

    func client(isLocal: Bool = false) async -> TestSession { await TestSession(server: server, isLocal: isLocal) }

    /// Takes whatever it is given at once.
    final class SilentSink: AudioSink {
        func open(_ format: AudioFormat) throws(OutputError) -> AudioFormat { format }
        func write(_ data: UnsafeRawBufferPointer) throws(OutputError) {}
        func drain() {}
        func cancel() {}
        func pause() {}
        func close() {}
        var keepsTime: Bool { false }
    }
}
