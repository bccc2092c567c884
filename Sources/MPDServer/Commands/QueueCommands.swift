import MPDProtocol
import PlayerCore
import PlayerRuntime
import ServerPorts

/// "The Queue" (`src/command/QueueCommands.cxx`, `TagCommands.cxx`): editing and listing the current playlist.
/// Positions and ranges are checked against the queue the handler sees; the reducer checks them again when the
/// action is applied, so a concurrent edit by another client cannot corrupt the queue.
enum QueueCommands {
    static let all: [CommandSpec] = [
        CommandSpec("add", .add, 1...2) { context, request in
            let uri = request[0] == "/" ? "" : request[0]
            let position = try insertPosition(request, 1, context)
            try LocateURI.check(uri, allowEmpty: true)
            return try add(uri: uri, at: position, single: false, context)
        },
        CommandSpec("addid", .add, 1...2) { context, request in
            let position = try insertPosition(request, 1, context)
            try LocateURI.check(request[0])
            return try add(uri: request[0], at: position, single: true, context)
        },
        CommandSpec("clear", .player, 0...0) { context, _ in
            try send(.clear, context)
        },
        CommandSpec("delete", .player, 1...1) { context, request in
            let range = try request.argument(RangeArgument.self, 0)
            return try send(.delete(start: range.start, end: range.end), context)
        },
        CommandSpec("deleteid", .player, 1...1) { context, request in
            try send(.deleteID(Int(try MPDInteger.parseUnsigned(request[0]))), context)
        },
        CommandSpec("move", .player, 2...2) { context, request in
            let range = try request.argument(RangeArgument.self, 0)
            guard let end = range.end else { throw ACKError(.arg, "Open-ended range not supported") }
            let to = try moveDestination(request[1], start: range.start, end: end, context)
            return try send(.move(start: range.start, end: end, to: to), context)
        },
        CommandSpec("moveid", .player, 2...2) { context, request in
            let id = Int(try MPDInteger.parseUnsigned(request[0]))
            guard let position = partition(context).queue.position(ofID: id) else { throw PlayerError.noSuchSong }
            let to = try moveDestination(request[1], start: position, end: position + 1, context)
            return try send(.move(start: position, end: position + 1, to: to), context)
        },
        CommandSpec("swap", .player, 2...2) { context, request in
            let a = Int(try MPDInteger.parseUnsigned(request[0]))
            let b = Int(try MPDInteger.parseUnsigned(request[1]))
            return try send(.swap(a, b), context)
        },
        CommandSpec("swapid", .player, 2...2) { context, request in
            let a = Int(try MPDInteger.parseUnsigned(request[0]))
            let b = Int(try MPDInteger.parseUnsigned(request[1]))
            return try send(.swapIDs(a, b), context)
        },
        CommandSpec("shuffle", .player, 0...1) { context, request in
            let range = try request.optionalArgument(RangeArgument.self, 0) ?? .all
            return try send(.shuffle(start: range.start, end: range.end), context)
        },
        /// Each range is its own edit, as in MPD: an error stops at the failing range.
        CommandSpec("prio", .player, 2...2, unbounded: true) { context, request in
            let priority = UInt8(try MPDInteger.parseUnsigned(request[0], max: 255))
            for text in request.arguments.dropFirst() {
                let range = try RangeArgument(mpdArgument: text)
                try context.server.store.send(.setPriority(priority, start: range.start, end: range.end),
                                              partition: context.client.partition)
            }
            return .ok(Response())
        },
        CommandSpec("prioid", .player, 2...2, unbounded: true) { context, request in
            let priority = UInt8(try MPDInteger.parseUnsigned(request[0], max: 255))
            for text in request.arguments.dropFirst() {
                let id = Int(try MPDInteger.parseUnsigned(text))
                try context.server.store.send(.setPriorityID(priority, id: id), partition: context.client.partition)
            }
            return .ok(Response())
        },
        CommandSpec("rangeid", .add, 2...2) { context, request in
            let id = Int(try MPDInteger.parseUnsigned(request[0]))
            guard let range = timeRange(request[1]) else { throw ACKError(.arg, "Bad range") }
            return try send(.setSongRange(id: id, start: range.start, end: range.end), context)
        },
        CommandSpec("addtagid", .add, 3...3) { context, request in
            let id = Int(try MPDInteger.parseUnsigned(request[0]))
            guard let tag = TagName(parsing: request[1]) else {
                throw ACKError(.arg, "Unknown tag type: \(request[1])", verbatim: true)
            }
            // The value as MPD's TagBuilder keeps it (FixTagString): bytes that are not UTF-8 become `?`.
            let value = Song.Tag.text(ByteText.encode(request[2].utf8))
            return try send(.addTag(id: id, name: tag.mpdName, value: value), context)
        },
        CommandSpec("cleartagid", .add, 1...2) { context, request in
            let id = Int(try MPDInteger.parseUnsigned(request[0]))
            var name: String?
            if request.count > 1 {
                guard let tag = TagName(parsing: request[1]) else {
                    throw ACKError(.arg, "Unknown tag type: \(request[1])", verbatim: true)
                }
                name = tag.mpdName
            }
            return try send(.clearTags(id: id, name: name), context)
        },
        /// Deprecated: `N:file: URI` lines.
        CommandSpec("playlist", .read, 0...0) { context, _ in
            var response = Response()
            for (position, item) in partition(context).queue.items.enumerated() {
                response.addLine("\(position):file: \(item.song.uri)")
            }
            return .ok(response)
        },
        CommandSpec("playlistinfo", .read, 0...1) { context, request in
            let range = try request.optionalArgument(RangeArgument.self, 0) ?? .all
            let p = partition(context)
            guard range.start <= p.queue.count else { throw PlayerError.badSongIndex }
            let end = min(range.end ?? p.queue.count, p.queue.count)
            return .ok(songs(p, range.start..<max(range.start, end), context))
        },
        CommandSpec("playlistid", .read, 0...1) { context, request in
            let p = partition(context)
            guard request.count > 0 else { return .ok(songs(p, 0..<p.queue.count, context)) }
            let id = Int(try MPDInteger.parseUnsigned(request[0]))
            guard let position = p.queue.position(ofID: id) else { throw PlayerError.noSuchSong }
            return .ok(songs(p, position..<(position + 1), context))
        },
        CommandSpec("playlistfind", .read, 1...1, unbounded: true) { context, request in
            try find(request, .playlistfind, context)
        },
        CommandSpec("playlistsearch", .read, 1...1, unbounded: true) { context, request in
            try find(request, .playlistsearch, context)
        },
        CommandSpec("plchanges", .read, 1...2) { context, request in
            let version = try request.argument(UInt32.self, 0)
            let p = partition(context)
            var response = Response()
            for position in try relaxedRange(request, 1, p) where p.queue.isNewer(at: position, than: version) {
                SongFormatter.write(p.queue.items[position], position: position, mask: context.effectiveTagMask,
                                    into: &response)
            }
            return .ok(response)
        },
        CommandSpec("plchangesposid", .read, 1...2) { context, request in
            let version = try request.argument(UInt32.self, 0)
            let p = partition(context)
            var response = Response()
            for position in try relaxedRange(request, 1, p) where p.queue.isNewer(at: position, than: version) {
                response.add("cpos", position)
                response.add("Id", p.queue.items[position].id)
            }
            return .ok(response)
        },
    ]

