/// The queue ("current playlist") with MPD's bookkeeping (`src/queue/Queue.hxx`): stable ids, positions, a play
/// order for random mode, per-item versions for `plchanges`, and the queue version.
public struct Queue: Equatable, Sendable {
    public struct Item: Equatable, Sendable {
        public var id: Int
        public var song: Song
        /// The queue version at which this item was last touched (pre-increment, as MPD stores it).
        public var version: UInt32
        public var priority: UInt8
        /// `rangeid`: start and optional end in seconds.
        public var range: ClosedRangeSeconds?

        public init(id: Int, song: Song, version: UInt32, priority: UInt8 = 0, range: ClosedRangeSeconds? = nil) {
            self.id = id
            self.song = song
            self.version = version
            self.priority = priority
            self.range = range
        }
    }

    public struct ClosedRangeSeconds: Equatable, Sendable {
        public var start: Double
        public var end: Double?
    }

    /// Items in position order.
    public private(set) var items: [Item] = []
    /// `order[i]` is the position played i-th; the identity unless random is on.
    public private(set) var order: [Int] = []
    /// Starts at 1 and is bumped once per mutation (`playlist::OnModified`).
    public private(set) var version: UInt32 = 1
    /// The maximum number of items (`max_playlist_length`).
    public var maximumLength: Int
    private var lastID = 0

    public init(maximumLength: Int = 16384) {
        self.maximumLength = maximumLength
    }

    public var count: Int { items.count }
    public var isEmpty: Bool { items.isEmpty }

    public func position(ofID id: Int) -> Int? { items.firstIndex { $0.id == id } }

    /// Appends a song and returns its id. The caller bumps the version once per edit with `modified()`.
    public mutating func append(_ song: Song) throws(PlayerError) -> Int {
        guard items.count < maximumLength else { throw .playlistTooLarge }
        let id = nextID()
        items.append(Item(id: id, song: song, version: version))
        order.append(items.count - 1)
        return id
    }

    /// Ids start at 1, increase, wrap at 4 × the maximum length and skip ids in use (`IdTable`).
    private mutating func nextID() -> Int {
        let limit = max(4 * maximumLength, 1)
        repeat {
            lastID = lastID % limit + 1
        } while items.contains { $0.id == lastID }
        return lastID
    }

    /// Marks one mutation: bumps the version, wrapping as MPD does at 2^31−1 (every item's version resets).
    public mutating func modified() {
        version += 1
        if version >= UInt32(Int32.max) {
            for index in items.indices { items[index].version = 0 }
            version = 1
        }
    }

    public mutating func removeAll() {
        items.removeAll()
        order.removeAll()
    }
}
