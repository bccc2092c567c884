import Dispatch
import MPDProtocol
import PlayerCore
import ServerPorts

/// The SQLite library behind the server's database port. Every call hops off the event loop onto the readers
/// queue (GRDB blocks while it reads), and the library's errors are said in the ports' words (`PortError`).
extension MusicLibrary: MusicDatabase {
    public func songsForQueue(uri: String) async throws -> SongList {
        try await offLoop { try self.songsForQueue(uri: uri) }
    }

    public func songs(uris: [String]) async throws -> [String: Song] {
        try await offLoop { try self.songs(uris: uris) }
    }

    public func entries(uri: String, recursive: Bool) async throws -> [LibraryEntry] {
        try await offLoop { try self.list(uri: uri, recursive: recursive) }
    }

    public func cachedEntries(uri: String) -> [LibraryEntry]? { cachedListing(uri: uri) }

    public func playlistFile(uri: String) async throws -> [PlaylistEntry]? {
        try await offLoop { try self.playlistFile(uri: uri) }
    }

    public func visitEntries(uri: String, recursive: Bool,
                             _ visit: @escaping @Sendable (LibraryEntry) -> Bool) async throws {
        try await offLoop { try self.visit(uri: uri, recursive: recursive, visit) }
    }

    public func files(uri: String) async throws -> [StorageEntry] {
        try await offLoop { try self.listFiles(uri: uri) }
    }

    public func startUpdate(uri: String, rescan: Bool) throws -> Int {
        do {
            return try enqueueUpdate(uri: uri, discard: rescan)
        } catch {
            throw Self.port(error)
        }
    }

    public var updatingJobID: Int? { runningUpdateID }

    public func comments(uri: String) async throws -> [(key: String, value: String)] {
        try await offLoop { try self.comments(uri: uri) }
    }

    public func albumArt(uri: String) async throws -> [UInt8] {
        try await offLoop { try self.albumArt(uri: uri) }
    }

    public func picture(uri: String) async throws -> (data: [UInt8], mimeType: String?)? {
        try await offLoop { try self.picture(uri: uri).map { ($0.data, $0.mimeType) } }
    }

    public func statistics() async throws -> DatabaseStatistics {
        try await offLoop {
            let s = try self.stats()
            return DatabaseStatistics(artists: s.artists, albums: s.albums, songs: s.songs, playtime: s.playtime,
                                      lastUpdate: s.lastUpdate)
        }
    }

    /// Blocking reads run on a queue of their own: a detached task would hold one of Swift's few cooperative
    /// threads (two on a two-core box) for the whole read, and every other client's deferred command would wait.
    private func offLoop<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await withCheckedThrowingContinuation { continuation in
                Self.readers.async { continuation.resume(with: Result { try work() }) }
            }
        } catch {
            throw Self.port(error)
        }
    }

    private static let readers = DispatchQueue(label: "nosignal.library", qos: .userInitiated, attributes: .concurrent)

    /// Library errors in the ports' terms.
    static func port(_ error: any Error) -> any Error {
        guard let error = error as? LibraryError else { return error }
        switch error {
        case .notFound(let message): return PortError.notFound(message)
        case .argument(let message): return PortError.invalid(message)
        case .updateBusy(let message): return PortError.busy(message)
        case .system(let message): return PortError.failed(message)
        }
    }
}

/// The library's query and sticker types serve the server's ports as they are.
extension LibraryQueries: DatabaseQueries {}
extension StickerDatabase: StickerStore {}
