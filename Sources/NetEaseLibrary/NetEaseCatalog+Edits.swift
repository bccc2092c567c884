import Foundation
import Library
import MPDProtocol
import NetEase
import PlayerCore
import ServerPorts
import Synchronization

/// Changes the user makes to their NetEase collection through the protocol: likes (the `liked` sticker), the
/// personal-FM "trash" (`disliked`), and edits of their own playlists (`NetEase/<name>` stored playlists).
/// NetEase is changed first; then the synced copy in the database follows at once and the remembered answers
/// that described the old state are forgotten, so `lsinfo`, `listplaylist` and `find` show the change without a
/// sync. The blocking parts run through `call`; the playlist edits are `async` because the command's change runs
/// between reading NetEase and writing it back.
extension NetEaseCatalog {
    // MARK: Likes

    /// The liked songs' ids, newest first: from the synced `Liked` folder when there is one (what `ls
    /// NetEase/Liked` shows), else NetEase's like list, remembered like other answers. A guest likes nothing.
    func likedIDs() throws -> [Int64] {
        if let library, let uris = try library.remoteSongURIs(path: path(.liked)) {
            return uris.compactMap(Self.songID)
        }
        return try service.remembered(Self.likedIDsKey) { () throws(NetEaseError) -> [Int64] in
            guard case .loggedIn(let user, _) = try service.account() else { return [] }
            return try service.send(SongEndpoints.LikeList(userID: user)).ids
        }
    }

    static let likedIDsKey = "liked ids"

    /// Likes or unlikes a song on NetEase, then updates the synced `Liked` folder (a like goes on top, as NetEase
    /// lists the newest first; liking a liked song leaves its place).
    func setLiked(_ id: Int64, _ liked: Bool) throws {
        _ = try service.userID()
        _ = try service.send(SongEndpoints.Like(id: id, like: liked))
        service.forgetAnswers([Self.likedIDsKey, "list \(Folder.liked.rawValue)"])
        let folder = path(.liked)
        guard let library, let stored = try library.remoteEntries(path: folder, recursive: false) else { return }
        var songs = stored.compactMap(\.song)
        let uri = NetEaseURI.song(id)
        if liked {
            guard !songs.contains(where: { $0.uri == uri }) else { return }
            guard let song = try self.songs(ids: [id]).first else { return }
            songs.insert(song, at: 0)
        } else {
            songs.removeAll { $0.uri == uri }
        }
        _ = try library.replaceRemoteDirectory(source: Self.source, RemoteDirectory(path: folder, songs: songs))
    }

    /// Puts a song in the personal FM's trash (`fm_trash`): NetEase plays it less and the FM skips it.
    func trash(_ id: Int64) throws {
        _ = try service.userID()
        _ = try service.send(RecommendEndpoints.FMTrash(songID: id))
    }

    // MARK: Own playlists

    /// A playlist named by a `NetEase/<name>` stored-playlist name.
    struct NamedPlaylist {
        var id: Int64
        /// The name below `NetEase/Playlists/`.
        var name: String
        /// Created by the user, not subscribed to: only these can be changed.
        var isOwn: Bool
    }

    static let userPlaylistsKey = "user playlists"

    /// The playlist a stored-playlist name (the part after `NetEase/`) stands for; nil when there is none. The
    /// id comes from the synced folder of that name, or from the live list of playlists named the way the sync
    /// names folders; whether it is the user's own comes from the live list (remembered), since the database does
    /// not keep it.
    func playlist(named name: String) throws -> NamedPlaylist? {
        let user = try service.userID()
        let playlists = try service.remembered(Self.userPlaylistsKey) { () throws(NetEaseError) in try ownPlaylists() }
        var id: Int64?
        if let library, let reference = try library.remoteDirectory(path: path(.playlists) + "/" + name)?.reference,
           case .playlist(let synced)? = NetEaseReference(reference) {
            id = synced
        } else if let index = Self.uniqueNames(playlists.map(\.name)).firstIndex(of: name) {
            id = playlists[index].id
        }
        guard let id, let playlist = playlists.first(where: { $0.id == id }) else { return nil }
        return NamedPlaylist(id: id, name: name, isOwn: playlist.creator?.id == user && playlist.subscribed != true)
    }

