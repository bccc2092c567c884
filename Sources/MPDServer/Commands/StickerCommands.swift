import MPDProtocol
import PlayerCore
import PlayerRuntime
import ServerPorts

/// Stickers (`src/command/StickerCommands.cxx`): `sticker get|set|inc|dec|delete|list|find` on songs,
/// `stickernames`, `stickertypes`, `stickernamestypes`. A song sticker needs the song in the database
/// (`No such song`) unless the sticker store vouches for it (NetEase songs). Changes announce the `sticker` idle
/// event.
enum StickerCommands {
    /// What `commands` leaves out without a sticker database (MPD's `command_available`); they still answer
    /// "sticker database is disabled".
    static let hiddenWithoutStickers: Set<String> = ["sticker", "stickernames", "stickernamestypes", "stickertypes"]

    static let all: [CommandSpec] = [
        CommandSpec("sticker", .admin, 3...3, unbounded: true) { context, request in
            let stickers = try context.requireStickers()
            let queries = try context.requireQueries()
            let store = context.server.store
            let playlists = context.server.playlists
            let args = request.arguments
            let domain = try StickerDomain(parsing: args[1])
            let command = args[0]
            let uri = args[2]
            let type = domain.type
            /// `DomainHandler::ValidateUri`: the object must exist; gives the URI its stickers are stored under.
            @Sendable func validated() async throws -> String {
                try await domain.validate(uri, stickers: stickers, queries: queries, playlists: playlists)
            }
            @Sendable func announce() { _ = try? store.send(.announce([Change(.stickers)])) }
            func requireName() throws {
                guard !args[3].isEmpty else { throw ACKError(.arg, "empty sticker name", verbatim: true) }
            }
            switch (command, args.count) {
            case ("get", 4):
                return .deferred {
                    let key = try await validated()
                    // MPD stores an empty value, lists and finds it, but `get` answers it as missing
                    // (an empty `LoadValue` is "no such sticker").
                    guard let value = try await stickers.stickerValue(type: type, uri: key, name: args[3]),
                          !value.isEmpty else {
                        throw ACKError(.noExist, "no such sticker: " + MessageText.quoted(args[3]), verbatim: true)
                    }
                    var response = Response()
                    response.add("sticker", args[3] + "=" + value)
                    return response
                }
            case ("list", 3):
                return .deferred {
                    let key = try await validated()
                    var response = Response()
                    for sticker in try await stickers.stickers(type: type, uri: key) {
                        response.add("sticker", sticker.name + "=" + sticker.value)
                    }
                    return response
                }
            case ("set", 5):
                try requireName()
                return .deferred {
                    let key = try await validated()
                    try await stickers.setSticker(type: type, uri: key, name: args[3], value: args[4])
                    announce()
                    return Response()
                }
            case ("inc", 5), ("dec", 5):
                try requireName()
                return .deferred {
                    let key = try await validated()
                    try await stickers.adjustSticker(type: type, uri: key, name: args[3], by: args[4],
                                                     subtracting: command == "dec")
                    announce()
                    return Response()
                }
            case ("delete", 3), ("delete", 4):
                let name = args.count == 4 ? args[3] : nil
                return .deferred {
                    let key = try await validated()
                    guard try await stickers.deleteSticker(type: type, uri: key, name: name) else {
                        // MPD 0.24.9 crashes here when no name was given; 0.23 answered this.
                        throw ACKError(.noExist, "no such sticker" + (name.map { ": " + MessageText.quoted($0) } ?? ""),
                                       verbatim: true)
                    }
                    announce()
                    return Response()
                }
            case ("find", 4...):
                return try find(args, domain: domain, stickers: stickers, queries: queries)
            default:
                throw ACKError(.arg, "bad request")
            }
        },
        CommandSpec("stickernames", .admin, 0...0) { context, _ in
            let stickers = try context.requireStickers()
            return .deferred {
                var response = Response()
                for name in try await stickers.stickerNames() { response.add("name", name) }
                return response
            }
        },
        /// `handle_sticker_types`: the object types, then the tags that take stickers and the client shows.
        CommandSpec("stickertypes", .admin, 0...0) { context, _ in
            _ = try context.requireStickers()
            var response = Response()
            for type in ["filter", "playlist", "song"] { response.add("stickertype", type) }
            let mask = context.effectiveTagMask
            for tag in TagName.allCases where StickerDomain.allowedTags.contains(tag) && mask.contains(tag) {
                response.add("stickertype", tag.mpdName)
            }
            return .ok(response)
        },
        /// `stickernamestypes [TYPE]`: a tag type is checked (case-sensitively, unlike `sticker`'s), then looked up.
        CommandSpec("stickernamestypes", .admin, 0...1) { context, request in
            let stickers = try context.requireStickers()
            let type = request.count > 0 ? request[0] : nil
            if let type, !["song", "playlist", "filter"].contains(type) {
                // `tag_name_parse`: here the name must be spelled as MPD spells it.
                guard let tag = TagName.allCases.first(where: { $0.mpdName == type }) else {
                    throw ACKError(.arg, "no such tag " + MessageText.quoted(type), verbatim: true)
                }
                guard StickerDomain.allowedTags.contains(tag) else {
                    throw ACKError(.arg, "unsupported tag " + MessageText.quoted(type), verbatim: true)
                }
            }
            return .deferred {
                var response = Response()
                for entry in try await stickers.stickerNamesTypes(type: type) {
                    response.add("name", entry.name)
                    response.add("type", entry.type)
                }
                return response
            }
        },
    ]

