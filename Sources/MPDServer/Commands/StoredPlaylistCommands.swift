import MPDProtocol
import PlayerCore
import PlayerRuntime
import ServerPorts

/// "Stored playlists" (`src/command/PlaylistCommands.cxx`): m3u files in `playlist_directory`, through the
/// `PlaylistStore` port. Every command touches files or the database, so all of them are `.deferred`; edits
/// announce `stored_playlist`.
enum StoredPlaylistCommands {
    /// MPD leaves these out of `commands` when no playlist directory is configured (`command_available`); they
    /// still answer, with "Stored playlists are disabled".
    static let hiddenWithoutDirectory: Set<String> = [
        "save", "rm", "rename", "playlistdelete", "playlistmove", "playlistclear", "playlistadd", "listplaylists",
    ]

    static let all: [CommandSpec] = [
        CommandSpec("listplaylists", .read, 0...0) { context, _ in
            let store = try store(context)
            return .deferred {
                var response = Response()
                for playlist in try await store.playlists() {
                    response.add("playlist", playlist.name)
                    response.addTime("Last-Modified", unix: playlist.lastModified)
                }
                return response
            }
        },
        CommandSpec("listplaylist", .read, 1...2) { context, request in
            try LocateURI.check(request[0])
            let store = context.server.playlists
            let database = context.server.database
            let range = try request.optionalArgument(RangeArgument.self, 1)
            return .deferred {
                var response = Response()
                for entry in clip(try await playlistSongs(request[0], store, database), range) {
                    response.add("file", entry.uri)
                }
                return response
            }
        },
        CommandSpec("listplaylistinfo", .read, 1...2) { context, request in
            try LocateURI.check(request[0])
            let store = context.server.playlists
            let range = try request.optionalArgument(RangeArgument.self, 1)
            let database = context.server.database
            let catalog = context.server.catalog
            let mask = context.effectiveTagMask
            return .deferred {
                var response = Response()
                let entries = clip(try await playlistSongs(request[0], store, database), range)
                let songs = await resolve(entries.map(\.uri), database, catalog)
                for (entry, song) in zip(entries, songs) {
                    SongFormatter.write(merged(entry, with: song), mask: mask, into: &response)
                }
                return response
            }
        },
        /// 0.24: case-folding filter over a stored playlist; each match carries its position in the playlist.
        CommandSpec("searchplaylist", .read, 2...4) { context, request in
            try LocateURI.check(request[0])
            let store = try readStore(context)
            let query = try FilterParser.parseQuery(arguments: Array(request.arguments.dropFirst()),
                                                    command: .searchplaylist, validateRegex: SongMatcher.validateRegex)
            let database = context.server.database
            let catalog = context.server.catalog
            let mask = context.effectiveTagMask
            return .deferred {
                let matcher = SongMatcher(query.expression)
                let uris = try await store.uris(of: request[0])
                var matches: [(position: Int, song: Song?)] = []
                for (position, song) in await resolve(uris, database, catalog).enumerated()
                where matcher.matches(song ?? Song(uri: uris[position])) {
                    matches.append((position, song))
                }
                var response = Response()
                for match in clip(matches, query.window) {
                    // A song the database does not know prints only its `file:` line, without `Pos:` (as MPD).
                    guard let song = match.song else {
                        response.add("file", uris[match.position])
                        continue
                    }
                    SongFormatter.write(song, mask: mask, into: &response)
                    response.add("Pos", match.position)
                }
                return response
            }
        },
        /// 0.24: `songs:` and `playtime:` (whole seconds of the songs whose duration is known).
        CommandSpec("playlistlength", .read, 1...1) { context, request in
            try LocateURI.check(request[0])
            let store = try readStore(context)
            let database = context.server.database
            let catalog = context.server.catalog
            return .deferred {
                let uris = try await store.uris(of: request[0])
                var total = 0.0
                for song in await resolve(uris, database, catalog) { total += song?.duration ?? 0 }
                var response = Response()
                response.add("songs", uris.count)
                response.add("playtime", Int(saturating: total))
                return response
            }
        },
        /// `load NAME [S:E] [POS]`: songs the database does not know are skipped, URLs are kept; one bulk edit.
        CommandSpec("load", .add, 1...3) { context, request in
            try LocateURI.check(request[0])
            let store = context.server.playlists
            let range = try request.optionalArgument(RangeArgument.self, 1)
            let position = try QueueCommands.insertPosition(request, 2, context)
            let database = context.server.database
            let catalog = context.server.catalog
            let player = context.server.store
            let partition = context.client.partition
            return .deferred {
                let entries = clip(try await playlistSongs(request[0], store, database), range)
                var songs: [Song] = []
                for (entry, song) in zip(entries, await resolve(entries.map(\.uri), database, catalog)) {
                    if let song { songs.append(merged(entry, with: song)) }
                }
                let sent = try player.send(.load(songs, at: position, name: request[0]), partition: partition)
                guard sent.addedIDs.count == songs.count else { throw PlayerError.playlistTooLarge }
                return Response()
            }
        },
        CommandSpec("save", .control, 1...2) { context, request in
            let store = try store(context)
            let mode = request.count > 1 ? PlaylistSaveMode(rawValue: request[1]) : .create
            guard let mode else {
                throw ACKError(.arg, "Unrecognized save mode, expected one of 'create', 'append', 'replace'")
            }
            try checkName(request[0], store)
            let uris = QueueCommands.partition(context).queue.items.map(\.song.uri)
            return edit(context) { try await store.savePlaylist(request[0], uris: uris, mode: mode) }
        },
        /// `playlistadd NAME URI [POS]`: creates the playlist when missing; a database URI adds every song below it.
        CommandSpec("playlistadd", .control, 2...3) { context, request in
            let store = try store(context)
            try checkName(request[0], store)
            let position = request.count > 2 ? Int(try MPDInteger.parseUnsigned(request[2])) : nil
            let uri = request[1]
            let database = context.server.database
            let isRemote = QueueCommands.scheme(of: uri) != nil
            if !isRemote && database == nil { throw PortError.disabled }
            let catalog = context.server.catalog.flatMap { $0.recognizes(uri) ? $0 : nil }
            return edit(context) {
                let uris: [String]
                if let catalog {
                    uris = try await catalog.songs(for: uri).map(\.uri)
                } else if !isRemote, let database {
                    uris = try await database.songsForQueue(uri: uri == "/" ? "" : uri).map(\.uri)
                } else {
                    uris = [uri]
                }
                try await store.editPlaylist(request[0], createIfMissing: true) { current in
                    let at = position ?? current.count
                    guard at <= current.count else { throw PlayerError.badRange("Bad position") }
                    guard !uris.isEmpty else { return nil }
                    var updated = current
                    updated.insert(contentsOf: uris, at: at)
                    return updated
                }
            }
        },
        CommandSpec("playlistclear", .control, 1...1) { context, request in
            let store = try store(context)
            try checkName(request[0], store)
            return edit(context) {
                try await store.editPlaylist(request[0], createIfMissing: false) { _ in [] }
            }
        },
        CommandSpec("playlistdelete", .control, 2...2) { context, request in
            let store = try store(context)
            try checkName(request[0], store)
            let range = try request.argument(RangeArgument.self, 1)
            return edit(context) {
                try await store.editPlaylist(request[0], createIfMissing: false) { current in
                    guard range.start <= current.count else { throw PlayerError.badSongIndex }
                    var updated = current
                    updated.removeSubrange(range.start..<min(range.end ?? current.count, current.count))
                    return updated
                }
            }
        },
        /// `playlistmove NAME FROM|S:E TO` (ranges are 0.24). Moving a song onto itself succeeds without even
        /// checking that the playlist exists, as in MPD.
        CommandSpec("playlistmove", .control, 3...3) { context, request in
            let store = try store(context)
            let range = try request.argument(RangeArgument.self, 1)
            let to = Int(try MPDInteger.parseUnsigned(request[2]))
            guard let end = range.end else { throw ACKError(.arg, "Open-ended range not supported") }
            if range.start == to && end == range.start + 1 { return .ok(Response()) }
            try checkName(request[0], store)
            return edit(context) {
                try await store.editPlaylist(request[0], createIfMissing: false) { current in
                    let count = end - range.start
                    guard end <= current.count, count > 0, to + count <= current.count else {
                        throw PlayerError.badRange("Bad range")
                    }
                    var updated = current
                    let block = Array(updated[range.start..<end])
                    updated.removeSubrange(range.start..<end)
                    updated.insert(contentsOf: block, at: to)
                    return updated
                }
            }
        },
        CommandSpec("rename", .control, 2...2) { context, request in
            let store = try store(context)
            try checkName(request[0], store)
            try checkName(request[1], store)
            return edit(context) { try await store.renamePlaylist(request[0], to: request[1]) }
        },
        /// `rm NAME`; the playlist's stickers go with it (`Instance::OnPlaylistDeleted`, MPD 0.24).
        CommandSpec("rm", .control, 1...1) { context, request in
            let store = try store(context)
            try checkName(request[0], store)
            let stickers = context.server.stickers
            let player = context.server.store
            return edit(context) {
                try await store.removePlaylist(request[0])
                if let stickers, (try? await stickers.deleteSticker(type: "playlist", uri: request[0], name: nil)) == true {
                    _ = try? player.send(.announce([Change(.stickers)]))
                }
            }
        },
    ]