    // MARK: Helpers

    static func partition(_ context: CommandContext) -> PartitionState {
        context.server.store.partition(context.client.partition)
            ?? PartitionState(name: context.client.partition)
    }

    private static func send(_ action: Action, _ context: CommandContext) throws -> CommandOutcome {
        try context.server.store.send(action, partition: context.client.partition)
        return .ok(Response())
    }

    /// `ParseInsertPosition` against the queue as it is now.
    static func insertPosition(_ request: Request, _ index: Int, _ context: CommandContext) throws(ACKError) -> Int? {
        guard index < request.count else { return nil }
        let p = partition(context)
        return try PositionArgument(mpdArgument: request[index])
            .resolve(queueLength: p.queue.count, current: p.currentPosition)
    }

    /// `ParseMoveDestination`: absolute, or relative to the current song, which must not be in the moved range.
    private static func moveDestination(_ text: String, start: Int, end: Int, _ context: CommandContext)
        throws(ACKError) -> Int
    {
        let p = partition(context)
        let length = p.queue.count
        let count = end - start
        // MPD computes the bounds in unsigned arithmetic: a range longer than the queue wraps to "no bound".
        func bound(_ value: Int) -> UInt { value >= 0 ? UInt(value) : UInt(UInt32.max) }
        let relative = text.hasPrefix("+") || text.hasPrefix("-")
        guard relative else { return Int(try MPDInteger.parseUnsigned(text, max: bound(length - count))) }
        guard var current = p.currentPosition else { throw ACKError(.playerSync, "No current song") }
        if (start..<end).contains(current) {
            throw ACKError(.arg, "Cannot move current song relative to itself")
        }
        if current >= end { current -= count }
        let offset = Int(try MPDInteger.parseUnsigned(String(text.dropFirst()), max: bound(length - current - count)))
        return text.hasPrefix("+") ? current + 1 + offset : current - offset
    }

