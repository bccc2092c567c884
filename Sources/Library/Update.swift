import Dispatch
import Foundation
import GRDB
import Logging
import MPDProtocol
import PlayerCore
import Synchronization

/// MPD's update job bookkeeping (`src/db/update/Service.cxx`, `Queue.hxx`): ids count up to 2^15 and wrap to 1,
/// one job runs at a time, at most 32 wait.
struct UpdateQueue: Sendable {
    static let maximumID = 1 << 15
    static let maximumQueued = 32

    struct Job: Sendable {
        enum Work: Sendable {
            /// `update`/`rescan` of `uri` in the music directory.
            case scan(discard: Bool)
            /// Another writer of the database (a remote collection's sync) that must not overlap an update and
            /// that clients follow like one; returns whether it changed the database.
            case external(@Sendable () throws -> Bool)
        }

        var id: Int
        var uri: String
        var work: Work
    }

    var lastID = 0
    var running: Job?
    var queued: [Job] = []
    /// Set at shutdown: the running walk stops at the next directory and queued jobs are dropped.
    var cancelled = false

    mutating func nextID() -> Int {
        let id = lastID + 1 > Self.maximumID ? 1 : lastID + 1
        lastID = id
        return id
    }
}

extension MusicLibrary {
    /// The id of the job running now, for `status`'s `updating_db`.
    public var runningUpdateID: Int? { updates.withLock { $0.running?.id } }

    /// `update`/`rescan`: queues a job and returns its id at once. The job runs on a background thread; the
    /// `update` idle event fires when it starts and ends, `database` when it changed anything.
    @discardableResult
    public func enqueueUpdate(uri raw: String, discard: Bool) throws -> Int {
        let uri = try Self.normalize(raw)
        return try enqueue(uri: uri, work: .scan(discard: discard))
    }

    /// Runs `work` as an update job, so a remote collection's sync never writes while a scan does and clients see
    /// it as MPD's `update` of that part of the tree: its id (counted with the updates'), `updating_db` while it
    /// runs, the `update` events and `database` when `work` returns true. Dropped unrun at shutdown.
    @discardableResult
    public func enqueueJob(uri: String, _ work: @escaping @Sendable () throws -> Bool) throws -> Int {
        try enqueue(uri: uri, work: .external(work))
    }

    private func enqueue(uri: String, work: UpdateQueue.Job.Work) throws -> Int {
        let (id, start): (Int, Bool) = try updates.withLock { state in
            if state.cancelled { throw LibraryError.updateBusy("Update queue is full") }
            if state.running != nil {
                guard state.queued.count < UpdateQueue.maximumQueued else {
                    throw LibraryError.updateBusy("Update queue is full")
                }
                let id = state.nextID()
                state.queued.append(.init(id: id, uri: uri, work: work))
                return (id, false)
            }
            let id = state.nextID()
            state.running = .init(id: id, uri: uri, work: work)
            return (id, true)
        }
        if start {
            announce([Change(.update)])
            startWorker()
        }
        return id
    }

    private func startWorker() {
        Thread.detachNewThread { [self] in
            // The worker runs the job it was started for, then only those it takes from the queue itself, under the
            // lock that ends the previous one. Looking at `running` again after that lock would pick up a job that a
            // client queued meanwhile, for which `enqueue` has started a worker of its own: both ran it, and the
            // second insert of a directory failed (seen under CI load, with `resumeIndexing` widening the gap).
            var next = updates.withLock { $0.running }
            while let job = next {
                var modified = false
                database.pauseIndexing()
                do {
                    switch job.work {
                    case .scan(let discard): modified = try runUpdate(uri: job.uri, discard: discard)
                    case .external(let work): modified = try work()
                    }
                } catch is CancellationError {
                    logger.notice("database update cancelled")
                } catch {
                    logger.error("database update failed: \(error)")
                }
                // The next queued job starts without an event of its own (`UpdateService::RunDeferred`). The job
                // leaves `status` and its events go out under one lock, as MPD does both on its main thread: a
                // client that sees `updating_db` gone has its `update`/`database` events queued already, and one
                // woken by the event no longer sees the job.
                next = updates.withLock { state in
                    state.running = state.queued.isEmpty ? nil : state.queued.removeFirst()
                    announce(modified ? [Change(.update), Change(.database)] : [Change(.update)])
                    return state.running
                }
                database.resumeIndexing()
            }
        }
    }

