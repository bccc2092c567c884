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
        /// `listplaylist NAME [S:E]`: the URIs, each as loaded (a database song's URI) or, when it cannot be loaded,
        /// as translated (`playlist_provider_print`'s fallback).
        CommandSpec("listplaylist", .read, 1...2) { context, request in
            try LocateURI.check(request[0])
            let reader = PlaylistReader(context)
            let range = try request.optionalArgument(RangeArgument.self, 1)
            return .deferred {
                var response = Response()
                let entries = clip(try await reader.entries(request[0]), range)
                for (entry, song) in zip(entries, await reader.load(entries)) {
                    response.add("file", song?.uri ?? entry.song.uri)
                }
                return response
            }
        },
        /// `listplaylistinfo NAME [S:E]`: each song as loaded (`merge_song_metadata`), with its range; one that cannot
        /// be loaded only as `file: URI`.
        CommandSpec("listplaylistinfo", .read, 1...2) { context, request in
            try LocateURI.check(request[0])
            let reader = PlaylistReader(context)
            let range = try request.optionalArgument(RangeArgument.self, 1)
            let mask = context.effectiveTagMask
            return .deferred {
                var response = Response()
                let entries = clip(try await reader.entries(request[0]), range)
                for (entry, song) in zip(entries, await reader.load(entries)) {
                    if let song {
                        SongFormatter.write(song, range: entry.range, mask: mask, into: &response)
                    } else {
                        response.add("file", entry.song.uri)
                    }
                }
                return response
            }
        },
        /// 0.24: case-folding filter over a playlist (stored or a file in the music directory); each match carries
        /// its position in the playlist, except one that cannot be loaded, printed as `file: URI` only.
        CommandSpec("searchplaylist", .read, 2...4) { context, request in
            try LocateURI.check(request[0])
            let reader = PlaylistReader(context)
            let query = try FilterParser.parseQuery(arguments: Array(request.arguments.dropFirst()),
                                                    command: .searchplaylist, validateRegex: SongMatcher.validateRegex)
            let mask = context.effectiveTagMask
            return .deferred {
                let matcher = SongMatcher(query.expression)
                let entries = try await reader.entries(request[0])
                var matches: [(position: Int, entry: PlaylistEntry, song: Song?)] = []
                for (position, (entry, song)) in zip(entries, await reader.load(entries)).enumerated()
                where matcher.matches(song ?? entry.song) {
                    matches.append((position, entry, song))
                }
                var response = Response()
                for match in clip(matches, query.window) {
                    guard let song = match.song else {
                        response.add("file", match.entry.song.uri)
                        continue
                    }
                    SongFormatter.write(song, range: match.entry.range, mask: mask, into: &response)
                    response.add("Pos", match.position)
                }
                return response
            }
        },
        /// 0.24: `songs:` (every entry) and `playtime:` (the durations of the songs that load, in milliseconds,
        /// rounded to seconds half to even as `std::chrono::round`).
        CommandSpec("playlistlength", .read, 1...1) { context, request in
            try LocateURI.check(request[0])
            let reader = PlaylistReader(context)
            return .deferred {
                let entries = try await reader.entries(request[0])
                var milliseconds: Int64 = 0
                for (entry, song) in zip(entries, await reader.load(entries)) {
                    guard let song else { continue }
                    milliseconds += max(0, playedMilliseconds(song, entry.range))
                }
                var seconds = milliseconds / 1000
                let rest = milliseconds % 1000
                if rest > 500 || (rest == 500 && seconds % 2 == 1) { seconds += 1 }
                var response = Response()
                response.add("songs", entries.count)
                response.add("playtime", Int(seconds))
                return response
            }
        },
        /// `load NAME [S:E] [POS]`: the songs that load (`playlist_load_into_queue`), in one bulk edit.
        CommandSpec("load", .add, 1...3) { context, request in
            try LocateURI.check(request[0])
            let reader = PlaylistReader(context)
            let range = try request.optionalArgument(RangeArgument.self, 1)
            let position = try QueueCommands.insertPosition(request, 2, context)
            let player = context.server.store
            let partition = context.client.partition
            return .deferred {
                let entries = clip(try await reader.entries(request[0]), range)
                var songs: [Song] = []
                var ranges: [Queue.ClosedRangeSeconds?] = []
                for (entry, song) in zip(entries, await reader.load(entries)) {
                    guard let song else { continue }
                    songs.append(song)
                    ranges.append(entry.range)
                }
                let sent = try player.send(.load(songs, at: position, name: request[0], ranges: ranges),
                                           partition: partition)
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

    /// `DetachedSong::GetDuration` in milliseconds (`SongTime`): the range's end (or the song's duration) less its
    /// start; negative when unknown.
    static func playedMilliseconds(_ song: Song, _ range: Queue.ClosedRangeSeconds?) -> Int64 {
        let start = SongFormatter.thousandths(range?.start ?? 0)
        if let end = range?.end { return SongFormatter.thousandths(end) - start }
        guard let duration = song.duration else { return -1 }
        return SongFormatter.thousandths(duration) - start
    }

    /// A playlist entry with the database's song (`merge_song_metadata`, `TagBuilder::Complement`): the playlist's
    /// tags first, then the song's tags of other names; the playlist's duration when it gives one; the file's facts
    /// (format, modification time, added time) from the database.
    static func merged(_ entry: Song, with song: Song) -> Song {
        guard !entry.tags.isEmpty || entry.duration != nil else { return song }
        var song = song
        let names = Set(entry.tags.map(\.name))
        song.tags = entry.tags + song.tags.filter { !names.contains($0.name) }
        if let duration = entry.duration { song.duration = duration }
        return song
    }

    /// Reads playlists as MPD's `playlist_mapper_open` finds them and loads their songs (`SongLoader`).
    struct PlaylistReader: Sendable {
        let store: (any PlaylistStore)?
        let database: (any MusicDatabase)?
        let catalog: (any RemoteCatalog)?
        let schemes: [String]

        init(_ context: CommandContext) {
            store = context.server.playlists
            database = context.server.database
            catalog = context.server.catalog
            schemes = context.server.settings.urlSchemes
        }

        /// The entries of the playlist `name`: a stored playlist, else a playlist file in the music directory
        /// (`Lists/mix.m3u`, with what the file says of each song). A name that is neither gets the stored
        /// playlists' answer ("No such playlist" without a playlist directory).
        func entries(_ name: String) async throws -> [PlaylistEntry] {
            var failure: any Error = PlayerError.noSuchPlaylist
            if let store {
                do { return try await store.entries(of: name) } catch { failure = error }
            }
            if let database, let entries = try await database.playlistFile(uri: name) { return entries }
            throw failure
        }

        /// `playlist_check_load_song` for each entry: the database's song merged with what the playlist says (one
        /// look-up for all; `Added:` is the file's time, as for any song looked up by URI), a URL of a scheme the
        /// server plays as the playlist has it (a NetEase one with what the catalogue knows), nil when it does not
        /// load.
        func load(_ entries: [PlaylistEntry]) async -> [Song?] {
            var local: [String] = []
            for entry in entries { if case .database(let uri) = entry.location { local.append(uri) } }
            let found = local.isEmpty ? [:] : (try? await database?.songs(uris: local)) ?? [:]
            var songs: [Song?] = []
            songs.reserveCapacity(entries.count)
            for entry in entries {
                switch entry.location {
                case .database(let uri):
                    songs.append(found[uri].map { merged(entry.song, with: $0.lookedUpByURI) })
                case .unavailable:
                    songs.append(nil)
                case .url:
                    let uri = entry.song.uri
                    if let catalog, catalog.recognizes(uri) {
                        let known = await catalog.knownSong(uri: uri)
                        songs.append(known.map { merged(entry.song, with: $0) } ?? entry.song)
                        continue
                    }
                    let scheme = QueueCommands.scheme(of: uri)
                    let plays = scheme.map { $0 == "http" || $0 == "https" || schemes.contains($0 + "://") } ?? false
                    songs.append(plays ? entry.song : nil)
                }
            }
            return songs
        }
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

    /// An optional `S:E` window, clipped to the list (`RangeArg::ClipRelaxed`).
    static func clip<T>(_ values: [T], _ range: RangeArgument?) -> [T] {
        guard let range else { return values }
        let start = min(range.start, values.count)
        return Array(values[start..<max(start, min(range.end ?? values.count, values.count))])
    }
}
