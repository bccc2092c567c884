import Synchronization
import PlayerCore

/// Listings of single directories (`lsinfo`) in walk order, kept while the database is unchanged: browsing clients
/// ask for the same folders again and again (a phone app on every screen it shows), and reading and sorting a folder
/// costs several times printing it. An entry is good while `LibraryDatabase.generation` is the value read before it
/// was read from the database; the cache holds at most `capacity` records, small folders only, the least recently
/// used going first.
final class ListingCache: Sendable {
    /// Folders larger than this are printed from the database each time (they would be long to print on an event
    /// loop anyway).
    static let largestFolder = 1000
    static let capacity = 4000

    private struct Entry {
        var generation: UInt64
        var entries: [LibraryEntry]
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var records = 0
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The listing of `uri` if it was read at `generation`.
    func listing(_ uri: String, generation: UInt64) -> [LibraryEntry]? {
        state.withLock { state in
            guard var entry = state.entries[uri], entry.generation == generation else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[uri] = entry
            return entry.entries
        }
    }

    /// Keeps a listing read at `generation` (the value before the read began).
    func store(_ entries: [LibraryEntry], for uri: String, generation: UInt64) {
        guard entries.count <= Self.largestFolder else { return }
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: uri) { state.records -= old.entries.count }
            // Drop what is stale, then the least recently used, until the new listing fits.
            for (key, entry) in state.entries where entry.generation != generation {
                state.entries[key] = nil
                state.records -= entry.entries.count
            }
            while state.records + entries.count > Self.capacity,
                  let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries[oldest.key] = nil
                state.records -= oldest.value.entries.count
            }
            state.clock += 1
            state.entries[uri] = Entry(generation: generation, entries: entries, lastUse: state.clock)
            state.records += entries.count
        }
    }
}
