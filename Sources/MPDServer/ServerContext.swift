import Logging
import MPDProtocol
import PlayerCore
import PlayerRuntime
import ServerPorts
import Synchronization

/// The server-wide services a command may use. Immutable references only, so it is shared freely.
public final class ServerContext: Sendable {
    public let settings: ServerSettings
    public let store: PlayerStore
    /// The music database; nil when no music directory is configured (commands then answer "No database").
    public let database: (any MusicDatabase)?
    /// `find`, `search`, `list`, `count` …; nil without a database.
    public let queries: (any DatabaseQueries)?
    /// The sticker database; nil when there is none (sticker commands answer "sticker database is disabled").
    public let stickers: (any StickerStore)?
    /// Stored playlists; nil without a `playlist_directory`.
    public let playlists: (any PlaylistStore)?
    /// The player and its outputs; nil in tests that need no audio (`outputs` is then empty).
    public let audio: AudioPlayer?
    /// The streaming catalogue (NetEase): share links and `netease://` URIs for `add`, online search; nil when
    /// it is off.
    public let catalog: (any RemoteCatalog)?
    public let clients: ClientRegistry
    public let table: CommandTable
    /// `table`'s commands for dispatch.
    let dispatch: Dispatch
    public let startTime: ContinuousClock.Instant
    public let logger: Logger
    /// Called by `kill`.
    public let requestShutdown: @Sendable () -> Void

    public init(settings: ServerSettings, store: PlayerStore, database: (any MusicDatabase)? = nil,
                queries: (any DatabaseQueries)? = nil, stickers: (any StickerStore)? = nil,
                playlists: (any PlaylistStore)? = nil, audio: AudioPlayer? = nil,
                catalog: (any RemoteCatalog)? = nil, table: CommandTable = .standard, logger: Logger,
                requestShutdown: @escaping @Sendable () -> Void = {}) {
        self.settings = settings
        self.store = store
        self.database = database
        self.queries = queries
        self.stickers = stickers
        self.playlists = playlists
        self.audio = audio
        self.catalog = catalog
        self.table = table
        dispatch = table.dispatch
        self.startTime = .now
        self.logger = logger
        self.requestShutdown = requestShutdown
        let clients = ClientRegistry()
        self.clients = clients
        // State changes become idle events for the clients of the partition they happened in.
        store.observe { changes in
            var byPartition: [String?: IdleSubsystems] = [:]
            for change in changes { byPartition[change.partition, default: []].formUnion(change.idleSubsystems) }
            clients.broadcast(byPartition)
        }
    }
}

/// The connected clients: their idle events, the wake-ups that hand them over, and their client-to-client message
/// channels (`src/client/Subscribe.cxx`, `src/command/MessageCommands.cxx`). A wake-up only enqueues onto the
/// client's own event loop, so it is safe to call from a store observer.
public final class ClientRegistry: Sendable {
    static let maximumSubscriptions = 16
    static let maximumMessages = 64

    /// Tells a client that events wait for it (`takeEvents`).
    public typealias Mailbox = @Sendable () -> Void

    struct Entry {
        var partition: String
        var subscriptions: Set<String> = []
        var messages: [(channel: String, text: [UInt8])] = []
        /// Events broadcast and not yet taken by the client (`takeEvents`).
        var events: IdleSubsystems = []
        let mailbox: Mailbox
    }

    private struct Inner {
        var entries: [Int: Entry] = [:]
        var lastID = 0
    }

    private let inner = Mutex(Inner())
    /// How many times events were recorded (`broadcast`, `send`), counted before they are: a client that has seen
    /// this count has nothing to take, which it learns without the lock (`takeEvents(_:seen:)`, before every
    /// command line). Every write of an entry's `events` must count.
    private let broadcasts = Atomic<Int>(0)

    public init() {}

    public var count: Int { inner.withLock { $0.entries.count } }

    /// Registers a client if fewer than `limit` are connected; returns its id, or nil when full.
    public func register(partition: String, limit: Int = .max, mailbox: @escaping Mailbox) -> Int? {
        inner.withLock { inner in
            guard inner.entries.count < limit else { return nil }
            inner.lastID += 1
            inner.entries[inner.lastID] = Entry(partition: partition, mailbox: mailbox)
            return inner.lastID
        }
    }

    public func unregister(_ id: Int) {
        _ = inner.withLock { $0.entries.removeValue(forKey: id) }
    }

    /// The clients currently in `partition` (`delpartition` refuses while there are any).
    public func count(partition: String) -> Int {
        inner.withLock { $0.entries.values.filter { $0.partition == partition }.count }
    }

    public func setPartition(_ id: Int, _ partition: String) { inner.withLock { $0.entries[id]?.partition = partition } }

