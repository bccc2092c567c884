import PlayerCore
import ServerPorts

/// The m3u playlist directory as the server's stored-playlist port.
extension PlaylistDirectory: PlaylistStore {
    public func playlists() async throws -> [StoredPlaylistInfo] {
        try list().map { StoredPlaylistInfo(name: $0.name, lastModified: $0.lastModified) }
    }

    public func uris(of name: String) async throws -> [String] { try load(name) }

    public func entries(of name: String) async throws -> [PlaylistEntry] { try readEntries(name) }

    public func savePlaylist(_ name: String, uris: [String], mode: PlaylistSaveMode) async throws {
        try save(name, uris: uris, mode: SaveMode(rawValue: mode.rawValue) ?? .create)
    }

    public func editPlaylist(_ name: String, createIfMissing: Bool,
                             _ body: @Sendable ([String]) throws -> [String]?) async throws {
        try edit(name, createIfMissing: createIfMissing) { try body($0) }
    }

    public func renamePlaylist(_ name: String, to newName: String) async throws { try rename(name, to: newName) }

    public func removePlaylist(_ name: String) async throws { try remove(name) }
}
