import MPDProtocol
import PlayerCore

/// Stickers (`src/command/StickerCommands.cxx`): `sticker get|set|inc|dec|delete|list|find` on songs,
/// `stickernames`, `stickertypes`, `stickernamestypes`. A song sticker needs the song in the database
/// (`No such song`) unless the sticker store vouches for it (NetEase songs). Changes announce the `sticker` idle
/// event.
enum StickerCommands {
    static let all: [CommandSpec] = [
        CommandSpec("sticker", .admin, 3...3, unbounded: true) { context, request in
            let stickers = try context.requireStickers()
            let queries = try context.requireQueries()
            let store = context.server.store
            let args = request.arguments
            guard args[1] == "song" else { throw ACKError(.arg, "unknown sticker domain") }
            let command = args[0]
            let uri = args[2]
            /// `db.GetSong(uri)`: every subcommand but `find` needs the song (or the store's word for it).
            @Sendable func requireSong() async throws {
                guard try await exists(uri, stickers: stickers, queries: queries) else {
                    throw DatabaseError.notFound("No such song")
                }
            }
            @Sendable func announce() { store.announce([Change(.stickers)]) }
            switch (command, args.count) {
            case ("get", 4):
                return .deferred {
                    try await requireSong()
                    // MPD stores an empty value, lists and finds it, but `get` answers it as missing
                    // (`handle_sticker_song`: an empty `LoadValue` is "no such sticker").
                    guard let value = try await stickers.stickerValue(type: "song", uri: uri, name: args[3]),
                          !value.isEmpty else {
                        throw ACKError(.noExist, "no such sticker")
                    }
                    var response = Response()
                    response.add("sticker", args[3] + "=" + value)
                    return response
                }
            case ("list", 3):
                return .deferred {
                    try await requireSong()
                    var response = Response()
                    for sticker in try await stickers.stickers(type: "song", uri: uri) {
                        response.add("sticker", sticker.name + "=" + sticker.value)
                    }
                    return response
                }
            case ("set", 5):
                return .deferred {
                    try await requireSong()
                    try await stickers.setSticker(type: "song", uri: uri, name: args[3], value: args[4])
                    announce()
                    return Response()
                }
            case ("inc", 5), ("dec", 5):
                guard let delta = Int(args[4]) else { throw ACKError(.arg, "Integer expected: \(args[4])") }
                return .deferred {
                    try await requireSong()
                    try await stickers.addToSticker(type: "song", uri: uri, name: args[3],
                                                    delta: command == "inc" ? delta : -delta)
                    announce()
                    return Response()
                }
            case ("delete", 3), ("delete", 4):
                let name = args.count == 4 ? args[3] : nil
                return .deferred {
                    try await requireSong()
                    guard try await stickers.deleteSticker(type: "song", uri: uri, name: name) else {
                        throw ACKError(.noExist, "no such sticker")
                    }
                    announce()
                    return Response()
                }
            case ("find", 4...):
                return try find(args, stickers: stickers, queries: queries)
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
        CommandSpec("stickertypes", .admin, 0...0) { context, _ in
            _ = try context.requireStickers()
            var response = Response()
            response.add("stickertype", "song")
            return .ok(response)
        },
        CommandSpec("stickernamestypes", .admin, 0...1) { context, request in
            let stickers = try context.requireStickers()
            let type = request.count > 0 ? request[0] : nil
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

    /// `sticker find song DIR NAME [OP VALUE] [sort KEY] [window S:E]`: `file:` and `sticker:` per song that is
    /// still in the database.
    private static func find(_ arguments: [String], stickers: any StickerStore, queries: any DatabaseQueries) throws
        -> CommandOutcome
    {
        var args = arguments[...]
        var window: RangeArgument?
        var sort: String?
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
            guard ["uri", "value", "value_int"].contains(key) else { throw ACKError(.arg, "Unknown sort tag") }
            sort = key
            args.removeLast(2)
        }
        guard args.count == 4 || args.count == 6 else { throw ACKError(.arg, "bad request") }
        let base = args[args.startIndex + 2]
        let name = args[args.startIndex + 3]
        var op: String?
        var value: String?
        if args.count == 6 {
            op = args[args.startIndex + 4]
            value = args[args.startIndex + 5]
            guard ["=", "<", ">", "eq", "lt", "gt", "contains", "starts_with"].contains(op!) else {
                throw ACKError(.arg, "bad operator")
            }
        }
        let (op2, value2, sort2, descending2, window2) = (op, value, sort, descending, window)
        return .deferred {
            var response = Response()
            let (op, value, sort, descending, window) = (op2, value2, sort2, descending2, window2)
            let found = try await stickers.findStickers(type: "song", base: base, name: name, op: op, value: value,
                                                        sort: sort, descending: descending, window: window)
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
