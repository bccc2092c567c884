import Logging
import MPDProtocol
import NIOCore
import NIOPosix
import PlayerCore

/// The MPD protocol server: listens on TCP and unix sockets and runs one `Session` per connection, on the
/// connection's event loop.
public final class MPDService: Sendable {
    public enum Endpoint: Sendable, Equatable, CustomStringConvertible {
        case tcp(host: String, port: Int)
        /// `bind_to_address "any"`: every IPv6 and IPv4 address (dual-stack), or IPv4 only where IPv6 is off.
        case any(port: Int)
        case unix(path: String)
        /// A listening socket made by someone else (systemd's socket activation): served as it is; `isLocal` for a
        /// unix-domain one.
        case inherited(fd: CInt, isLocal: Bool)

        public var description: String {
            switch self {
            case .any(let port): "*:\(port)"
            case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            case .unix(let path): path
            case .inherited(let fd, _): "the socket systemd passed as descriptor \(fd)"
            }
        }
    }

    public let context: ServerContext
    private let endpoints: [Endpoint]
    private let group: any EventLoopGroup

    public init(context: ServerContext, endpoints: [Endpoint],
                group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.context = context
        self.endpoints = endpoints
        self.group = group
    }

    /// Binds every endpoint (failing if one cannot be bound), then serves until the task is cancelled.
    public func run(onBound: @Sendable ([SocketAddress]) -> Void = { _ in }) async throws {
        var acceptors: [Acceptor] = []
        do {
            for endpoint in endpoints {
                acceptors.append(try bind(endpoint))
                context.logger.notice("listening on \(endpoint)")
            }
        } catch {
            for acceptor in acceptors { acceptor.stop() }
            for acceptor in acceptors { try? await acceptor.done.get() }
            throw error
        }
        let bound = acceptors
        onBound(bound.compactMap(\.address))
        await withTaskCancellationHandler {
            for acceptor in bound { try? await acceptor.done.get() }
        } onCancel: {
            for acceptor in bound { acceptor.stop() }
        }
    }

    /// Makes a channel an MPD connection (`connection_timeout` and the protocol session), for connections that do
    /// not come from a listening socket: the protocol fuzzer drives the whole server over an in-memory channel and
    /// passes `deferredWorkDone`, called off the loop whenever a deferred command's work has finished and its result
    /// waits for the loop. Called on the channel's event loop.
    public func configureConnection(_ channel: any Channel, isLocal: Bool,
                                    deferredWorkDone: (@Sendable () -> Void)? = nil) throws {
        let server = context
        try channel.pipeline.syncOperations.addHandler(ChannelConnection { io in
            Connection(server: server, isLocal: isLocal, io: io, deferredWorkDone: deferredWorkDone)
        })
    }

    /// What a connection still has to do before it has answered all its input.
    public enum PendingWork: Sendable {
        case none
        /// A command list running in parts: the event loop goes on with it by itself.
        case onLoop
        /// A deferred command's work runs elsewhere; its result will be handed to the loop.
        case offLoop
    }

    /// What a connection still has to do: a deferred command, a command list running in parts, or input waiting for
    /// them. Called on the channel's event loop.
    public static func pendingWork(_ channel: any Channel) -> PendingWork {
        guard let handler = try? channel.pipeline.syncOperations.handler(type: ChannelConnection.self) else {
            return .none
        }
        return handler.connection?.pendingWork ?? .none
    }

    /// The most a connection reads at once (MPD reads 8 KiB): a client that pipelines megabytes is decoded a bounded
    /// number of lines at a time, so the other connections of the loop wait no longer.
    static let readSize = 16 * 1024

