@testable import Library
import Testing

/// `GenerationCache`: values of one database generation, the least recently used going first.
@Suite("Generation cache")
struct GenerationCacheTests {
    @Test func aValueIsKeptForItsGenerationOnly() {
        let cache = GenerationCache<String, Int>(largest: 10, capacity: 100)
        cache.store([1, 2], for: "a", generation: 5)
        #expect(cache.value("a", generation: 5) == [1, 2])
        #expect(cache.value("a", generation: 6) == nil)
        #expect(cache.value("b", generation: 5) == nil)
    }

    @Test func aNewerGenerationDropsEverythingKeptAndAnOlderOneIsNotKept() {
        let cache = GenerationCache<String, Int>(largest: 10, capacity: 100)
        cache.store([1], for: "a", generation: 5)
        cache.store([2], for: "b", generation: 7)
        #expect(cache.value("a", generation: 5) == nil)
        #expect(cache.value("b", generation: 7) == [2])
        // Read before the change that generation 7 follows: stale when it arrives.
        cache.store([3], for: "c", generation: 6)
        #expect(cache.value("c", generation: 6) == nil)
        #expect(cache.value("c", generation: 7) == nil)
        #expect(cache.value("b", generation: 7) == [2])
    }

    @Test func theLeastRecentlyUsedGoesFirst() {
        let cache = GenerationCache<Int, Int>(largest: 4, capacity: 8)
        for key in 0..<4 { cache.store([key, key], for: key, generation: 1) }  // full: 8 records
        _ = cache.value(0, generation: 1)  // 1 is now the oldest
        cache.store([9, 9, 9], for: 9, generation: 1)  // needs 3: drops 1 and 2
        #expect(cache.value(0, generation: 1) == [0, 0])
        #expect(cache.value(1, generation: 1) == nil)
        #expect(cache.value(2, generation: 1) == nil)
        #expect(cache.value(3, generation: 1) == [3, 3])
        #expect(cache.value(9, generation: 1) == [9, 9, 9])
        // Storing a key again replaces its records and makes it the most recent.
        cache.store([3], for: 3, generation: 1)
        cache.store([7, 7, 7], for: 7, generation: 1)  // 6 kept + 3 > 8: drops 0, the oldest use
        #expect(cache.value(0, generation: 1) == nil)
        #expect(cache.value(3, generation: 1) == [3])
        #expect(cache.value(7, generation: 1) == [7, 7, 7])
    }

    @Test func manyUsesKeepTheOrderAndTooLargeValuesAreNotKept() {
        let cache = GenerationCache<Int, Int>(largest: 2, capacity: 20)
        cache.store([1, 2, 3], for: 99, generation: 1)
        #expect(cache.value(99, generation: 1) == nil)
        for key in 0..<10 { cache.store([key], for: key, generation: 1) }
        // Thousands of uses of the keys 1…9 (the queue of uses is compacted on the way); 0 stays the oldest.
        for round in 0..<2000 { _ = cache.value(1 + round % 9, generation: 1) }
        for key in 10..<21 { cache.store([key], for: key, generation: 1) }  // 21 records > 20: one goes
        #expect(cache.value(0, generation: 1) == nil)
        for key in 1..<21 { #expect(cache.value(key, generation: 1) == [key]) }
    }

    @Test func usesAndEmptyValuesStayBoundedWhileTheCacheIsNotFull() {
        let cache = GenerationCache<Int, Int>(largest: 10, capacity: 1000)
        for key in 0..<3 { cache.store([key], for: key, generation: 1) }
        // A client polling the same few folders: the cache never fills, so nothing is evicted.
        for round in 0..<100_000 { _ = cache.value(round % 3, generation: 1) }
        let (entries, queued) = cache.counts
        #expect(entries == 3)
        #expect(queued <= 2 * 3 + 64 + 1, "the queue of uses grew with every hit: \(queued)")
        // The order survives the rebuilds: the last round used 0, then 1 and 2 are used, so 0 is the oldest.
        _ = cache.value(1, generation: 1)
        _ = cache.value(2, generation: 1)
        for key in 3..<1000 { cache.store([key], for: key, generation: 1) }  // 999 records: full
        cache.store([1000], for: 1000, generation: 1)  // one goes: the least recently used, 0
        #expect(cache.value(0, generation: 1) == nil)
        #expect(cache.value(1, generation: 1) == [1])
        #expect(cache.value(2, generation: 1) == [2])

        // Searches that find nothing: each empty value counts as a record, so they cannot pile up.
        let empty = GenerationCache<Int, Int>(largest: 10, capacity: 100)
        for key in 0..<10_000 { empty.store([], for: key, generation: 1) }
        #expect(empty.counts.entries == 100)
        #expect(empty.value(9_999, generation: 1) == [])
        #expect(empty.value(0, generation: 1) == nil)
    }
}