    /// The playlist, which must be the user's own.
    func ownPlaylist(named name: String) throws -> NamedPlaylist {
        guard let playlist = try playlist(named: name) else { throw PlayerError.noSuchPlaylist }
        return try Self.requireOwn(playlist)
    }

    static func requireOwn(_ playlist: NamedPlaylist) throws -> NamedPlaylist {
        guard playlist.isOwn else {
            throw PortError.denied(
                "NetEase playlist \"\(playlist.name)\" is subscribed, not yours: it cannot be changed")
        }
        return playlist
    }

    /// `playlistadd`, `playlistdelete`, `playlistmove`, `playlistclear` and `save … append|replace` on a NetEase
    /// playlist: `body` gets the playlist as NetEase has it now (not the synced copy, which may be older) and
    /// returns the songs it should hold, or nil for no change. A missing playlist is created when
    /// `createIfMissing` (as `playlistadd` creates a missing m3u). One edit runs at a time, from reading NetEase to
    /// storing the result, so two clients editing at once do not work from the same old state.
    func editPlaylist(named name: String, createIfMissing: Bool, _ body: ([String]) throws -> [String]?) async throws {
        await edits.lock()
        defer { edits.unlock() }
        let (playlist, live) = try await call("cannot read playlist \(name)") { try self.playlistForEdit(named: name) }
        guard let playlist else {
            guard createIfMissing else { throw PlayerError.noSuchPlaylist }
            guard let wanted = try body([]) else { return }
            let ids = try Self.songIDs(wanted)
            try await call("cannot create playlist \(name)") { try self.createPlaylist(named: name, songs: ids) }
            return
        }
        guard let wanted = try body(live.map(NetEaseURI.song)) else { return }
        let ids = try Self.songIDs(wanted)
        try await call("cannot change playlist \(name)") { try self.changePlaylist(playlist, from: live, to: ids) }
    }

    /// `save NetEase/<name>`: a new playlist on NetEase with the queue's songs; `append` and `replace` change an
    /// existing one (creating it when missing, as for an m3u).
    func savePlaylist(named name: String, uris: [String], mode: PlaylistSaveMode) async throws {
        let ids = try Self.songIDs(uris)
        guard mode == .create else {
            try await editPlaylist(named: name, createIfMissing: true) { current in
                mode == .append ? current + ids.map(NetEaseURI.song) : ids.map(NetEaseURI.song)
            }
            return
        }
        await edits.lock()
        defer { edits.unlock() }
        try await call("cannot create playlist \(name)") {
            guard try self.playlist(named: name) == nil else {
                throw PlayerError.playlistExists("Playlist already exists")
            }
            try self.createPlaylist(named: name, songs: ids)
        }
    }

    /// `rm NetEase/<name>`: deletes one of the user's own playlists on NetEase.
    func removePlaylist(named name: String) async throws {
        await edits.lock()
        defer { edits.unlock() }
        try await call("cannot delete playlist \(name)") {
            let playlist = try self.ownPlaylist(named: name)
            _ = try self.service.send(PlaylistEndpoints.Remove(ids: [playlist.id]))
            self.forgetPlaylist(playlist.id)
            if let library = self.library {
                _ = try library.removeRemoteDirectory(source: Self.source, path: self.path(.playlists) + "/" + name)
            }
        }
    }

