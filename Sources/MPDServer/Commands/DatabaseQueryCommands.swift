import MPDProtocol
import PlayerCore
import PlayerRuntime
import ServerPorts

/// Searching the music database (`src/command/DatabaseCommands.cxx`): `find`, `search`, `findadd`, `searchadd`,
/// `searchaddpl`, `count`, `searchcount`, `list`. Arguments are parsed (and regexes compiled) on the event loop so
/// errors come in MPD's order; the SQLite work runs deferred.
enum DatabaseQueryCommands {
    static let all: [CommandSpec] = [
        CommandSpec("find", .read, 1...1, unbounded: true) { context, request in
            try printSongs(.find, request, context)
        },
        CommandSpec("search", .read, 1...1, unbounded: true) { context, request in
            try printSongs(.search, request, context)
        },
        CommandSpec("findadd", .add, 1...1, unbounded: true) { context, request in
            try addSongs(.findadd, request, context)
        },
        CommandSpec("searchadd", .add, 1...1, unbounded: true) { context, request in
            try addSongs(.searchadd, request, context)
        },
        CommandSpec("searchaddpl", .control, 2...2, unbounded: true) { context, request in
            try addToPlaylist(request, context)
        },
        CommandSpec("count", .read, 1...1, unbounded: true) { context, request in
            try count(request, foldCase: false, context)
        },
        CommandSpec("searchcount", .read, 1...1, unbounded: true) { context, request in
            try count(request, foldCase: true, context)
        },
        CommandSpec("list", .read, 1...1, unbounded: true) { context, request in
            let queries = try context.requireQueries()
            let query = try FilterParser.parseList(arguments: request.arguments, validateRegex: validator(queries))
            // An answer given since the database last changed is printed at once, without a trip off the event loop.
            if let rows = queries.cachedList(query) {
                var response = Response()
                writeListing(rows, query) { body in
                    body(&response)
                    return true
                }
                return .ok(response)
            }
            let limit = context.server.settings.outputBufferLimit
            return .deferred {
                let rows = try await queries.list(query)
                // Streamed: `list album group albumartist` of a large library is megabytes.
                return try await StreamedAnswer.build(limit: limit) { answer in
                    writeListing(rows, query) { answer.write($0) }
                }
            }
        },
    ]

    /// `list`'s rows as MPD prints them: a level's value only where it changes from the row before. Each row goes
    /// through `write`, which returns false to stop.
    private static func writeListing(_ rows: [[String]], _ query: ListQuery,
                                     _ write: ((inout Response) -> Void) -> Bool) {
        guard let tag = query.tag else {
            for row in rows {
                guard write({ $0.add("file", row[0]) }) else { return }
            }
            return
        }
        let names = (query.groups + [tag]).map(\.mpdName)
        var previous: [String]?
        for row in rows {
            var level = 0
            if let previous {
                while level < row.count - 1, row[level] == previous[level] { level += 1 }
            }
            guard write({ response in for i in level..<row.count { response.add(names[i], row[i]) } }) else { return }
            previous = row
        }
    }

    static func validator(_ queries: any DatabaseQueries) -> FilterParser.RegexValidator {
        { pattern, caseless throws(ACKError) in
            do { try queries.validateRegex(pattern, caseless: caseless) } catch { throw ACKError.from(error) }
        }
    }

    /// `find` / `search`: a song block per match (`song_print_info`).
    private static func printSongs(_ command: FilterCommand, _ request: Request, _ context: CommandContext) throws
        -> CommandOutcome
    {
        let queries = try context.requireQueries()
        let query = try FilterParser.parseQuery(arguments: request.arguments, command: command,
                                                validateRegex: validator(queries))
        let mask = context.effectiveTagMask
        let catalog = context.server.catalog
        let logger = context.server.logger
        let limit = context.server.settings.outputBufferLimit
        // MPD 0.23 sorts copies (`DetachedSong`) that lose the audio format, so sorted results have no `Format:` line
        // (checked against Debian's MPD).
        let sorted = query.sort != nil
        @Sendable func write(_ song: Song, into response: inout Response) {
            var song = song
            if sorted { song.audioFormat = nil }
            SongFormatter.write(song, mask: mask, into: &response)
            // A song with an embedded cue sheet is also a playlist (`PrintSongFull`).
            if song.hasPlaylist { response.add("playlist", song.uri) }
        }
        let online = OnlineSearch.asksCatalog(query, command: command, catalog: catalog)
        // A search answered since the database last changed is printed at once, without a trip off the event loop.
        if !online, let songs = queries.cachedSongs(matching: query) {
            var response = Response()
            for song in songs { write(song, into: &response) }
            return .ok(response)
        }
        return .deferred {
            try await StreamedAnswer.build(limit: limit) { answer in
                // Local matches stream from the database; with the online catalogue the lists are merged first.
                if online {
                    for song in try await OnlineSearch.songs(query, command: command, queries: queries, catalog: catalog,
                                                        logger: logger) {
                        guard answer.write({ write(song, into: &$0) }) else { return }
                    }
                } else {
                    try await queries.visitSongs(matching: query) { song in answer.write { write(song, into: &$0) } }
                }
            }
        }
    }

