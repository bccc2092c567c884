import Foundation
import GRDB
import Synchronization

/// Brings what the library derives from its songs up to date on a thread of its own, a chunk per transaction,
/// whenever asked (after an update job or a remote sync, at start-up): first the indexes an update in bulk mode
/// dropped (`ScanWriter`; one transaction, ~0.8 s at 100,000 songs), then the walk ranks (`WalkRanks`), then each
/// folder's packed songs (`FolderSongs`), then the search index (`SearchIndex`), then the tag counts
/// (`TagPresence`), then the album lists clients ask for most (`StoredLists`). Asks coming while it works make it
/// look again when done. Queries are right meanwhile, only slower; writers never wait for a long transaction of it.
/// It pauses while an update job runs (the job changes what it would rank, and a rescan right after an update ran
/// half as fast beside it). When a run that did work ends, it calls `whenDone` on its thread.
final class LibraryIndexer: Sendable {
    private let writer: any DatabaseWriter
    private let whenDone: @Sendable () -> Void
    private struct State {
        var running = false
        var again = false
        var stopped = false
        var paused = 0
    }
    private let state = Mutex(State())

    init(writer: any DatabaseWriter, whenDone: @escaping @Sendable () -> Void = {}) {
        self.writer = writer
        self.whenDone = whenDone
    }

    func request() {
        let start = state.withLock { state -> Bool in
            guard !state.stopped, state.paused == 0 else { return false }
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        guard start else { return }
        Thread.detachNewThread { [self] in
            var worked = false
            repeat {
                while state.withLock({ !$0.stopped && $0.paused == 0 }), (try? step()) == true { worked = true }
            } while state.withLock { state in
                let again = state.again && !state.stopped && state.paused == 0
                state.again = false
                if !again { state.running = false }
                return again
            }
            if worked { whenDone() }
        }
    }

    /// One chunk of work; false when there was none.
    private func step() throws -> Bool {
        if try !writer.read(LibraryDatabase.hasBulkIndexes) {
            try writer.write(LibraryDatabase.createBulkIndexes)
            return true
        }
        if try !writer.read(WalkRanks.complete) { return try writer.write(WalkRanks.rankSome) }
        if try !writer.read(FolderSongs.complete) { return try writer.write(FolderSongs.packSome) }
        if try writer.read(SearchIndex.hasPending) {
            // Pending songs changed what the tag counts say: they are made again once none is left.
            return try writer.write { db in
                try TagPresence.invalidate(db)
                return try SearchIndex.indexPending(db)
            }
        }
        if try !writer.read(TagPresence.isCounted) {
            try writer.write(TagPresence.count)
            return true
        }
        if try !writer.read(StoredLists.areMade) { return try StoredLists.make(writer) }
        return false
    }

    /// Does all the work there is on the calling thread.
    func catchUp() throws {
        while try step() {}
    }

    /// Stops at the next chunk until `resume`, which asks again.
    func pause() {
        state.withLock { $0.paused += 1 }
    }

    func resume() {
        state.withLock { $0.paused -= 1 }
        request()
    }

    func stop() {
        state.withLock { $0.stopped = true }
    }

    /// Stops, and returns once a chunk under way has ended (tests that change the database behind the indexer's
    /// back: a chunk that began before `stop` could otherwise undo their change).
    func stopAndWait() {
        stop()
        while state.withLock({ $0.running }) { usleep(1000) }
    }
}