    /// `rename NetEase/<name> NetEase/<new name>`: renames one of the user's own playlists on NetEase; the synced
    /// copy takes the new name in its place. A name already used is refused as MPD refuses it.
    func renamePlaylist(named name: String, to newName: String) async throws {
        await edits.lock()
        defer { edits.unlock() }
        try await call("cannot rename playlist \(name)") {
            let playlist = try self.ownPlaylist(named: name)
            guard newName != name else { return }
            guard try self.playlist(named: newName) == nil else {
                throw PlayerError.playlistExists("Playlist already exists")
            }
            _ = try self.service.send(PlaylistEndpoints.Rename(id: playlist.id, name: newName))
            self.forgetPlaylist(playlist.id)
            let folder = self.path(.playlists) + "/"
            _ = try self.library?.renameRemoteDirectory(source: Self.source, path: folder + name, to: folder + newName)
        }
    }

    /// The playlist to edit (nil when there is none) with its tracks as NetEase has them now; a subscribed one is
    /// refused before anything else.
    private func playlistForEdit(named name: String) throws -> (NamedPlaylist?, [Int64]) {
        guard let playlist = try playlist(named: name) else { return (nil, []) }
        _ = try Self.requireOwn(playlist)
        return (playlist, try service.send(PlaylistEndpoints.Detail(id: playlist.id)).playlist.trackIDs ?? [])
    }

    private func changePlaylist(_ playlist: NamedPlaylist, from live: [Int64], to ids: [Int64]) throws {
        var tracks = live
        defer { forgetPlaylist(playlist.id) }
        do {
            try changeTracks(of: playlist.id, current: &tracks, to: ids)
        } catch {
            // A half-done change (the songs added, the order refused) is NetEase's state now: the copy shows it.
            if tracks != live { try? storePlaylist(playlist, tracks: tracks, at: nil) }
            throw error
        }
        try storePlaylist(playlist, tracks: tracks, at: nil)
    }

    /// Creates a playlist and adds its songs. NetEase lists a new playlist first (after the liked-songs one), so
    /// the synced copy puts it first too, where the next sync will find it.
    private func createPlaylist(named name: String, songs ids: [Int64]) throws {
        _ = try service.userID()
        let id = try service.send(PlaylistEndpoints.Create(name: name)).id
        let playlist = NamedPlaylist(id: id, name: name, isOwn: true)
        defer { forgetPlaylist(id) }
        var tracks: [Int64] = []
        do {
            try changeTracks(of: id, current: &tracks, to: ids)
        } catch {
            // The playlist exists, with what could be added.
            try? storePlaylist(playlist, tracks: tracks, at: 0)
            throw error
        }
        try storePlaylist(playlist, tracks: tracks, at: 0)
    }

    /// Makes a playlist hold `wanted`, in that order, with the fewest `playlist_tracks` calls: the songs that go
    /// (`del`), the songs that come (`add`), and only if the order is then still not the wanted one, the complete
    /// order (`update`). `current` is the playlist as NetEase has it, before and after each call, also when one
    /// fails.
    func changeTracks(of playlistID: Int64, current: inout [Int64], to wanted: [Int64]) throws(NetEaseError) {
        let keep = Set(wanted)
        let removed = current.filter { !keep.contains($0) }
        if !removed.isEmpty {
            let answer = try change(.delete, playlistID, removed)
            current = Self.trusted(answer, expected: current.filter { keep.contains($0) })
        }
        let present = Set(current)
        let added = wanted.filter { !present.contains($0) }
        if !added.isEmpty {
            // NetEase puts added songs on top, the last one given first: given in reverse, they come out in the
            // wanted order, which is often all that `playlistadd` at the start needs.
            let answer = try change(.add, playlistID, added.reversed())
            current = Self.trusted(answer, expected: added + current)
        }
        if current != wanted {
            current = Self.trusted(try change(.update, playlistID, wanted), expected: wanted)
        }
    }

    private func change(_ operation: PlaylistEndpoints.Tracks.Operation, _ playlistID: Int64, _ ids: [Int64])
        throws(NetEaseError) -> [Int64]
    {
        try service.gated { () throws(NetEaseError) in
            try service.client.changePlaylistTracks(operation, playlistID: playlistID, trackIDs: ids)
        }
    }

