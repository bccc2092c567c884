import Logging
import MPDProtocol
import NIOCore
import PlayerCore

/// What a connection's protocol logic needs from the transport under it: a socket on one of the server's own event
/// loops (`SocketConnection`), or a SwiftNIO channel (`ChannelConnection`: the fuzzer's in-memory one). Called on the
/// connection's thread; `executor` may be used from any.
protocol ConnectionIO: AnyObject, SendableMetatype {
    associatedtype Executor: LoopExecutor
    /// Runs work on the connection's thread.
    var executor: Executor { get }
    /// Runs `body` on the connection's thread once the other connections of its loop were served.
    func afterOthers(_ body: @escaping @Sendable () -> Void)
    /// Runs `body` at `deadline`, unless `cancelTimer` is called first; the result names the timer.
    func schedule(at deadline: NIODeadline, _ body: @escaping @Sendable () -> Void) -> Int
    func cancelTimer(_ timer: Int)
    /// Sends `buffer`'s bytes after whatever waits unsent; true when the socket took them all at once (the buffer's
    /// storage is then free again).
    func send(_ buffer: ByteBuffer) -> Bool
    /// Bytes given to `send` that wait for the socket.
    var unsentBytes: Int { get }
    /// Closes the connection, at once or once what waits unsent is sent. `Connection.closed` follows, later.
    func close(afterSending: Bool)
    /// The connection takes input again after `Connection.takesInput` was false.
    func resumeReading()
}

/// Runs work on a connection's thread; used from any thread.
protocol LoopExecutor: Sendable {
    func execute(_ body: @escaping @Sendable () -> Void)
}

/// A value that only its connection's thread touches, handed through closures that may be sent (SwiftNIO's
/// `NIOLoopBound`, without its check: `ConnectionIO.execute` runs them on that thread).
struct LoopBound<Value>: @unchecked Sendable {
    let value: Value
}

/// One MPD connection: feeds its lines to its `Session` and sends what it answers. Runs entirely on the connection's
/// thread; deferred command work runs in a task and comes back to the thread to resume the session, while input that
/// arrives meanwhile waits in order (MPD's background commands).
///
/// The input is split into lines here (`InputLines`), one at a time. Answers are collected while a batch of input is
/// handled and sent at once, so a client that pipelines thousands of commands costs one write, not thousands. A
/// connection takes turns with the others of its loop: about half a millisecond of lines (in steps of
/// `linesPerTurn`), or a command list's part, before the others are served. While a command is deferred, a list runs
/// in parts or a turn is awaited, the connection takes no input, so it never holds more than one read of it.
final class Connection<IO: ConnectionIO> {
    private let server: ServerContext
    private let isLocal: Bool
    private let io: IO
    private var session: Session?
    private var clientID: Int?
    /// Input read but not yet handled; the transport adds to it.
    var input = InputLines()
    private var closing = false
    /// Answers not yet sent; sent at the end of a read or of a callback.
    private var unwritten: ByteBuffer?
    /// The storage of the last answers sent, emptied, for the next ones: the socket usually takes an answer whole
    /// (a new buffer per answer, allocated and freed, was a twentieth of a `ping`'s round trip). Kept only while
    /// small.
    private var spare: ByteBuffer?
    /// The client registry's broadcast count when this connection last took its events.
    private var broadcastsSeen = 0
    /// Within `received`: the answers wait for `readComplete`.
    private var reading = false
    /// Lines handled since the connection last let the loop go; at a multiple of `Self.linesPerTurn` past
    /// `Session.yieldNanoseconds` the rest of the input waits for the next turn (a client that pipelines 20,000
    /// commands in one write must not hold the loop). Cheap lines run on for the time: a turn of the loop costs more
    /// than 256 of them (collecting the 40,000 lines of a command list took 157 turns and twice MPD's time).
    private var linesThisTurn = 0
    /// When the turn's first line was handled (`NIODeadline` uptime, ns).
    private var turnStarted: UInt64 = 0
    /// The rest of the input waits for a turn of the loop (`scheduleTurn`).
    private var waitingForTurn = false
    static var linesPerTurn: Int { 256 }
    /// The deferred command's work, cancelled when the client goes away (a large answer stops being built).
    private var deferredWork: Task<Void, Never>?
    /// `connection_timeout` (MPD's `Client::timeout_event`): a client that has sent nothing for this long and is
    /// neither idle nor waiting for a deferred command is dropped. One timer, due at `lastRead` plus the timeout,
    /// moved on when it comes due rather than on every read.
    private let timeout: TimeAmount
    private var lastRead = NIODeadline.now()
    private var timeoutCheck: Int?

