import Synchronization

/// Answers read from the database, kept while it is unchanged: browsing clients ask for the same folders and the
/// same searches again and again (a phone app on every screen it shows), and reading them costs several times
/// printing them. A value is good while `LibraryDatabase.generation` is the value read before the value was read
/// from the database. The cache holds at most `capacity` records (songs or listing entries; an empty value counts as
/// one, so that searches finding nothing cannot pile up without bound), only values of at most `largest` records, the
/// least recently used going first.
///
/// All values kept are of one generation (the commit counter only grows): a value read at a newer one drops them
/// all at once, a value read at an older one is not kept. Uses are queued in order, so the least recently used is
/// found at the front of the queue (an entry used again since has a newer stamp there and is passed over), not by
/// a scan of every entry: `add` of a large folder stores a hundred directories one after another. A use of a key
/// leaves its earlier uses in the queue stale; once stale uses outnumber the entries the queue is rebuilt from the
/// live ones. (Before, only evictions dropped them, so while the cache was not full every hit added 72 bytes for
/// good: a 9.5 MB array, 5 MB of it resident, after a crowd of 500 clients' 75,000 `find`s, kept after they left.)
final class GenerationCache<Key: Hashable & Sendable, Record: Sendable>: Sendable {
    let largest: Int
    let capacity: Int

    private struct Entry {
        var records: [Record]
        var lastUse: UInt64
    }

    private struct State {
        var generation: UInt64 = 0
        var entries: [Key: Entry] = [:]
        var records = 0
        var clock: UInt64 = 0
        /// Each use of a key with its stamp, oldest first; a use whose stamp is no longer the entry's is stale.
        var uses: [(key: Key, stamp: UInt64)] = []
        var usesStart = 0

        /// Queues a use of `key` and returns its stamp. Every entry's `lastUse` must be its latest use's stamp (the
        /// caller sets it right after), so that the rebuild here keeps exactly one use per entry.
        mutating func use(_ key: Key) -> UInt64 {
            if uses.count - usesStart >= 2 * entries.count + 64 {
                // Rebuilt from the live uses, in order: at least as many uses again before the next rebuild, so each
                // use is looked at a bounded number of times.
                uses = uses[usesStart...].filter { entries[$0.key]?.lastUse == $0.stamp }
                usesStart = 0
            } else if usesStart > 64, usesStart * 2 > uses.count {
                // The front that evictions passed over.
                uses.removeFirst(usesStart)
                usesStart = 0
            }
            clock += 1
            uses.append((key, clock))
            return clock
        }

        /// The records an entry of `count` records counts for.
        static func weight(_ count: Int) -> Int { max(count, 1) }

        mutating func removeAll(generation: UInt64) {
            self.generation = generation
            entries.removeAll()
            records = 0
            uses.removeAll()
            usesStart = 0
        }

        /// Drops the least recently used entry; false when there is none.
        mutating func evictOldest() -> Bool {
            while usesStart < uses.count {
                let use = uses[usesStart]
                usesStart += 1
                if let entry = entries[use.key], entry.lastUse == use.stamp {
                    entries[use.key] = nil
                    records -= Self.weight(entry.records.count)
                    return true
                }
            }
            return false
        }
    }

    private let state = Mutex(State())

    /// Entries kept and uses queued (for tests: both stay bounded however often values are used).
    var counts: (entries: Int, queuedUses: Int) {
        state.withLock { ($0.entries.count, $0.uses.count - $0.usesStart) }
    }

    init(largest: Int, capacity: Int) {
        self.largest = largest
        self.capacity = capacity
    }

    /// The records kept for `key` if they were read at `generation`.
    func value(_ key: Key, generation: UInt64) -> [Record]? {
        state.withLock { state in
            guard state.generation == generation, let records = state.entries[key]?.records else { return nil }
            state.entries[key]!.lastUse = state.use(key)
            return records
        }
    }

    /// Keeps records read at `generation` (the value before the read began).
    func store(_ records: [Record], for key: Key, generation: UInt64) {
        guard records.count <= largest else { return }
        state.withLock { state in
            if generation != state.generation {
                // Read before a change the kept values already follow: stale itself.
                guard generation > state.generation else { return }
                state.removeAll(generation: generation)
            }
            if let old = state.entries.removeValue(forKey: key) { state.records -= State.weight(old.records.count) }
            let weight = State.weight(records.count)
            while state.records + weight > capacity, state.evictOldest() {}
            let stamp = state.use(key)
            state.entries[key] = Entry(records: records, lastUse: stamp)
            state.records += weight
        }
    }
}