    /// A song in the database, or one the sticker store vouches for (a catalogue's song).
    private static func exists(_ uri: String, stickers: any StickerStore, queries: any DatabaseQueries) async throws
        -> Bool
    {
        if stickers.vouchesFor(type: "song", uri: uri) { return true }
        return try await queries.songExists(uri: uri)
    }

    /// `sticker find TYPE BASE NAME [OP VALUE] [sort KEY] [window S:E]`: for songs, `file:` and `sticker:` per song
    /// under the directory BASE that is still in the database; for the other types, `TYPE: URI` and `sticker:` per
    /// object whose URI starts with BASE, whether or not it still exists (as MPD).
    private static func find(_ arguments: [String], domain: StickerDomain, stickers: any StickerStore,
                             queries: any DatabaseQueries) throws -> CommandOutcome
    {
        var args = arguments[...]
        var window: RangeArgument?
        var sort: StickerSort?
        var descending = false
        if args.count >= 6, args[args.endIndex - 2] == "window" {
            window = try RangeArgument(mpdArgument: args[args.endIndex - 1])
            args.removeLast(2)
        }
        if args.count >= 6, args[args.endIndex - 2] == "sort" {
            var key = args[args.endIndex - 1]
            if key.hasPrefix("-") {
                descending = true
                key.removeFirst()
            }
            guard let key = StickerSort(rawValue: key) else {
                throw ACKError(.arg, "Unknown sort tag " + MessageText.quoted(key), verbatim: true)
            }
            sort = key
            args.removeLast(2)
        }
        guard args.count == 4 || args.count == 6 else { throw ACKError(.arg, "bad request") }
        let base = args[args.startIndex + 2]
        let name = args[args.startIndex + 3]
        var comparison: StickerComparison?
        if args.count == 6 {
            let op = args[args.startIndex + 4]
            guard let known = StickerComparison.Operator(rawValue: op) else {
                throw ACKError(.arg, "bad operator " + MessageText.quoted(op), verbatim: true)
            }
            comparison = StickerComparison(known, args[args.startIndex + 5])
        }
        let (comparison2, sort2, descending2, window2) = (comparison, sort, descending, window)
        return .deferred {
            var response = Response()
            let (comparison, sort, descending, window) = (comparison2, sort2, descending2, window2)
            let found = try await stickers.findStickers(type: domain.type, base: base, name: name,
                                                        comparison: comparison, sort: sort, descending: descending,
                                                        window: window)
            guard case .song = domain else {
                for entry in found {
                    response.add(domain.type, entry.uri)
                    response.add("sticker", name + "=" + entry.value)
                }
                return response
            }
            for entry in found where try await exists(entry.uri, stickers: stickers, queries: queries) {
                response.add("file", entry.uri)
                response.add("sticker", name + "=" + entry.value)
            }
            return response
        }
    }
}

