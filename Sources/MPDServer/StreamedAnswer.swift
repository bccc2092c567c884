import MPDProtocol
import Synchronization

/// The client's output buffer would overflow with this answer: MPD then drops the client without sending any of
/// it ("Output buffer is full"); the session does the same (of an answer sent in parts, the parts before have gone).
public struct OutputBufferFull: Error, Equatable {
    public init() {}
}

/// An answer written record by record on the thread that reads the database, for answers that can be large
/// (`listallinfo`, `find` on a big library). Writing stops as soon as the answer passes the client's output buffer —
/// the client will be dropped, so the rest is never built — or when the client has gone, so neither a huge library
/// nor a closed connection keeps the server building an answer in memory.
///
/// On a connection the answer goes out in parts as it is written (`partSink`), so a long answer never sits whole in
/// memory. Its size is still bounded as a whole, as MPD bounds it: when it passes the client's output buffer the
/// client is dropped (MPD sends none of it; here the parts before have gone out).
///
/// One writer at a time: the deferred command's task hands it to the database's thread, which is done with it before
/// the task reads the result.
final class StreamedAnswer: @unchecked Sendable {
    /// Where the connection takes the parts of a long answer as they are written, set for its deferred command's
    /// work (`MPDConnectionHandler`); nil where the answer is wanted whole (`Session.complete`, the fuzzer).
    @TaskLocal static var partSink: PartSink?

    /// Takes the parts of long answers (a class: a task-local value of function type crashed the runtime).
    final class PartSink: Sendable {
        let take: @Sendable ([UInt8]) -> Void
        init(_ take: @escaping @Sendable ([UInt8]) -> Void) { self.take = take }
    }
    /// The size of a part handed to `partSink`: under glibc's `mmap` threshold (`MemoryPolicy`), so the buffers come
    /// from the heap and are used again, where a whole answer of megabytes took fresh pages (a page fault each) for
    /// every copy of it, about a third of a `listallinfo`'s time.
    static let partSize = 32 * 1024

    /// Runs `work` with `sink` as its `partSink`.
    nonisolated static func withPartSink(_ sink: @escaping @Sendable ([UInt8]) -> Void,
                                         _ work: @Sendable () async throws -> Response) async throws -> Response {
        try await $partSink.withValue(PartSink(sink), operation: work)
    }

    private var response = Response()
    /// The bytes handed to `sink` so far.
    private var sent = 0
    private let limit: Int
    private let sink: PartSink?
    private let abandoned = Atomic<Bool>(false)

    init(limit: Int) {
        self.limit = limit
        sink = Self.partSink
        if sink != nil { response.reserveCapacity(Self.partSize + 4096) }
    }

    /// Adds to the answer; false when the writer should stop (the answer is too large or nobody waits for it).
    func write(_ body: (inout Response) -> Void) -> Bool {
        guard !abandoned.load(ordering: .relaxed) else { return false }
        body(&response)
        guard sent + response.bytes.count <= limit else { return false }
        if let sink, response.bytes.count >= Self.partSize {
            var part = Response()
            part.reserveCapacity(Self.partSize + 4096)
            swap(&part, &response)
            sent += part.bytes.count
            sink.take(part.takeBytes())
        }
        return true
    }

    /// The client went away: whatever writes next stops.
    func abandon() {
        abandoned.store(true, ordering: .relaxed)
    }

    /// The finished answer. Throws `OutputBufferFull` when it passed the limit, `CancellationError` when abandoned.
    func finish() throws -> Response {
        if abandoned.load(ordering: .relaxed) { throw CancellationError() }
        guard sent + response.bytes.count <= limit else { throw OutputBufferFull() }
        return response
    }

    /// Runs `produce` (which writes into the answer) so that cancelling the task abandons the answer, then returns it.
    static func build(limit: Int, _ produce: (StreamedAnswer) async throws -> Void) async throws -> Response {
        let answer = StreamedAnswer(limit: limit)
        try await withTaskCancellationHandler {
            try await produce(answer)
        } onCancel: {
            answer.abandon()
        }
        return try answer.finish()
    }
}
