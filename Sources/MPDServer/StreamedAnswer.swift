import MPDProtocol
import Synchronization

/// The client's output buffer would overflow with this answer: MPD then drops the client without sending any of
/// it ("Output buffer is full"); the session does the same.
public struct OutputBufferFull: Error, Equatable {
    public init() {}
}

/// An answer written record by record on the thread that reads the database, for answers that can be large
/// (`listallinfo`, `find` on a big library). Writing stops as soon as the answer passes the client's output buffer —
/// the client will be dropped, so the rest is never built — or when the client has gone, so neither a huge library
/// nor a closed connection keeps the server building an answer in memory.
///
/// One writer at a time: the deferred command's task hands it to the database's thread, which is done with it before
/// the task reads the result.
final class StreamedAnswer: @unchecked Sendable {
    private var response = Response()
    private let limit: Int
    private let abandoned = Atomic<Bool>(false)

    init(limit: Int) {
        self.limit = limit
    }

    /// Adds to the answer; false when the writer should stop (the answer is too large or nobody waits for it).
    func write(_ body: (inout Response) -> Void) -> Bool {
        guard !abandoned.load(ordering: .relaxed) else { return false }
        body(&response)
        return response.bytes.count <= limit
    }

    /// The client went away: whatever writes next stops.
    func abandon() {
        abandoned.store(true, ordering: .relaxed)
    }

    /// The finished answer. Throws `OutputBufferFull` when it passed the limit, `CancellationError` when abandoned.
    func finish() throws -> Response {
        if abandoned.load(ordering: .relaxed) { throw CancellationError() }
        guard response.bytes.count <= limit else { throw OutputBufferFull() }
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