    /// `add`/`addid`: URLs go straight into the queue; anything else is looked up in the database off the loop.
    private static func add(uri: String, at position: Int?, single: Bool, _ context: CommandContext) throws
        -> CommandOutcome
    {
        let store = context.server.store
        let partition = context.client.partition
        if uri.hasPrefix("/") || uri.hasPrefix("file://") {
            // A local file outside the database (`LocateAbsoluteFile`): only for local clients.
            guard context.client.isLocal else { throw ACKError(.permission, "Access to local files via TCP is not allowed") }
            let path = uri.hasPrefix("file://") ? String(uri.dropFirst("file://".count)) : uri
            let ids = try store.send(.add([Song(uri: path)], at: position), partition: partition).addedIDs
            return .ok(single ? idResponse(ids) : Response())
        }
        if let catalog = context.server.catalog, catalog.recognizes(uri) {
            // A catalogue URI or share link: its songs, tagged (a playlist or album becomes all its tracks).
            return .deferred {
                let songs = try await catalog.songs(for: uri)
                if single {
                    // `addid` takes one song, never a collection.
                    guard songs.count == 1 else { throw PortError.notFound("No such song") }
                }
                let ids = try store.send(.add(songs, at: position), partition: partition).addedIDs
                guard ids.count == songs.count else { throw PlayerError.playlistTooLarge }
                return single ? idResponse(ids) : Response()
            }
        }
        if let scheme = scheme(of: uri) {
            // Schemes the input side plays (`urlhandlers`); HTTP(S) always works through libcurl.
            guard scheme == "http" || scheme == "https" || context.server.settings.urlSchemes.contains(scheme + "://")
            else { throw ACKError(.arg, "Unsupported URI scheme") }
            let ids = try store.send(.add([Song(uri: uri)], at: position), partition: partition).addedIDs
            return .ok(single ? idResponse(ids) : Response())
        }
        guard let database = context.server.database else { throw PortError.disabled }
        return .deferred {
            let songs: SongList
            do {
                songs = try await database.songsForQueue(uri: uri)
            } catch PortError.notFound(let message) {
                throw single ? PortError.notFound("No such song") : PortError.notFound(message)
            }
            if single {
                // `addid` takes one song, never a directory, and looks it up by URI (`Added:` is its file's time).
                guard songs.count == 1, songs[0].uri == uri else { throw PortError.notFound("No such song") }
                let ids = try store.send(.add([songs[0].lookedUpByURI], at: position), partition: partition).addedIDs
                return idResponse(ids)
            }
            let ids = try store.send(.add(songs, at: position), partition: partition).addedIDs
            guard ids.count == songs.count else { throw PlayerError.playlistTooLarge }
            return single ? idResponse(ids) : Response()
        }
    }

