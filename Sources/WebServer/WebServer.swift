import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// The HTTP server on `http_port`: NIO's HTTP/1.1 pipeline, one `HTTPConnectionHandler` per connection, answers from
/// `Router` computed in a task (the router awaits MPD sessions and lyrics lookups; nothing blocks an event loop).
public final class WebServer: Sendable {
    public enum Endpoint: Sendable, Equatable {
        /// Every interface (`bind_to_address "any"`).
        case any(port: Int)
        case tcp(host: String, port: Int)
    }

    let router: Router
    let logger: Logger
    let group: any EventLoopGroup

    public init(router: Router, logger: Logger, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.router = router
        self.logger = logger
        self.group = group
    }

    /// Binds every endpoint; the channels are returned so that `stop` can close them. An address that cannot be bound
    /// is logged and skipped: the page is an extra, never a reason for the music server not to start.
    public func start(_ endpoints: [Endpoint]) async -> [any Channel] {
        var channels: [any Channel] = []
        for endpoint in endpoints {
            let (host, port) = switch endpoint {
            case .any(let port): ("::", port)
            case .tcp(let host, let port): (host, port)
            }
            do {
                channels.append(try await bind(host: host, port: port))
            } catch where endpoint == .any(port: port) {
                // No IPv6: every IPv4 interface instead.
                do { channels.append(try await bind(host: "0.0.0.0", port: port)) } catch {
                    logger.error("HTTP server: cannot listen on port \(port): \(error)")
                }
            } catch {
                logger.error("HTTP server: cannot listen on \(host):\(port): \(error)")
            }
        }
        for channel in channels {
            guard let address = channel.localAddress, let ip = address.ipAddress, let port = address.port else { continue }
            logger.notice("HTTP server on http://\(ip.contains(":") ? "[\(ip)]" : ip):\(port)/")
        }
        return channels
    }

    private func bind(host: String, port: Int) async throws -> any Channel {
        let router = self.router
        let logger = self.logger
        return try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(HTTPConnectionHandler(router: router, logger: logger))
                }
            }
            .childChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port).get()
    }

    public static func stop(_ channels: [any Channel]) async {
        for channel in channels { try? await channel.close() }
    }
}

/// One connection: collects a request (a body of at most `maximumBody` bytes), answers it in a task, writes the
/// answer on the event loop. A stream of events is written as it comes until the client goes (which cancels it).
final class HTTPConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let maximumBody = 64 * 1024

    private let router: Router
    private let logger: Logger
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false
    private var work: Task<Void, Never>?

    init(router: Router, logger: Logger) {
        self.router = router
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
            tooLarge = false
        case .body(var buffer):
            if body.count + buffer.readableBytes > Self.maximumBody {
                tooLarge = true
            } else if let bytes = buffer.readBytes(length: buffer.readableBytes) {
                body += bytes
            }
        case .end:
            guard let head else { return }
            self.head = nil
            if tooLarge {
                write(.text(413, "Request too large\n"), head: head, context: context)
                return
            }
            let request = WebRequest(method: head.method.rawValue, target: head.uri,
                                     headers: head.headers.map { ($0.name, $0.value) }, body: body)
            body = []
            let router = self.router
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let loop = context.eventLoop
            work = Task {
                let response = await router.respond(to: request)
                loop.execute {
                    let (handler, context) = bound.value
                    handler.write(response, head: head, context: context)
                }
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        work?.cancel()
        work = nil
        context.fireChannelInactive()
    }

    private func write(_ response: WebResponse, head request: HTTPRequestHead, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        let keepAlive = request.isKeepAlive && response.events == nil
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        if response.events == nil { headers.add(name: "Content-Length", value: String(response.body.count)) }
        let status = HTTPResponseStatus(statusCode: response.status, reasonPhrase: WebResponse.reasons[response.status] ?? "")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))),
                      promise: nil)
        if request.method != .HEAD, !response.body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))),
                          promise: nil)
        }
        guard let events = response.events else {
            let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            let channel = context.channel
            if !keepAlive { done.whenComplete { _ in channel.close(promise: nil) } }
            return
        }
        context.flush()
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let loop = context.eventLoop
        work = Task {
            for await chunk in events {
                loop.execute {
                    let (handler, context) = bound.value
                    guard context.channel.isActive else { return }
                    context.writeAndFlush(handler.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: chunk)))),
                                          promise: nil)
                }
            }
            loop.execute {
                let (handler, context) = bound.value
                let channel = context.channel
                context.writeAndFlush(handler.wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
            }
        }
    }
}
