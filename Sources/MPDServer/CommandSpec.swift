import Glibc
import MPDProtocol

/// What a command handler asks the session to do after it returns.
public enum CommandOutcome: Sendable {
    case ok(Response)
    /// Work that may block or wait (SQLite, the network): it runs off the event loop while the client's further
    /// input waits, like MPD's background commands. The response it returns is written when it completes.
    case deferred(@Sendable () async throws -> Response)
    /// `idle`: wait for these subsystems.
    case idle(IdleSubsystems)
    /// `close`: flush what was written, then close.
    case close
    /// `kill`: stop the server.
    case kill
}

/// Everything a handler may touch: its client's state and the server.
public struct CommandContext {
    public var client: ClientState
    public let server: ServerContext
    /// The storage of this connection's last answer, emptied, for a handler to write its next one in
    /// (`Response(reusing:)`): `status`, asked again and again, then allocates and frees nothing.
    public var spareBytes: [UInt8] = []
}

/// Handlers run on the connection's event loop and must not block; slow work returns `.deferred`.
public typealias CommandHandler = @Sendable (inout CommandContext, Request) throws -> CommandOutcome

/// One row of the command table, as in MPD's `AllCommands.cxx`: name, permission, argument bounds, handler.
public struct CommandSpec: Sendable {
    public var name: String
    public var permission: Permission
    /// nil: the arguments are not checked (MPD's −1/−1).
    public var arguments: ClosedRange<Int>?
    /// MPD's max −1: at least `arguments.lowerBound`, no upper bound.
    public var unbounded: Bool
    public var handler: CommandHandler
    /// The file that declares the command, as the compiler named it (`#filePath`), captured by default so that
    /// `docs/commands.md` can say where each handler lives without any call site naming it. (`#fileID` would drop the
    /// `Commands/` folder.)
    public var filePath: String

    /// `filePath` from the package root, e.g. `Sources/MPDServer/Commands/QueueCommands.swift`: from its last
    /// `Sources` folder on, however the build spelled the path.
    public var sourceFile: String {
        let parts = filePath.split(separator: "/", omittingEmptySubsequences: false)
        guard let root = parts.lastIndex(of: "Sources") else { return filePath }
        return parts[root...].joined(separator: "/")
    }

    public init(_ name: String, _ permission: Permission, _ arguments: ClosedRange<Int>?, unbounded: Bool = false,
                filePath: String = #filePath, handler: @escaping CommandHandler) {
        self.name = name
        self.permission = permission
        self.arguments = arguments
        self.unbounded = unbounded
        self.filePath = filePath
        self.handler = handler
    }
}

/// The command table: the one place from which dispatch, `commands`, `notcommands` and the arity and permission
/// errors come.
public struct CommandTable: Sendable {
    /// The commands `commands` lists (to a client with their permission): the available ones.
    public let commands: [CommandSpec]
    /// Every command, sorted: `notcommands` lists those a client lacks the permission for, available or not
    /// (MPD's `PrintUnavailableCommands` does not ask `command_available`).
    public let everyCommand: [CommandSpec]
    /// Every command that dispatches, including the hidden ones.
    private let byName: [String: CommandSpec]
    /// The same commands for dispatch (`Dispatch`), shared.
    let dispatch: Dispatch

    public init(_ groups: [[CommandSpec]]) {
        self.init(groups, hiding: [])
    }

    private init(_ groups: [[CommandSpec]], hiding hidden: Set<String>) {
        let all = groups.flatMap { $0 }.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        var index: [String: CommandSpec] = [:]
        for spec in all {
            precondition(index[spec.name] == nil, "duplicate command \(spec.name)")
            index[spec.name] = spec
        }
        commands = all.filter { !hidden.contains($0.name) }
        everyCommand = all
        byName = index
        dispatch = Dispatch(all)
    }

    public subscript(name: String) -> CommandSpec? { byName[name] }

    /// The table with some commands left out of `commands`/`notcommands` but still answering (MPD's
    /// `command_available`: e.g. `save` says "Stored playlists are disabled" when no playlist directory exists).
    public func hiding(_ names: Set<String>) -> CommandTable {
        CommandTable([Array(byName.values)], hiding: names.union(Set(byName.keys).subtracting(commands.map(\.name))))
    }

    /// `standard` as the settings allow it: without a playlist directory MPD hides its stored-playlist commands,
    /// without a sticker database its sticker commands, and without a neighbor plugin (NoSignal has none)
    /// `listneighbors`.
    public static func standard(for settings: ServerSettings, hasStickers: Bool = true) -> CommandTable {
        var hidden = StorageCommands.hiddenWithoutNeighborPlugin
        if settings.playlistDirectory == nil { hidden.formUnion(StoredPlaylistCommands.hiddenWithoutDirectory) }
        if !hasStickers { hidden.formUnion(StickerCommands.hiddenWithoutStickers) }
        return standard.hiding(hidden)
    }

