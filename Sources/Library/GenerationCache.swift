import Synchronization

/// Answers read from the database, kept while it is unchanged: browsing clients ask for the same folders and the
/// same searches again and again (a phone app on every screen it shows), and reading them costs several times
/// printing them. A value is good while `LibraryDatabase.generation` is the value read before the value was read
/// from the database. The cache holds at most `capacity` records (songs or listing entries), only values of at most
/// `largest` records, the least recently used going first.
final class GenerationCache<Key: Hashable & Sendable, Record: Sendable>: Sendable {
    let largest: Int
    let capacity: Int

    private struct Entry {
        var generation: UInt64
        var records: [Record]
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var records = 0
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())

    init(largest: Int, capacity: Int) {
        self.largest = largest
        self.capacity = capacity
    }

    /// The records kept for `key` if they were read at `generation`.
    func value(_ key: Key, generation: UInt64) -> [Record]? {
        state.withLock { state in
            guard var entry = state.entries[key], entry.generation == generation else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry.records
        }
    }

    /// Keeps records read at `generation` (the value before the read began).
    func store(_ records: [Record], for key: Key, generation: UInt64) {
        guard records.count <= largest else { return }
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.records -= old.records.count }
            // Drop what is stale, then the least recently used, until the new value fits.
            for (key, entry) in state.entries where entry.generation != generation {
                state.entries[key] = nil
                state.records -= entry.records.count
            }
            while state.records + records.count > capacity,
                  let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries[oldest.key] = nil
                state.records -= oldest.value.records.count
            }
            state.clock += 1
            state.entries[key] = Entry(generation: generation, records: records, lastUse: state.clock)
            state.records += records.count
        }
    }
}