    /// Delivers idle flags to every client of `partition` (every client when nil).
    /// Records the events for every client of `partition` (all for nil) and wakes them through their mailboxes.
    /// A client takes what was recorded with `takeEvents` before it reads a command, so a command sent after an
    /// event was broadcast always sees it, however late the wake-up runs.
    public func broadcast(_ flags: IdleSubsystems, partition: String?) {
        broadcast([partition: flags])
    }

    /// Records the events of one change set at once, by partition (nil: every client), and wakes each client once:
    /// a client woken part way through (by `output` before `mixer` of the same `disableoutput`) would answer an idle
    /// with half of them, where MPD answers with both.
    public func broadcast(_ byPartition: [String?: IdleSubsystems]) {
        inner.withLock { inner in
            // Counted first: a client that sees the new count takes the lock, so it waits for what is recorded
            // here; one that saw the old count is woken by its mailbox, called after this.
            broadcasts.add(1, ordering: .sequentiallyConsistent)
            for (key, entry) in inner.entries {
                var flags = byPartition[nil] ?? []
                if let own = byPartition[entry.partition] { flags.formUnion(own) }
                guard !flags.isEmpty else { continue }
                inner.entries[key]?.events.formUnion(flags)
                entry.mailbox()
            }
        }
    }

    /// `takeEvents`, unless no broadcast happened since the client's last look (`seen`, which this updates).
    public func takeEvents(_ id: Int, seen: inout Int) -> IdleSubsystems {
        let count = broadcasts.load(ordering: .sequentiallyConsistent)
        guard count != seen else { return [] }
        seen = count
        return takeEvents(id)
    }

    /// The events broadcast to the client since it last took them.
    public func takeEvents(_ id: Int) -> IdleSubsystems {
        // Through the entry's index, in place: `entries[id]?.events` would copy the whole entry (its partition,
        // subscriptions, messages and mailbox) on every command line.
        inner.withLock { inner in
            guard let index = inner.entries.index(forKey: id) else { return [] }
            var events: IdleSubsystems = []
            swap(&events, &inner.entries.values[index].events)
            return events
        }
    }

    public enum SubscribeResult: Sendable { case ok, invalid, already, full }

    public func subscribe(_ id: Int, to channel: String) -> SubscribeResult {
        guard Self.isValidChannelName(channel) else { return .invalid }
        let (result, partition): (SubscribeResult, String?) = inner.withLock { inner in
            guard var entry = inner.entries[id] else { return (.invalid, nil) }
            guard entry.subscriptions.count < Self.maximumSubscriptions else { return (.full, nil) }
            guard entry.subscriptions.insert(channel).inserted else { return (.already, nil) }
            inner.entries[id] = entry
            return (.ok, entry.partition)
        }
        if let partition { broadcast(.subscription, partition: partition) }
        return result
    }

    public func unsubscribe(_ id: Int, from channel: String) -> Bool {
        let partition: String? = inner.withLock { inner in
            guard inner.entries[id]?.subscriptions.remove(channel) != nil else { return nil }
            return inner.entries[id]?.partition
        }
        guard let partition else { return false }
        broadcast(.subscription, partition: partition)
        return true
    }

    /// The channels anyone in the client's partition is subscribed to, sorted bytewise.
    public func channels(for id: Int) -> [String] {
        inner.withLock { inner in
            guard let partition = inner.entries[id]?.partition else { return [] }
            let all = inner.entries.values.filter { $0.partition == partition }.reduce(into: Set<String>()) {
                $0.formUnion($1.subscriptions)
            }
            return all.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
    }

    /// Queues a message for every subscriber in the sender's partition; false when nobody took it.
    public func send(from id: Int, channel: String, text: [UInt8]) -> Bool {
        inner.withLock { inner in
            guard let partition = inner.entries[id]?.partition else { return false }
            var sent = false
            for (key, var entry) in inner.entries where entry.partition == partition {
                guard entry.subscriptions.contains(channel), entry.messages.count < Self.maximumMessages else {
                    continue
                }
                if entry.messages.isEmpty {
                    broadcasts.add(1, ordering: .sequentiallyConsistent)
                    entry.events.formUnion(.message)
                    entry.mailbox()
                }
                entry.messages.append((channel, text))
                inner.entries[key] = entry
                sent = true
            }
            return sent
        }
    }

    public func takeMessages(_ id: Int) -> [(channel: String, text: [UInt8])] {
        inner.withLock { inner in
            guard let messages = inner.entries[id]?.messages else { return [] }
            inner.entries[id]?.messages = []
            return messages
        }
    }

    /// Letters, digits, `_`, `-`, `.`, `:` (`client_message_valid_channel_name`).
    static func isValidChannelName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: ":")
        }
    }
}
