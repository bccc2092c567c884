import Logging
import MPDProtocol
import NIOCore
import NIOPosix
import PlayerCore

/// The MPD protocol server: listens on TCP and unix sockets and runs one session per connection.
public final class MPDService: Sendable {
    public enum Endpoint: Sendable, Equatable, CustomStringConvertible {
        case tcp(host: String, port: Int)
        case unix(path: String)

        public var description: String {
            switch self {
            case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            case .unix(let path): path
            }
        }
    }

    public let context: ServerContext
    private let endpoints: [Endpoint]
    private let group: any EventLoopGroup

    public init(context: ServerContext, endpoints: [Endpoint], group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.context = context
        self.endpoints = endpoints
        self.group = group
    }

    typealias Connection = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    /// Binds every endpoint (failing fast if one cannot be bound), then serves until cancelled.
    public func run(onBound: @Sendable ([SocketAddress]) -> Void = { _ in }) async throws {
        var servers: [NIOAsyncChannel<Connection, Never>] = []
        for endpoint in endpoints {
            servers.append(try await bind(endpoint))
        }
        onBound(servers.compactMap { $0.channel.localAddress })
        for (endpoint, server) in zip(endpoints, servers) {
            context.logger.info("listening on \(endpoint)")
            _ = server
        }
        let counter = ConnectionCounter()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await self.context.forwardChanges() }
            for (index, server) in servers.enumerated() {
                let isLocal: Bool
                if case .unix = endpoints[index] { isLocal = true } else { isLocal = false }
                group.addTask {
                    try await server.executeThenClose { inbound in
                        try await withThrowingDiscardingTaskGroup { connections in
                            for try await connection in inbound {
                                connections.addTask {
                                    await self.serve(connection, isLocal: isLocal, counter: counter)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    private func bind(_ endpoint: Endpoint) async throws -> NIOAsyncChannel<Connection, Never> {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        let initializer: @Sendable (any Channel) -> EventLoopFuture<Connection> = { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder()))
                return try Connection(wrappingChannelSynchronously: channel)
            }
        }
        switch endpoint {
        case .tcp(let host, let port):
            return try await bootstrap.bind(host: host, port: port, childChannelInitializer: initializer)
        case .unix(let path):
            return try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true,
                                            childChannelInitializer: initializer)
        }
    }

    /// One connection: the session state machine fed by input lines, idle events and a clock.
    private func serve(_ connection: Connection, isLocal: Bool, counter: ConnectionCounter) async {
        guard await counter.acquire(limit: context.settings.maxConnections) else {
            // Over max_connections: close without a greeting, as MPD does.
            try? await connection.channel.close()
            return
        }
        let (events, continuation) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .unbounded)
        let (idleEvents, idleContinuation) = AsyncStream.makeStream(of: SessionEvent.self, bufferingPolicy: .unbounded)
        let id = await context.clients.register(partition: PlayerState.defaultPartition, events: idleContinuation)
        let settings = context.settings
        let client = ClientState(id: id, isLocal: isLocal,
                                 permission: isLocal ? settings.localPermissions : settings.defaultPermissions)
        let session = Session(client: client, server: context)
        let timeout = Duration.seconds(settings.connectionTimeout)

        do {
            try await connection.executeThenClose { inbound, outbound in
                try await outbound.write(ByteBuffer(bytes: session.greeting))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        do {
                            for try await line in inbound { continuation.yield(.line(Array(buffer: line))) }
                        } catch {}
                        continuation.yield(.closed)
                    }
                    group.addTask {
                        for await event in idleEvents { continuation.yield(.event(event)) }
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            try await Task.sleep(for: .seconds(1))
                            continuation.yield(.tick)
                        }
                    }
                    var lastInput = ContinuousClock.now
                    loop: for await input in events {
                        let output: Session.Output
                        switch input {
                        case .line(let bytes):
                            lastInput = .now
                            output = await session.handle(line: bytes)
                        case .event(.idle(let flags)):
                            output = session.receive(flags)
                        case .tick:
                            if !session.isIdle, ContinuousClock.now - lastInput > timeout { break loop }
                            continue
                        case .closed:
                            break loop
                        }
                        if !output.bytes.isEmpty { try await outbound.write(ByteBuffer(bytes: output.bytes)) }
                        switch output.disposition {
                        case .keepOpen: continue
                        case .close: break loop
                        case .shutdown: break loop
                        }
                    }
                    group.cancelAll()
                }
            }
        } catch {
            context.logger.debug("connection \(id) ended: \(error)")
        }
        continuation.finish()
        await context.clients.unregister(id)
        await counter.release()
    }

    private enum Input: Sendable {
        case line([UInt8])
        case event(SessionEvent)
        case tick
        case closed
    }
}

/// Counts open connections for `max_connections`.
actor ConnectionCounter {
    private var open = 0
    func acquire(limit: Int) -> Bool {
        guard open < limit else { return false }
        open += 1
        return true
    }
    func release() { open -= 1 }
}
