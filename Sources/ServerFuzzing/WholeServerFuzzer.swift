import Foundation
import Logging
import MPDServer
import MPDTesting
import NIOCore
import NIOEmbedded
import NoSignalApp
import NoSignalConfig
import ServerPorts
import Synchronization

/// The whole NoSignal server under a protocol fuzzer: the real wiring (`Application`: store, SQLite library and
/// stickers, stored playlists, the player with FFmpeg and null outputs, the state file), with the generated test
/// library as its music, and each input sent by one client over an in-memory channel through the same pipeline as
/// a socket's (line framing, `connection_timeout`, the session).
///
/// An input is run until the connection has no work in flight (deferred commands and command lists run in parts
/// finish), then the connection is closed. The server lives on across inputs, as a real one lives on across
/// clients: the queue, playlists and stickers that earlier inputs made are there for the next.
public final class WholeServerFuzzer: @unchecked Sendable {
    /// How long one input may take before it counts as a hang.
    public static let inputDeadline: Duration = .seconds(10)

    public struct Hang: Error, CustomStringConvertible {
        public let description: String
    }

    private let application: Application
    private let services: Application.Services
    private let loop = NIOAsyncTestingEventLoop()
    private let workDone = Signal()
    public let directory: String
    private var inputs = 0

    /// Builds the server in a fresh temporary directory and waits for the first scan of the test library.
    public static func make() async throws -> WholeServerFuzzer {
        let music = try TestLibrary.musicDirectory()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("nosignal-fuzz-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory + "/playlists", withIntermediateDirectories: true)
        let configText = """
            music_directory "\(music)"
            playlist_directory "\(directory)/playlists"
            db_file "\(directory)/db"
            sticker_file "\(directory)/sticker.sql"
            state_file "\(directory)/state"
            data_directory "\(directory)/data"
            cache_directory "\(directory)/cache"
            bind_to_address "127.0.0.1"
            port "6600"
            max_playlist_length "400"
            max_command_list_size "256"
            max_output_buffer_size "1024"
            audio_output {
                type "null"
                name "first"
            }
            audio_output {
                type "null"
                name "second"
                mixer_type "none"
            }
            netease {
                enabled "no"
            }

            """
        let configPath = directory + "/nosignal.conf"
        try configText.write(toFile: configPath, atomically: true, encoding: .utf8)
        let config = try Configuration.load(path: configPath, environment: ["HOME": directory])
        var logger = Logger(label: "fuzz")
        logger.logLevel = ProcessInfo.processInfo.environment["NOSIGNAL_FUZZ_LOG"] == nil ? .critical : .debug
        let application = try Application(config: config, logger: logger)
        let services = await application.start()
        let fuzzer = WholeServerFuzzer(application: application, services: services, directory: directory)
        try await fuzzer.waitForUpdate()
        return fuzzer
    }

    private init(application: Application, services: Application.Services, directory: String) {
        self.application = application
        self.services = services
        self.directory = directory
    }

    /// Sends `input` as one client's bytes, waits until the server has answered all it will and returns the
    /// answer (greeting included). Throws `Hang` when the connection still has work after `deadline` (the fuzzer's
    /// `inputDeadline` unless told otherwise).
    ///
    /// The connection is set up, fed and closed inside the loop in as few hops as possible: the fuzzer's speed is
    /// what decides how many inputs it tries.
    @discardableResult
    public func run(_ input: [UInt8], isLocal: Bool = false,
                    deadline allowed: Duration = inputDeadline) async throws -> [UInt8] {
        inputs += 1
        let channel = NIOAsyncTestingChannel(loop: loop)
        let service = application.service
        let signal = workDone
        let answer = AnswerCollector()
        try await loop.executeInContext {
            try channel.pipeline.syncOperations.addHandler(answer)
            try service.configureConnection(channel, isLocal: isLocal, deferredWorkDone: { signal.post() })
            channel.connect(to: Self.clientAddress, promise: nil)
            channel.pipeline.fireChannelRead(ByteBuffer(bytes: input))
            channel.pipeline.fireChannelReadComplete()
        }
        let deadline = ContinuousClock.now + allowed
        var watchdog: Task<Void, any Error>?
        defer { watchdog?.cancel() }
        while true {
            await loop.run()
            let pending = try await loop.executeInContext { MPDService.pendingWork(channel) }
            if case .none = pending { break }
            guard ContinuousClock.now < deadline else {
                throw Hang(description: "the connection still had work after \(allowed)")
            }
            // Input or a command list in parts goes on in the loop's next turn, scheduled a moment ahead (the testing
            // loop's clock moves only when told).
            if case .onLoop = pending {
                await loop.advanceTime(by: .milliseconds(1))
                continue
            }
            // A deferred command's work runs on other threads: wait until it says it is done (its result is then
            // queued on the loop) or the watchdog posts at the deadline. Spinning here instead (yielding and looking
            // again) took the CPU from that very work on a machine whose cores all fuzz.
            if watchdog == nil {
                watchdog = Task { [signal] in
                    try await Task.sleep(until: deadline)
                    signal.post()
                }
            }
            await signal.wait()
        }
        try await loop.executeInContext { channel.close(promise: nil) }
        await loop.run()
        return answer.bytes
    }

    private static let clientAddress = try! SocketAddress(ipAddress: "127.0.0.1", port: 49152)

    /// Waits until no database update runs (the first scan of the library, or one an input started).
    public func waitForUpdate() async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while application.service.context.database?.updatingJobID != nil {
            guard ContinuousClock.now < deadline else { throw Hang(description: "the database update did not end") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stops the server's background work (effects, player, updates).
    public func stop() async {
        await services.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Counts posts; `wait` takes one, suspending until there is one. The fuzzer waits here while a deferred command's
/// work runs on other threads; a watchdog posts at the deadline so that a hang is noticed.
final class Signal: Sendable {
    private let state = Mutex<(posts: Int, waiter: CheckedContinuation<Void, Never>?)>((0, nil))

    func post() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.posts += 1
            return nil
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.posts > 0 {
                    state.posts -= 1
                    return true
                }
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

/// The client's side of the in-memory connection: keeps what the server writes (the channel itself would hold it
/// until someone read it). Only touched on the channel's loop; read after the connection is closed.
final class AnswerCollector: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = ByteBuffer

    private(set) var bytes: [UInt8] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        bytes += unwrapOutboundIn(data).readableBytesView
        promise?.succeed(())
    }
}