    // MARK: Helpers

    private static func store(_ context: CommandContext) throws -> any PlaylistStore {
        guard let store = context.server.playlists else {
            throw ACKError(.unknown, "Stored playlists are disabled")
        }
        return store
    }

    /// Reading a playlist without a directory is simply "No such playlist" (MPD then only looks elsewhere).
    /// The songs of the playlist `name`, as MPD's `playlist_mapper_open` finds it: a stored playlist (URIs only), else
    /// a playlist file in the music directory (`Lists/mix.m3u`, with what the file says of each song). A name that is
    /// neither gets the stored playlists' answer.
    static func playlistSongs(_ name: String, _ store: (any PlaylistStore)?, _ database: (any MusicDatabase)?)
        async throws -> [Song]
    {
        var failure: any Error = PlayerError.noSuchPlaylist
        if let store {
            do { return try await store.uris(of: name).map { Song(uri: $0) } } catch { failure = error }
        }
        if let database, let songs = try await database.playlistFile(uri: name) { return songs }
        throw failure
    }

    /// A playlist entry with the database's song (`merge_song_metadata`, `TagBuilder::Complement`): the playlist's
    /// tags first, then the song's tags of other names; the playlist's duration when it gives one; the file's facts
    /// (format, modification time) from the database. Without a database song, the entry as the playlist has it.
    static func merged(_ entry: Song, with song: Song?) -> Song {
        guard var song else { return entry }
        guard !entry.tags.isEmpty || entry.duration != nil else { return song }
        let names = Set(entry.tags.map(\.name))
        song.tags = entry.tags + song.tags.filter { !names.contains($0.name) }
        if let duration = entry.duration { song.duration = duration }
        return song
    }

