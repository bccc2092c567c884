import Library
import MPDProtocol
import NetEase
import PlayerCore
import ServerPorts
import Synchronization

/// The database the protocol sees: the local library with the NetEase directory beside its folders. Paths below
/// `NetEase/` and `netease://song/…` go to the catalogue, everything else to the local database unchanged.
public final class CombinedDatabase: MusicDatabase {
    let local: any MusicDatabase
    let catalog: NetEaseCatalog

    public init(local: any MusicDatabase, catalog: NetEaseCatalog) {
        self.local = local
        self.catalog = catalog
    }

    private func songID(_ uri: String) -> Int64? {
        guard case .song(let id)? = NetEaseReference(uri), uri.hasPrefix(NetEaseURI.scheme) else { return nil }
        return id
    }

    public func songsForQueue(uri: String) async throws -> SongList {
        if catalog.contains(uri) {
            // Adding asks NetEase for what it has not synced: an unreachable NetEase is an error here.
            return SongList(try await catalogEntries(uri: uri, recursive: true, listing: false).compactMap(\.song))
        }
        if songID(uri) != nil { return SongList(try await catalog.songs(for: uri)) }
        var songs = try await local.songsForQueue(uri: uri)
        if uri.isEmpty || uri == "/" {
            // The whole database: the synced collection too, as `listall` shows it.
            songs.append(try await catalogEntries(uri: catalog.root, recursive: true).compactMap(\.song))
        }
        return songs
    }

    /// The local database's songs in one look-up; the synced collection's paths one by one.
    public func songs(uris: [String]) async throws -> [String: Song] {
        var found = try await local.songs(uris: uris.filter { !catalog.contains($0) })
        for (uri, song) in await songsOneByOne(uris.filter { catalog.contains($0) }) { found[uri] = song }
        return found
    }

    public func entries(uri: String, recursive: Bool) async throws -> [LibraryEntry] {
        if catalog.contains(uri) { return try await catalogEntries(uri: uri, recursive: recursive) }
        if songID(uri) != nil { return try await catalog.songs(for: uri).map(LibraryEntry.song) }
        var entries = try await local.entries(uri: uri, recursive: recursive)
        if uri.isEmpty || uri == "/" {
            if recursive {
                entries += try await catalogEntries(uri: catalog.root, recursive: true)
            } else {
                // After the local folders, before the songs and playlists of the root.
                let index = entries.lastIndex { if case .directory = $0 { true } else { false } }.map { $0 + 1 } ?? 0
                entries.insert(.directory(path: catalog.root, lastModified: nil), at: index)
            }
        }
        return entries
    }

    /// Playlist files live in the local music directory only.
    public func playlistFile(uri: String) async throws -> [PlaylistEntry]? {
        catalog.contains(uri) ? nil : try await local.playlistFile(uri: uri)
    }

    /// Local folders below the root; the root holds the NetEase folder, and the catalogue's listings are its own.
    public func cachedEntries(uri: String) -> [LibraryEntry]? {
        guard !uri.isEmpty, uri != "/", !catalog.contains(uri), songID(uri) == nil else { return nil }
        return local.cachedEntries(uri: uri)
    }

    /// Recursive local listings stream (the whole library may be large); the rest are small and listed whole.
    public func visitEntries(uri: String, recursive: Bool,
                             _ visit: @escaping @Sendable (LibraryEntry) -> Bool) async throws {
        guard recursive, !catalog.contains(uri), songID(uri) == nil else {
            for entry in try await entries(uri: uri, recursive: recursive) {
                guard visit(entry) else { return }
            }
            return
        }
        let stopped = Mutex(false)
        try await local.visitEntries(uri: uri, recursive: true) { entry in
            let more = visit(entry)
            if !more { stopped.withLock { $0 = true } }
            return more
        }
        guard uri.isEmpty || uri == "/", !stopped.withLock({ $0 }) else { return }
        for entry in try await catalogEntries(uri: catalog.root, recursive: true) {
            guard visit(entry) else { return }
        }
    }

    /// `listing`: for `lsinfo`/`listall(info)`, where a NetEase that cannot answer lists what is synced (or
    /// nothing) instead of failing (`NetEaseCatalog.entries`).
    private func catalogEntries(uri: String, recursive: Bool, listing: Bool = true) async throws -> [LibraryEntry] {
        try await catalog.call("cannot list \(uri)") {
            try self.catalog.entries(uri: uri, recursive: recursive, listing: listing)
        }
    }

    public func files(uri: String) async throws -> [StorageEntry] {
        try await local.files(uri: uri)
    }

    public func startUpdate(uri: String, rescan: Bool) throws -> Int {
        if catalog.contains(uri) { return try catalog.startSync() }
        return try local.startUpdate(uri: uri, rescan: rescan)
    }

    public var updatingJobID: Int? { local.updatingJobID }

    public func comments(uri: String) async throws -> [(key: String, value: String)] {
        if songID(uri) != nil { throw PortError.notFound("No such file") }
        return try await local.comments(uri: uri)
    }