    private let deferredWorkDone: (@Sendable () -> Void)?

    init(server: ServerContext, isLocal: Bool, io: IO, deferredWorkDone: (@Sendable () -> Void)? = nil) {
        self.server = server
        self.isLocal = isLocal
        self.io = io
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

    /// Whether more input may be read now: false while what was read waits (`io.resumeReading` follows).
    var takesInput: Bool { !inputWaits && !input.hasLine }

    private var bound: LoopBound<Connection> { LoopBound(value: self) }

    /// Registers the client and greets it; false when there are `max_connections` already (the transport then
    /// closes without a greeting, as MPD does).
    func start() -> Bool {
        let bound = self.bound
        let executor = io.executor
        let id = server.clients.register(partition: PlayerState.defaultPartition,
                                         limit: server.settings.maxConnections) {
            executor.execute {
                bound.value.deliverEvents()
                bound.value.sendAnswers()
            }
        }
        guard let id else {
            closing = true
            return false
        }
        clientID = id
        let settings = server.settings
        let session = Session(client: ClientState(id: id, isLocal: isLocal,
                                                  permission: isLocal ? settings.localPermissions : settings.defaultPermissions),
                              server: server)
        self.session = session
        _ = io.send(ByteBuffer(bytes: session.greeting))
        lastRead = .now()
        checkTimeout(at: lastRead + timeout)
        return true
    }

    /// Checks `connection_timeout` at `deadline`, and again as long as the client stays.
    private func checkTimeout(at deadline: NIODeadline) {
        let bound = self.bound
        timeoutCheck = io.schedule(at: deadline) { bound.value.timeoutDue() }
    }

    private func timeoutDue() {
        timeoutCheck = nil
        guard let session, !closing else { return }
        let due = lastRead + timeout
        let now = NIODeadline.now()
        if due > now {
            checkTimeout(at: due)
        } else if session.isIdle || session.isSuspended {
            checkTimeout(at: now + timeout)
        } else {
            close()
        }
    }

    /// The transport is closed: the client goes.
    func closed() {
        if let timeoutCheck { io.cancelTimer(timeoutCheck) }
        timeoutCheck = nil
        deferredWork?.cancel()
        deferredWork = nil
        if let clientID { server.clients.unregister(clientID) }
        clientID = nil
        session = nil
        closing = true
        unwritten = nil
        spare = nil
        input.removeAll()
    }

    /// Input was added to `input`; `readComplete` follows once the read is done.
    func received() {
        guard session != nil, !closing else { return }
        lastRead = .now()
        reading = true
        defer { reading = false }
        handleInput()
    }

    /// A read is done: its answers go out together.
    func readComplete() {
        sendAnswers()
        // A read is one turn; the next may handle as many lines again.
        if !waitingForTurn { linesThisTurn = 0 }
    }

    /// Closes the connection without another answer: an overlong line, a socket error (as MPD does).
    func close() {
        guard !closing else { return }
        closing = true
        unwritten = nil
        io.close(afterSending: false)
    }

    /// Hands the session the events broadcast to this client so far: when a wake-up arrives, and before each
    /// command line, since the loop may read a line before it runs the wake-up queued ahead of it.
    private func deliverEvents() {
        guard let session, !closing, let clientID else { return }
        let flags = server.clients.takeEvents(clientID, seen: &broadcastsSeen)
        if !flags.isEmpty { apply(session.receive(flags)) }
    }

    /// Queues bytes for the client. max_output_buffer_size bounds what waits unsent, this answer included, as in
    /// MPD: an answer that would pass it is not sent at all, and the client is dropped ("Output buffer is full"),
    /// so one stuck client or one huge answer cannot make the server hold unbounded memory.
    private func emit(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return true }
        if io.unsentBytes + (unwritten?.readableBytes ?? 0) + bytes.count > server.settings.outputBufferLimit {
            dropClient()
            return false
        }
        if unwritten == nil {
            if let spare, spare.capacity >= bytes.count {
                unwritten = spare
                self.spare = nil
            } else {
                unwritten = Self.allocator.buffer(capacity: max(bytes.count, 256))
            }
        }
        // As raw bytes: one copy (the `[UInt8]` overload went through the generic sequence path).
        bytes.withUnsafeBytes { _ = unwritten!.writeBytes($0) }
        return true
    }

