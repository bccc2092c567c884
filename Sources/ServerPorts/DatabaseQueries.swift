import MPDProtocol
import PlayerCore

/// The database searches of the protocol (`find`, `search`, `list`, `count` …), implemented by the `Library`
/// module over SQLite. Errors are `PortError`s with the text MPD answers (e.g. `.notFound("No such directory")` for
/// a `base` that does not exist). Methods are `async` because they read SQLite off the event loop.
public protocol DatabaseQueries: Sendable {
    /// Compiles a `=~` pattern while the filter is parsed, as MPD does (`FilterParser.RegexValidator`).
    /// Throws `.invalid` with PCRE's message.
    func validateRegex(_ pattern: String, caseless: Bool) throws(PortError)
    /// `find` / `search`: matching songs in MPD's database order, or stably sorted by `query.sort`, cut to
    /// `query.window`.
    func songs(matching query: FilterQuery) async throws -> [Song]
    /// `songs(matching:)` one song at a time, for results too large to hold: `visit` runs off the event loop and
    /// returns false to stop.
    func visitSongs(matching query: FilterQuery, _ visit: @escaping @Sendable (Song) -> Bool) async throws
    /// The songs of `query` when they are at hand without waiting, else nil. Never blocks: the server prints them
    /// on the connection's event loop instead of deferring the command.
    func cachedSongs(matching query: FilterQuery) -> [Song]?
    /// `list file`: URIs of the matching songs (every song when `expression` is nil), in database order.
    func uris(matching expression: FilterExpression?) async throws -> [String]
    /// `count`: one row with `group` nil, or one row per value of the group tag (`""` for songs without it),
    /// sorted bytewise. `playtime` is in whole seconds.
    func count(_ query: CountQuery) async throws -> [(group: String?, songs: Int, playtime: Int)]
    /// `list TAG … group …`: distinct value tuples, outermost group first and `query.tag` last, sorted bytewise
    /// level by level. For `list file` (`query.tag == nil`) one-element rows of URIs.
    func list(_ query: ListQuery) async throws -> [[String]]
    /// The rows of `query` when they are at hand without waiting, else nil (as `cachedSongs`).
    func cachedList(_ query: ListQuery) -> [[String]]?
    /// Whether the database has a song with this URI.
    func songExists(uri: String) async throws -> Bool
}

extension DatabaseQueries {
    public func cachedSongs(matching query: FilterQuery) -> [Song]? { nil }

    public func cachedList(_ query: ListQuery) -> [[String]]? { nil }

    /// For small results: all the songs, then each.
    public func visitSongs(matching query: FilterQuery, _ visit: @escaping @Sendable (Song) -> Bool) async throws {
        for song in try await songs(matching: query) {
            guard visit(song) else { return }
        }
    }
}
