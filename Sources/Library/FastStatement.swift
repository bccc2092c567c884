import GRDB
import GRDBSQLite

/// A cached GRDB statement bound and stepped through SQLite's C API (values are copied by SQLite, except those bound
/// with `bindBorrowed`).
struct FastStatement {
    private let handle: OpaquePointer
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    private static let borrowed = unsafeBitCast(0, to: sqlite3_destructor_type.self)

    init(_ db: Database, _ sql: String) throws {
        handle = try db.cachedStatement(sql: sql).sqliteStatement
        sqlite3_reset(handle)
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, _ value: [UInt8]?) {
        guard let value else {
            sqlite3_bind_null(handle, index)
            return
        }
        value.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), Self.transient)
        }
    }

    func bind(_ index: Int32, _ value: String?) {
        guard var text = value else {
            sqlite3_bind_null(handle, index)
            return
        }
        text.withUTF8 { bytes in
            if let base = bytes.baseAddress {
                _ = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text(handle, index, $0, Int32(bytes.count), Self.transient)
                }
            } else {
                _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)
            }
        }
    }

    /// Binds UTF-8 text that SQLite reads in place (`SQLITE_STATIC`): the bytes must stay where they are until the
    /// statement has been stepped and reset, and every such parameter must be bound again before the next step. Saves
    /// SQLite's copy (an allocation, a copy and a free per value: most of a `bind` of a short tag value).
    func bindBorrowed(_ index: Int32, _ bytes: UnsafeRawBufferPointer) {
        if let base = bytes.baseAddress, !bytes.isEmpty {
            _ = sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count),
                                  Self.borrowed)
        } else {
            _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)
        }
    }

    func run(_ db: Database) throws {
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE || code == SQLITE_ROW else { throw error(code, db) }
        sqlite3_reset(handle)
    }

    /// Steps the statement; false when it broke a constraint (nothing was written).
    func runUnlessConstraint(_ db: Database) throws -> Bool {
        let code = sqlite3_step(handle)
        if code & 0xFF == SQLITE_CONSTRAINT {
            sqlite3_reset(handle)
            return false
        }
        guard code == SQLITE_DONE || code == SQLITE_ROW else { throw error(code, db) }
        sqlite3_reset(handle)
        return true
    }

    /// Steps a query to its next row: the handle to read it from, or nil when there is none (the statement is then
    /// reset).
    func next(_ db: Database) throws -> OpaquePointer? {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return handle }
        guard code == SQLITE_DONE else { throw error(code, db) }
        sqlite3_reset(handle)
        return nil
    }

    /// Ends a query before its last row, so it can be bound again.
    func reset() {
        sqlite3_reset(handle)
    }

    /// Steps a query and reads its first row (nil when it has none).
    func firstRow<T>(_ db: Database, _ read: (OpaquePointer) -> T) throws -> T? {
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE || code == SQLITE_ROW else { throw error(code, db) }
        let row = code == SQLITE_ROW ? read(handle) : nil
        sqlite3_reset(handle)
        return row
    }

    /// Steps a statement that returns one integer (`RETURNING id`).
    func runReturningInt64(_ db: Database) throws -> Int64 {
        let code = sqlite3_step(handle)
        guard code == SQLITE_ROW else { throw error(code, db) }
        let value = sqlite3_column_int64(handle, 0)
        let done = sqlite3_step(handle)
        guard done == SQLITE_DONE else { throw error(done, db) }
        sqlite3_reset(handle)
        return value
    }

    private func error(_ code: Int32, _ db: Database) -> DatabaseError {
        let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }
        sqlite3_reset(handle)
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message,
                             sql: sqlite3_sql(handle).map { String(cString: $0) })
    }
}