    /// Listens on `endpoint` with a socket of our own (`ListeningSocket`: closed on exec), accepting on a thread of
    /// its own (`Acceptor`).
    private func bind(_ endpoint: Endpoint) throws -> Acceptor {
        let isLocal: Bool
        let socket: CInt
        switch endpoint {
        case .tcp(let host, let port):
            isLocal = false
            socket = try ListeningSocket.make(try SocketAddress.makeAddressResolvingHost(host, port: port))
        case .any(let port):
            isLocal = false
            do {
                socket = try ListeningSocket.make(try SocketAddress(ipAddress: "::", port: port), dualStack: true)
            } catch {
                socket = try ListeningSocket.make(try SocketAddress(ipAddress: "0.0.0.0", port: port))
            }
        case .unix(let path):
            isLocal = true
            socket = try ListeningSocket.makeUnix(path: path)
        case .inherited(let fd, let local):
            isLocal = local
            socket = fd
        }
        do {
            let server = context
            return try Acceptor(socket: socket, group: group, logger: context.logger) { descriptor in
                SocketLoop.next().serve(descriptor) { io in Connection(server: server, isLocal: isLocal, io: io) }
            }
        } catch {
            close(socket)
            throw error
        }
    }
}

/// An MPD connection on a SwiftNIO channel: the fuzzer drives the whole server over an in-memory one. The sockets of
/// the listening endpoints are served on the server's own loops instead (`SocketConnection`).
final class ChannelConnection: ChannelDuplexHandler, ConnectionIO {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let make: (ChannelConnection) -> Connection<ChannelConnection>
    private(set) var connection: Connection<ChannelConnection>?
    /// Set while the channel is active.
    private var context: ChannelHandlerContext?
    /// A `read` the pipeline asked for while the connection took no input; passed on when it does.
    private var heldRead = false
    /// The last write, which a close after sending waits for.
    private var lastWrite: EventLoopFuture<Void>?
    private var timers: [Int: Scheduled<Void>] = [:]
    private var lastTimer = 0

    init(_ make: @escaping (ChannelConnection) -> Connection<ChannelConnection>) {
        self.make = make
    }

    func channelActive(context: ChannelHandlerContext) {
        self.context = context
        let connection = make(self)
        self.connection = connection
        if !connection.start() { context.close(promise: nil) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        for timer in timers.values { timer.cancel() }
        timers = [:]
        connection?.closed()
        connection = nil
        self.context = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let connection else { return }
        var bytes = unwrapInboundIn(data)
        connection.input.append(&bytes)
        connection.received()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        connection?.readComplete()
        context.fireChannelReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        if let connection, !connection.takesInput {
            heldRead = true
            return
        }
        context.read()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        connection?.close()
    }

    // ConnectionIO

    /// The channel's event loop.
    struct Executor: LoopExecutor {
        let loop: any EventLoop

        func execute(_ body: @escaping @Sendable () -> Void) {
            loop.execute(body)
        }
    }

    var executor: Executor { Executor(loop: context!.eventLoop) }

    /// SwiftNIO runs every task that is due before it looks at its channels again, so only a task due in the future
    /// lets the others be served first.
    func afterOthers(_ body: @escaping @Sendable () -> Void) {
        context?.eventLoop.scheduleTask(in: .microseconds(20), body)
    }

    func schedule(at deadline: NIODeadline, _ body: @escaping @Sendable () -> Void) -> Int {
        lastTimer += 1
        let id = lastTimer
        let bound = LoopBound(value: self)
        timers[id] = context?.eventLoop.scheduleTask(deadline: deadline) {
            bound.value.timers[id] = nil
            body()
        }
        return id
    }

    func cancelTimer(_ timer: Int) {
        timers.removeValue(forKey: timer)?.cancel()
    }

    func send(_ buffer: ByteBuffer) -> Bool {
        guard let context else { return false }
        let promise = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(buffer), promise: promise)
        lastWrite = promise.futureResult
        return false
    }

    var unsentBytes: Int {
        (try? context?.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
    }

    func close(afterSending: Bool) {
        guard let context else { return }
        if afterSending, let lastWrite {
            let channel = context.channel
            lastWrite.whenComplete { _ in channel.close(promise: nil) }
        } else {
            context.close(promise: nil)
        }
    }

    func resumeReading() {
        guard heldRead, let context else { return }
        heldRead = false
        context.read()
    }
}
