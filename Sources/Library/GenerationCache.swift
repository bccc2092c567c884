import Synchronization

/// Answers read from the database, kept while it is unchanged: browsing clients ask for the same folders and the
/// same searches again and again (a phone app on every screen it shows), and reading them costs several times
/// printing them. A value is good while `LibraryDatabase.generation` is the value read before the value was read
/// from the database. The cache holds at most `capacity` records (songs or listing entries), only values of at most
/// `largest` records, the least recently used going first.
///
/// All values kept are of one generation (the commit counter only grows): a value read at a newer one drops them
/// all at once, a value read at an older one is not kept. Uses are queued in order, so the least recently used is
/// found at the front of the queue (an entry used again since has a newer stamp there and is passed over), not by
/// a scan of every entry: `add` of a large folder stores a hundred directories one after another.
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

        mutating func use(_ key: Key) -> UInt64 {
            clock += 1
            uses.append((key, clock))
            // Stale uses are dropped once they outnumber the live ones (amortised: each use is moved at most once).
            if usesStart > 64, usesStart * 2 > uses.count {
                uses.removeFirst(usesStart)
                usesStart = 0
            }
            return clock
        }

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
                    records -= entry.records.count
                    return true
                }
            }
            return false
        }
    }

    private let state = Mutex(State())

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
            if let old = state.entries.removeValue(forKey: key) { state.records -= old.records.count }
            while state.records + records.count > capacity, state.evictOldest() {}
            let stamp = state.use(key)
            state.entries[key] = Entry(records: records, lastUse: stamp)
            state.records += records.count
        }
    }
}
