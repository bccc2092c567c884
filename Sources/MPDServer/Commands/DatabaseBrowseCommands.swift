import MPDProtocol
import PlayerCore
import ServerPorts

/// Browsing the music database and the files under it (`src/command/DatabaseCommands.cxx`,
/// `src/command/FileCommands.cxx`, `src/command/OtherCommands.cxx`): `lsinfo`, `listall`, `listallinfo`,
/// `listfiles`, `update`, `rescan`, `readcomments`, `albumart`, `readpicture`.
/// Everything that touches the database runs deferred, off the event loop.
enum DatabaseBrowseCommands {
    /// The records `lsinfo ""` prints after the database ones: the stored playlists (`playlist:` +
    /// `Last-Modified:`, `src/command/OtherCommands.cxx:handle_lsinfo`; failures to list them are ignored).
    static func rootPlaylists(_ context: CommandContext) -> (@Sendable () async throws -> Response)? {
        guard let store = context.server.playlists else { return nil }
        return {
            var response = Response()
            guard let playlists = try? await store.playlists() else { return response }
            for playlist in playlists {
                response.add("playlist", playlist.name)
                response.addTime("Last-Modified", unix: playlist.lastModified)
            }
            return response
        }
    }

    static let all: [CommandSpec] = [
        CommandSpec("lsinfo", .read, 0...1) { context, request in
            let uri = request.count > 0 ? request[0] : ""
            let isRoot = uri.isEmpty || uri == "/"
            if !isRoot { try LocateURI.check(uri) }
            // Any other absolute path names a local file outside the database (`LocateUri`): only a local client
            // may look at one.
            if !isRoot, uri.hasPrefix("/"), !context.client.isLocal { throw ACKError(.permission, "Access to local files via TCP is not allowed") }
            return try listing(context, uri: uri, recursive: false, full: true,
                               extras: isRoot ? rootPlaylists(context) : nil)
        },
        CommandSpec("listall", .read, 0...1) { context, request in
            try listing(context, uri: request.count > 0 ? request[0] : "", recursive: true, full: false)
        },
        CommandSpec("listallinfo", .read, 0...1) { context, request in
            try listing(context, uri: request.count > 0 ? request[0] : "", recursive: true, full: true)
        },
        CommandSpec("listfiles", .read, 0...1) { context, request in
            let uri = request.count > 0 ? request[0] : ""
            try LocateURI.check(uri, allowEmpty: true)
            let database = try context.requireDatabase()
            return .deferred {
                var response = Response()
                for entry in try await database.files(uri: uri) {
                    if entry.isDirectory {
                        response.add("directory", entry.name)
                    } else {
                        response.add("file", entry.name)
                        response.add("size", entry.size)
                    }
                    response.addTime("Last-Modified", unix: entry.lastModified)
                }
                return response
            }
        },
        CommandSpec("update", .control, 0...1) { context, request in
            try startUpdate(context, request, rescan: false)
        },
        CommandSpec("rescan", .control, 0...1) { context, request in
            try startUpdate(context, request, rescan: true)
        },
        CommandSpec("readcomments", .read, 1...1) { context, request in
            let uri = request[0]
            try LocateURI.check(uri)
            let database = try context.requireDatabase()
            return .deferred {
                var response = Response()
                for (key, value) in try await database.comments(uri: uri) { response.add(key, value) }
                return response
            }
        },
        CommandSpec("albumart", .read, 2...2) { context, request in
            let uri = request[0]
            let offset = Int(try MPDInteger.parseUnsigned(request[1]))
            // A folder with its trailing slash (Cantata asks `albumart "Artist/Album/" 0`) names that folder's
            // cover, as in MPD up to 0.24.10; 0.24.11's check would refuse it (docs/ARCHITECTURE.md §2).
            try LocateURI.check(uri.hasSuffix("/") && LocateURI.isRelative(uri) ? String(uri.dropLast()) : uri)
            let limit = context.client.binaryLimit
            let database = try context.requireDatabase()
            return .deferred {
                let data = try await database.albumArt(uri: uri)
                guard offset <= data.count else { throw ACKError(.arg, "Offset too large") }
                var response = Response()
                response.add("size", data.count)
                response.addBinary(data[offset..<min(data.count, offset + limit)])
                return response
            }
        },
        CommandSpec("readpicture", .read, 2...2) { context, request in
            let uri = request[0]
            let offset = Int(try MPDInteger.parseUnsigned(request[1]))
            try LocateURI.check(uri)
            let limit = context.client.binaryLimit
            let database = try context.requireDatabase()
            return .deferred {
                var response = Response()
                guard let picture = try await database.picture(uri: uri) else { return response }
                let data = picture.data
                guard offset <= data.count else { throw ACKError(.arg, "Bad file offset") }
                response.add("size", data.count)
                if let type = picture.mimeType { response.add("type", type) }
                response.addBinary(data[offset..<min(data.count, offset + limit)])
                return response
            }
        },
    ]

    static func startUpdate(_ context: CommandContext, _ request: Request, rescan: Bool) throws -> CommandOutcome {
        let database = try context.requireDatabase()
        let uri = request.count > 0 ? request[0] : ""
        var response = Response()
        response.add("updating_db", try database.startUpdate(uri: uri, rescan: rescan))
        return .ok(response)
    }

    /// `lsinfo`, `listall`, `listallinfo`: the records streamed from the database into an answer bounded by the
    /// client's output buffer (a listing of a large library is never held whole).
    static func listing(_ context: CommandContext, uri: String, recursive: Bool, full: Bool,
                        extras: (@Sendable () async throws -> Response)? = nil) throws -> CommandOutcome {
        let database = try context.requireDatabase()
        let mask = full ? context.effectiveTagMask : .none
        let limit = context.server.settings.outputBufferLimit
        // A folder the database has at hand is printed at once, without a trip off the event loop.
        if !recursive, extras == nil, let entries = database.cachedEntries(uri: uri) {
            var response = Response()
            for entry in entries { write(entry, full: full, mask: mask, into: &response) }
            return .ok(response)
        }
        return .deferred {
            var response = try await StreamedAnswer.build(limit: limit) { answer in
                try await database.visitEntries(uri: uri, recursive: recursive) { entry in
                    answer.write { write(entry, full: full, mask: mask, into: &$0) }
                }
            }
            if let extras { response.append(try await extras()) }
            return response
        }
    }

    /// `db_selection_print`: a full record (`lsinfo`, `listallinfo`) or the URI only (`listall`).
    static func write(_ entry: LibraryEntry, full: Bool, mask: TagMask, into response: inout Response) {
        switch entry {
        case .directory(let path, let modified):
            response.add("directory", path)
            if full, let modified { response.addTime("Last-Modified", unix: modified) }
        case .song(let song):
            if full {
                SongFormatter.write(song, mask: mask, into: &response)
            } else {
                response.add("file", song.uri)
            }
            // A song with an embedded cue sheet is also a playlist (`PrintSongBrief`, `PrintSongFull`).
            if song.hasPlaylist { response.add("playlist", song.uri) }
        case .playlist(let path, let modified):
            response.add("playlist", path)
            if full, let modified { response.addTime("Last-Modified", unix: modified) }
        }
    }
}

extension CommandContext {
    /// The database, or ACK 50 "No database" when no music directory is configured.
    func requireDatabase() throws -> any MusicDatabase {
        guard let database = server.database else { throw PortError.disabled }
        return database
    }
}
