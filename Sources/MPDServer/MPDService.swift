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

        public var description: String {
            switch self {
            case .any(let port): "*:\(port)"
            case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            case .unix(let path): path
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
        var channels: [any Channel] = []
        do {
            for endpoint in endpoints {
                channels.append(try await bind(endpoint))
                context.logger.notice("listening on \(endpoint)")
            }
        } catch {
            for channel in channels { try? await channel.close() }
            throw error
        }
        let bound = channels
        onBound(bound.compactMap(\.localAddress))
        await withTaskCancellationHandler {
            for channel in bound { try? await channel.closeFuture.get() }
        } onCancel: {
            for channel in bound { channel.close(promise: nil) }
        }
    }

    private func bind(_ endpoint: Endpoint) async throws -> any Channel {
        let server = context
        let timeout = TimeAmount.seconds(Int64(context.settings.connectionTimeout))
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        func initializer(isLocal: Bool) -> @Sendable (any Channel) -> EventLoopFuture<Void> {
            { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(LineFrameDecoder()),
                        IdleStateHandler(readTimeout: timeout),
                        MPDConnectionHandler(server: server, isLocal: isLocal),
                    ])
                }
            }
        }
        switch endpoint {
        case .tcp(let host, let port):
            return try await bootstrap.childChannelInitializer(initializer(isLocal: false))
                .bind(host: host, port: port).get()
        case .any(let port):
            do {
                return try await bootstrap.childChannelInitializer(initializer(isLocal: false))
                    .bind(host: "::", port: port).get()
            } catch {
                return try await bootstrap.childChannelInitializer(initializer(isLocal: false))
                    .bind(host: "0.0.0.0", port: port).get()
            }
        case .unix(let path):
            return try await bootstrap.childChannelInitializer(initializer(isLocal: true))
                .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
        }
    }
}

/// Feeds one connection's lines to its `Session` and writes what it answers. Runs entirely on the channel's
/// event loop; deferred command work runs in a task and comes back to the loop to resume the session, while
/// input that arrives meanwhile waits in order (MPD's background commands).
final class MPDConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let server: ServerContext
    private let isLocal: Bool
    private var session: Session?
    private var clientID: Int?
    private var waitingLines = CircularBuffer<[UInt8]>()
    private var closing = false

    init(server: ServerContext, isLocal: Bool) {
        self.server = server
        self.isLocal = isLocal
    }

    func channelActive(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let id = server.clients.register(partition: PlayerState.defaultPartition,
                                         limit: server.settings.maxConnections) {
            eventLoop.execute {
                let (handler, context) = bound.value
                handler.deliverEvents(context: context)
            }
        }
        guard let id else {
            // Over max_connections: close without a greeting, as MPD does.
            closing = true
            context.close(promise: nil)
            return
        }
        clientID = id
        let settings = server.settings
        let session = Session(client: ClientState(id: id, isLocal: isLocal,
                                                  permission: isLocal ? settings.localPermissions : settings.defaultPermissions),
                              server: server)
        self.session = session
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: session.greeting)), promise: nil)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let clientID { server.clients.unregister(clientID) }
        clientID = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let session, !closing else { return }
        let line = Array(buffer: unwrapInboundIn(data))
        if session.isSuspended || !waitingLines.isEmpty {
            waitingLines.append(line)
            return
        }
        deliverEvents(context: context)
        guard !closing else { return }
        apply(session.handle(line: line), context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // connection_timeout: a client that is neither idle nor waiting for a command is dropped.
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read, let session, !session.isIdle,
           !session.isSuspended {
            closing = true
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // An overlong line or a socket error: MPD closes without an answer.
        closing = true
        context.close(promise: nil)
    }

    /// Hands the session the events broadcast to this client so far: when a wake-up arrives, and before each
    /// command line, since the event loop may read a line before it runs the wake-up queued ahead of it.
    private func deliverEvents(context: ChannelHandlerContext) {
        guard let session, !closing, let clientID else { return }
        let flags = server.clients.takeEvents(clientID)
        if !flags.isEmpty { apply(session.receive(flags), context: context) }
    }

    private func apply(_ output: Session.Output, context: ChannelHandlerContext) {
        let write: EventLoopFuture<Void>? = output.bytes.isEmpty
            ? nil : context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: output.bytes)))
        // max_output_buffer_size: a client that does not read its answers is dropped ("Output buffer is full"),
        // so one stuck client cannot make the server hold unbounded memory.
        if let buffered = try? context.channel.syncOptions?.getOption(.bufferedWritableBytes),
           buffered > server.settings.maxOutputBufferSize {
            server.logger.warning("client \(clientID ?? 0): output buffer is full, closing")
            closing = true
            context.close(promise: nil)
            return
        }
        switch output.disposition {
        case .keepOpen:
            break
        case .close, .shutdown:
            closing = true
            if output.disposition == .shutdown { server.requestShutdown() }
            // Flush what was written, then close.
            if let write {
                let channel = context.channel
                write.whenComplete { _ in channel.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
            return
        }
        if let work = output.deferred {
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            Task {
                let result: Result<Response, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                eventLoop.execute {
                    let (handler, context) = bound.value
                    guard let session = handler.session, !handler.closing else { return }
                    handler.apply(session.resume(with: result), context: context)
                    handler.drainWaitingLines(context: context)
                }
            }
        }
    }

    private func drainWaitingLines(context: ChannelHandlerContext) {
        while let session, !closing, !session.isSuspended, let line = waitingLines.popFirst() {
            deliverEvents(context: context)
            guard !closing else { return }
            apply(session.handle(line: line), context: context)
        }
    }
}
