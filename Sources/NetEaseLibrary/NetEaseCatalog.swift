import Foundation
import Library
import Logging
import MPDProtocol
import NetEase
import PlayerCore
import ServerPorts

/// NetEase as a music source of the server: the virtual directory (`NetEase/Daily`, `…/Liked`,
/// `…/Playlists/<name>` …), `netease://` URIs and share links for `add`, the online search, album covers, and the
/// sync of the user's collection into the music database. Listings the sync stored are read from the database
/// (offline, fast); the rest is asked live and remembered for a minute.
public final class NetEaseCatalog: Sendable {
    public let service: NetEaseService
    /// The music database the collection is synced into; nil without a music directory (then everything is live).
    let library: MusicLibrary?
    /// The virtual directory's name at the root (`directory_name`).
    public let root: String
    let logger: Logger

    /// Playlist edits, one at a time (`NetEaseCatalog+Edits`).
    let edits = EditLock()

    /// The `source` of synced songs in the database.
    static let source = "netease"

    public init(service: NetEaseService, library: MusicLibrary?, logger: Logger) {
        self.service = service
        self.library = library
        self.root = service.settings.directoryName
        self.logger = logger
    }

    /// Whether a database URI lies in the virtual directory.
    public func contains(_ uri: String) -> Bool {
        uri == root || uri.hasPrefix(root + "/")
    }

    /// The path components below the virtual directory.
    func components(_ uri: String) -> [String] {
        uri == root ? [] : uri.dropFirst(root.count + 1).split(separator: "/", omittingEmptySubsequences: false)
            .map(String.init)
    }

    /// Runs NetEase work off the event loop; a NetEase failure becomes `PortError.failed("NetEase: …")` (a client
    /// reads `ACK [52@0] {cmd} NetEase: …`) and a log line.
    func call<T: Sendable>(_ what: @autoclosure () -> String, _ work: @escaping @Sendable () throws -> T) async throws
        -> T
    {
        do {
            return try await service.run(work)
        } catch let error as NetEaseError {
            logger.warning("NetEase: \(what()): \(error)")
            throw PortError.failed("NetEase: \(error)")
        }
    }
}

extension NetEaseCatalog: RemoteCatalog {
    public func recognizes(_ uri: String) -> Bool { NetEaseReference(uri) != nil }

    public func songs(for uri: String) async throws -> [Song] {
        guard let reference = NetEaseReference(uri) else { throw PortError.notFound("No such song") }
        if case .song(let id) = reference, let song = try await syncedOrKnown(id) { return [song] }
        let songs = try await call("cannot add \(uri)") { try self.songs(of: reference) }
        guard !songs.isEmpty else {
            if case .song = reference { throw PortError.notFound("No such song") }
            return []
        }
        return songs
    }

    public func knownSong(uri: String) async -> Song? {
        guard case .song(let id)? = NetEaseReference(uri) else { return nil }
        return try? await syncedOrKnown(id)
    }

    /// A song from recent answers or the synced collection, without asking NetEase.
    func syncedOrKnown(_ id: Int64) async throws -> Song? {
        if let song = service.knownSong(id: id) { return song }
        guard let library else { return nil }
        return try await service.run { try library.song(uri: NetEaseURI.song(id)) }
    }

    public var searchesOnline: Bool { service.settings.searchOnline }

    public func search(keywords: String, limit: Int) async throws -> [Song] {
        // NetEase did not answer a moment ago: searches do not wait for it again (local matches are the answer).
        if let error = service.unreachable() { throw PortError.failed("NetEase: \(error)") }
        return try await call("search \"\(keywords)\"") {
            try self.service.remembered("search \(limit) \(keywords)") { () throws(NetEaseError) in
                _ = try self.service.account()
                let found = try self.service.send(SearchEndpoints.CloudSearch(
                    keywords: keywords, page: NetEasePage(limit: limit, offset: 0)))
                return self.service.remember(found.songs)
            }
        }
    }
}
