import PlayerCore

/// Stored playlists (MPD's `playlist_directory`), as the protocol commands need them. Implemented by the
/// `Library` module (`PlaylistDirectory`: m3u files) and wired in by the composition root. Entries are URIs:
/// paths relative to the music directory, or URLs. Errors are `PlayerError`s (`.noSuchPlaylist`,
/// `.playlistExists`, `.badPlaylistName`, `.playlistTooLarge`, `.badRange`, `.badSongIndex`).
public protocol PlaylistStore: Sendable {
    /// `listplaylists`, sorted by name.
    func playlists() async throws -> [StoredPlaylistInfo]
    /// The URIs of a playlist; `.noSuchPlaylist` when it does not exist.
    func uris(of name: String) async throws -> [String]
    /// The entries of a playlist as MPD reads it for `listplaylist(info)`, `load`, `searchplaylist` and
    /// `playlistlength` (`playlist_mapper_open`: through the m3u/extm3u plugins, so `#EXTINF` gives durations and
    /// names); `.noSuchPlaylist` when it does not exist.
    func entries(of name: String) async throws -> [PlaylistEntry]
    /// `save`: `create` fails when it exists, `append` adds (creating it), `replace` overwrites.
    func savePlaylist(_ name: String, uris: [String], mode: PlaylistSaveMode) async throws
    /// Read-modify-write under the store's lock; `body` returns nil to leave the playlist as it is.
    func editPlaylist(_ name: String, createIfMissing: Bool, _ body: @Sendable ([String]) throws -> [String]?)
        async throws
    func renamePlaylist(_ name: String, to newName: String) async throws
    func removePlaylist(_ name: String) async throws
    /// Whether the store takes a name MPD's rules refuse (they allow no `/`): a streaming catalogue's playlists
    /// are named below its directory (`NetEase/Road trip`). Cheap: the event loop asks. Local names keep MPD's
    /// rules.
    func claimsName(_ name: String) -> Bool
}

extension PlaylistStore {
    public func claimsName(_ name: String) -> Bool { false }

    /// A store whose entries are its URIs: a URL is a URL, anything else a database song.
    public func entries(of name: String) async throws -> [PlaylistEntry] {
        try await uris(of: name).map { uri in
            PlaylistEntry(song: Song(uri: uri), location: uri.contains("://") ? .url : .database(uri))
        }
    }
}

public struct StoredPlaylistInfo: Equatable, Sendable {
    public var name: String
    /// UNIX seconds.
    public var lastModified: Int64

    public init(name: String, lastModified: Int64) {
        self.name = name
        self.lastModified = lastModified
    }
}

/// `save NAME [create|append|replace]` (MPD 0.24).
public enum PlaylistSaveMode: String, Sendable, CaseIterable {
    case create, append, replace
}
