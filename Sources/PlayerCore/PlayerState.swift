/// Everything one partition owns: its queue, its player and its options. MPD's partitions each have their own.
public struct PartitionState: Equatable, Sendable {
    public var name: String
    public var queue: Queue
    public var player = PlayerStatus()
    public var options = PlaybackOptions()
    /// The mixer volume 0…100, or nil when the partition has no mixer (then `status` has no `volume:`).
    public var volume: Int?
    /// The stored playlist most recently loaded (MPD 0.24 `lastloadedplaylist`).
    public var lastLoadedPlaylist: String?
    /// The partition's outputs in `outputid` order (`outputs`): the configured ones in `default`, and what
    /// `moveoutput` brought or left behind.
    public var outputs: [OutputSlot] = []
    /// What the engine was last told; bookkeeping, not visible to clients.
    public var engine = EngineLink()

    public init(name: String, maximumQueueLength: Int = 16384, volume: Int? = nil) {
        self.name = name
        self.queue = Queue(maximumLength: maximumQueueLength)
        self.volume = volume
    }

    /// The position of the current song, if any.
    @inlinable @inline(__always)
    public var currentPosition: Int? {
        guard let order = player.currentOrder, order < queue.order.count else { return nil }
        return queue.order[order]
    }
}

/// The whole player state: the partitions, `default` first.
public struct PlayerState: Equatable, Sendable {
    public static let defaultPartition = "default"

    public internal(set) var partitions: [PartitionState]

    public init(maximumQueueLength: Int = 16384, volume: Int? = nil) {
        partitions = [PartitionState(name: Self.defaultPartition, maximumQueueLength: maximumQueueLength, volume: volume)]
    }

    public subscript(partition name: String) -> PartitionState? {
        // Through the index: `first(where:)` copied the partition's state (a retain of each of its parts) on the way.
        guard let index = partitions.firstIndex(where: { $0.name == name }) else { return nil }
        return partitions[index]
    }

    /// The state without its queues' songs (their versions and everything else kept): what `changes(since:)`
    /// compares with, taken before an action without sharing the queues' storage.
    public func withoutQueueItems() -> PlayerState {
        var copy = self
        for index in copy.partitions.indices { copy.partitions[index].queue.dropItems() }
        return copy
    }

    /// Moves the state out, leaving no partitions: the caller then holds the only reference to the queues' storage,
    /// so an action edits them in place. (Reducing a copy while the store still held the state copied the whole
    /// queue on every edit: `delete 0` on a 10,000-song queue took 2 ms, MPD 0.13.)
    public mutating func take() -> PlayerState {
        let state = self
        partitions = []
        return state
    }

    func index(of name: String) throws(PlayerError) -> Int {
        guard let index = partitions.firstIndex(where: { $0.name == name }) else { throw .noSuchPartition(name) }
        return index
    }

    mutating func update<T>(_ name: String, _ body: (inout PartitionState) throws(PlayerError) -> T) throws(PlayerError) -> T {
        let i = try index(of: name)
        return try body(&partitions[i])
    }
}