    /// NetEase's answer lists the playlist's tracks after the change; when it holds the songs expected, its order
    /// is the truth. An answer that does not (some versions list only the changed ids) is not.
    static func trusted(_ answer: [Int64], expected: [Int64]) -> [Int64] {
        answer.count == expected.count && Set(answer) == Set(expected) ? answer : expected
    }

    /// The remembered answers a playlist change makes stale.
    private func forgetPlaylist(_ id: Int64) {
        service.forgetAnswers([Self.userPlaylistsKey, "list \(Folder.playlists.rawValue)", "songs \(NetEaseURI.playlist(id))"])
    }

    /// The synced copy of a changed playlist (when the playlists are synced): its songs, and now as its time.
    private func storePlaylist(_ playlist: NamedPlaylist, tracks: [Int64], at index: Int?) throws {
        guard let library, try library.remoteDirectory(path: path(.playlists)) != nil else { return }
        let folder = path(.playlists) + "/" + playlist.name
        let stored = try library.remoteEntries(path: folder, recursive: false)?.compactMap(\.song) ?? []
        let known = Dictionary(stored.map { ($0.uri, $0) }, uniquingKeysWith: { first, _ in first })
        let songs = try self.songs(ids: tracks, known: known)
        _ = try library.replaceRemoteDirectory(
            source: Self.source,
            RemoteDirectory(path: folder, reference: NetEaseURI.playlist(playlist.id),
                            lastModified: Int64(Date().timeIntervalSince1970), songs: songs),
            at: index)
    }

    // MARK: Helpers

    /// Songs with their tags, in the order of `ids`: from `known`, the songs seen lately, the database, and for
    /// the rest one `song_detail` call. Ids NetEase does not know are left out.
    func songs(ids: [Int64], known: [String: Song] = [:]) throws -> [Song] {
        var found: [Int64: Song] = [:]
        var missing: [Int64] = []
        for id in ids where found[id] == nil {
            let uri = NetEaseURI.song(id)
            if let song = known[uri] ?? service.knownSong(id: id) {
                found[id] = song
            } else if let song = try library?.song(uri: uri) {
                found[id] = song
            } else {
                missing.append(id)
            }
        }
        if !missing.isEmpty {
            let details = try service.gated { () throws(NetEaseError) in try service.client.songDetails(ids: missing) }
            for song in service.remember(details) {
                if let id = Self.songID(song.uri) { found[id] = song }
            }
        }
        return ids.compactMap { found[$0] }
    }

    /// The id of a `netease://song/<id>` URI.
    static func songID(_ uri: String) -> Int64? {
        guard uri.hasPrefix(NetEaseURI.scheme), case .song(let id)? = NetEaseReference(uri) else { return nil }
        return id
    }

    /// The NetEase ids of playlist entries, each once (a NetEase playlist holds a song at most once, so a repeat
    /// keeps its first place). Anything else cannot go to NetEase: the first such entry is named.
    static func songIDs(_ uris: [String]) throws -> [Int64] {
        var seen = Set<Int64>()
        var ids: [Int64] = []
        for uri in uris {
            guard let id = songID(uri) else {
                throw PortError.invalid("NetEase playlists hold only NetEase songs: \"\(uri)\" is not one")
            }
            if seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }
}

/// One edit at a time across suspension points: a playlist edit reads NetEase, applies the command's change (on
/// the caller's task: the change is a closure that cannot leave it) and writes NetEase back; a second edit meanwhile
/// would start from the old songs.
final class EditLock: Sendable {
    private let state = Mutex<(held: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func lock() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { state -> Bool in
                guard !state.held else {
                    state.waiting.append(continuation)
                    return false
                }
                state.held = true
                return true
            }
            if acquired { continuation.resume() }
        }
    }

    /// Hands the lock to the next waiter, if any.
    func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.held = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
