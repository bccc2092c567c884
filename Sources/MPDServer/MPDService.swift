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

    /// Makes a channel an MPD connection: `connection_timeout` and the protocol session. Called on
    /// the channel's event loop, for every accepted socket and for connections that do not come from a listening
    /// socket (the protocol fuzzer drives the whole server over an in-memory channel; it passes
    /// `deferredWorkDone`, called off the loop whenever a deferred command's work has finished and its result waits
    /// for the loop).
    /// `descriptor` is the connection's socket when it is one (answers then go to it directly when nothing waits in
    /// the channel).
    public func configureConnection(_ channel: any Channel, isLocal: Bool, descriptor: CInt? = nil,
                                    deferredWorkDone: (@Sendable () -> Void)? = nil) throws {
        try channel.pipeline.syncOperations.addHandler(
            MPDConnectionHandler(server: context, isLocal: isLocal, descriptor: descriptor,
                                 deferredWorkDone: deferredWorkDone))
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
        guard let handler = try? channel.pipeline.syncOperations.handler(type: MPDConnectionHandler.self) else {
            return .none
        }
        return handler.pendingWork
    }

    static let readSize = 16 * 1024
    /// NIO's default water marks, set explicitly: `emit` relies on the high one.
    static let writeBuffer = ChannelOptions.Types.WriteBufferWaterMark(low: 32 * 1024, high: 64 * 1024)

    /// One read of at most 16 KiB per turn of the loop (MPD reads 8 KiB): a client that pipelines megabytes is decoded
    /// a bounded number of lines at a time, so the other connections of the loop wait no longer. Sized to what the
    /// client sends, from 1 KiB: a channel keeps its last read buffer for the next read, and a fixed 16 KiB one made
    /// 500 idle clients cost 19.5 KiB each (4.6 now; MPD 8.7).
    static var receiveAllocator: AdaptiveRecvByteBufferAllocator {
        AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 1024, maximum: readSize)
    }

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
            return try Acceptor(socket: socket, group: group, logger: context.logger) { [self] channel, descriptor in
                try configureConnection(channel, isLocal: isLocal, descriptor: descriptor)
            }
        } catch {
            close(socket)
            throw error
        }
    }
}

