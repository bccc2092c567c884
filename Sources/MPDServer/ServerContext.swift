import Logging
import MPDProtocol
import PlayerCore
import PlayerRuntime

/// The server-wide services a command may use. Immutable references only, so it is shared freely.
public final class ServerContext: Sendable {
    public let settings: ServerSettings
    public let store: PlayerStore
    public let clients: ClientRegistry
    public let table: CommandTable
    public let startTime: ContinuousClock.Instant
    public let logger: Logger
    /// Called by `kill`.
    public let requestShutdown: @Sendable () -> Void

    public init(settings: ServerSettings, store: PlayerStore, table: CommandTable = .standard, logger: Logger,
                requestShutdown: @escaping @Sendable () -> Void = {}) {
        self.settings = settings
        self.store = store
        self.clients = ClientRegistry()
        self.table = table
        self.startTime = .now
        self.logger = logger
        self.requestShutdown = requestShutdown
    }

    /// Forwards the store's change sets to every client as idle flags, until the store's stream ends.
    public func forwardChanges() async {
        for await changes in await store.changes() {
            var byPartition: [String?: IdleSubsystems] = [:]
            for change in changes { byPartition[change.partition, default: []].formUnion(change.idleSubsystems) }
            for (partition, flags) in byPartition {
                await clients.broadcast(flags, partition: partition)
            }
        }
    }
}

/// Events a session reacts to besides its own input.
public enum SessionEvent: Sendable {
    case idle(IdleSubsystems)
}

/// The connected clients: their idle mailboxes and their client-to-client message channels
/// (`src/client/Subscribe.cxx`, `src/command/MessageCommands.cxx`).
public actor ClientRegistry {
    static let maximumSubscriptions = 16
    static let maximumMessages = 64

    struct Entry {
        var partition: String
        var subscriptions: Set<String> = []
        var messages: [(channel: String, text: String)] = []
        let events: AsyncStream<SessionEvent>.Continuation
    }

    private var entries: [Int: Entry] = [:]
    private var lastID = 0

    public init() {}

    public var count: Int { entries.count }

    /// Reserves a client id and registers its mailbox.
    public func register(partition: String, events: AsyncStream<SessionEvent>.Continuation) -> Int {
        lastID += 1
        entries[lastID] = Entry(partition: partition, events: events)
        return lastID
    }

    public func unregister(_ id: Int) {
        entries[id]?.events.finish()
        entries[id] = nil
    }

    public func setPartition(_ id: Int, _ partition: String) { entries[id]?.partition = partition }

    /// Delivers idle flags to every client of `partition` (every client when nil).
    public func broadcast(_ flags: IdleSubsystems, partition: String?) {
        guard !flags.isEmpty else { return }
        for entry in entries.values where partition == nil || entry.partition == partition {
            entry.events.yield(.idle(flags))
        }
    }

    public enum SubscribeResult: Sendable { case ok, invalid, already, full }

    public func subscribe(_ id: Int, to channel: String) -> SubscribeResult {
        guard var entry = entries[id] else { return .invalid }
        guard Self.isValidChannelName(channel) else { return .invalid }
        guard entry.subscriptions.count < Self.maximumSubscriptions else { return .full }
        guard entry.subscriptions.insert(channel).inserted else { return .already }
        entries[id] = entry
        broadcast(.subscription, partition: entry.partition)
        return .ok
    }

    public func unsubscribe(_ id: Int, from channel: String) -> Bool {
        guard entries[id]?.subscriptions.remove(channel) != nil, let partition = entries[id]?.partition else {
            return false
        }
        broadcast(.subscription, partition: partition)
        return true
    }

    /// The channels anyone in the client's partition is subscribed to, sorted bytewise.
    public func channels(for id: Int) -> [String] {
        guard let partition = entries[id]?.partition else { return [] }
        let all = entries.values.filter { $0.partition == partition }.reduce(into: Set<String>()) {
            $0.formUnion($1.subscriptions)
        }
        return all.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Queues a message for every subscriber in the sender's partition; false when nobody took it.
    public func send(from id: Int, channel: String, text: String) -> Bool {
        guard let partition = entries[id]?.partition else { return false }
        var sent = false
        for (key, var entry) in entries where entry.partition == partition {
            guard entry.subscriptions.contains(channel), entry.messages.count < Self.maximumMessages else { continue }
            if entry.messages.isEmpty { entry.events.yield(.idle(.message)) }
            entry.messages.append((channel, text))
            entries[key] = entry
            sent = true
        }
        return sent
    }

    public func takeMessages(_ id: Int) -> [(channel: String, text: String)] {
        guard let messages = entries[id]?.messages else { return [] }
        entries[id]?.messages = []
        return messages
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