    /// Every command that NoSignal implements, grouped by protocol section.
    public static let standard = CommandTable([
        StatusCommands.all, PlaybackOptionsCommands.all, ConnectionCommands.all, ReflectionCommands.all,
        MessageCommands.all, DatabaseBrowseCommands.all, QueueCommands.all, DatabaseQueryCommands.all, StickerCommands.all,
        StoredPlaylistCommands.all, PlaybackCommands.all, OutputCommands.all, PartitionCommands.all, StorageCommands.all,
    ])
}

/// The command table for dispatch: open addressing over the commands' names hashed with FNV-1a, each slot an index
/// into `entries` or −1. A class, reached through `ServerContext.dispatch`: looking a command up in the
/// `CommandTable` struct's `[String: CommandSpec]` copied the struct (a retain of each of its arrays), hashed the name
/// with SipHash and copied the row out (a retain of each of its references), a seventh of the instructions a `ping`
/// in a command list costs. Unchecked `Sendable`: its memory is written in `init` only, and read after.
final class Dispatch: @unchecked Sendable {
    /// A command's row, read in place.
    /// The spec's fields that every command line reads are copied out of it: reading them through `spec` copied
    /// the whole spec (retaining and releasing its strings and handler) on every line.
    final class Entry: Sendable {
        let spec: CommandSpec
        /// The command's name, the `String` every request for it carries.
        let name: String
        let handler: CommandHandler
        private let permission: Permission
        private let arguments: ClosedRange<Int>?
        private let unbounded: Bool

        init(_ spec: CommandSpec) {
            self.spec = spec
            name = spec.name
            handler = spec.handler
            permission = spec.permission
            arguments = spec.arguments
            unbounded = spec.unbounded
        }

        /// MPD's `command_check_request`: permission first, then the argument count with its three texts.
        func check(_ request: Request, permission client: Permission) throws(ACKError) {
            guard client.isSuperset(of: permission) else { throw .permissionDenied(name) }
            guard let arguments else { return }
            let count = request.count
            if !unbounded, arguments.lowerBound == arguments.upperBound, count != arguments.lowerBound {
                throw .wrongArgumentCount(name)
            }
            if count < arguments.lowerBound { throw .tooFewArguments(name) }
            if !unbounded, count > arguments.upperBound { throw .tooManyArguments(name) }
        }
    }

    // Read on every command line: kept in memory of their own, not in arrays, whose reads retained and released
    // their storage (four of the ~20 retains and releases of a `ping` in a command list).
    private let slots: UnsafeMutableBufferPointer<Int16>
    private let entries: UnsafeMutableBufferPointer<Entry>
    /// Every command's name, end to end, in `entries`' order; the name of entry `i` is `names[nameEnds[i - 1]..<
    /// nameEnds[i]]` (from 0 for the first).
    private let names: UnsafeMutableBufferPointer<UInt8>
    private let nameEnds: UnsafeMutableBufferPointer<Int>

    init(_ specs: [CommandSpec]) {
        let entries = specs.map(Entry.init)
        self.entries = .allocate(capacity: entries.count)
        _ = self.entries.initialize(from: entries)
        let bytes = entries.flatMap(\.name.utf8)
        names = .allocate(capacity: max(bytes.count, 1))
        _ = names.initialize(from: bytes)
        nameEnds = .allocate(capacity: max(entries.count, 1))
        var end = 0
        for (position, entry) in entries.enumerated() {
            end += entry.name.utf8.count
            nameEnds[position] = end
        }
        // A power of two at least four times the count: probes stay short.
        var count = 16
        while count < specs.count * 4 { count *= 2 }
        slots = .allocate(capacity: count)
        slots.initialize(repeating: -1)
        for (position, entry) in entries.enumerated() {
            var slot = Array(entry.name.utf8).withUnsafeBufferPointer { Self.hash($0) } & (count - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (count - 1) }
            slots[slot] = Int16(position)
        }
    }

    deinit {
        entries.deinitialize().deallocate()
        names.deallocate()
        nameEnds.deallocate()
        slots.deallocate()
    }

    /// The command named `name`.
    func entry(named name: String) -> Entry? {
        var name = name
        return name.withUTF8 { entry(bytes: $0) }
    }

    /// The command whose name is these bytes (a request's, as it came).
    func entry(bytes: UnsafeBufferPointer<UInt8>) -> Entry? {
        let mask = slots.count - 1
        var slot = Self.hash(bytes) & mask
        while true {
            let position = Int(slots[slot])
            guard position >= 0 else { return nil }
            let start = position == 0 ? 0 : nameEnds[position - 1]
            if nameEnds[position] - start == bytes.count,
               bytes.isEmpty || memcmp(names.baseAddress! + start, bytes.baseAddress!, bytes.count) == 0 {
                return entries[position]
            }
            slot = (slot + 1) & mask
        }
    }

    /// FNV-1a.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int(hash)
    }
}