extension CommandContext {
    /// The sticker database, or MPD's ACK when there is none.
    func requireStickers() throws -> any StickerStore {
        guard let stickers = server.stickers else { throw ACKError(.unknown, "sticker database is disabled") }
        return stickers
    }
}

/// What a sticker is on (MPD 0.24's sticker domains): a song, a stored playlist, a filter, or a tag value.
enum StickerDomain: Sendable {
    case song, playlist, filter
    case tag(TagName)

    /// The tags whose values take stickers (`src/sticker/AllowedTags.cxx`).
    static let allowedTags: Set<TagName> = [
        .artist, .album, .albumArtist, .title, .genre, .composer, .performer, .conductor, .work, .ensemble,
        .location, .label, .musicBrainzArtistID, .musicBrainzAlbumID, .musicBrainzAlbumArtistID,
        .musicBrainzReleaseTrackID, .musicBrainzWorkID,
    ]

    /// `song`, `playlist`, `filter` as written, or a tag name in any case.
    init(parsing text: String) throws(ACKError) {
        switch text {
        case "song": self = .song
        case "playlist": self = .playlist
        case "filter": self = .filter
        default:
            guard let tag = TagName(parsing: text) else {
                throw ACKError(.arg, "unknown sticker domain " + MessageText.quoted(text), verbatim: true)
            }
            self = .tag(tag)
        }
    }

    /// The `type` column of the sticker table: the tag's canonical name for tags.
    var type: String {
        switch self {
        case .song: "song"
        case .playlist: "playlist"
        case .filter: "filter"
        case .tag(let tag): tag.mpdName
        }
    }

    /// `DomainHandler::ValidateUri`: the object must exist. A song must be in the database (or vouched for by the
    /// store); a playlist must be stored; a tag value must be some song's (`find TAG VALUE`); a filter must match a
    /// song, and its stickers are kept under its normalised expression, so that spellings of one filter share them.
    func validate(_ uri: String, stickers: any StickerStore, queries: any DatabaseQueries,
                  playlists: (any PlaylistStore)?) async throws -> String {
        switch self {
        case .song:
            if stickers.vouchesFor(type: "song", uri: uri) { return uri }
            guard try await queries.songExists(uri: uri) else { throw PortError.notFound("No such song") }
            return uri
        case .playlist:
            guard let playlists, try await playlists.playlists().contains(where: { $0.name == uri }) else {
                throw ACKError(.arg, "no such playlist: " + MessageText.quoted(uri))
            }
            return uri
        case .tag(let tag):
            guard Self.allowedTags.contains(tag) else { throw ACKError(.arg, "unsupported tag: " + MessageText.quoted(type)) }
            guard try await Self.matchesASong(.tag(.tag(tag), StringMatch(uri)), queries) else {
                throw ACKError(.arg, "no such \(type): " + MessageText.quoted(uri))
            }
            return uri
        case .filter:
            let filter = try FilterParser.parse(arguments: [uri], foldCase: false,
                                                validateRegex: DatabaseQueryCommands.validator(queries),
                                                keepingErrorKinds: true).optimized()
            let normalized = filter.mpdExpression
            guard try await Self.matchesASong(filter, queries) else {
                throw ACKError(.arg, "no matches found: " + MessageText.quoted(normalized))
            }
            return normalized
        }
    }

    private static func matchesASong(_ filter: FilterExpression, _ queries: any DatabaseQueries) async throws -> Bool {
        try await !queries.songs(matching: FilterQuery(expression: filter, window: RangeArgument(start: 0, end: 1))).isEmpty
    }
}
