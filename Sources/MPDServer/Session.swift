import Dispatch
import Glibc
import MPDProtocol
import NIOCore

/// One client's protocol state machine (`src/client/Process.cxx`): ready, idle, or collecting a command list.
/// It turns input lines and idle events into bytes to write and a verdict on the connection. It does no I/O and
/// runs synchronously on the connection's event loop; a command with slow work (`.deferred`) suspends the
/// session until `resume` is called with its result, and the connection holds further input until then.
public final class Session {
    public enum State: Equatable {
        case ready
        case idle(IdleSubsystems)
        /// Collecting a command list; the lines wait in `collected`, outside the state, so that appending one
        /// never copies the others.
        case commandList(okMode: Bool)
    }

    public enum Disposition: Equatable {
        case keepOpen
        /// Close after writing the output (MPD's FINISH/CLOSE: the output is flushed either way).
        case close
        /// `kill`: stop the server.
        case shutdown
        /// The answer would overflow the client's output buffer: close at once, sending nothing that still waits
        /// (MPD's "Output buffer is full").
        case drop
    }

    public struct Output {
        public var bytes: [UInt8] = []
        public var disposition = Disposition.keepOpen
        /// Slow work to run off the event loop; pass its result to `resume`.
        public var deferred: (@Sendable () async throws -> Response)?
        /// A long command list stopped part way so that other clients are served meanwhile: write the output, let
        /// the event loop run, then call `proceed`.
        public var yielded = false

        /// Text the server wrote, where an argument's bytes may be quoted back (`ByteText`).
        mutating func write(_ text: String) {
            if text.utf8.contains(0xF4) { bytes.append(contentsOf: ByteText.encode(text.utf8)) } else { bytes.append(contentsOf: text.utf8) }
        }

        /// `OK`, the end of nearly every answer: its bytes as they are (`write` looked through a String for quoted
        /// bytes first). An answer that is only `OK` shares the constant's storage: a new array for it, allocated
        /// and freed, was a twentieth of a `ping`'s round trip.
        mutating func writeOK() {
            if bytes.isEmpty { bytes = Output.ok } else { bytes.append(contentsOf: Output.ok) }
        }

        mutating func writeListOK() {
            if bytes.isEmpty { bytes = Output.listOK } else { bytes.append(contentsOf: Output.listOK) }
        }

        /// The bytes, leaving none (`Session.recycle` can then keep their storage without a copy).
        mutating func takeBytes() -> [UInt8] {
            var taken: [UInt8] = []
            swap(&taken, &bytes)
            return taken
        }

        private static let ok = Array("OK\n".utf8)
        private static let listOK = Array("list_OK\n".utf8)
    }

    public private(set) var state = State.ready
    /// Idle flags that happened since the client last saw them.
    public private(set) var pending: IdleSubsystems = []
    public private(set) var context: CommandContext
    /// `context.server.dispatch`, read on every command line: through `context`, which a handler may change, each
    /// read retained and released both objects.
    private let dispatch: Dispatch

    /// A command list being run: its lines and the index of the command at hand.
    private struct ListRun {
        var okMode: Bool
        var lines: Lines
        var index: Int
    }

    /// Lines kept end to end in one array (a command list's: an array per line cost an allocation and a release
    /// each, a fifth of the instructions of a `ping` in a list).
    struct Lines {
        private(set) var bytes: [UInt8] = []
        /// Where each line ends in `bytes`.
        private(set) var ends: [Int] = []

        var count: Int { ends.count }

        mutating func append(_ line: UnsafeBufferPointer<UInt8>) {
            bytes.append(contentsOf: line)
            ends.append(bytes.count)
        }

