/// Calls that take more than one request.
extension NetEaseClient {
    /// `song_detail` for any number of ids, in batches of `SongEndpoints.Detail.maximumIDs`, one after the
    /// other (NetEase rate-limits bursts). Songs come back in the order of `ids`; unknown ids are left out.
    public func songDetails(ids: [Int64]) throws(NetEaseError) -> [NetEaseSong] {
        var found: [Int64: NetEaseSong] = [:]
        var start = 0
        while start < ids.count {
            let batch = Array(ids[start..<min(ids.count, start + SongEndpoints.Detail.maximumIDs)])
            for song in try send(SongEndpoints.Detail(ids: batch)).songs { found[song.id] = song }
            start += batch.count
        }
        return ids.compactMap { found[$0] }
    }

    /// A playlist and all its tracks: `playlist_detail`, then `song_detail` for the ids whose songs its
    /// (possibly truncated) `tracks` lacks.
    public func playlistTracks(id: Int64) throws(NetEaseError) -> (playlist: NetEasePlaylist, songs: [NetEaseSong]) {
        let playlist = try send(PlaylistEndpoints.Detail(id: id)).playlist
        let included = playlist.tracks ?? []
        guard let ids = playlist.trackIDs, !ids.isEmpty else { return (playlist, included) }
        var known = Dictionary(included.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let missing = ids.filter { known[$0] == nil }
        for song in try songDetails(ids: missing) { known[song.id] = song }
        return (playlist, ids.compactMap { known[$0] })
    }
}

extension NetEaseClient {
    /// Every playlist of `user_playlist`, page after page until `more` is false (at most `maximumPages`, so a
    /// server that always says "more" cannot loop forever).
    public func allUserPlaylists(userID: Int64, pageSize: Int = 1000, maximumPages: Int = 20)
        throws(NetEaseError) -> [NetEasePlaylist]
    {
        var playlists: [NetEasePlaylist] = []
        for page in 0..<maximumPages {
            let response = try send(PlaylistEndpoints.UserPlaylists(
                userID: userID, page: NetEasePage(limit: pageSize, offset: page * pageSize)))
            playlists += response.playlists
            if !response.more || response.playlists.isEmpty { break }
        }
        return playlists
    }
}

extension NetEasePlaylist {
    /// The user's "liked songs" (我喜欢的音乐): `specialType` 5 and created by that user (others' liked lists can
    /// show up among subscriptions).
    public func isLikedSongs(of userID: Int64) -> Bool {
        specialType == 5 && creator?.id == userID
    }
}

extension NetEaseClient {
    /// `playlist_tracks` with NCM's one retry: NetEase answers code 512 to some valid edits and accepts the same
    /// edit with the id list sent twice over. Returns the ids
    /// NetEase names in its answer (empty when it names none).
    @discardableResult
    public func changePlaylistTracks(_ operation: PlaylistEndpoints.Tracks.Operation, playlistID: Int64,
                                     trackIDs: [Int64]) throws(NetEaseError) -> [Int64]
    {
        do {
            return try send(PlaylistEndpoints.Tracks(operation: operation, playlistID: playlistID, trackIDs: trackIDs))
                .trackIDs
        } catch .api(code: 512, _) {
            return try send(PlaylistEndpoints.Tracks(operation: operation, playlistID: playlistID,
                                                     trackIDs: trackIDs + trackIDs)).trackIDs
        }
    }
}
