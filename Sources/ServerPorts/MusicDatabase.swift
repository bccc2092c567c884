import MPDProtocol
import PlayerCore

/// The music database as the protocol commands need it: browsing, song lookup and updates. Implemented by the
/// `Library` module (SQLite) and wired in by the composition root; the server never sees SQL. Methods are
/// `async` because the implementation reads SQLite off the event loop (GRDB's own queue).
public protocol MusicDatabase: AnyObject, Sendable {
    /// The songs `add URI` appends: the file itself, or every song below a directory (recursively, in MPD's
    /// order: directory by directory, entries sorted by name). `""` is the whole database.
    /// Throws `PortError.notFound` for a URI that is neither. A folder's songs come as its directories' parts.
    func songsForQueue(uri: String) async throws -> SongList
    /// The entries of the playlist file `uri` in the music directory (`Lists/mix.m3u`: m3u, m3u8, pls, xspf, asx,
    /// cue, or a song with an embedded cue sheet) with what the file says of them (tags, duration, range), their
    /// URIs translated as MPD translates them; nil when `uri` is not such a file.
    func playlistFile(uri: String) async throws -> [PlaylistEntry]?
    /// The songs of these URIs that the database has (a directory is not a song), by URI: a stored playlist's songs in
    /// one look-up (`load`, `listplaylistinfo`), not one per song.
    func songs(uris: [String]) async throws -> [String: Song]

    /// `lsinfo` (one level) and `listall`/`listallinfo` (`recursive`): the records under a directory in MPD's
    /// order, or the one song when `uri` names a song. `""` and `"/"` are the root.
    /// Throws `.notFound("No such directory")`, `.conflict("Malformed path")`.
    func entries(uri: String, recursive: Bool) async throws -> [LibraryEntry]

    /// `entries` one record at a time, for listings too large to hold (`listallinfo` of a large library): `visit`
    /// runs off the event loop and returns false to stop the listing.
    func visitEntries(uri: String, recursive: Bool, _ visit: @escaping @Sendable (LibraryEntry) -> Bool) async throws

    /// The one-level listing (`entries(uri:recursive: false)`) when it is at hand without waiting, else nil. Never
    /// blocks: the server prints it on the connection's event loop instead of deferring the command.
    func cachedEntries(uri: String) -> [LibraryEntry]?

    /// `listfiles`: the raw storage listing (every regular file and directory, unsorted as the file system
    /// returns them).
    func files(uri: String) async throws -> [StorageEntry]

    /// `update`/`rescan`: queues a job and returns its id at once (never blocks).
    /// Throws `.conflict("Malformed path")`, or `.busy("Update queue is full")`.
    func startUpdate(uri: String, rescan: Bool) throws -> Int

    /// The id of the running update job, for `status`'s `updating_db` (never blocks).
    var updatingJobID: Int? { get }

    /// `readcomments`: the file's raw metadata pairs.
    func comments(uri: String) async throws -> [(key: String, value: String)]

    /// `albumart`: the whole cover file of the song's directory. Throws `.notFound("No file exists")`.
    func albumArt(uri: String) async throws -> [UInt8]

    /// `readpicture`: the first embedded picture, or nil.
    func picture(uri: String) async throws -> (data: [UInt8], mimeType: String?)?

    /// The database part of `stats`.
    func statistics() async throws -> DatabaseStatistics
}

extension MusicDatabase {
    public func cachedEntries(uri: String) -> [LibraryEntry]? { nil }

    /// For databases without a faster way: `songsOneByOne`.
    public func songs(uris: [String]) async throws -> [String: Song] {
        await songsOneByOne(uris)
    }

    /// `songs(uris:)` with one `songsForQueue` a URI.
    public func songsOneByOne(_ uris: [String]) async -> [String: Song] {
        var found: [String: Song] = [:]
        for uri in uris where found[uri] == nil {
            guard let songs = try? await songsForQueue(uri: uri), songs.count == 1, songs[0].uri == uri else { continue }
            found[uri] = songs[0]
        }
        return found
    }

    /// For databases whose listings are small: the whole listing, then each record.
    public func visitEntries(uri: String, recursive: Bool,
                             _ visit: @escaping @Sendable (LibraryEntry) -> Bool) async throws {
        for entry in try await entries(uri: uri, recursive: recursive) {
            guard visit(entry) else { return }
        }
    }
}

public struct DatabaseStatistics: Sendable, Equatable {
    public var artists: Int
    public var albums: Int
    public var songs: Int
    /// Whole seconds.
    public var playtime: Int64
    /// UNIX seconds of the last update, when known.
    public var lastUpdate: Int64?
    public init(artists: Int, albums: Int, songs: Int, playtime: Int64, lastUpdate: Int64?) {
        self.artists = artists
        self.albums = albums
        self.songs = songs
        self.playtime = playtime
        self.lastUpdate = lastUpdate
    }
}
