import MPDProtocol
import PlayerCore

/// The music database as the protocol commands need it: browsing, song lookup and updates. Implemented by the
/// `Library` module (SQLite) and wired in by the composition root; the server never sees SQL. Methods are
/// `async` because the implementation reads SQLite off the event loop (GRDB's own queue).
public protocol MusicDatabase: Sendable {
    /// The songs `add URI` appends: the file itself, or every song below a directory (recursively, in MPD's
    /// order: directory by directory, entries sorted by name). `""` is the whole database.
    /// Throws `DatabaseError.notFound` for a URI that is neither.
    func songsForQueue(uri: String) async throws -> [Song]
}

/// Database failures, mapped to ACKs in one place (`ACKError+Mapping.swift`).
public enum DatabaseError: Error, Equatable, Sendable {
    /// ACK 50 with this text, e.g. "No such directory", "No such song".
    case notFound(String)
    /// ACK 50 "No database" (no music directory configured).
    case disabled
    /// ACK 2 with this text.
    case conflict(String)
}
