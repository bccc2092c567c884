/// The queue ("current playlist") with MPD's bookkeeping (`src/queue/Queue.hxx`): stable ids, positions, a play
/// order for random mode, per-item versions for `plchanges`, and the queue version.
///
/// These are the low-level edits (`Queue.cxx`); they never bump the version themselves. The playlist-level rules
/// (the current song, one version bump per command) live in `PartitionState+Queue.swift`.
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

    /// A song's sub-range (`rangeid`, CUE tracks): MPD's start and end time; `end == nil` plays to the end.
    public struct ClosedRangeSeconds: Equatable, Sendable {
        public var start: Double
        public var end: Double?

        public init(start: Double, end: Double?) {
            self.start = start
            self.end = end
        }
    }

    /// Items in position order.
    public internal(set) var items: [Item] = []
    /// `order[i]` is the position played i-th; the identity unless random is on.
    public internal(set) var order: [Int] = []
    /// Starts at 1 and is bumped once per mutation (`playlist::OnModified`).
    public internal(set) var version: UInt32 = 1
    /// MPD's `queue.random`: whether `order` is shuffled. Mirrors `PlaybackOptions.random`.
    public internal(set) var random = false
    /// The maximum number of items (`max_playlist_length`).
    public var maximumLength: Int
    private var lastID = 0
    /// The ids in use (MPD's `IdTable`), so that allocating an id does not scan the queue: a bit per id up to the
    /// largest given (4 × the maximum length). A `Set<Int>` hashed every id twice, a tenth of an `add` of 10,000
    /// songs.
    private var usedIDs = IDBits()
    /// The shuffle generator's state: part of the state so that the reducer stays pure and repeatable.
    var generator: SplitMix64

    public init(maximumLength: Int = 16384, seed: UInt64 = 0x6E6F_7369_676E_616C) {
        self.maximumLength = maximumLength
        generator = SplitMix64(seed: seed)
    }

    @inlinable public var count: Int { items.count }
    public var isEmpty: Bool { items.isEmpty }

    public func position(ofID id: Int) -> Int? { items.firstIndex { $0.id == id } }

    /// The order index of a position (`PositionToOrder`).
    public func order(ofPosition position: Int) -> Int {
        random ? order.firstIndex(of: position)! : position
    }

    /// Reseeds the shuffle generator (the composition root does this once at start with a random seed).
    public mutating func seed(_ seed: UInt64) { generator = SplitMix64(seed: seed) }

    /// Appends a song and returns its id. The caller bumps the version once per edit with `modified()`.
    public mutating func append(_ song: consuming Song, priority: UInt8 = 0) throws(PlayerError) -> Int {
        guard items.count < maximumLength else { throw .playlistTooLarge }
        let id = nextID()
        items.append(Item(id: id, song: song, version: version, priority: priority))
        order.append(items.count - 1)
        return id
    }

    /// Room for `count` more songs, so that appending them does not grow the storage step by step.
    public mutating func reserveCapacity(adding count: Int) {
        let total = items.count + max(0, min(count, maximumLength - items.count))
        items.reserveCapacity(total)
        order.reserveCapacity(total)
    }

    /// Ids start at 1, increase, wrap at 4 × the maximum length and skip ids in use (`IdTable`).
    private mutating func nextID() -> Int {
        let limit = max(4 * maximumLength, 1)
        repeat {
            lastID = lastID % limit + 1
        } while usedIDs.contains(lastID)
        usedIDs.insert(lastID)
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

    /// `plchanges`: changed at or after `since`, reset by a version wrap, or everything for a client from the future.
    public func isNewer(at position: Int, than since: UInt32) -> Bool {
        since > version || items[position].version >= since || items[position].version == 0
    }

    mutating func touch(_ position: Int) { items[position].version = version }

    /// Forgets the songs, keeping the version and options (`PlayerState.withoutQueueItems`).
    mutating func dropItems() {
        items = []
        order = []
        usedIDs = IDBits()
    }

    /// Keeps the storage, as MPD keeps its queue's array (allocated once for `max_playlist_length`): a queue filled
    /// again after `clear` (a client replacing it with an album, a playlist) writes to pages already there instead of
    /// faulting a new megabyte in per 10,000 songs.
    public mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        usedIDs = IDBits()
    }

    // MARK: Edits (`Queue.cxx`)

    mutating func swapPositions(_ a: Int, _ b: Int) {
        items.swapAt(a, b)
        items[a].version = version
        items[b].version = version
    }

    mutating func swapOrders(_ a: Int, _ b: Int) { order.swapAt(a, b) }

    /// `MoveRange`: moves `start..<end` so that it begins at `to`; `order` follows the songs in random mode.
    mutating func moveRange(_ start: Int, _ end: Int, to: Int) {
        let block = Array(items[start..<end])
        items.removeSubrange(start..<end)
        items.insert(contentsOf: block, at: to)
        // Every item that moved, including the ones shifted aside (`MoveItemTo`), is touched.
        for i in min(start, to)..<max(end, to + block.count) { items[i].version = version }
        guard random else { return }
        let count = end - start
        for i in order.indices {
            let o = order[i]
            if o >= end && o < to + count {
                order[i] -= count
            } else if o < start && o >= to {
                order[i] += count
            } else if start <= o && o < end {
                order[i] += to - start
            }
        }
    }

    /// `MoveOrder`: moves one entry of the order list; returns its new order index.
    @discardableResult
    mutating func moveOrder(_ from: Int, _ to: Int) -> Int {
        let position = order.remove(at: from)
        order.insert(position, at: to)
        return to
    }

    /// `MoveOrderBefore`: `from` ends up just before `to`'s entry.
    mutating func moveOrderBefore(_ from: Int, _ to: Int) -> Int {
        moveOrder(from, from < to ? to - 1 : to)
    }

    /// `MoveOrderAfter`: `from` ends up just after `to`'s entry.
    mutating func moveOrderAfter(_ from: Int, _ to: Int) -> Int {
        moveOrder(from, from > to ? to + 1 : to)
    }

    mutating func deletePosition(_ position: Int) {
        let orderIndex = order(ofPosition: position)
        usedIDs.remove(items[position].id)
        items.remove(at: position)
        for i in position..<items.count { items[i].version = version }
        guard random else {
            // The identity order stays the identity: O(1), so deleting a long range from the end is linear.
            order.removeLast()
            return
        }
        order.remove(at: orderIndex)
        for i in order.indices where order[i] > position { order[i] -= 1 }
    }

    /// `RestoreOrder`.
    mutating func restoreOrder() { order = Array(items.indices) }

    mutating func shuffleOrderRange(_ start: Int, _ end: Int) {
        guard end - start > 1 else { return }
        order[start..<end].shuffle(using: &generator)
    }

    /// `ShuffleOrderRangeWithPriority`: groups the range by priority (highest first), then shuffles each group.
    mutating func shuffleOrderRangeWithPriority(_ start: Int, _ end: Int) {
        guard start < end else { return }
        let sorted = stableSorted(order[start..<end]) { items[$0].priority > items[$1].priority }
        order.replaceSubrange(start..<end, with: sorted)
        var groupStart = start
        var groupPriority = items[order[start]].priority
        for i in (start + 1)..<end where items[order[i]].priority != groupPriority {
            shuffleOrderRange(groupStart, i)
            groupStart = i
            groupPriority = items[order[i]].priority
        }
        shuffleOrderRange(groupStart, end)
    }

    /// `ShuffleOrder`.
    mutating func shuffleOrder() { shuffleOrderRangeWithPriority(0, items.count) }

    /// `ShuffleOrderFirst`: swaps `start` with a random entry of `start..<end`.
    mutating func shuffleOrderFirst(_ start: Int, _ end: Int) {
        swapOrders(start, Int.random(in: start..<end, using: &generator))
    }

    /// `ShuffleOrderLastWithPriority`: the last entry goes to a random place within its priority group.
    mutating func shuffleOrderLastWithPriority(_ start: Int, _ end: Int) {
        var start = start
        let lastPriority = items[order[end - 1]].priority
        while items[order[start]].priority != lastPriority { start += 1 }
        swapOrders(end - 1, Int.random(in: start..<end, using: &generator))
    }

    /// `ShuffleRange`: physically permutes positions (the `shuffle` command).
    mutating func shuffleRange(_ start: Int, _ end: Int) {
        for i in start..<end {
            swapPositions(i, Int.random(in: start..<end, using: &generator))
        }
    }

    /// `FindPriorityOrder`.
    func findPriorityOrder(from start: Int, priority: UInt8, excluding exclude: Int) -> Int {
        for i in start..<items.count where items[order[i]].priority <= priority && i != exclude { return i }
        return items.count
    }

    /// `CountSamePriority`.
    func countSamePriority(from start: Int, priority: UInt8) -> Int {
        for i in start..<items.count where items[order[i]].priority != priority { return i - start }
        return items.count - start
    }

    /// `SetPriority`: returns whether anything changed. In random mode a raised priority moves the song right after
    /// `after` (the current song's order index) into its priority group (`test_queue_priority.cxx`).
    mutating func setPriority(at position: Int, _ priority: UInt8, after: Int?) -> Bool {
        let old = items[position].priority
        guard old != priority else { return false }
        items[position].version = version
        items[position].priority = priority
        guard random else { return true }
        let current = order(ofPosition: position)
        if let after {
            if current == after { return true }
            if current < after {
                // Already played: rescheduled only when raised above the current song's priority.
                if priority <= old || priority <= items[order[after]].priority { return true }
            }
        }
        let before = findPriorityOrder(from: (after ?? -1) + 1, priority: priority, excluding: current)
        let newOrder = before > current ? before - 1 : before
        moveOrder(current, newOrder)
        let same = countSamePriority(from: newOrder, priority: priority)
        shuffleOrderFirst(newOrder, newOrder + same)
        return true
    }

    private func stableSorted(_ values: ArraySlice<Int>, by less: (Int, Int) -> Bool) -> [Int] {
        values.enumerated().sorted { a, b in
            if less(a.element, b.element) { return true }
            if less(b.element, a.element) { return false }
            return a.offset < b.offset
        }.map(\.element)
    }
}

/// A small, fast, seedable generator (Steele, Lea, Flood 2014), so that shuffles are part of the pure state.
struct SplitMix64: RandomNumberGenerator, Equatable, Sendable {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A set of small non-negative ids as bits (`Queue`'s ids in use).
struct IDBits: Equatable, Sendable {
    private var words: [UInt64] = []

    func contains(_ id: Int) -> Bool {
        let word = id >> 6
        return word < words.count && words[word] & (1 << UInt64(id & 63)) != 0
    }

    mutating func insert(_ id: Int) {
        let word = id >> 6
        if word >= words.count { words.append(contentsOf: repeatElement(0, count: word - words.count + 1)) }
        words[word] |= 1 << UInt64(id & 63)
    }

    mutating func remove(_ id: Int) {
        let word = id >> 6
        guard word < words.count else { return }
        words[word] &= ~(1 << UInt64(id & 63))
    }

    /// The same ids, however far the words once reached.
    static func == (a: IDBits, b: IDBits) -> Bool {
        let common = min(a.words.count, b.words.count)
        return a.words[..<common] == b.words[..<common] && !a.words[common...].contains { $0 != 0 }
            && !b.words[common...].contains { $0 != 0 }
    }
}
