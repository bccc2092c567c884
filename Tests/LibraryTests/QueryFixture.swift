import Foundation
import GRDB
import Library
import MPDProtocol
import PlayerCore
import ServerPorts

/// A real SQLite library file in a temporary directory, filled by direct inserts (no scanner), for the query and
/// sticker tests.
final class QueryFixture {
    let directory: URL
    let database: LibraryDatabase
    var queries: LibraryQueries { LibraryQueries(database) }
    var stickers: StickerDatabase { StickerDatabase(database) }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nosignal-query-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = try LibraryDatabase(path: directory.appendingPathComponent("db.sqlite").path)
        // No background indexing: its commits (ranks, the search index, tag counts of the songs the tests insert)
        // would bump the generation that kept answers check, at moments the tests do not choose. A test that wants
        // the indexes calls `catchUpIndexes`.
        database.stopIndexingAndWait()
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    struct Entry {
        var uri: String
        var tags: [(TagName, String)]
        var duration: Double? = nil
        var modified: Int64? = nil
        var added: Int64? = nil
        var format: String? = nil
    }

    func add(_ uri: String, _ tags: [(TagName, String)], duration: Double? = nil, modified: Int64? = nil,
             added: Int64? = nil, format: String? = nil) throws {
        try add([Entry(uri: uri, tags: tags, duration: duration, modified: modified, added: added, format: format)])
    }

    func add(_ entries: [Entry]) throws {
        try database.writer.write { db in
            var directories: [String: Int64] = [:]
            func directoryID(_ path: String) throws -> Int64 {
                if let id = directories[path] { return id }
                if let id = try Int64.fetchOne(db, sql: "SELECT id FROM directory WHERE path = ?", arguments: [path]) {
                    directories[path] = id
                    return id
                }
                let parent = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : ""
                let parentID = try directoryID(parent)
                try db.execute(sql: "INSERT INTO directory (path, parent_id) VALUES (?, ?)", arguments: [path, parentID])
                let id = db.lastInsertedRowID
                directories[path] = id
                return id
            }
            for entry in entries {
                var directory: Int64?
                if !entry.uri.contains("://") {
                    directory = try directoryID(entry.uri.contains("/") ? String(entry.uri[..<entry.uri.lastIndex(of: "/")!]) : "")
                }
                try db.execute(sql: """
                    INSERT INTO song (uri, directory_id, source, duration, last_modified, added, audio_format)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [entry.uri, directory, directory == nil ? "netease" : "local", entry.duration,
                                     entry.modified, entry.added, entry.format])
                let id = db.lastInsertedRowID
                for (position, (tag, value)) in entry.tags.enumerated() {
                    try db.execute(sql: """
                        INSERT INTO song_tag (song_id, tag, position, value, value_folded) VALUES (?, ?, ?, ?, ?)
                        """, arguments: [id, tag.rawValue, position, value, CaseFolding.fold(value)])
                }
                try LibraryDatabase.tagRowsWritten(db, songID: id)
            }
        }
        // The walk ranks, as the indexer writes them after an update (queries then order by them).
        try database.catchUpIndexes()
    }

    /// The filter parser's regex check as the server makes it: PCRE's complaint is ACK 2 with its text.
    static func regexValidator(_ queries: LibraryQueries) -> FilterParser.RegexValidator {
        { pattern, caseless throws(ACKError) in
            do { try queries.validateRegex(pattern, caseless: caseless) } catch {
                guard case PortError.invalid(let message) = error else { throw ACKError(.unknown, "\(error)") }
                throw ACKError(.arg, message)
            }
        }
    }

    /// Parses a filter command line's arguments as MPD would and returns the URIs found.
    func find(_ arguments: [String], command: FilterCommand = .find) async throws -> [String] {
        let queries = self.queries
        let query = try FilterParser.parseQuery(arguments: arguments, command: command,
                                                validateRegex: Self.regexValidator(queries))
        return try await queries.songs(matching: query).map(\.uri)
    }

    func search(_ arguments: [String]) async throws -> [String] { try await find(arguments, command: .search) }
}