    public func albumArt(uri: String) async throws -> [UInt8] {
        if let id = songID(uri) { return try await catalog.cover(songID: id) }
        return try await local.albumArt(uri: uri)
    }

    public func picture(uri: String) async throws -> (data: [UInt8], mimeType: String?)? {
        if let id = songID(uri) {
            let bytes = try await catalog.cover(songID: id)
            return (bytes, NetEaseCatalog.mimeType(bytes))
        }
        return try await local.picture(uri: uri)
    }

    public func statistics() async throws -> DatabaseStatistics {
        try await local.statistics()
    }
}

/// Stored playlists: the m3u files, then the user's NetEase playlists as `NetEase/<name>` (a name no local
/// playlist can have). They are read from the synced collection, so `listplaylists` never waits for NetEase;
/// `listplaylist`, `listplaylistinfo` and `load` of one not synced yet ask NetEase. Edits, `save` and `rm` of a
/// `NetEase/<name>` change the user's own playlist on NetEase (`NetEaseCatalog+Edits`); subscribed ones refuse.
public final class CombinedPlaylists: PlaylistStore {
    let local: (any PlaylistStore)?
    let catalog: NetEaseCatalog

    public init(local: (any PlaylistStore)?, catalog: NetEaseCatalog) {
        self.local = local
        self.catalog = catalog
    }

    private var prefix: String { catalog.root + "/" }

    private func localStore() throws -> any PlaylistStore {
        guard let local else { throw PortError.unknown("Stored playlists are disabled") }
        return local
    }

    public func playlists() async throws -> [StoredPlaylistInfo] {
        var all = try await local?.playlists() ?? []
        guard let library = catalog.library else { return all }
        let folder = catalog.path(.playlists)
        let synced = (try? await catalog.service.run { try library.remoteChildren(of: folder) }) ?? []
        all += synced.map { directory in
            StoredPlaylistInfo(name: prefix + directory.path.dropFirst(folder.count + 1),
                               lastModified: directory.lastModified ?? 0)
        }
        return all
    }

    public func uris(of name: String) async throws -> [String] {
        guard name.hasPrefix(prefix) else {
            guard let local else { throw PlayerError.noSuchPlaylist }
            return try await local.uris(of: name)
        }
        let path = catalog.path(.playlists) + "/" + name.dropFirst(prefix.count)
        do {
            return try await catalog.call("cannot read playlist \(name)") {
                try self.catalog.entries(uri: path, recursive: false).compactMap(\.song?.uri)
            }
        } catch PortError.notFound {
            throw PlayerError.noSuchPlaylist
        }
    }

    /// A local playlist as the local store reads it (`#EXTINF` and all); a NetEase one by its URIs.
    public func entries(of name: String) async throws -> [PlaylistEntry] {
        guard name.hasPrefix(prefix) else {
            guard let local else { throw PlayerError.noSuchPlaylist }
            return try await local.entries(of: name)
        }
        return try await uris(of: name).map { PlaylistEntry(song: Song(uri: $0), location: .url) }
    }

    /// `NetEase/<name>`: one level below the prefix (the sync writes `／` for a `/` in a NetEase title).
    public func claimsName(_ name: String) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        let rest = name.dropFirst(prefix.count)
        return !rest.isEmpty && !rest.contains("/")
    }

    /// The NetEase playlist's name, for a name below the prefix.
    private func netEaseName(_ name: String) -> String? {
        claimsName(name) ? String(name.dropFirst(prefix.count)) : nil
    }

    public func savePlaylist(_ name: String, uris: [String], mode: PlaylistSaveMode) async throws {
        if let name = netEaseName(name) { return try await catalog.savePlaylist(named: name, uris: uris, mode: mode) }
        try await localStore().savePlaylist(name, uris: uris, mode: mode)
    }

    public func editPlaylist(_ name: String, createIfMissing: Bool,
                             _ body: @Sendable ([String]) throws -> [String]?) async throws {
        if let name = netEaseName(name) {
            return try await catalog.editPlaylist(named: name, createIfMissing: createIfMissing, body)
        }
        try await localStore().editPlaylist(name, createIfMissing: createIfMissing, body)
    }

    /// A NetEase playlist is renamed on NetEase; a playlist cannot move between NetEase and the m3u files.
    public func renamePlaylist(_ name: String, to newName: String) async throws {
        switch (netEaseName(name), netEaseName(newName)) {
        case (nil, nil):
            try await localStore().renamePlaylist(name, to: newName)
        case (let old?, let new?):
            try await catalog.renamePlaylist(named: old, to: new)
        case (_?, nil), (nil, _?):
            throw PortError.invalid("rename cannot move a playlist between NetEase and the local playlists")
        }
    }

    public func removePlaylist(_ name: String) async throws {
        if let name = netEaseName(name) { return try await catalog.removePlaylist(named: name) }
        try await localStore().removePlaylist(name)
    }
}