    /// `findadd` / `searchadd`: appends the matches (sorted and windowed) to the queue, or inserts them at
    /// `position`, resolved against the queue as the client saw it.
    private static func addSongs(_ command: FilterCommand, _ request: Request, _ context: CommandContext) throws
        -> CommandOutcome
    {
        let queries = try context.requireQueries()
        let store = context.server.store
        let partition = context.client.partition
        let state = store.partition(partition)
        var position: Int?
        let query = try FilterParser.parseQuery(
            arguments: request.arguments, command: command, validateRegex: validator(queries),
            checkPosition: { argument throws(ACKError) in
                position = try argument.resolve(queueLength: state?.queue.count ?? 0, current: state?.currentPosition)
            })
        let at = position
        let catalog = context.server.catalog
        let logger = context.server.logger
        return .deferred {
            let songs = try await OnlineSearch.songs(query, command: command, queries: queries, catalog: catalog,
                                                        logger: logger)
            if !songs.isEmpty {
                // Songs that fit stay; the rest is MPD's "Playlist is too large".
                let ids = try store.send(.add(songs, at: at, bulk: false), partition: partition).addedIDs
                guard ids.count == songs.count else { throw PlayerError.playlistTooLarge }
            }
            return Response()
        }
    }

    /// `searchaddpl NAME FILTER [sort] [window] [position POS]` (`search_add_to_playlist`,
    /// `SearchInsertIntoPlaylist`): appends the matches to a stored playlist, creating it. Without `position`,
    /// MPD appends song by song, so nothing happens (not even a name check) when nothing matches; with one, the
    /// position is checked against the playlist first and the file is written only when something matched.
    private static func addToPlaylist(_ request: Request, _ context: CommandContext) throws -> CommandOutcome {
        let queries = try context.requireQueries()
        guard let playlists = context.server.playlists else {
            throw ACKError(.unknown, "Stored playlists are disabled")
        }
        let name = request[0]
        let query = try FilterParser.parseQuery(arguments: Array(request.arguments.dropFirst()), command: .searchaddpl,
                                                validateRegex: validator(queries))
        var position: Int?
        if case .absolute(let text)? = query.position, let value = UInt32(text), value != UInt32.max {
            position = Int(value)
        }
        let at = position
        let player = context.server.store
        let catalog = context.server.catalog
        let logger = context.server.logger
        return .deferred {
            let uris = try await OnlineSearch.songs(query, command: .searchaddpl, queries: queries, catalog: catalog,
                                                        logger: logger)
                .map(\.uri)
            guard at != nil || !uris.isEmpty else { return Response() }
            guard ByteText.isValidPlaylistName(name) else { throw PlayerError.badPlaylistName }
            try await playlists.editPlaylist(name, createIfMissing: true) { current in
                let index = at ?? current.count
                guard index <= current.count else { throw PlayerError.badRange("Bad position") }
                guard !uris.isEmpty else { return nil }
                var updated = current
                updated.insert(contentsOf: uris, at: index)
                return updated
            }
            if !uris.isEmpty { _ = try? player.send(.announce([Change(.storedPlaylists)])) }
            return Response()
        }
    }

    /// `count` / `searchcount`: `songs:` and `playtime:`, once or per value of the group tag.
    private static func count(_ request: Request, foldCase: Bool, _ context: CommandContext) throws -> CommandOutcome {
        let queries = try context.requireQueries()
        let query = try FilterParser.parseCount(arguments: request.arguments, foldCase: foldCase,
                                                validateRegex: validator(queries))
        return .deferred {
            var response = Response()
            for row in try await queries.count(query) {
                if let group = query.group { response.add(group.mpdName, row.group ?? "") }
                response.add("songs", row.songs)
                response.add("playtime", row.playtime)
            }
            return response
        }
    }
}

extension CommandContext {
    /// The database queries, or ACK 50 "No database" when no music directory is configured.
    func requireQueries() throws -> any DatabaseQueries {
        guard let queries = server.queries else { throw PortError.disabled }
        return queries
    }
}