    private static func readStore(_ context: CommandContext) throws -> any PlaylistStore {
        guard let store = context.server.playlists else { throw PlayerError.noSuchPlaylist }
        return store
    }

    /// MPD's rule (`ByteText.isValidPlaylistName`: not empty, no `/` or LF, valid UTF-8), except that a `/` is fine
    /// in a name the store claims (a NetEase playlist is `NetEase/<name>`).
    private static func checkName(_ name: String, _ store: any PlaylistStore) throws(PlayerError) {
        guard ByteText.isValidPlaylistName(name) || (store.claimsName(name) && !name.contains("\n")
                                                     && ByteText.isMPDValidUTF8(name))
        else { throw .badPlaylistName }
    }

    /// Runs a playlist edit off the loop, then announces `stored_playlist`.
    private static func edit(_ context: CommandContext, _ work: @escaping @Sendable () async throws -> Void)
        -> CommandOutcome
    {
        let player = context.server.store
        return .deferred {
            try await work()
            _ = try? player.send(.announce([Change(.storedPlaylists)]))
            return Response()
        }
    }

    /// The songs playlist entries name: URLs as they are (a NetEase one with what the catalogue knows of it), the
    /// database's songs with their tags (one look-up for all), nil for a song the database does not know.
    static func resolve(_ uris: [String], _ database: (any MusicDatabase)?, _ catalog: (any RemoteCatalog)? = nil)
        async -> [Song?]
    {
        let isRemote = uris.map { QueueCommands.scheme(of: $0) != nil }
        let local = zip(uris, isRemote).compactMap { $1 ? nil : $0 }
        let found = local.isEmpty ? [:] : (try? await database?.songs(uris: local)) ?? [:]
        var songs: [Song?] = []
        songs.reserveCapacity(uris.count)
        for (uri, remote) in zip(uris, isRemote) {
            guard remote else {
                songs.append(found[uri]?.lookedUpByURI)
                continue
            }
            if let catalog, catalog.recognizes(uri), let song = await catalog.knownSong(uri: uri) {
                songs.append(song)
            } else {
                songs.append(Song(uri: uri))
            }
        }
        return songs
    }

    /// An optional `S:E` window, clipped to the list (`RangeArg::ClipRelaxed`).
    static func clip<T>(_ values: [T], _ range: RangeArgument?) -> [T] {
        guard let range else { return values }
        let start = min(range.start, values.count)
        return Array(values[start..<max(start, min(range.end ?? values.count, values.count))])
    }
}
