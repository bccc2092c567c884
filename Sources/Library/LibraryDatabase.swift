import GRDB

/// The SQLite music database (GRDB). The schema grows with the library; the migrator is the one place it changes.
public final class LibraryDatabase: Sendable {
    public let writer: any DatabaseWriter

    public init(path: String) throws {
        writer = try DatabaseQueue(path: path)
        try Self.migrator.migrate(writer)
    }

    /// An in-memory database with the full schema, for tests.
    public init() throws {
        writer = try DatabaseQueue()
        try Self.migrator.migrate(writer)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-meta") { db in
            try db.create(table: "meta") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
        }
        return migrator
    }

    public func schemaVersion() throws -> [String] {
        try writer.read { db in try Self.migrator.appliedMigrations(db) }
    }
}