    private static func idResponse(_ ids: [Int]) -> Response {
        var response = Response()
        if let id = ids.first { response.add("Id", id) }
        return response
    }

    /// The scheme of an absolute URI (`uri_has_scheme`: letters, digits, `+`, `-`, `.` before `://`), lowercased.
    static func scheme(of uri: String) -> String? {
        let bytes = Array(uri.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, bytes[colon...].starts(with: "://".utf8)
        else { return nil }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self)
        guard scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else {
            return nil
        }
        return scheme.lowercased()
    }

    /// `parse_time_range`: `START:END` in seconds, either side may be empty; END must be after START unless it is
    /// empty or zero. Times are kept in whole milliseconds (`SongTime`).
    static func timeRange(_ text: String) -> (start: Double, end: Double?)? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        func seconds(_ part: Substring) -> Double?? {
            if part.isEmpty { return .some(nil) }
            guard let value = try? Float(mpdArgument: String(part)), !(value < 0) else { return nil }
            return .some(MPDTime.seconds(MPDTime.milliseconds(value)))
        }
        guard let start = seconds(text[..<colon]), let end = seconds(text[text.index(after: colon)...]) else {
            return nil
        }
        let s = start ?? 0
        let e = end.flatMap { $0 == 0 ? nil : $0 }
        if let e, e <= s { return nil }
        return (s, e)
    }

    /// `RangeArg::ClipRelaxed` for `plchanges`: both ends are clipped silently.
    private static func relaxedRange(_ request: Request, _ index: Int, _ p: PartitionState) throws(ACKError)
        -> Range<Int>
    {
        let range = try request.optionalArgument(RangeArgument.self, index) ?? .all
        let count = p.queue.count
        let start = min(range.start, count)
        return start..<max(start, min(range.end ?? count, count))
    }

    static func songs(_ p: PartitionState, _ positions: Range<Int>, _ context: CommandContext) -> Response {
        var response = Response()
        // A song block is a few hundred bytes (~270 with the usual tags); growing a multi-megabyte response by
        // doubling copies it each time, and a reserve just short of it costs one doubling at the very end.
        response.reserveCapacity(positions.count * 320)
        let mask = context.effectiveTagMask
        response.writeLines { lines in
            for position in positions {
                SongFormatter.write(p.queue.items[position], position: position, mask: mask, into: &lines)
            }
        }
        return response
    }

    /// `playlistfind` / `playlistsearch`: the queue filtered in memory; 0.24's `sort` and `window` apply after.
    private static func find(_ request: Request, _ command: FilterCommand, _ context: CommandContext) throws
        -> CommandOutcome
    {
        let query = try FilterParser.parseQuery(arguments: request.arguments, command: command,
                                                validateRegex: SongMatcher.validateRegex)
        let p = partition(context)
        let matcher = SongMatcher(query.expression)
        var positions = p.queue.items.withUnsafeBufferPointer { matcher.matchingPositions($0) }
        if let sort = query.sort {
            positions = SongMatcher.sorted(positions, by: sort) { p.queue.items[$0] }
        }
        if let window = query.window {
            guard window.start <= positions.count else { throw PlayerError.badSongIndex }
            let start = window.start
            positions = Array(positions[start..<max(start, min(window.end ?? positions.count, positions.count))])
        }
        var response = Response()
        for position in positions {
            SongFormatter.write(p.queue.items[position], position: position, mask: context.effectiveTagMask,
                                into: &response)
        }
        return .ok(response)
    }
}