    /// Stops the update jobs (at shutdown): the running walk ends at the next directory, queued jobs are dropped.
    public func cancelUpdates() {
        updates.withLock { state in
            state.cancelled = true
            state.queued = []
        }
        database.stopIndexing()
    }

    var isCancelled: Bool { updates.withLock { $0.cancelled } }

    /// Waits until no update job runs or waits (for tests and start-up).
    public func waitForUpdates() async {
        while updates.withLock({ $0.running != nil }) { try? await Task.sleep(for: .milliseconds(20)) }
    }

    /// Runs one update synchronously on the calling thread; true when the database changed.
    @discardableResult
    public func runUpdate(uri: String, discard: Bool) throws -> Bool {
        var scanner = Scanner(library: self, discard: discard, uri: uri)
        try scanner.update(uri: uri)
        // MPD saves its database (and so moves `db_update`) when the update changed it, or when it had never
        // been saved (`UpdateService::Task`).
        let modified = scanner.modified
        if !scanner.removedSongs.isEmpty { songsRemoved(scanner.removedSongs) }
        try database.writer.write { db in
            let saved = try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM meta WHERE key = 'db_update')") ?? false
            if modified || !saved {
                try Self.pruneEmptyDirectories(db)
                // Sorted now: their place among their siblings is ranked again.
                try db.execute(sql: "UPDATE directory SET unsorted = NULL, walk_rank = NULL WHERE unsorted IS NOT NULL")
            }
            let stamp = String(Int64(Date().timeIntervalSince1970))
            try db.execute(sql: modified
                ? "INSERT OR REPLACE INTO meta (key, value) VALUES ('db_update', ?)"
                : "INSERT OR IGNORE INTO meta (key, value) VALUES ('db_update', ?)", arguments: [stamp])
        }
        if modified, try database.writer.write({ db in try Self.cleanUpStickers(db) }) {
            announce([Change(.stickers)])
        }
        return modified
    }

    /// MPD's sticker cleanup once an update changed the database: the stickers of songs that left it
    /// (`Instance::OnDatabaseSongRemoved`), and, as MPD 0.24's `StickerCleanupService`, those of tag values no song
    /// has any more and of filters that match no song. Stickers of streams (`scheme://…`, NetEase songs) and of
    /// playlists stay. Whether any went.
    static func cleanUpStickers(_ db: GRDB.Database) throws -> Bool {
        try db.execute(sql: """
            DELETE FROM sticker WHERE type = 'song' AND instr(uri, '://') = 0
                AND NOT EXISTS (SELECT 1 FROM song WHERE song.uri = sticker.uri)
            """)
        var changed = db.changesCount > 0
        let objects = try Row.fetchAll(db, sql: """
            SELECT DISTINCT type, uri FROM sticker WHERE type NOT IN ('song', 'playlist')
            """)
        for object in objects {
            let type: String = object[0], uri: String = object[1]
            let filter: FilterExpression
            if type == "filter" {
                guard let parsed = try? FilterParser.parse(arguments: [uri], foldCase: false) else { continue }
                filter = parsed
            } else {
                guard let tag = TagName(parsing: type) else { continue }
                filter = .tag(.tag(tag), StringMatch(uri))
            }
            let translation = FilterSQL.translate(filter)
            let exists = translation.withClause + SQL(sql: """
                SELECT EXISTS(SELECT 1 FROM song s LEFT JOIN directory d ON d.id = s.directory_id WHERE 
                """) + translation.condition + ")"
            guard try Bool.fetchOne(db, SQLRequest<Bool>(literal: exists)) == false else { continue }
            try db.execute(sql: "DELETE FROM sticker WHERE type = ? AND uri = ?", arguments: [type, uri])
            changed = true
        }
        return changed
    }
}

extension MusicLibrary {
    /// `Directory::PruneEmpty`: removes directories without songs, playlists or (remaining) subdirectories,
    /// deepest first; never the root.
    static func pruneEmptyDirectories(_ db: GRDB.Database) throws {
        repeat {
            try db.execute(sql: """
                DELETE FROM directory WHERE path <> ''
                    AND NOT EXISTS (SELECT 1 FROM song WHERE song.directory_id = directory.id)
                    AND NOT EXISTS (SELECT 1 FROM db_playlist WHERE db_playlist.directory_id = directory.id)
                    AND NOT EXISTS (SELECT 1 FROM directory AS child WHERE child.parent_id = directory.id)
                """)
        } while db.changesCount > 0
    }
}