/// Feeds one connection's lines to its `Session` and writes what it answers. Runs entirely on the channel's
/// event loop; deferred command work runs in a task and comes back to the loop to resume the session, while
/// input that arrives meanwhile waits in order (MPD's background commands).
///
/// The input is split into lines here (`InputLines`), one at a time. Answers are collected while a batch of input is
/// handled and written with one flush, so a client that pipelines thousands of commands costs one write, not
/// thousands. A connection takes turns with the others of its event loop: about half a millisecond of lines (in steps
/// of `linesPerTurn`), or a command list's part, before the others are served. While a command is deferred, a list
/// runs in parts or a turn is awaited, the handler stops asking the socket for input, so it never holds more than one
/// read of it.
final class MPDConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let server: ServerContext
    private let isLocal: Bool
    private var session: Session?
    private var clientID: Int?
    /// Input read but not yet handled.
    private var input = InputLines()
    private var closing = false
    /// Answers not yet handed to the channel; written and flushed at the end of a read or of a callback.
    private var unwritten: ByteBuffer?
    /// The storage of the last answers written, emptied, for the next ones: the socket usually takes an answer
    /// whole as it is flushed, and the channel's copy is gone by then (a new buffer per answer, allocated and freed,
    /// was a twentieth of a `ping`'s round trip). Kept only while small.
    private var spare: ByteBuffer?
    /// The client registry's broadcast count when this connection last took its events.
    private var broadcastsSeen = 0
    /// Within `channelRead`: the flush waits for `channelReadComplete`.
    private var reading = false
    /// A `read` the pipeline asked for while the session was suspended; passed on when it can take input again.
    private var heldRead = false
    /// Lines handled since the connection last let the event loop go; at a multiple of `Self.linesPerTurn` past
    /// `Session.yieldNanoseconds` the rest of the input waits for the next turn (a client that pipelines 20,000
    /// commands in one write must not hold the loop). Cheap lines run on for the time: a turn of the loop costs more
    /// than 256 of them (collecting the 40,000 lines of a command list took 157 turns and twice MPD's time).
    private var linesThisTurn = 0
    /// When the turn's first line was handled (`NIODeadline` uptime, ns).
    private var turnStarted: UInt64 = 0
    /// The rest of the input waits for a turn of the event loop (`scheduleTurn`).
    private var waitingForTurn = false
    static let linesPerTurn = 256
    /// How far ahead the next turn is scheduled: NIO runs every task that is due before it looks at its sockets
    /// again, so only a task due in the future lets the other connections of the loop be served first.
    static let turnDelay = TimeAmount.microseconds(20)
    /// The deferred command's work, cancelled when the client goes away (a large answer stops being built).
    private var deferredWork: Task<Void, Never>?
    /// `connection_timeout` (MPD's `Client::timeout_event`): a client that has sent nothing for this long and is
    /// neither idle nor waiting for a deferred command is dropped. The handler's own timer, due at `lastRead` plus
    /// the timeout: NIO's `IdleStateHandler` in the pipeline was one more hop for every read, read completion,
    /// write and flush.
    private let timeout: TimeAmount
    private var lastRead = NIODeadline.now()
    private var timeoutCheck: Scheduled<Void>?

    private let deferredWorkDone: (@Sendable () -> Void)?
    /// The connection's socket (nil on a channel that is not one): an answer goes to it with one `send` when nothing
    /// waits in the channel (`write`).
    private let descriptor: CInt?
    /// Writes handed to the channel and not yet done: while there are any, answers queue behind them in the channel.
    private var queuedInChannel = 0

    init(server: ServerContext, isLocal: Bool, descriptor: CInt? = nil,
         deferredWorkDone: (@Sendable () -> Void)? = nil) {
        self.server = server
        self.isLocal = isLocal
        self.descriptor = descriptor
        self.deferredWorkDone = deferredWorkDone
        timeout = .seconds(Int64(server.settings.connectionTimeout))
    }

    var pendingWork: MPDService.PendingWork {
        guard let session, !closing, session.isSuspended || waitingForTurn || input.hasLine else { return .none }
        return deferredWork != nil ? .offLoop : .onLoop
    }

    /// Whether the session cannot take a line now: a deferred command runs, a list is part way, or the connection
    /// waits for its turn.
    private var inputWaits: Bool {
        guard let session else { return false }
        return session.isSuspended || waitingForTurn
    }

    func channelActive(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let id = server.clients.register(partition: PlayerState.defaultPartition,
                                         limit: server.settings.maxConnections) {
            eventLoop.execute {
                let (handler, context) = bound.value
                handler.deliverEvents(context: context)
                handler.sendAnswers(context: context)
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
        _ = write(ByteBuffer(bytes: session.greeting), context: context)
        lastRead = .now()
        checkTimeout(at: lastRead + timeout, context: context)
        context.fireChannelActive()
    }

    /// Checks `connection_timeout` at `deadline`, and again as long as the client stays.
    private func checkTimeout(at deadline: NIODeadline, context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timeoutCheck = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = bound.value
            handler.timeoutDue(context: context)
        }
    }

    private func timeoutDue(context: ChannelHandlerContext) {
        timeoutCheck = nil
        guard let session, !closing else { return }
        let due = lastRead + timeout
        let now = NIODeadline.now()
        if due > now {
            checkTimeout(at: due, context: context)
        } else if session.isIdle || session.isSuspended {
            checkTimeout(at: now + timeout, context: context)
        } else {
            closing = true
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timeoutCheck?.cancel()
        timeoutCheck = nil
        deferredWork?.cancel()
        deferredWork = nil
        if let clientID { server.clients.unregister(clientID) }
        clientID = nil
        session = nil
        unwritten = nil
        spare = nil
        input.removeAll()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard session != nil, !closing else { return }
        lastRead = .now()
        var bytes = unwrapInboundIn(data)
        input.append(&bytes)
        reading = true
        defer { reading = false }
        handleInput(context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        sendAnswers(context: context)
        // A read is one turn; the next may handle as many lines again.
        if !waitingForTurn { linesThisTurn = 0 }
        context.fireChannelReadComplete()
    }

    /// The channel's writability as its events tell it (`context.channel.isWritable` on every answer went through
    /// the pipeline to the channel).
    private var writable = true

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        writable = context.channel.isWritable
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if inputWaits || input.hasLine {
            heldRead = true
            return
        }
        context.read()
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
        let flags = server.clients.takeEvents(clientID, seen: &broadcastsSeen)
        if !flags.isEmpty { apply(session.receive(flags), context: context) }
    }

    /// Queues bytes for the client. max_output_buffer_size bounds what waits unsent, this answer included, as in
    /// MPD: an answer that would pass it is not sent at all, and the client is dropped ("Output buffer is full"),
    /// so one stuck client or one huge answer cannot make the server hold unbounded memory.
    private func emit(_ bytes: [UInt8], context: ChannelHandlerContext) -> Bool {
        guard !bytes.isEmpty else { return true }
        let limit = server.settings.outputBufferLimit
        let answers = (unwritten?.readableBytes ?? 0) + bytes.count
        // A writable channel holds at most its high water mark unsent, so the exact count (an option lookup through
        // NIO's type casts, on every answer) is needed only when that much more could pass the limit.
        let queued = writable && answers + MPDService.writeBuffer.high <= limit
            ? 0 : (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        if queued + answers > limit {
            dropClient(context: context)
            return false
        }
        if unwritten == nil {
            if let spare, spare.capacity >= bytes.count {
                unwritten = spare
                self.spare = nil
            } else {
                unwritten = context.channel.allocator.buffer(capacity: max(bytes.count, 256))
            }
        }
        // As raw bytes: one copy (the `[UInt8]` overload went through the generic sequence path).
        bytes.withUnsafeBytes { _ = unwritten!.writeBytes($0) }
        return true
    }

    private func dropClient(context: ChannelHandlerContext) {
        server.logger.warning("client \(clientID ?? 0): output buffer is full, closing")
        unwritten = nil
        closing = true
        context.close(promise: nil)
    }

    /// Writes and flushes what was queued, unless a command list is part way: its answer goes out whole.
    private func sendAnswers(context: ChannelHandlerContext) {
        guard var buffer = unwritten, !closing, session?.isYielding != true else { return }
        unwritten = nil
        // Sent whole, the buffer is this handler's alone again: its storage is kept for the next answers.
        if write(buffer, context: context), buffer.capacity <= Self.spareCapacity {
            buffer.clear()
            spare = buffer
        }
    }

    /// Writes `buffer` to the client; true when the socket took it whole at once. With nothing waiting in the channel
    /// it goes to the socket with one `send`: SwiftNIO's write and flush through the pipeline were a fifth of a
    /// `status` round trip. What the socket does not take (or an error, which the channel then meets and closes on)
    /// goes through the channel, and later answers queue behind it there until it is written.
    @discardableResult
    private func write(_ buffer: ByteBuffer, context: ChannelHandlerContext) -> Bool {
        var rest = buffer
        if let descriptor, queuedInChannel == 0 {
            let sent = buffer.withUnsafeReadableBytes {
                send(descriptor, $0.baseAddress, $0.count, CInt(MSG_DONTWAIT) | CInt(MSG_NOSIGNAL))
            }
            if sent == buffer.readableBytes { return true }
            if sent > 0 { rest.moveReaderIndex(forwardBy: sent) }
        }
        queuedInChannel += 1
        let promise = context.eventLoop.makePromise(of: Void.self)
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        promise.futureResult.whenComplete { _ in bound.value.queuedInChannel -= 1 }
        context.writeAndFlush(wrapOutboundOut(rest), promise: promise)
        return false
    }

    /// The largest buffer kept for the next answers (`spare`): most answers fit; a long listing's does not stay.
    private static let spareCapacity = 16 * 1024

    private func apply(_ output: consuming Session.Output, context: ChannelHandlerContext) {
        var output = output
        let bytes = output.takeBytes()
        guard emit(bytes, context: context) else { return }
        session?.recycle(bytes)
        switch output.disposition {
        case .keepOpen:
            break
        case .drop:
            dropClient(context: context)
            return
        case .close, .shutdown:
            if output.disposition == .shutdown { server.requestShutdown() }
            // Flush what was written, then close.
            let pending = unwritten
            unwritten = nil
            closing = true
            if let pending {
                // Through the channel, after whatever waits there, then closed.
                queuedInChannel += 1
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(pending)).whenComplete { _ in channel.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
            return
        }
        // Most answers are complete here: nothing to schedule.
        guard output.deferred != nil || output.yielded else { return }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        if let work = output.deferred {
            let done = deferredWorkDone
            // A long answer's parts go out as they are written, in order before the rest of the answer (in a command
            // list they wait with the list's answer).
            let sink: @Sendable ([UInt8]) -> Void = { part in
                eventLoop.execute {
                    let (handler, context) = bound.value
                    guard let session = handler.session, !handler.closing, handler.emit(part, context: context),
                          !session.isInList else { return }
                    handler.sendAnswers(context: context)
                }
            }
            deferredWork = Task {
                let result: Result<Response, any Error>
                do {
                    result = .success(try await StreamedAnswer.withPartSink(sink, work))
                } catch {
                    result = .failure(error)
                }
                defer { done?() }
                let answer = HandOff(result)
                eventLoop.execute {
                    let (handler, context) = bound.value
                    handler.deferredWork = nil
                    guard let session = handler.session, !handler.closing else { return }
                    handler.apply(session.resume(with: answer.take()), context: context)
                    handler.handleInput(context: context)
                }
            }
        } else if output.yielded {
            // Let the event loop serve other connections, then go on with the list.
            eventLoop.scheduleTask(in: Self.turnDelay) {
                let (handler, context) = bound.value
                guard let session = handler.session, !handler.closing else { return }
                handler.linesThisTurn = 0
                handler.apply(session.proceed(), context: context)
                handler.handleInput(context: context)
            }
        }
    }

    /// Lets the other connections of the event loop be served before this one's input goes on.
    private func scheduleTurn(context: ChannelHandlerContext) {
        guard !waitingForTurn else { return }
        waitingForTurn = true
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: Self.turnDelay) {
            let (handler, context) = bound.value
            handler.waitingForTurn = false
            handler.linesThisTurn = 0
            guard handler.session != nil, !handler.closing else { return }
            handler.handleInput(context: context)
        }
    }

    /// Handles the input's complete lines while the session can take them, at most `linesPerTurn` per turn; then
    /// writes the answers (unless a read batch will) and asks for more input if a read was held.
    private func handleInput(context: ChannelHandlerContext) {
        while let session, !closing, !session.isSuspended, !waitingForTurn {
            let line: ByteBuffer
            do {
                guard let next = try input.next() else { break }
                line = next
            } catch {
                // An overlong line: MPD closes without an answer.
                closing = true
                context.close(promise: nil)
                return
            }
            if session.mayRun(line) {
                deliverEvents(context: context)
                guard !closing else { return }
            }
            apply(session.handle(line: line), context: context)
            linesThisTurn += 1
            // Within a read the clock was read already (`lastRead`).
            if linesThisTurn == 1 { turnStarted = (reading ? lastRead : .now()).uptimeNanoseconds }
            if linesThisTurn % Self.linesPerTurn == 0, input.hasLine,
               NIODeadline.now().uptimeNanoseconds - turnStarted >= Session.yieldNanoseconds {
                scheduleTurn(context: context)
            }
        }
        if !reading { sendAnswers(context: context) }
        if !closing, !inputWaits, !input.hasLine, heldRead {
            heldRead = false
            context.read()
        }
    }
}

/// A value passed from one task to a closure that takes it once: the closure's capture then no longer holds it, so
/// the taker is its only owner (a large answer's bytes are then extended in place, not copied).
private final class HandOff<Value: Sendable>: @unchecked Sendable {
    private var value: Value?

    init(_ value: Value) {
        self.value = value
    }

    /// Only once.
    func take() -> Value {
        defer { value = nil }
        return value!
    }
}