    private static var allocator: ByteBufferAllocator { ByteBufferAllocator() }

    private func dropClient() {
        server.logger.warning("client \(clientID ?? 0): output buffer is full, closing")
        close()
    }

    /// Sends what was queued, unless a command list is part way: its answer goes out whole.
    private func sendAnswers() {
        guard var buffer = unwritten, !closing, session?.isYielding != true else { return }
        unwritten = nil
        // Taken whole, the buffer is this connection's alone again: its storage is kept for the next answers.
        if io.send(buffer), buffer.capacity <= Self.spareCapacity {
            buffer.clear()
            spare = buffer
        }
    }

    /// The largest buffer kept for the next answers (`spare`): most answers fit; a long listing's does not stay.
    private static var spareCapacity: Int { 16 * 1024 }

    private func apply(_ output: consuming Session.Output) {
        var output = output
        let bytes = output.takeBytes()
        guard emit(bytes) else { return }
        session?.recycle(bytes)
        switch output.disposition {
        case .keepOpen:
            break
        case .drop:
            dropClient()
            return
        case .close, .shutdown:
            if output.disposition == .shutdown { server.requestShutdown() }
            // What was written goes out first, then the connection closes.
            let pending = unwritten
            unwritten = nil
            closing = true
            if let pending { _ = io.send(pending) }
            io.close(afterSending: true)
            return
        }
        // Most answers are complete here: nothing to schedule.
        guard output.deferred != nil || output.yielded else { return }
        let bound = self.bound
        if let work = output.deferred {
            let done = deferredWorkDone
            let executor = io.executor
            // A long answer's parts go out as they are written, in order before the rest of the answer (in a command
            // list they wait with the list's answer).
            let sink: @Sendable ([UInt8]) -> Void = { part in
                executor.execute {
                    let connection = bound.value
                    guard let session = connection.session, !connection.closing, connection.emit(part),
                          !session.isInList else { return }
                    connection.sendAnswers()
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
                executor.execute {
                    let connection = bound.value
                    connection.deferredWork = nil
                    guard let session = connection.session, !connection.closing else { return }
                    connection.apply(session.resume(with: answer.take()))
                    connection.handleInput()
                }
            }
        } else if output.yielded {
            // Let the loop serve other connections, then go on with the list.
            io.afterOthers {
                let connection = bound.value
                guard let session = connection.session, !connection.closing else { return }
                connection.linesThisTurn = 0
                connection.apply(session.proceed())
                connection.handleInput()
            }
        }
    }

    /// Lets the other connections of the loop be served before this one's input goes on.
    private func scheduleTurn() {
        guard !waitingForTurn else { return }
        waitingForTurn = true
        let bound = self.bound
        io.afterOthers {
            let connection = bound.value
            connection.waitingForTurn = false
            connection.linesThisTurn = 0
            guard connection.session != nil, !connection.closing else { return }
            connection.handleInput()
        }
    }

    /// Handles the input's complete lines while the session can take them, at most `linesPerTurn` per turn; then
    /// sends the answers (unless the read will) and takes input again if it was held.
    private func handleInput() {
        // Bound once, not on every line: `closing` is set whenever the session goes (`closed`).
        guard let session else { return }
        while !closing, !session.isSuspended, !waitingForTurn {
            let line: ByteBuffer
            do {
                guard let next = try input.next() else { break }
                line = next
            } catch {
                // An overlong line: MPD closes without an answer.
                close()
                return
            }
            if session.mayRun(line) {
                deliverEvents()
                guard !closing else { return }
            }
            apply(session.handle(line: line))
            linesThisTurn += 1
            // Within a read the clock was read already (`lastRead`).
            if linesThisTurn == 1 { turnStarted = (reading ? lastRead : .now()).uptimeNanoseconds }
            if linesThisTurn % Self.linesPerTurn == 0, input.hasLine,
               NIODeadline.now().uptimeNanoseconds - turnStarted >= Session.yieldNanoseconds {
                scheduleTurn()
            }
        }
        if !reading { sendAnswers() }
        if !closing, takesInput { io.resumeReading() }
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