        /// Line `index`, in place.
        func withLine<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            let start = index == 0 ? 0 : ends[index - 1]
            return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<ends[index]])) }
        }
    }
    /// Where a suspended (deferred) command sits: alone, or in a command list.
    private struct Suspended {
        var command: String
        var list: ListRun?
    }
    private var suspended: Suspended?
    /// A command list that yielded (`Output.yielded`) and goes on with `proceed`.
    private var paused: ListRun?
    /// The lines of the command list being collected, and their size as MPD counts it (line + newline).
    private var collected = Lines()
    private var collectedSize = 0

    /// A command list yields (lets the event loop that other connections share serve them) once it has run
    /// `yieldCommandCount` commands and `yieldNanoseconds` have passed in the part, or once its output reaches
    /// `yieldOutputSize` bytes: a 40,000-line list must not hold the loop. Commands that cost little run on for the
    /// time: a part of 256 `ping`s took less time than the turn of the loop after it (40,000 `ping`s in a list took
    /// 53 ms in 157 parts; MPD 16 ms in one, holding its loop throughout).
    static let yieldCommandCount = 256
    static let yieldNanoseconds: UInt64 = 500_000
    static let yieldOutputSize = 256 * 1024

    public init(client: ClientState, server: ServerContext) {
        context = CommandContext(client: client, server: server)
        dispatch = server.dispatch
    }

    public var greeting: [UInt8] { Array("OK MPD \(context.server.settings.protocolVersion)\n".utf8) }

    public var isIdle: Bool {
        if case .idle = state { return true }
        return false
    }

    /// A command list yielded and goes on with `proceed`. Its answer so far is held back until it ends: MPD
    /// sends a list's answer when the list is done, and drops the client when the answer passes its output buffer.
    public var isYielding: Bool { paused != nil }

    /// A command list is running (its answer goes out whole when it ends).
    public var isInList: Bool { paused != nil || suspended?.list != nil }

    /// A deferred command runs or a command list yielded: input waits until it is done.
    public var isSuspended: Bool { suspended != nil || paused != nil }

    /// Whether handling `line` may run a command, so that the events broadcast so far must be handed over first
    /// (`receive`): false for a line that a command list only collects (taking them there cost a lock per line).
    func mayRun(_ line: ByteBuffer) -> Bool {
        guard case .commandList = state else { return true }
        return line.withUnsafeReadableBytes { bytes in
            let word = Self.commandListEnd
            return bytes.count >= word.utf8CodeUnitCount
                && memcmp(bytes.baseAddress!, word.utf8Start, word.utf8CodeUnitCount) == 0
        }
    }

    /// Handles one input line (without its `\n`). Must not be called while suspended.
    public func handle(line: [UInt8]) -> Output {
        line.withUnsafeBufferPointer { handle(bytes: $0) }
    }

    /// Takes back the storage of an output once its bytes were sent, for the next answer (`spareBytes`). Only a
    /// storage of ordinary size stays: not a shared constant (`OK`), not a long listing's.
    func recycle(_ bytes: consuming [UInt8]) {
        guard bytes.capacity >= Self.spareRange.lowerBound, bytes.capacity <= Self.spareRange.upperBound else { return }
        context.spareBytes = bytes
    }

    private static let spareRange = 256...16 * 1024

    /// `handle(line:)` of a line of the connection's input, in place.
    func handle(line: ByteBuffer) -> Output {
        line.withUnsafeReadableBytes { handle(bytes: $0.assumingMemoryBound(to: UInt8.self)) }
    }

    private func handle(bytes raw: UnsafeBufferPointer<UInt8>) -> Output {
        precondition(!isSuspended, "input while a deferred command runs")
        var output = Output()
        // MPD strips trailing blanks, then reads the line as a C string: a NUL byte ends it.
        let line = UnsafeBufferPointer(rebasing: raw[0..<Tokenizer.meaningfulLength(of: raw)])

        // All commands start with a lowercase letter; anything else may be a stray HTTP request: close silently.
        guard let first = line.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") else {
            output.disposition = .close
            return output
        }

        // MPD 0.23.17 and later refuse `idle` and `noidle` inside a command list outright: a list that ends in
        // idle would leave the client waiting with no answer.
        if case .commandList = state, line.equals(Self.idle) || line.equals(Self.noidle) {
            output.disposition = .close
            return output
        }

        if line.equals(Self.noidle) {
            if case .idle = state {
                state = .ready
                output.writeOK()
            }
            // Not idle: the client already has the idle answer; MPD sends nothing.
            return output
        }
        if case .idle = state {
            output.disposition = .close
            return output
        }

        if case .commandList(let okMode) = state {
            if line.equals(Self.commandListEnd) {
                state = .ready
                let lines = collected
                collected = Lines()
                collectedSize = 0
                runList(ListRun(okMode: okMode, lines: lines, index: 0), into: &output)
            } else {
                collectedSize += line.count + 1
                guard collectedSize <= context.server.settings.maxCommandListSize else {
                    collected = Lines()
                    output.disposition = .close
                    return output
                }
                collected.append(line)
            }
            return output
        }

        if line.equals(Self.commandListBegin) {
            state = .commandList(okMode: false)
        } else if line.equals(Self.commandListOKBegin) {
            state = .commandList(okMode: true)
        } else {
            let step = process(line, index: 0, into: &output)
            if case .deferred(let command, let work) = step {
                suspended = Suspended(command: command)
                output.deferred = work
            } else {
                finishSingle(step, into: &output)
            }
        }
        return output
    }

    /// Completes the suspended command with the deferred work's result and carries on (e.g. with the rest of a
    /// command list).
    public func resume(with result: consuming Result<Response, any Error>) -> Output {
        var output = Output()
        guard let suspended else { return output }
        self.suspended = nil
        let index = suspended.list?.index ?? 0
        let step: Step
        switch consume result {
        case .success(let response):
            // The answer's bytes become the output's (no copy of a large listing; the `OK` is appended in place).
            output.bytes = response.takeBytes()
            step = .ok
        case .failure(let error as OutputBufferFull):
            _ = error
            output.disposition = .drop
            return output
        case .failure(let error):
            writeError(error, command: suspended.command, index: index, into: &output)
            step = .error
        }
        if var list = suspended.list {
            guard case .ok = step else { return output }
            if list.okMode { output.writeListOK() }
            list.index += 1
            runList(list, into: &output)
        } else {
            finishSingle(step, into: &output)
        }
        return output
    }

    /// Goes on with a command list that yielded.
    public func proceed() -> Output {
        var output = Output()
        guard let list = paused else { return output }
        paused = nil
        runList(list, into: &output)
        return output
    }

    /// Handles one line and everything it sets off (deferred work, the rest of a yielding command list) before
    /// returning all it wrote: the session without an event loop, for tests and the protocol fuzzer.
    public func complete(line: [UInt8]) async -> Output {
        var output = handle(line: line)
        while output.deferred != nil || output.yielded {
            let next: Output
            if let work = output.deferred {
                let result: Result<Response, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                next = resume(with: result)
            } else {
                next = proceed()
            }
            output.bytes += next.bytes
            output.disposition = next.disposition
            output.deferred = next.deferred
            output.yielded = next.yielded
        }
        return output
    }

    /// An idle event arrived. Returns what to write when it completes a waiting `idle`.
    public func receive(_ flags: IdleSubsystems) -> Output {
        pending.formUnion(flags)
        return flushIdle()
    }

    private enum Step {
        case ok, error, idle, close, shutdown
        case deferred(command: String, work: @Sendable () async throws -> Response)
    }

    private func finishSingle(_ step: Step, into output: inout Output) {
        switch step {
        case .ok: output.writeOK()
        case .error, .idle, .deferred: break
        case .close: output.disposition = .close
        case .shutdown: output.disposition = .shutdown
        }
    }

    private func runList(_ list: ListRun, into output: inout Output) {
        let okMode = list.okMode, lines = list.lines
        let started = DispatchTime.now().uptimeNanoseconds
        for index in list.index..<lines.count {
            if index > list.index, output.bytes.count >= Self.yieldOutputSize
                || (index - list.index) % Self.yieldCommandCount == 0
                && DispatchTime.now().uptimeNanoseconds - started >= Self.yieldNanoseconds {
                paused = ListRun(okMode: okMode, lines: lines, index: index)
                output.yielded = true
                return
            }
            switch lines.withLine(index, { process($0, index: index, into: &output) }) {
            case .ok:
                if okMode { output.writeListOK() }
            case .error, .idle:
                // After `idle SUBSYSTEM…` in a list the client idles; the rest of the list is dropped, as in MPD.
                return
            case .close:
                output.disposition = .close
                return
            case .shutdown:
                output.disposition = .shutdown
                return
            case .deferred(let command, let work):
                suspended = Suspended(command: command, list: ListRun(okMode: okMode, lines: lines, index: index))
                output.deferred = work
                return
            }
        }
        output.writeOK()
    }

    private func process(_ line: UnsafeBufferPointer<UInt8>, index: Int, into output: inout Output) -> Step {
        let request: Request
        // The command is looked up by the bytes of its name, and a known one's name is the `String` made for it once.
        var known: Dispatch.Entry?
        switch Tokenizer.tokenize(bytes: line, name: { name in
            known = dispatch.entry(bytes: name)
            return known?.name ?? String(decoding: name, as: UTF8.self)
        }) {
        case .error(let error):
            output.write(error.line(listIndex: index) + "\n")
            return error.closesConnection ? .close : .error
        case .request(let r):
            request = r
        }
        guard let entry = known else {
            output.write(ACKError.unknownCommand(request.command).line(listIndex: index) + "\n")
            return .error
        }
        do {
            try entry.check(request, permission: context.client.permission)
            let outcome = try entry.handler(&context, request)
            if !context.client.ownEvents.isEmpty {
                pending.formUnion(context.client.ownEvents)
                context.client.ownEvents = []
            }
            switch consume outcome {
            case .ok(let response):
                // Most answers in a list are empty (`ping`, `add`): appending an empty one still made a new array.
                // The first answer's bytes become the output's (no copy; the `OK` is appended in place once the
                // response is gone).
                if output.bytes.isEmpty {
                    output.bytes = response.takeBytes()
                } else if !response.bytes.isEmpty {
                    output.bytes.append(contentsOf: response.bytes)
                }
                return .ok
            case .deferred(let work):
                return .deferred(command: entry.name, work: work)
            case .idle(let flags):
                state = .idle(flags)
                output.bytes.append(contentsOf: flushIdle().bytes)
                return .idle
            case .close:
                return .close
            case .kill:
                return .shutdown
            }
        } catch {
            writeError(error, command: entry.name, index: index, into: &output)
            return .error
        }
    }

    private func writeError(_ error: any Error, command: String, index: Int, into output: inout Output) {
        var ack = ACKError.from(error)
        ack.command = command
        output.write(ack.line(listIndex: index) + "\n")
    }

    /// Completes a waiting `idle` if a subscribed flag is pending. MPD 0.23 then forgets every pending flag;
    /// 0.24 consumes only the subscribed ones, keeping the others for a later `idle`. We follow the protocol
    /// version we announce, since clients written for it expect its behaviour.
    private func flushIdle() -> Output {
        var output = Output()
        guard case .idle(let subscribed) = state else { return output }
        let due = pending.intersection(subscribed)
        guard !due.isEmpty else { return output }
        if context.server.settings.idleKeepsUnsubscribedEvents {
            pending.subtract(due)
        } else {
            pending = []
        }
        state = .ready
        for name in due.names { output.write("changed: \(name)\n") }
        output.writeOK()
        return output
    }

    // Static strings, not arrays: a static array is reached through its lazy initialiser's check on every use, and
    // a line collected into a command list compared itself with three of them.
    private static var idle: StaticString { "idle" }
    private static var noidle: StaticString { "noidle" }
    private static var commandListBegin: StaticString { "command_list_begin" }
    private static var commandListOKBegin: StaticString { "command_list_ok_begin" }
    private static var commandListEnd: StaticString { "command_list_end" }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these are `word`'s bytes: the lengths, then `memcmp` (the generic `elementsEqual` went byte by byte
    /// through iterators, a sixth of the instructions of a `ping` in a command list).
    func equals(_ word: StaticString) -> Bool {
        count == word.utf8CodeUnitCount && (isEmpty || memcmp(baseAddress!, word.utf8Start, count) == 0)
    }
}
